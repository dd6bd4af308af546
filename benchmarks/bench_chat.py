"""Chat-JSON import: ``convo ingest`` of a Discord, a Slack and a ChatGPT export and of a
one-document OpenAI ``{"messages": [...]}`` file against a bare loop that
``orjson.loads`` the same input and builds and writes the same record dicts.

The bare loop is what a script would do with no checks at all: load the whole document,
make one output dict per message (text, speaker, listeners, time, ids, thread, a few
``extra`` keys) and write it as a JSON line. convo streams the input (flat memory),
validates every record, hashes content ids where needed and writes the same JSONL.

``CONVO_BENCH_BEFORE=/path/to/other/checkout/src``: the OpenAI pair also runs convo from
that source tree in the same alternation (a paired before/after on a loaded machine).
"""

from __future__ import annotations

import os
import random
import resource
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson

TITLE = "Chat-JSON import (Discord, Slack, ChatGPT, OpenAI messages)"

NAMES = ["Alice Smith", "Bob Jones", "Carol Díaz", "Dan Wu", "Émilie Durand", "李雷"]
WORDS = [
    "we", "should", "ship", "the", "auth", "refactor", "before", "the", "release", "and",
    "keep", "the", "session", "tokens", "compatible", "while", "the", "migration", "runs",
    "on", "staging", "next", "week", "café",
]  # fmt: skip
BASE = 1_700_000_000


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 30)))


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")


# -- Discord: one DiscordChatExporter JSON file of about 100 MB


def _discord_author(i: int) -> dict:
    return {
        "id": str(100 + i), "name": NAMES[i].split()[0].lower(), "discriminator": "0000",
        "nickname": NAMES[i], "color": "#ff0000", "isBot": False,
        "roles": [{"id": "7", "name": "Mods", "color": None, "position": 1}],
        "avatarUrl": f"https://cdn.example.org/avatars/{i}.png",
    }  # fmt: skip


def discord(n: int):
    def write(path: Path) -> None:
        rng = random.Random(1)
        authors = [_discord_author(i) for i in range(len(NAMES))]
        with open(path, "wb") as f:
            head = {
                "guild": {"id": "1", "name": "Guild", "iconUrl": ""},
                "channel": {"id": "10", "type": "GuildTextChat", "categoryId": "9",
                            "category": "Text", "name": "general", "topic": None},
                "dateRange": {"after": None, "before": None},
            }  # fmt: skip
            f.write(orjson.dumps(head)[:-1] + b',"messages":[\n')
            for i in range(n):
                a = rng.randrange(len(NAMES))
                m = {
                    "id": str(10**17 + i), "type": "Default", "timestamp": _iso(BASE + i * 7),
                    "timestampEdited": None, "callEndedTimestamp": None, "isPinned": False,
                    "content": _text(rng), "author": authors[a], "attachments": [],
                    "embeds": [], "stickers": [], "reactions": [], "mentions": [],
                }  # fmt: skip
                if i % 5 == 0:
                    b = (a + 1) % len(NAMES)
                    m["mentions"] = [authors[b]]
                    m["content"] = f"@{NAMES[b]} " + m["content"]
                if i % 11 == 0:
                    m["reactions"] = [{"emoji": {"id": None, "name": "👍"}, "count": 2}]
                if i % 4 == 1:
                    m["type"] = "Reply"
                    m["reference"] = {"messageId": str(10**17 + i - 1), "channelId": "10"}
                f.write((b",\n" if i else b"") + orjson.dumps(m))
            f.write(b"\n],\n" + b'"messageCount":' + str(n).encode() + b"}\n")

    return write


DISCORD_BARE = r"""
import sys, orjson
doc = orjson.loads(open(sys.argv[1], "rb").read())
out = sys.stdout.buffer
thread = doc["channel"]["name"]
guild = {"guild": doc["guild"]["name"], "channel_id": doc["channel"]["id"]}
for i, m in enumerate(doc["messages"], 1):
    a = m["author"]
    speaker = a.get("nickname") or a["name"]
    rec = {
        "textChunks": [m["content"]],
        "metadata": {"speaker": speaker, "listeners": [
            x.get("nickname") or x["name"] for x in m["mentions"]
            if (x.get("nickname") or x["name"]) != speaker]},
        "tags": [], "timestamp": m["timestamp"][:19] + "Z",
        "source_id": f"{sys.argv[1]}#msg-{i}", "id": "discord:" + m["id"],
        "format": "discord", "thread": thread,
    }
    ref = m.get("reference")
    if ref:
        rec["replyTo"] = "discord:" + ref["messageId"]
    extra = {"type": m["type"], **guild, "author_id": a["id"], "timestamp": m["timestamp"]}
    if m["reactions"]:
        extra["reactions"] = [{"emoji": r["emoji"]["name"], "count": r["count"]}
                              for r in m["reactions"]]
    if ref:
        extra["reference"] = ref
    rec["extra"] = extra
    out.write(orjson.dumps(rec) + b"\n")
"""


# -- Slack: an export folder with 200k messages in day files


def slack(n: int):
    def write(root: Path) -> None:
        rng = random.Random(2)
        root.mkdir()
        users = [{"id": f"U{i:08d}", "name": x.split()[0].lower(),
                  "profile": {"real_name": x, "display_name": x}} for i, x in enumerate(NAMES)]  # fmt: skip
        channels = [{"id": f"C{c:08d}", "name": f"chan{c}", "created": BASE, "members": []}
                    for c in range(4)]  # fmt: skip
        (root / "users.json").write_bytes(orjson.dumps(users))
        (root / "channels.json").write_bytes(orjson.dumps(channels))
        per_day = 500
        for d in range(0, n, per_day):
            c = (d // per_day) % 4
            day = datetime.fromtimestamp(BASE + d * 60, UTC).strftime("%Y-%m-%d")
            folder = root / f"chan{c}"
            folder.mkdir(exist_ok=True)
            msgs = []
            for i in range(d, min(n, d + per_day)):
                u = rng.randrange(len(NAMES))
                text = _text(rng)
                if i % 5 == 0:
                    text = f"<@U{(u + 1) % len(NAMES):08d}> {text} <https://example.org|link>"
                msgs.append({"type": "message", "user": f"U{u:08d}", "text": text,
                             "ts": f"{BASE + i * 60}.{i % 1000000:06d}", "team": "T1",
                             "user_team": "T1", "blocks": []})  # fmt: skip
            path = folder / f"{day}.json"
            if path.exists():  # one day in one channel: append to the day's array
                msgs = orjson.loads(path.read_bytes()) + msgs
            path.write_bytes(orjson.dumps(msgs, option=orjson.OPT_INDENT_2))

    return write


SLACK_BARE = r"""
import sys, orjson, re
from pathlib import Path
from datetime import datetime, timezone
root = Path(sys.argv[1])
users = {u["id"]: u["profile"]["display_name"]
         for u in orjson.loads((root / "users.json").read_bytes())}
chans = {c["name"]: c["id"] for c in orjson.loads((root / "channels.json").read_bytes())}
ref = re.compile(r"<([^<>\n]+)>")
out = sys.stdout.buffer
def label(m):
    target, _, text = m[1].partition("|")
    if target.startswith("@"):
        return "@" + users.get(target[1:], target[1:])
    return f"{text} ({target})" if text else target
for path in sorted(root.glob("*/*.json")):
    chan = path.parent.name
    cid = chans[chan]
    for i, m in enumerate(orjson.loads(path.read_bytes()), 1):
        raw = m["text"]
        speaker = users.get(m["user"])
        mentioned = [users.get(u[1:], u[1:]) for u in ref.findall(raw) if u.startswith("@")]
        text = ref.sub(label, raw)
        ts = datetime.fromtimestamp(float(m["ts"]), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        extra = {"ts": m["ts"], "channel_id": cid, "channel_type": "channel",
                 "user_id": m["user"]}
        if raw != text:
            extra["raw_text"] = raw
        out.write(orjson.dumps({
            "textChunks": [text],
            "metadata": {"speaker": speaker,
                         "listeners": [x for x in mentioned if x != speaker]},
            "tags": [], "timestamp": ts, "source_id": f"{path}#{i}",
            "id": f"slack:{cid}:{m['ts']}", "format": "slack", "thread": chan, "extra": extra,
        }) + b"\n")
"""


# -- ChatGPT: conversations.json of about 50 MB


def chatgpt(convs: int):
    def write(path: Path) -> None:
        rng = random.Random(3)
        with open(path, "wb") as f:
            f.write(b"[")
            for c in range(convs):
                mapping = {"root": {"id": "root", "message": None, "parent": None,
                                    "children": ["n0"]}}  # fmt: skip
                turns = rng.randint(6, 30)
                for k in range(turns):
                    role = "user" if k % 2 == 0 else "assistant"
                    mapping[f"n{k}"] = {
                        "id": f"n{k}", "parent": f"n{k - 1}" if k else "root",
                        "children": [f"n{k + 1}"] if k + 1 < turns else [],
                        "message": {
                            "id": f"m{c}-{k}", "author": {"role": role, "name": None,
                                                          "metadata": {}},
                            "create_time": BASE + c * 3600 + k * 30, "update_time": None,
                            "content": {"content_type": "text",
                                        "parts": [" ".join(_text(rng) for _ in range(4))]},
                            "status": "finished_successfully", "end_turn": True, "weight": 1.0,
                            "metadata": {"model_slug": "gpt-4o" if role == "assistant" else None},
                            "recipient": "all",
                        },
                    }  # fmt: skip
                conv = {"title": f"Conversation {c}", "create_time": BASE + c * 3600,
                        "update_time": BASE + c * 3600 + 900, "mapping": mapping,
                        "current_node": f"n{turns - 1}", "conversation_id": f"conv-{c}",
                        "id": f"conv-{c}"}  # fmt: skip
                f.write((b",\n" if c else b"") + orjson.dumps(conv))
            f.write(b"]\n")

    return write


CHATGPT_BARE = r"""
import sys, orjson
from datetime import datetime, timezone
out = sys.stdout.buffer
for c, conv in enumerate(orjson.loads(open(sys.argv[1], "rb").read()), 1):
    mapping = conv["mapping"]
    node, path = conv["current_node"], []
    while node:
        path.append(mapping[node])
        node = mapping[node]["parent"]
    prev = None
    for node in reversed(path):
        msg = node["message"]
        if not msg:
            continue
        role = msg["author"]["role"]
        rid = "chatgpt:" + msg["id"]
        ts = datetime.fromtimestamp(msg["create_time"], timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        rec = {
            "textChunks": msg["content"]["parts"],
            "metadata": {"speaker": role,
                         "listeners": ["assistant" if role == "user" else "user"]},
            "tags": [], "timestamp": ts, "source_id": f"{sys.argv[1]}#conv-{c}-{node['id']}",
            "id": rid, "format": "chatgpt", "thread": conv["conversation_id"],
        }
        if prev:
            rec["replyTo"] = prev
        rec["role"] = role
        rec["subject"] = conv["title"]
        extra = {"node": node["id"], "content_type": "text"}
        if msg["metadata"].get("model_slug"):
            extra["model"] = msg["metadata"]["model_slug"]
        extra["create_time"] = msg["create_time"]
        rec["extra"] = extra
        out.write(orjson.dumps(rec) + b"\n")
        prev = rid
"""


# -- OpenAI: one {"messages": [...]} document of 200k chat messages (about 28 MB)


def openai_messages(n: int):
    def write(path: Path) -> None:
        rng = random.Random(4)
        with open(path, "wb") as f:
            f.write(b'{"messages": [\n')
            for i in range(n):
                role = "system" if i == 0 else ("user" if i % 2 else "assistant")
                m = {"role": role, "content": _text(rng)}
                f.write((b",\n" if i else b"") + orjson.dumps(m))
            f.write(b"\n]}\n")

    return write


OPENAI_BARE = r"""
import sys, orjson
out = sys.stdout.buffer
other = {"user": ["assistant"], "assistant": ["user"]}
for i, m in enumerate(orjson.loads(open(sys.argv[1], "rb").read())["messages"], 1):
    role = m["role"]
    out.write(orjson.dumps({
        "textChunks": [m["content"]],
        "metadata": {"speaker": m.get("name") or role, "listeners": other.get(role, [])},
        "tags": [], "timestamp": "1970-01-01T00:00:00Z",
        "source_id": f"{sys.argv[1]}#msg-{i}", "format": "openai", "role": role,
    }) + b"\n")
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _pair(
    h,
    name: str,
    path: Path,
    bare: str,
    what: str,
    target: float = 2.0,
    peak: float | None = None,
    with_before: bool = False,
) -> dict[str, float]:
    """convo and the bare loop, alternately (a pair per round, medians), with CPU seconds
    (returned: the mean of a run, per command); ``with_before``: convo from
    ``$CONVO_BENCH_BEFORE`` too, when set."""
    rounds = 3
    argv = {
        "convo": [h.convo(), "ingest", str(path), "-o", "-", "--quiet"],
        "bare": [sys.executable, "-c", bare, str(path)],
    }
    labels = {
        "convo": f"{name}: convo ingest {what} -o - (stdout discarded)",
        "bare": f"{name}: bare orjson.loads + record dicts + orjson.dumps",
    }
    env: dict[str, dict[str, str]] = {}
    if before_src := (os.environ.get("CONVO_BENCH_BEFORE") if with_before else None):
        argv["before"] = argv["convo"]
        labels["before"] = f"{name}: convo ingest, before (`{before_src}`)"
        env["before"] = {"PYTHONPATH": before_src}
    cpu = dict.fromkeys(argv, 0.0)
    seconds: dict[str, list[float]] = {k: [] for k in argv}
    cpus: dict[str, list[float]] = {k: [] for k in argv}
    peaks = dict.fromkeys(argv, 0.0)
    kind = None
    for _ in range(rounds):
        for key in argv:
            before = _cpu()
            m = h.time_cmd(labels[key], argv[key], repeat=1, env=env.get(key))
            h.section.measures.pop()
            cpu[key] += _cpu() - before
            seconds[key] += m.seconds
            cpus[key] += m.cpu
            peaks[key] = max(peaks[key], m.peak_rss_mb)
            kind = type(m)
    assert kind is not None
    measures = {k: kind(labels[k], seconds[k], peaks[k], cpu=cpus[k]) for k in seconds}
    h.section.measures += measures.values()
    if "before" in measures:
        h.row(f"{name}: this commit vs before (CPU user+sys; wall)",
              f"{cpu['convo'] / cpu['before']:.2f}×; "
              f"{measures['convo'].median / measures['before'].median:.2f}×", "", None)  # fmt: skip
    h.compare(f"{name} ingest vs the bare loop (wall)", measures["convo"], measures["bare"],
              target=target)  # fmt: skip
    ratio = cpu["convo"] / cpu["bare"]
    h.row(f"{name} ingest vs the bare loop (CPU user+sys)", f"{ratio:.2f}×", f"≤ {target:.1f}×",
          ratio <= target)  # fmt: skip
    h.row(f"{name} peak RSS, convo vs bare", f"{peaks['convo']:.0f} MB vs {peaks['bare']:.0f} MB",
          f"convo ≤ {peak:.0f} MB" if peak else "convo flat",
          peaks["convo"] <= peak if peak else None)  # fmt: skip
    return {k: v / rounds for k, v in cpu.items()}


def _without_startup(h, name: str, bare: str, cpu: dict[str, float], target: float) -> None:
    """The CPU ratio with each command's start-up taken out: both run on a one-message
    document (3 runs, median CPU), and that is subtracted from the pair's mean CPU."""
    tiny = h.data("openai-1.json", openai_messages(1))
    argv = {
        "convo": [h.convo(), "ingest", str(tiny), "-o", "-", "--quiet"],
        "bare": [sys.executable, "-c", bare, str(tiny)],
    }
    start = {}
    for key in ("convo", "bare"):
        m = h.time_cmd(f"{name}: {key} on a one-message document (start-up)", argv[key])
        start[key] = statistics.median(m.cpu)
    ratio = (cpu["convo"] - start["convo"]) / max(cpu["bare"] - start["bare"], 1e-9)
    h.row(f"{name}: start-up CPU, convo vs bare", f"{start['convo']:.2f} s vs {start['bare']:.2f} s",
          "", None)  # fmt: skip
    h.row(f"{name} ingest vs the bare loop, start-up taken out (CPU)", f"{ratio:.2f}×",
          f"≤ {target:.1f}×", ratio <= target)  # fmt: skip


def _stages(h, path: Path, n: int) -> None:
    """Where convo's CPU goes on the one-document file, in this process (median of 3):
    the JSON passes alone (the top-level skim, then the elements), the reader (those
    passes and a record a message), the reader and the ``Finisher`` (content id, type
    check, numbering), then the JSONL lines too (serialize, orjson)."""
    import time

    from convo.core.io import Source
    from convo.importers.context import ImportContext, ImportOptions
    from convo.importers.jsoninput import JsonArray
    from convo.importers.registry import registry
    from convo.pipeline.ingest import Finisher
    from convo.store.lines import jsonl_line

    fmt = registry.get("openai")

    def passes() -> None:
        with open(path, "rb") as f:
            for _ in JsonArray(f, None, where="x", skip=("messages",)):
                pass
        with open(path, "rb") as f:
            for _ in JsonArray(f, ("messages",), where="x").values():
                pass

    def read(finish: bool, lines: bool) -> None:
        source = Source(str(path))
        ctx = ImportContext(source, ImportOptions())
        finisher = Finisher(fmt.name, source.name, [])
        for msg in fmt.read(source, ctx):
            if finish:
                msg = finisher(msg)
            if lines:
                jsonl_line(msg)

    cpu: dict[str, list[float]] = {"passes": [], "reader": [], "finished": [], "lines": []}
    for _ in range(3):
        for key, fn in (
            ("passes", passes),
            ("reader", lambda: read(False, False)),
            ("finished", lambda: read(True, False)),
            ("lines", lambda: read(True, True)),
        ):
            c0 = time.process_time()
            fn()
            cpu[key].append(time.process_time() - c0)
    med = {k: statistics.median(v) for k, v in cpu.items()}
    us = {k: v / n * 1e6 for k, v in med.items()}
    h.row(
        "OpenAI messages: where convo's CPU goes, per message (in-process)",
        f"JSON passes {us['passes']:.1f} µs, the record {us['reader'] - us['passes']:.1f} µs, "
        f"finishing {us['finished'] - us['reader']:.1f} µs, the line "
        f"{us['lines'] - us['finished']:.1f} µs; {med['lines']:.2f} s in all",
        "",
        None,
    )


def run(h) -> None:
    n_discord = h.scale(170_000)
    d = h.data(f"discord-{n_discord}.json", discord(n_discord))
    _pair(h, "Discord", d, DISCORD_BARE, f"({d.stat().st_size / 1e6:.0f} MB)")
    n_slack = h.scale(200_000)
    s = h.data(f"slack-{n_slack}", slack(n_slack))
    _pair(h, "Slack", s, SLACK_BARE, f"({n_slack:,} messages)")
    n_conv = h.scale(3_700)
    c = h.data(f"chatgpt-{n_conv}.json", chatgpt(n_conv))
    _pair(h, "ChatGPT", c, CHATGPT_BARE, f"({c.stat().st_size / 1e6:.0f} MB)")
    n_openai = h.scale(200_000)
    o = h.data(f"openai-{n_openai}.json", openai_messages(n_openai))
    cpu = _pair(h, "OpenAI messages", o, OPENAI_BARE, f"({n_openai:,} messages, one document)",
                target=3.0, peak=100, with_before=True)  # fmt: skip
    _without_startup(h, "OpenAI messages", OPENAI_BARE, cpu, 3.0)
    _stages(h, o, n_openai)
    h.note(
        "Each pair runs alternately, 3 rounds; wall times are medians, CPU seconds are "
        "summed over the rounds (less disturbed by machine load). convo streams the input "
        "(memory flat with input size) where the bare loop loads it whole."
    )
    h.note(
        "OpenAI messages: the bare loop writes no `id`; convo gives each message its "
        "content hash (`core.record.content_id`, part of finishing) and counts repeats "
        "in bounded memory (`core.counts`). The document is read in two passes (its "
        "top-level members first, the messages skimmed, so that members after the "
        "array reach the first message), each element parsed by orjson. Start-up "
        "(typer, the record, the pipeline and the format modules whose gates admit the "
        "head imported; no pydantic: docs/startup.md) is measured on a one-message "
        "document and taken out in the row that says so."
    )
    h.note(
        "OpenAI messages, what is left above the bare loop: the plain `{role, content: "
        "text}` message is made in one call and marked typed "
        "(`importers.agents.finish.plain_message`), so finishing does not check its types "
        "again; the rest is start-up (the start-up row: typer and convo's own modules; "
        "the record no longer imports pydantic, `core/record_model.py`; docs/startup.md), "
        "the skim of the array (its runs of objects checked by orjson and dropped, "
        "`core.jsonstream.JsonArray._skip_array`) and, per message, the content hash "
        "(`core.record.content_id`: blake2b of the format, conversation, speaker, time "
        "and text) and its occurrence counter (`core.counts.Counts.next`: one dict "
        "lookup a new key), the record and its JSONL line (the stages row). A typed chat "
        "message is finished in one call (`pipeline.ingest.Finisher._typed`)."
    )
