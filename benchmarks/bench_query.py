# ruff: noqa: SIM905
"""Query speed on a 1M-record store: convo against ``jq -c 'select(...)'`` with the same meaning.

The generated store is realistic (speakers ``"Name <addr>"``, listeners, tags, years of
timestamps, 1-3 chunks, some subjects, some non-ASCII text) but chosen so that a simple jq
expression means exactly what convo's filter means:

- ``--speaker Quinn``: "Quinn" is only ever a first name, so convo's whole-word rule equals
  jq's case-insensitive word test on the speaker.
- ``--tag urgent``: tags are lower-case ASCII, so case-insensitive equality is ``==``.
- ``--since 2018-01-01``: timestamps are all ``YYYY-MM-DDTHH:MM:SSZ``; string order is time.
- ``"forecast quarter"`` (a phrase), ``format:slack``, ``role:user`` (no record has a
  role or a role-named speaker), ``NOT tag:urgent``, ``from:Quinn OR tag:urgent`` and
  ``--count --speaker Quinn``: the same rules, combined as jq and SQL combine them.
- ``--text budget``: text is ASCII words plus non-ASCII letters that do not case-fold to
  ASCII (no ß, no ligatures), so jq's case-insensitive ``test`` of the ASCII word equals
  convo's casefold substring test over subject and chunks. (``ascii_downcase`` +
  ``contains`` means the same but is about 8× slower in jq 1.6; the fast form is used.)

Every row runs on two layouts of the same records: convo's own (orjson, compact, the
store as convo writes it) and a foreign one (``foreign``: Python's ``json.dumps``
defaults, spaces after ``:`` and ``,``, non-ASCII as ``\\u`` escapes, and TypeAgent's
``text_chunks`` for ``textChunks``, a spelling convo reads), so no figure depends on
convo's byte layout. jq and DuckDB get the simplest expression for each layout.

Each side's output is checked to hold the same records: the ids of its lines, in order,
hashed (the layouts print the same records in different bytes).
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

PHRASE = ("forecast", "quarter")  # two words of the vocabulary, in this order
FORMAT = "slack"
ROLE = "user"  # no record has a role or a role-named speaker: all are the default
SPEAKER = "Quinn"
COMMON = "Wen"  # a first name whose letters occur in ~40% of lines ("went"): the needle cannot skip
TAG = "urgent"
SINCE = "2018-01-01"
TEXT = "budget"

_WORD = r'test("(^|\\W){}(\\W|$)"; "i")'


def _jq(chunks: str) -> dict[str, str]:
    """The jq expressions, ``chunks`` the layout's name of the text field."""
    return {
        "speaker": f"select(.metadata.speaker | {_WORD.format(SPEAKER.lower())})",
        "tag": f'select(.tags | any(. == "{TAG}"))',
        "since": f'select(.timestamp >= "{SINCE}T00:00:00Z")',
        "text": f'select(any(.subject, .{chunks}[] | strings; test("{TEXT}"; "i")))',
        "combined": (
            f"select((.metadata.speaker | {_WORD.format(SPEAKER.lower())})"
            f' and .timestamp >= "{SINCE}T00:00:00Z"'
            f' and any(.subject, .{chunks}[] | strings; test("{TEXT}"; "i")))'
        ),
        "common": f"select(.metadata.speaker | {_WORD.format(COMMON.lower())})",
        "phrase": (
            f'select([(.subject | strings | select(. != "")), (.{chunks}[] | strings)]'
            f' | join("\\n") | test("{PHRASE[0]}\\\\s+{PHRASE[1]}"; "i"))'
        ),
        "format": f'select(.format == "{FORMAT}")',
        "role": f'select((.role // "user") == "{ROLE}")',
        "negation": f'select(.tags | any(. == "{TAG}") | not)',
        "or": (
            f"select((.metadata.speaker | {_WORD.format(SPEAKER.lower())})"
            f' or (.tags | any(. == "{TAG}")))'
        ),
        "count": (
            f"reduce (inputs | select(.metadata.speaker | {_WORD.format(SPEAKER.lower())}))"
            " as $r (0; . + 1)"
        ),
    }


JQ = _jq("textChunks")
JQ_FOREIGN = _jq("text_chunks")
CONVO = {
    "speaker": ["--speaker", SPEAKER],
    "tag": ["--tag", TAG],
    "since": ["--since", SINCE],
    "text": ["--text", TEXT],
    "combined": ["--speaker", SPEAKER, "--since", SINCE, "--text", TEXT],
    "common": ["--speaker", COMMON],
    "phrase": [f'"{PHRASE[0]} {PHRASE[1]}"'],
    "format": [f"format:{FORMAT}"],
    "role": [f"role:{ROLE}"],
    "negation": [f"NOT tag:{TAG}"],
    "or": [f"from:{SPEAKER} OR tag:{TAG}"],
    "count": ["--count", "--speaker", SPEAKER],
}
COUNTS = {"count"}  # kinds that print a number of records, not the records
_DUCK_WORD = r"regexp_matches(metadata.speaker, '(^|\W){}(\W|$)', 'i')"


def _duckdb(chunks: str) -> dict[str, str]:
    """The DuckDB conditions, ``chunks`` the layout's name of the text field."""
    text = (
        f"regexp_matches(coalesce(subject, '') || ' ' || array_to_string({chunks}, ' '), "
        f"'{TEXT}', 'i')"
    )
    return {
        "speaker": _DUCK_WORD.format(SPEAKER.lower()),
        "tag": f"list_contains(tags, '{TAG}')",
        "since": f"timestamp >= TIMESTAMP '{SINCE} 00:00:00'",
        "text": text,
        "combined": (
            f"{_DUCK_WORD.format(SPEAKER.lower())} AND timestamp >= TIMESTAMP '{SINCE} 00:00:00'"
            f" AND {text}"
        ),
        "common": _DUCK_WORD.format(COMMON.lower()),
        "phrase": (
            f"regexp_matches(concat_ws(chr(10), nullif(subject, ''), array_to_string({chunks},"
            f" chr(10))), '{PHRASE[0]}\\s+{PHRASE[1]}', 'i')"
        ),
        "format": f"format = '{FORMAT}'",
        # role: the store has no role column (every record is the default, user): no row
        "negation": f"NOT list_contains(tags, '{TAG}')",
        "or": f"{_DUCK_WORD.format(SPEAKER.lower())} OR list_contains(tags, '{TAG}')",
        "count": _DUCK_WORD.format(SPEAKER.lower()),
    }


DUCKDB = _duckdb("textChunks")
DUCKDB_FOREIGN = _duckdb("text_chunks")
# The DuckDB query as a whole process, like the others: matching rows as JSON lines.
# (DuckDB draws a progress bar on a long query, into the same stdout: turned off.)
_DUCK_SCRIPT = (
    "import sys, duckdb; c = duckdb.connect(); c.execute('SET enable_progress_bar = false'); "
    'c.execute("COPY (SELECT * FROM read_json_auto(\'" + sys.argv[1] + "\') WHERE " + sys.argv[2] + '
    "\") TO '/dev/stdout' (FORMAT JSON)\")"
)
# The same for a count: the number of matching rows.
_DUCK_COUNT = (
    "import sys, duckdb; c = duckdb.connect(); c.execute('SET enable_progress_bar = false'); "
    'print(c.execute("SELECT count(*) FROM read_json_auto(\'" + sys.argv[1] + "\') WHERE " '
    "+ sys.argv[2]).fetchone()[0])"
)


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


def foreign(source: Path, path: Path) -> None:
    """``source``'s records as Python's ``json.dumps`` writes them by default (spaces
    after ``:`` and ``,``, non-ASCII escaped), with ``text_chunks`` for ``textChunks``."""
    import json

    with open(source, "rb") as inp, open(path, "w", encoding="utf-8", buffering=1 << 20) as out:
        for line in inp:
            rec = orjson.loads(line)
            rec = {("text_chunks" if k == "textChunks" else k): v for k, v in rec.items()}
            out.write(json.dumps(rec) + "\n")


def _iso(epoch: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _digest(argv: list[str], count: bool = False) -> tuple[str, int]:
    """A hash of the ids of the records ``argv`` prints (in order), and their count;
    ``count``: ``argv`` prints a number of records, which is both."""
    if count:
        out = subprocess.run(argv, capture_output=True, check=False).stdout.strip()
        return out.decode(), int(out or -1)
    h = hashlib.sha256()
    lines = 0
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as p:
        assert p.stdout
        for line in p.stdout:
            h.update(orjson.loads(line)["id"].encode() + b"\n")
            lines += 1
    return h.hexdigest(), lines


def _tree_rss_kb(pid: int) -> int:
    """The memory of a process and all its descendants (kB), from /proc: the sum of
    proportional set sizes (pages shared by forked workers counted once in total, as
    benchmarks/run.py's TreeMemory counts them), else of resident sizes."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += _field_kb(f"/proc/{p}/smaps_rollup", "Pss:") or _field_kb(
                f"/proc/{p}/status", "VmRSS:"
            )
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def _field_kb(path: str, name: str) -> int:
    """The kB figure of the line starting ``name`` in a /proc file; 0 when absent (a
    process that ended meanwhile, a zombie)."""
    try:
        with open(path) as f:
            return next((int(ln.split()[1]) for ln in f if ln.startswith(name)), 0)
    except (OSError, ValueError, IndexError):
        return 0


def _run_sampled(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user+sys of the tree) and peak RSS (MB) of the whole
    process tree (every worker counted), sampled every 10 ms at first, then less often."""
    import os
    import time

    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _tree_rss_kb(proc.pid))
        time.sleep(min(0.25, max(0.01, (time.perf_counter() - t0) / 100)))  # as TreeMemory
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv[:3]}: exit {proc.returncode}")
    # Not ru_maxrss: a child forked from this (large) runner counts the runner's pages
    # until it execs (benchmarks/run.py TreeMemory).
    return wall, usage.ru_utime + usage.ru_stime, peak / 1024


def _paired(h, rows: dict[str, list[list[str]]], repeat: int):
    """Each row's commands run in turn, ``repeat`` rounds (the same machine load for all
    of a round): per command the runs' wall times, CPU times and the peak tree RSS."""
    runs: dict[str, dict[int, list[tuple[float, float, float]]]] = {
        k: {i: [] for i in range(len(v))} for k, v in rows.items()
    }
    for _ in range(repeat):
        for name, argvs in rows.items():
            for i, argv in enumerate(argvs):
                runs[name][i].append(_run_sampled(argv))
    return runs


def _measure(h, label: str, samples: list[tuple[float, float, float]]):
    import statistics

    measure_type = sys.modules[type(h).__module__].Measure  # benchmarks/run.py's record
    cpu = statistics.median(s[1] for s in samples)
    measure = measure_type(
        label, [s[0] for s in samples], max(s[2] for s in samples), "", [s[1] for s in samples]
    )
    h.section.measures.append(measure)
    print(f"  {label}: {measure.median:.3f}s (cpu {cpu:.2f} s, peak {measure.peak_rss_mb:.0f} MB)")
    return measure


def run(h) -> None:
    n = h.scale(1_000_000)
    store = h.data(f"query-{n}.jsonl", lambda p: generate(p, n))
    other = h.data(f"query-{n}-foreign.jsonl", lambda p: foreign(store, p))
    mb, mb2 = store.stat().st_size / 1e6, other.stat().st_size / 1e6
    h.note(
        f"Store: {n:,} records, {mb:.0f} MB, generated by benchmarks/bench_query.py (seed 7); "
        f"its foreign-layout copy (`json.dumps` defaults, `text_chunks`) {mb2:.0f} MB."
    )
    convo = h.convo()
    jq = shutil.which("jq")
    try:
        import duckdb  # noqa: F401 - a benchmark-only dependency
    except ImportError:
        duck = False
    else:
        duck = True
    layouts = {
        "convo's layout": (store, JQ, DUCKDB),
        "foreign layout": (other, JQ_FOREIGN, DUCKDB_FOREIGN),
    }
    rows = {}
    for layout, (path, jqs, ducks) in layouts.items():
        for name, args in CONVO.items():
            argvs = [[convo, "query", *args, str(path)]]
            count = name in COUNTS
            if jq:
                argvs.append([jq, "-n" if count else "-c", jqs[name], str(path)])
            if duck and name in ducks:
                script = _DUCK_COUNT if count else _DUCK_SCRIPT
                argvs.append([sys.executable, "-c", script, str(path), ducks[name]])
            rows[layout, name] = argvs
    runs = _paired(h, rows, repeat=3)
    peak = 0.0
    for layout, name in rows:
        flag = " ".join(CONVO[name])
        c = _measure(h, f"convo query {flag} ({layout})", runs[layout, name][0])
        peak = max(peak, c.peak_rss_mb)
        k = 1
        if jq:
            j = _measure(h, f"jq ({name}, {layout}, see below)", runs[layout, name][k])
            k += 1
            h.compare(f"`{flag}` vs jq, {layout}", c, j, target=5, faster=True, quiet=True)
            count = name in COUNTS
            same_c = _digest(rows[layout, name][0], count)
            same_j = _digest(rows[layout, name][1], count)
            h.row(
                f"`{flag}` records equal jq's, {layout} ({same_c[1]:,})",
                "identical" if same_c == same_j else "DIFFERENT",
                "identical",
                same_c == same_j,
            )
        if duck and name in ducks:
            d = _measure(h, f"DuckDB read_json_auto ({name}, {layout}, see below)",
                         runs[layout, name][k])  # fmt: skip
            if layout == "convo's layout":
                h.compare(f"`{flag}` vs DuckDB, {layout}", c, d, target=1.5, on_cpu=True)
            else:
                h.compare(f"`{flag}` vs DuckDB, {layout}", c, d)
            count = name in COUNTS
            same_c = _digest(rows[layout, name][0], count)
            same_d = _digest(rows[layout, name][k], count)
            h.row(
                f"`{flag}` records equal DuckDB's, {layout} ({same_d[1]:,})",
                "identical" if same_c == same_d else "DIFFERENT",
                "identical",
                same_c == same_d,
            )
    h.row(
        "peak RSS of a convo query, every worker counted", f"{peak:.0f} MB", "≤ 100 MB", peak <= 100
    )
    if jq:
        h.note(
            "jq expressions (`jq -c EXPR store`; for count `jq -n`), each meaning what the "
            "convo filter means on this data (on the foreign layout `.text_chunks` for "
            "`.textChunks`):\n\n" + "\n".join(f"- {k}: `{v}`" for k, v in JQ.items())
        )
    if duck:
        h.note(
            "DuckDB: `COPY (SELECT * FROM read_json_auto(store) WHERE COND) TO '/dev/stdout' "
            "(FORMAT JSON)` in a Python process (for count `SELECT count(*)`), with COND (on "
            "the foreign layout `text_chunks` for `textChunks`; no role row: the store has no "
            "role column, every record is the default role, user):\n\n"
            + "\n".join(f"- {k}: `{v}`" for k, v in DUCKDB.items())
            + "\n\nRuns are paired: each round runs convo, jq and DuckDB in turn, so a "
            "ratio compares runs made under the same machine load; medians of 3 rounds. Peak "
            "RSS is the whole process tree's (the parent and its workers: proportional set sizes), sampled. "
            "convo scans a large file on every core and jq on one, so the wall-time ratio "
            'against jq holds on an idle machine ("quiet machine"); CPU time is beside it. '
            "Against DuckDB (which also uses every core) the target is on CPU time."
        )
