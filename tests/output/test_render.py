"""Render helpers and writers: times, offsets, reply trees, safety."""

from __future__ import annotations

import io

from convo.core.text.terminal import json_tty_safe, one_line, printable
from convo.output.exporters.documents import CsvDocument
from convo.output.views.common import display_time, speaker_style
from convo.output.views.show import offset_text, reply_tree, transcript_time
from convo.output.writers import WriteOptions
from convo.output.writers.document import DocumentWriter
from convo.output.writers.records import JsonlWriter, JsonWriter
from convo.output.writers.text import TextWriter
from convo.query.scan import Match


def r(id_, parent=None, ts="2024-01-01T00:00:00Z", **kw):
    rec = {"id": id_, "timestamp": ts, "textChunks": [id_], "metadata": {"speaker": "A"}}
    if parent:
        rec["replyTo"] = parent
    rec.update(kw)
    return rec


def ids(tree):
    return [(d, x["id"]) for d, x in tree]


def test_reply_tree_nests_and_orders_children_by_time():
    recs = [
        r("root", ts="2024-01-01T00:00:00Z"),
        r("late", "root", ts="2024-01-01T03:00:00Z"),
        r("early", "root", ts="2024-01-01T01:00:00Z"),
        r("grand", "late", ts="2024-01-01T04:00:00Z"),
        r("orphan", "missing"),
    ]
    assert ids(reply_tree(recs)) == [
        (0, "root"),
        (1, "early"),
        (1, "late"),
        (2, "grand"),
        (0, "orphan"),
    ]


def test_reply_tree_survives_cycles_and_self_replies():
    recs = [r("a", "b"), r("b", "a"), r("c", "c")]
    tree = ids(reply_tree(recs))
    assert sorted(x for _, x in tree) == ["a", "b", "c"]
    assert (0, "c") in tree


def test_reply_tree_keeps_root_order():
    recs = [r("b", ts="2024-01-02T00:00:00Z"), r("a", ts="2024-01-01T00:00:00Z")]
    assert ids(reply_tree(recs)) == [(0, "b"), (0, "a")]


def test_offsets_and_times():
    assert offset_text(3725.9) == "+01:02:05"
    assert transcript_time({"extra": {"start": 4.2}, "timestamp": "2024-01-01T00:00:00Z"}) == (
        "+00:00:04"
    )
    assert transcript_time({"timestamp": "1970-01-01T00:01:05Z"}) == "+00:01:05"
    assert display_time("2024-03-06T10:00:00Z", utc=True) == "2024-03-06 10:00:00Z"
    assert display_time("1970-01-01T00:00:00Z") == "—"


def test_speaker_colour_is_stable_and_case_blind():
    assert speaker_style("Alice") == speaker_style("alice")
    assert speaker_style(None) == "dim"


def test_safety_escapes_controls_and_bidi():
    hostile = "a\x1b]0;t\x07b\u202ec\u009bd\x1b[2J"
    out = printable(hostile)
    for ch in ("\x1b", "\x07", "\u202e", "\u009b"):
        assert ch not in out
    assert "\\x1b]0;t\\x07" in out
    assert one_line("a\n  b\tc", 4) == "a b…"
    assert printable("line1\nline2") == "line1\nline2"


def test_json_tty_safe_escapes_raw_c1_and_bidi():
    raw = '{"t":"x\u202ey\u009b"}'.encode()
    safe = json_tty_safe(raw)
    assert b"\\u202e" in safe and b"\\u009b" in safe
    import orjson

    assert orjson.loads(safe) == orjson.loads(raw)


def _m(rec, raw=b"{}"):
    return Match(raw, rec, "t", 1)


def test_writers():
    rec = r("x", text="hi")
    rec["textChunks"] = ["one", "two"]
    rec["metadata"]["listeners"] = ["B", "C"]
    rec["tags"] = ["t1"]
    out = io.BytesIO()
    w = JsonlWriter(out)
    w.write_many([_m(rec, b'{"a":1}'), _m(rec, b'{"a":2}')])
    assert out.getvalue() == b'{"a":1}\n{"a":2}\n'
    out = io.BytesIO()
    w = JsonWriter(out)
    w.close()
    assert out.getvalue() == b"[]\n"
    out = io.BytesIO()
    w = DocumentWriter(out, CsvDocument())
    w.write(_m(rec))
    assert out.getvalue().decode().splitlines()[1].startswith("2024-01-01T00:00:00Z,A,,B; C,t1,")
    s = io.StringIO()
    TextWriter(s, WriteOptions(utc=True)).write(_m(rec))
    assert s.getvalue() == "2024-01-01 00:00:00Z  A → B, C: one\n    two\n"
