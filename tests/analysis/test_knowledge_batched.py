"""The batch forms of knowledge's first pass give what their per-message twins give.

``batched.analyse_all`` is ``analyse`` of each record; ``PhraseStats.observe_many`` is
``observe_candidates`` of each list (also when words are forgotten on the way);
``Conversation.observe_records`` learns what ``observe_record`` of each record learns;
``spool.read_batches`` gives what ``read`` gives; and ``convo knowledge --jobs 1``
reads a file through the range readers' loop with the same records and bad lines as
the scan.
"""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from convo.analysis.knowledge.batched import analyse_all
from convo.analysis.knowledge.body_analysis import Analysis, analyse
from convo.analysis.knowledge.extract import Conversation, replay, replay_batches
from convo.analysis.knowledge.keyphrases import PhraseStats, candidates
from convo.analysis.knowledge.spool import (
    BATCH,
    SpoolWriter,
    drop_text,
    read,
    read_batches,
    without_text,
)
from convo.core import fields

# Words and marks each path treats differently: separators and control characters,
# markers, marked things, quotes, questions, names the gazetteer and shapes know,
# stopwords of other languages, two-letter words, unicode of every width, empties.
PIECES = ["deploy", "pipeline", "ok", "\x00", "\x01", "\x02", "\x03", "\n", " ", "\t",
          "[image]", "[", "@bob", "#ci", "www.x.org", "https://x.org/a", "a@b.org", "'",
          '"', "“Casa Alfama”", "?", "Python 3.12", "GitHub", "Central Station", "v2.1",
          "12 hours", "der", "und", "é", "日本語", "🎉", "--", "> quoted", "wrote:", "I fixed",
          "parser.py", ".", ",", ""]  # fmt: skip
TEXT = st.lists(st.sampled_from(PIECES), max_size=14).map(" ".join) | st.text(max_size=30)
CHUNKS = st.lists(TEXT | st.sampled_from(["[tool_use x] {}", "[thinking] hm"]), max_size=3)
PEOPLE = st.lists(st.sampled_from(["bob", "Ann Lee", "user", "x@y.org", "Ann Lee <a@l.org>"]),
                  max_size=3)  # fmt: skip


@st.composite
def records(draw) -> dict:
    speaker = draw(st.sampled_from([None, "bob", "Ann Lee", "Ann Lee <a@l.org>"]))
    r = {
        "textChunks": draw(CHUNKS),
        "metadata": {"speaker": speaker, "listeners": draw(PEOPLE)},
        "id": draw(st.sampled_from(["1", "2", "3"])),
        "format": draw(st.sampled_from(["slack", "mbox", "openai"])),
    }
    if draw(st.booleans()):
        r["subject"] = draw(st.sampled_from(["Re: GitHub outage", "", "deploy", "Python 3.12"]))
    if draw(st.booleans()):
        r["replyTo"] = draw(st.sampled_from(["1", "2", "9"]))
    if draw(st.integers(0, 5)) == 0:
        r["role"] = "tool"
    return r


RECORDS = st.lists(records(), max_size=12)


@settings(max_examples=300, deadline=None)
@given(RECORDS)
def test_analyse_all_is_analyse_of_each(rs):
    heard = [fields.listeners(r) for r in rs]
    assert analyse_all(rs, heard) == [analyse(r, h) for r, h in zip(rs, heard, strict=True)]


def _counts(stats: PhraseStats) -> tuple:
    return stats.freq, stats.degree, stats.df, stats.docs, stats.floor, stats.ranking()[:2]


CANDS = st.lists(TEXT.map(candidates), max_size=8)  # a batch: each message's candidates


@settings(max_examples=200, deadline=None)
@given(st.lists(CANDS, max_size=4), st.sampled_from([100_000, 6, 1]))
def test_observe_many_is_observe_candidates_of_each(batches, vocabulary):
    one, many = PhraseStats(), PhraseStats()
    one.VOCABULARY = many.VOCABULARY = vocabulary  # small: words are forgotten on the way
    one.PENDING = many.PENDING = 3
    for lists in batches:
        for cands in lists:
            one.observe_candidates(cands)
        many.observe_many(lists)
    assert _counts(many) == _counts(one)


def _state(conv: Conversation) -> tuple:
    return (conv._names, conv.wanted, conv._parents, conv._aliases, conv.name_words,
            _counts(conv.stats))  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(RECORDS, max_size=3))
def test_observe_records_learns_what_observe_record_learns(batches):
    one, many = Conversation(), Conversation()
    a1 = [one.observe_record(r) for rs in batches for r in rs]
    a2 = [a for rs in batches for a in many.observe_records(rs)]
    assert a2 == a1
    assert _state(many) == _state(one)


@settings(max_examples=100, deadline=None)
@given(RECORDS, st.booleans())
def test_replay_of_an_iterator_is_replay_of_the_list(rs, keep_text):
    from_list = list(replay(list(rs), Conversation(), keep_text=True))
    from_iter = list(replay(iter(rs), Conversation(), keep_text=keep_text))
    if not keep_text:
        from_list = [({k: v for k, v in r.items() if k != "textChunks"}, a) for r, a in from_list]
    assert from_iter == from_list
    flat = [p for b, a in replay_batches(iter(rs), Conversation()) for p in zip(b, a, strict=True)]
    assert flat == list(replay(iter(rs), Conversation()))


@settings(max_examples=100, deadline=None)
@given(RECORDS)
def test_dump_all_and_load_all_are_dump_and_load_of_each(rs):
    analyses = [analyse(r) for r in rs]
    dumps = Analysis.dump_all(analyses)
    assert dumps == [a.dump() for a in analyses]
    assert Analysis.load_all(dumps) == [Analysis.load(d) for d in dumps] == analyses


@settings(max_examples=100, deadline=None)
@given(RECORDS)
def test_drop_text_is_without_text_in_place(rs):
    for r in rs[::2]:
        r["text_chunks"] = ["typeagent's spelling"]
    copies = list(map(without_text, rs))
    assert drop_text(rs) is rs
    assert rs == copies
    assert not any("textChunks" in r or "text_chunks" in r for r in rs)


@settings(max_examples=100, deadline=None)
@given(RECORDS)
def test_replay_of_own_records_drops_their_text_as_a_copy_would(rs):
    theirs = [dict(r) for r in rs]
    mine = list(replay(iter(theirs), Conversation(), keep_text=False))
    own = list(replay_batches(iter(rs), Conversation(), keep_text=False, own=True))
    assert [p for b, a in own for p in zip(b, a, strict=True)] == mine
    assert all("textChunks" in r for r in theirs)  # a caller's records are copied


def test_read_batches_is_read_across_blobs():
    items = [({"id": str(i)}, analyse({"textChunks": [f"deploy {i} pipeline"]}))
             for i in range(2 * BATCH + 7)]  # fmt: skip
    f = io.BytesIO()
    spool = SpoolWriter(f)
    spool.add_all([r for r, _ in items[: BATCH + 3]], [a for _, a in items[: BATCH + 3]])
    for r, a in items[BATCH + 3 :]:
        spool.add(r, a)
    spool.close()
    f.seek(0)
    batches = list(read_batches(f))
    assert [len(b) for b, _ in batches] == [len(a) for _, a in batches]
    assert [p for b, a in batches for p in zip(b, a, strict=True)] == items
    f.seek(0)
    assert list(read(f)) == items


def test_knowledge_jobs_1_reads_a_file_as_the_scan_does(tmp_path, monkeypatch):
    """The range readers' loop (no filters) gives the scan's lines and bad lines."""
    from convo.analysis.knowledge import ranges
    from convo.pipeline.inputs import record_parts
    from convo.query.filters import Filters

    good = (
        b'{"textChunks":["Deploy the pipeline to GitHub"],"metadata":{"speaker":"bob"},"id":"%d"}'
    )
    lines = [
        good % 1,
        b"not json",
        b"",
        b"[1, 2]",
        good % 2 + b"\r",
        b'{"textChunks": 3}',
        good % 3,
    ]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(lines))  # the last line without its newline

    def run() -> tuple[bytes, list]:
        out, bad = io.BytesIO(), []
        parts = record_parts([str(path)], store=None, stdin_has_data=False)
        ranges.knowledge_of_parts(parts, Filters(), summary=False, jobs=1, out=out,
                                  on_error=lambda e, line: bad.append((str(e), line.number)))  # fmt: skip
        return out.getvalue(), bad

    assert ranges.whole_files  # the path under test
    fast = run()
    monkeypatch.setattr(ranges, "whole_files", lambda *a: None)  # the scan's path
    assert fast == run()
    assert fast[0].count(b"\n") == 3 and len(fast[1]) == 3
