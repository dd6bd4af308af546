# ruff: noqa: SIM905
"""Query speed on a 1M-record store: convo against ``jq -c 'select(...)'`` with the same meaning.

The generated store is realistic (speakers ``"Name <addr>"``, listeners, tags, years of
timestamps, 1-3 chunks, some subjects, some non-ASCII text) but chosen so that a simple jq
expression means exactly what convo's filter means:

- ``--speaker Quinn``: "Quinn" is only ever a first name, so convo's whole-word rule equals
  jq's case-insensitive word test on the speaker.
- ``--tag urgent``: tags are lower-case ASCII, so case-insensitive equality is ``==``.
- ``--since 2018-01-01``: timestamps are all ``YYYY-MM-DDTHH:MM:SSZ``; string order is time.
- ``--text budget``: text is ASCII words plus non-ASCII letters that do not case-fold to
  ASCII (no ß, no ligatures), so jq's case-insensitive ``test`` of the ASCII word equals
  convo's casefold substring test over subject and chunks. (``ascii_downcase`` +
  ``contains`` means the same but is about 8× slower in jq 1.6; the fast form is used.)

Each pair's outputs are compared byte for byte (hashes) in the same run.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import subprocess
import sys
from pathlib import Path

import orjson

TITLE = "Query: convo vs jq on a 1M-record store"

FIRST = [
    *(
        "Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert "
        "Sybil Trent Victor Walter Yolanda Zoe Aaron Bianca Chen Dmitri Elena Farah Gustav Hana "
        "Igor Jonas Kaito Lena Marta Nadia Oscar Pavel Rosa Sven Tomas Ulla Vera Wen Ximena Yuki"
    ).split(),
    "José",
    "Zoë",
    "Søren",
    "Łukasz",
    "Ana-María",
]
LAST = [
    *(
        "Smith Jones Baker Young King Wright Lopez Hill Scott Green Adams Nelson Carter Mitchell "
        "Perez Roberts Turner Phillips Campbell Parker Evans Edwards Collins Stewart Morris"
    ).split(),
    "Müller",
    "Núñez",
    "Ødegaard",
    "Dvořák",
]
TAGS = (
    "security architecture planning bug release ops design frontend backend infra "
    "hiring budget-review standup retro docs"
).split()
WORDS = [
    *(
        "we should ship the new build after the review and then check metrics on the dashboard "
        "because latency went up last week when traffic spiked during the migration of the "
        "database cluster to the new region so please confirm owners and deadlines for each task "
        "Budget forecast quarter roadmap customer incident postmortem deploy rollback feature flag"
    ).split(),
    "café",
    "naïve",
    "résumé",
    "über",
    "日本語",
    "emoji 🎉",
    "façade",
    "Ελληνικά",
]

SPEAKER = "Quinn"
TAG = "urgent"
SINCE = "2018-01-01"
TEXT = "budget"

JQ = {
    "speaker": r'select(.metadata.speaker | test("(^|\\W)quinn(\\W|$)"; "i"))',
    "tag": f'select(.tags | any(. == "{TAG}"))',
    "since": f'select(.timestamp >= "{SINCE}T00:00:00Z")',
    "text": f'select(any(.subject, .textChunks[] | strings; test("{TEXT}"; "i")))',
}
CONVO = {
    "speaker": ["--speaker", SPEAKER],
    "tag": ["--tag", TAG],
    "since": ["--since", SINCE],
    "text": ["--text", TEXT],
}


def _person(rng: random.Random) -> str:
    # ~1% of messages: the speaker looked for
    first = SPEAKER if rng.random() < 0.01 else rng.choice(FIRST)
    last = rng.choice(LAST)
    addr = f"{first}.{last}".lower().encode("ascii", "ignore").decode() or "someone"
    return f"{first} {last} <{addr}@example.org>"


def _sentence(rng: random.Random) -> str:
    n = rng.randint(4, 30)
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def generate(path: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    start = 1451606400  # 2016-01-01
    span = 10 * 365 * 86400
    formats = ("mbox", "slack", "vtt", "discord", "openai")
    with open(path, "wb", buffering=1 << 20) as out:
        for i in range(n):
            ts = start + rng.randrange(span)
            fmt = rng.choice(formats)
            speaker = _person(rng)
            listeners = [_person(rng) for _ in range(rng.choice((0, 1, 1, 2, 3)))]
            tags = rng.sample(TAGS, rng.choice((0, 1, 1, 2)))
            if rng.random() < 0.01:
                tags.append(TAG)
            chunks = [_sentence(rng) for _ in range(rng.choice((1, 1, 2, 3)))]
            if rng.random() < 0.003:
                chunks[0] = "This is urgent, Quinn wrote."  # the words, not the tag/speaker
            rec = {
                "textChunks": chunks,
                "metadata": {"speaker": speaker, "listeners": listeners},
                "tags": tags,
                "timestamp": _iso(ts),
                "source_id": f"bench.{fmt}#msg-{i}",
                "id": f"bench-{i:07d}",
                "format": fmt,
            }
            if fmt == "mbox":
                rec["subject"] = "Re: " + _sentence(rng)[:40]
                rec["thread"] = f"bench-{max(0, i - rng.randrange(50)):07d}"
            out.write(orjson.dumps(rec, option=orjson.OPT_APPEND_NEWLINE))


def _iso(epoch: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _digest(argv: list[str]) -> tuple[str, int]:
    h = hashlib.sha256()
    lines = 0
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as p:
        assert p.stdout
        for block in iter(lambda: p.stdout.read(1 << 20), b""):
            h.update(block)
            lines += block.count(b"\n")
    return h.hexdigest(), lines


def run(h) -> None:
    n = h.scale(1_000_000)
    store = h.data(f"query-{n}.jsonl", lambda p: generate(p, n))
    mb = store.stat().st_size / 1e6
    h.note(f"Store: {n:,} records, {mb:.0f} MB, generated by benchmarks/bench_query.py (seed 7).")
    convo = h.convo()
    jq = shutil.which("jq")
    if not jq:
        h.note("jq not found: comparisons skipped.")
    results = {}
    ours = []
    for name, args in CONVO.items():
        argv = [convo, "query", *args, str(store)]
        c = h.time_cmd(f"convo query {' '.join(args)}", argv, repeat=3)
        ours.append(c)
        if not jq:
            continue
        j = h.time_cmd(f"jq ({name}, see below)", [jq, "-c", JQ[name], str(store)], repeat=3)
        same_c, same_j = _digest(argv), _digest([jq, "-c", JQ[name], str(store)])
        results[name] = (c, j, same_c == same_j, same_c[1])
    if jq:
        h.note(
            "jq expressions (`jq -c EXPR store`), each meaning what the convo filter means on "
            "this data:\n\n" + "\n".join(f"- {k}: `{v}`" for k, v in JQ.items())
        )
        for name, (c, j, same, count) in results.items():
            target = 10 if name in ("speaker", "tag") else 3
            h.compare(f"`{' '.join(CONVO[name])}` vs jq", c, j, target=target, faster=True)
            h.section.rows.append(
                type(h.section.rows[0])(
                    f"`{' '.join(CONVO[name])}` output equals jq's ({count:,} lines)",
                    "identical" if same else "DIFFERENT",
                    "identical",
                    same,
                )
            )
    big = max(ours, key=lambda m: m.peak_rss_mb)
    h.memory(f"peak RSS of convo query ({big.label})", big, limit_mb=100)
    helpm = h.time_cmd("convo --help", [convo, "--help"], repeat=10)
    typer_m = h.time_cmd(
        'python -c "import typer"', [sys.executable, "-c", "import typer"], repeat=10
    )
    h.compare("`convo --help` vs `python -c 'import typer'`", helpm, typer_m, target=2)
