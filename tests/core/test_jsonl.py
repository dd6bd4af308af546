import gzip
import io

import pytest

from convo.core.atomic import atomic_writer
from convo.core.errors import InputError, RecordError
from convo.core.io import open_binary
from convo.core.jsonl import Line, iter_lines, parse_line


def lines(data: bytes) -> list[Line]:
    return list(iter_lines(io.BytesIO(data)))


def test_blank_lines_skipped_numbers_kept():
    got = lines(b'{"a":1}\n\n   \n{"b":2}\n')
    assert [(x.number, x.raw) for x in got] == [(1, b'{"a":1}'), (4, b'{"b":2}')]


def test_bom_and_crlf():
    got = lines(b'\xef\xbb\xbf{"a":1}\r\n{"b":2}\r\n')
    assert [x.raw for x in got] == [b'{"a":1}', b'{"b":2}']
    assert parse_line(got[0], "f") == {"a": 1}


def test_missing_final_newline_is_marked_torn_but_parses():
    got = lines(b'{"a":1}\n{"b":2}')
    assert got[-1].torn and parse_line(got[-1], "f") == {"b": 2}


def test_truncated_last_line_reported_as_such():
    got = lines(b'{"a":1}\n{"b":')
    with pytest.raises(RecordError, match="truncated last line") as e:
        parse_line(got[-1], "f.jsonl")
    assert e.value.where == "f.jsonl:2"


def test_invalid_json_located():
    got = lines(b'{"a":1}\nnot json\n')
    with pytest.raises(RecordError) as e:
        parse_line(got[1], "f.jsonl")
    assert str(e.value).startswith("f.jsonl:2: invalid JSON")


@pytest.mark.parametrize("raw", [b"[1,2]", b'"s"', b"3", b"null"])
def test_non_object_rejected(raw):
    with pytest.raises(RecordError, match="expected a JSON object"):
        parse_line(Line(1, raw), "f")


def test_gzip_read_by_content(tmp_path):
    p = tmp_path / "x.jsonl.gz"
    p.write_bytes(gzip.compress(b'{"a":1}\n'))
    with open_binary(p) as f:
        assert [x.raw for x in iter_lines(f)] == [b'{"a":1}']


def test_open_missing_file():
    with pytest.raises(InputError, match="no such file"):
        open_binary("/nonexistent/x.jsonl")


def test_atomic_writer_replaces_only_on_success(tmp_path):
    p = tmp_path / "out.jsonl"
    p.write_bytes(b"old\n")
    with pytest.raises(RuntimeError), atomic_writer(p) as out:
        out.write(b"partial")
        raise RuntimeError("boom")
    assert p.read_bytes() == b"old\n"
    assert list(tmp_path.iterdir()) == [p]
    with atomic_writer(p) as out:
        out.write(b"new\n")
    assert p.read_bytes() == b"new\n"
