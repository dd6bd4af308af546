"""Email: ``convo ingest big.mbox`` against bare ``mailbox.mbox`` loops (compat32, default)."""

from __future__ import annotations

import base64
import quopri
import random
import resource
import sys
from pathlib import Path

TITLE = "Email (mbox)"
MESSAGES = 100_000

NAMES = [
    ("Alice Smith", "alice@example.org"),
    ("Bob Jones", "bob@example.org"),
    ("Carol Díaz", "carol@example.org"),
    ("Dmitri Ivanov", "dmitri@example.net"),
    ("Émilie Durand", "emilie@example.fr"),
    ("李雷", "lilei@example.cn"),
]
WORDS = [
    "the",
    "auth",
    "refactor",
    "JWT",
    "sessions",
    "release",
    "token",
    "cache",
    "database",
    "migration",
    "review",
    "deploy",
    "friday",
    "rollback",
    "metrics",
    "latency",
    "design",
    "proposal",
    "schedule",
    "changelog",
    "café",
]


def _addr(i: int) -> str:
    name, addr = NAMES[i % len(NAMES)]
    if name.isascii():
        return f"{name} <{addr}>"
    enc = base64.b64encode(name.encode()).decode()
    return f"=?utf-8?b?{enc}?= <{addr}>"


def _text(rng: random.Random, n: int) -> str:
    lines = []
    for _ in range(n):
        lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))))
    return "\n".join(lines)


def _message(i: int, rng: random.Random) -> str:
    thread = i - i % 5
    day = 1 + i % 28
    head = [
        f"From {NAMES[i % 6][1]} Mon Mar {day:2d} 10:{i % 60:02d}:00 2024",
        f"From: {_addr(i)}",
        f"To: {_addr(i + 1)}, {_addr(i + 2)}",
        *([f"Cc: {_addr(i + 3)}"] if i % 3 == 0 else []),
        f"Subject: {'Re: ' if i % 5 else ''}"
        + ("=?utf-8?q?Caf=C3=A9_plans?=" if i % 7 == 0 else f"Topic {thread}"),
        f"Date: Mon, {day} Mar 2024 10:{i % 60:02d}:00 +0100",
        f"Message-ID: <m{i}@example.org>",
        *(
            [f"In-Reply-To: <m{i - 1}@example.org>", f"References: <m{thread}@example.org>"]
            if i % 5
            else []
        ),
        "MIME-Version: 1.0",
    ]
    body = _text(rng, rng.randint(3, 12))
    kind = i % 4
    if kind == 0:
        head.append("Content-Type: text/plain; charset=utf-8")
        return "\n".join(head) + "\n\n" + body + "\n"
    if kind == 1:
        qp = quopri.encodestring(body.encode("utf-8")).decode()
        head += [
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
        ]
        return "\n".join(head) + "\n\n" + qp + "\n"
    if kind == 2:
        html = "<html><body><p>" + body.replace("\n", "</p><p>") + "</p></body></html>"
        head.append('Content-Type: multipart/alternative; boundary="alt"')
        return (
            "\n".join(head)
            + "\n\n--alt\nContent-Type: text/plain; charset=utf-8\n\n"
            + body
            + "\n--alt\nContent-Type: text/html; charset=utf-8\n\n"
            + html
            + "\n--alt--\n"
        )
    b64 = base64.encodebytes(body.encode("utf-8")).decode()
    att = base64.encodebytes(rng.randbytes(600)).decode()
    head.append('Content-Type: multipart/mixed; boundary="mix"')
    return (
        "\n".join(head)
        + "\n\n--mix\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
        + b64
        + '\n--mix\nContent-Type: application/octet-stream; name="data.bin"\n'
        + 'Content-Disposition: attachment; filename="data.bin"\nContent-Transfer-Encoding: base64\n\n'
        + att
        + "\n--mix--\n"
    )


def _slow_message(i: int, rng: random.Random) -> str:
    """A message the fast path leaves to the standard library: an RFC 2231 parameter
    (the attachment's file name, else an extra parameter of the text part)."""
    text = _message(i, rng)
    if 'filename="data.bin"' in text:
        return text.replace('filename="data.bin"', "filename*=utf-8''r%C3%A9sum%C3%A9.bin")
    return text.replace(
        "Content-Type: text/plain; charset=utf-8",
        "Content-Type: text/plain; charset=utf-8; x-origin*=utf-8''caf%C3%A9",
        1,
    )


def _forward_message(i: int, rng: random.Random) -> str:
    """A message the fast path leaves to the standard library: a forward, its original
    (a multipart: alternative or mixed) attached as message/rfc822."""
    inner = _message(4 * (i // 4) + 2 + i % 2, rng).split("\n", 1)[1]  # no "From " line
    head = _message(i, rng).split("\n\n", 1)[0]
    head = "\n".join(x for x in head.split("\n") if not x.startswith("Content-"))
    return (
        head + '\nContent-Type: multipart/mixed; boundary="fwd"\n\n--fwd\n'
        "Content-Type: text/plain; charset=utf-8\n\nSee below.\n--fwd\n"
        "Content-Type: message/rfc822\n\n" + inner + "\n--fwd--\n"
    )


def generate(n: int, message=_message):
    def write(path: Path) -> None:
        rng = random.Random(42)
        with open(path, "w", encoding="utf-8") as f:
            for i in range(n):
                f.write(message(i, rng))
                f.write("\n")

    return write


# (a) and (b): what a script using the standard library directly would do.
COMPAT32 = r"""
import mailbox, sys
n = 0
for msg in mailbox.mbox(sys.argv[1], create=False):
    for h in ("From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To", "References"):
        msg.get(h)
    text = ""
    for part in msg.walk():
        if part.get_content_type() == "text/plain":
            data = part.get_payload(decode=True) or b""
            text = data.decode(part.get_content_charset() or "utf-8", "replace")
            break
    n += 1
print(n)
"""

DEFAULT = r"""
import email, email.policy, mailbox, sys
def factory(f):
    return email.message_from_binary_file(f, policy=email.policy.default)
n = 0
for msg in mailbox.mbox(sys.argv[1], factory=factory, create=False):
    for h in ("From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To", "References"):
        msg.get(h)
    body = msg.get_body(preferencelist=("plain", "html"))
    text = body.get_content() if body is not None else ""
    n += 1
print(n)
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(h, cpu: dict[str, float], key: str, label: str, argv: list[str], repeat: int):
    """h.time_cmd, plus the children's CPU seconds per run (steady under machine load)."""
    before = _cpu()
    m = h.time_cmd(label, argv, repeat=repeat)
    cpu[key] = (_cpu() - before) / repeat
    return m


def run(h) -> None:
    n = h.scale(MESSAGES)
    path = h.data(f"email-{n}.mbox", generate(n))
    size = path.stat().st_size / (1 << 20)
    repeat = 3
    cpu: dict[str, float] = {}
    convo = _timed(
        h, cpu, "convo", f"convo ingest ({n:,} messages, {size:.0f} MB) -o - (stdout discarded)",
        [h.convo(), "ingest", str(path), "-o", "-", "--quiet"], repeat,
    )  # fmt: skip
    a = _timed(
        h, cpu, "a", "(a) mailbox.mbox + compat32: headers and text part",
        [sys.executable, "-c", COMPAT32, str(path)], repeat,
    )  # fmt: skip
    b = _timed(
        h, cpu, "b", "(b) mailbox.mbox + email.policy.default",
        [sys.executable, "-c", DEFAULT, str(path)], 1,
    )  # fmt: skip
    h.note(
        f"CPU seconds (user+sys) per run, which machine load disturbs less than wall time: "
        f"convo {cpu['convo']:.1f}, (a) {cpu['a']:.1f}, (b) {cpu['b']:.1f}; "
        f"convo/(a) = {cpu['convo'] / cpu['a']:.2f}×, (b)/convo = {cpu['b'] / cpu['convo']:.1f}×."
    )
    h.compare("convo ingest vs (a) compat32 loop", convo, a, target=1.5)
    h.compare("convo ingest vs (b) policy.default loop", convo, b, target=15, faster=True)
    h.memory("convo ingest peak memory", convo, limit_mb=100)
    for key, kind, message in (
        ("rfc2231", "an RFC 2231 parameter in every message (a non-ASCII file name)",
         _slow_message),
        ("stdlib", "every message a forward of a multipart (message/rfc822), on the standard-library path",
         _forward_message),
    ):  # fmt: skip
        other = h.data(f"email-{key}-{n}.mbox", generate(n, message))
        oc = _timed(
            h, cpu, key, f"convo ingest, {kind}",
            [h.convo(), "ingest", str(other), "-o", "-", "--quiet"], repeat,
        )  # fmt: skip
        oa = _timed(
            h, cpu, key + "_a", "(a) compat32 loop on the same mbox",
            [sys.executable, "-c", COMPAT32, str(other)], repeat,
        )  # fmt: skip
        h.compare(f"convo ingest vs (a), {kind}", oc, oa, target=1.5)
        h.note(
            f"{kind.capitalize()}, CPU seconds: convo {cpu[key]:.1f}, (a) "
            f"{cpu[key + '_a']:.1f}; {cpu[key] / cpu[key + '_a']:.2f}×."
        )
    h.note(
        "convo does more than (a): it decodes every address and RFC 2047 header, parses the "
        "date, handles HTML-only mail, lists attachments and writes JSONL. (a) and (b) "
        "only read the headers and the first text/plain part."
    )
