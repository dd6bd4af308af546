"""convo.core.jsonstream: same values as orjson.loads, clean located errors, flat memory."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import SAMPLE_DATA as SAMPLE_DIR
from convo.core.errors import InputError
from convo.core.jsonstream import BLOCK, JsonArray, iter_items, read_top_level

TRICKY = ['"', "\\", "[", "]", "{", "}", ",", ":", "é", "💬", "\n", "\t", "\x00", "\u2028"]
text = st.text(
    alphabet=st.one_of(st.sampled_from(TRICKY), st.characters(blacklist_categories=("Cs",))),
    max_size=12,
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    text,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(text, inner, max_size=4)),
    max_leaves=12,
)
WS = st.sampled_from(["", " ", "\n", "\r\n", "\t", "  \n "])


def dumps_ws(value: Any, ws: list[str]) -> str:
    """JSON text with whitespace from ``ws`` around every token."""
    i = 0

    def w() -> str:
        nonlocal i
        i += 1
        return ws[i % len(ws)]

    def go(v: Any) -> str:
        if isinstance(v, list):
            return "[" + w() + ("," + w()).join(go(x) + w() for x in v) + "]"
        if isinstance(v, dict):
            items = (orjson.dumps(k).decode() + w() + ":" + w() + go(x) + w() for k, x in v.items())
            return "{" + w() + ("," + w()).join(items) + "}"
        return orjson.dumps(v).decode()

    return w() + go(value) + w()


def stream(doc: str | bytes) -> io.BytesIO:
    return io.BytesIO(doc.encode() if isinstance(doc, str) else doc)


@given(
    items=st.lists(values, max_size=6),
    others=st.dictionaries(st.text(max_size=5), values, max_size=3),
    path=st.lists(st.sampled_from(["messages", "a", 'é"[']), max_size=3, unique=True),
    ws=st.lists(WS, min_size=1, max_size=5),
    block=st.sampled_from([1, 2, 3, 5, 64, 1 << 20]),
    bom=st.booleans(),
)
def test_same_as_orjson(items, others, path, ws, block, bom) -> None:
    doc: Any = items
    for key in reversed(path):
        doc = {**{k: v for k, v in others.items() if k != key}, key: doc}
    raw = dumps_ws(doc, ws).encode()
    if bom:
        raw = b"\xef\xbb\xbf" + raw
    arr = JsonArray(stream(raw), tuple(path), where="f", block=block)
    got = [v for v, _ in arr]
    assert got == items
    if not path:
        assert got == orjson.loads(raw.removeprefix(b"\xef\xbb\xbf"))
    assert arr.found
    if path:
        expected = {k: v for k, v in doc.items() if k != path[0]}
        assert arr.members == expected
        assert read_top_level(stream(raw), skip=(path[0],), where="f") == expected


@given(
    before=st.dictionaries(st.sampled_from(["guild", "channel", "x"]), values, max_size=3),
    after=st.dictionaries(st.sampled_from(["after", "y"]), values, max_size=2),
    items=st.lists(values, max_size=3),
)
def test_members_before_and_after(before, after, items) -> None:
    doc = {**before, "messages": items, **after}
    arr = JsonArray(stream(orjson.dumps(doc)), ("messages",))
    assert arr.start() == before
    assert [v for v, _ in arr] == items
    assert arr.members == {**before, **after}
    assert arr.keys == list(doc)


@given(doc=values, cut=st.integers(0, 400), block=st.sampled_from([1, 7, 1 << 20]))
def test_truncated_or_garbled_is_clean(doc, cut, block) -> None:
    raw = orjson.dumps({"messages": [doc, doc]})
    for broken in (raw[:cut], raw[:cut] + b"}" + raw[cut:], raw[:cut] + b"x" + raw[cut:]):
        try:
            list(JsonArray(stream(broken), ("messages",), where="f", block=block))
        except InputError as e:
            assert e.where and e.where.startswith("f:")
        else:  # accepted: then orjson agrees it is valid
            orjson.loads(broken)


@pytest.mark.parametrize(
    "items",
    [
        [[], {}, [[]], [{}], {"a": []}, [[], [{}]]],
        ["[", "]", "{", "}", '"', "\\", '\\"', "\\\\", "é💬", "\u2028"],
        [0, -1.5e300, True, False, None, "", [], {}],
        [{"a": {"b": {"c": [1, [2, [3, []]]]}}}],
    ],
)
@pytest.mark.parametrize("block", [1, 2, 3, 4096])
def test_tricky_elements(items, block) -> None:
    for raw in (orjson.dumps(items), orjson.dumps(items, option=orjson.OPT_INDENT_2)):
        assert [v for v, _ in JsonArray(stream(raw), block=block)] == items
        doc = orjson.dumps({"x": {"messages": items}, "messages": items, "y": []})
        assert [v for v, _ in JsonArray(stream(doc), ("messages",), block=block)] == items


def test_line_numbers() -> None:
    doc = '{\n "messages": [\n  {"a": 1},\n\n  {"b":\n [2]},\n  "x\\n"\n ]\n}\n'
    assert list(iter_items(stream(doc), ("messages",))) == [
        ({"a": 1}, 3),
        ({"b": [2]}, 5),
        ("x\n", 7),
    ]


@pytest.mark.parametrize(
    ("doc", "line", "what"),
    [
        ('{"messages": [\n1,\n2', 3, "expected ',' or ']'"),
        ('{"messages": [\n1,\n]}', 3, "trailing comma"),
        ('{"messages": [\n1,\n{"a": tru}]}', 3, "not valid JSON"),
        ('[\n"abc', 2, "unterminated string"),
        ("[1]\n]", 2, "trailing data"),
        ("", 1, "empty document"),
        ('{"messages": [{"a": [}]}', 1, "unexpected '}'"),
        ('{"messages": 1 2}', 1, "expected ','"),
        ("{1: 2}", 1, "expected a key"),
    ],
)
def test_malformed_is_located(doc: str, line: int, what: str) -> None:
    with pytest.raises(InputError) as e:
        list(iter_items(stream(doc), ("messages",), where="f.json"))
    assert e.value.where == f"f.json:{line}"
    assert what in e.value.what


def test_missing_or_wrong_shape() -> None:
    arr = JsonArray(stream('{"a": 1, "messages": null}'), ("messages",))
    assert list(arr) == [] and not arr.found and arr.members == {"a": 1}
    arr = JsonArray(stream("[1, 2]"), ("messages",))
    assert list(arr) == [] and not arr.found and arr.root == "["
    arr = JsonArray(
        stream('{"chats": {"list": [{"id": 1}, {"id": 2}]}, "x": 3}'), ("chats", "list")
    )
    assert [v for v, _ in arr] == [{"id": 1}, {"id": 2}] and arr.members == {"x": 3}


def test_flat_memory_on_a_100_mb_array(tmp_path) -> None:
    """A ~100 MB generated array is read with a peak far below its size (tracemalloc)."""
    path = tmp_path / "big.json"
    element = orjson.dumps(
        {"id": "1", "content": 'x \\" [ ] { } ' * 40, "a": [[1, 2], {"b": None}]}
    )
    with open(path, "wb") as f:
        f.write(b'{"guild": {"id": "g"}, "channel": {"id": "c"}, "messages": [\n')
        n = (100 << 20) // (len(element) + 2)
        for i in range(n):
            f.write(element + (b",\n" if i < n - 1 else b"\n"))
        f.write(b"]}\n")
    code = textwrap.dedent(
        f"""
        import tracemalloc
        from convo.core.jsonstream import iter_items
        tracemalloc.start()
        with open({str(path)!r}, "rb") as f:
            n = sum(1 for _ in iter_items(f, ("messages",)))
        print(n, tracemalloc.get_traced_memory()[1])
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, peak = map(int, out.stdout.split())
    assert count == n
    assert peak < 8 << 20, f"peak {peak / (1 << 20):.1f} MiB"


# -- the readers that stream: same records from a file, a .gz, standard input, any key order

SAMPLES = {
    "discord": "discord.json",
    "telegram": "telegram-result.json",
    "messenger": "messenger.json",
    "chatgpt": "chatgpt-conversations.json",
    "teams": "teams.json",
    "openai": "openai.json",
    "anthropic": "anthropic.json",
    "langmem": "langmem.json",
    "autogen": "autogen.json",
}


def _records(path: str, fmt: str) -> tuple[list[dict[str, Any]], int, int]:
    from convo.pipeline.ingest import Ingest

    rejects: list = []
    warnings: list[str] = []
    run = Ingest(None, format_name=fmt, on_reject=rejects.append, on_warning=warnings.append)
    recs = [m.serialize() for m in run.messages([path])]
    for r in recs:  # the same whatever the input is called
        r["source_id"] = str(r.get("source_id", "")).rpartition("#")[2]
    return recs, len(rejects), len(warnings)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_readers_same_from_gz_and_stdin(fmt, tmp_path, monkeypatch) -> None:
    import gzip
    import types

    path = SAMPLE_DIR / "chat" / SAMPLES[fmt]
    want = _records(str(path), fmt)
    assert want[0]
    gz = tmp_path / (path.name + ".gz")
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert _records(str(gz), fmt) == want
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(path.read_bytes())))
    # Content-hash ids of messages without a thread, or in a conversation with a short id
    # (unique only in its file: docs/ids.md), hash the file name, which stdin lacks.
    assert _without_file_ids(_records("-", fmt)) == _without_file_ids(want)


def _without_file_ids(got: tuple[list[dict[str, Any]], int, int]) -> tuple[Any, ...]:
    from convo.importers.build import GLOBAL_ID_LENGTH

    def file_hashed(r: dict[str, Any]) -> bool:
        return r["id"].startswith("h:") and len(r.get("thread") or "") < GLOBAL_ID_LENGTH

    recs = [{**r, "id": "h:"} if file_hashed(r) else r for r in got[0]]
    return recs, got[1], got[2]


@pytest.mark.parametrize(
    ("fmt", "array"), [("discord", "messages"), ("telegram", "messages"), ("messenger", "messages")]
)
def test_members_after_the_array(fmt, array, tmp_path) -> None:
    """Exporters put guild/channel (name/type) first; a document with them last reads the same."""
    path = SAMPLE_DIR / "chat" / SAMPLES[fmt]
    doc = orjson.loads(path.read_bytes())
    moved = {array: doc[array], **{k: v for k, v in doc.items() if k != array}}
    other = tmp_path / path.name
    other.write_bytes(orjson.dumps(moved, option=orjson.OPT_INDENT_2))
    assert _records(str(other), fmt) == _records(str(path), fmt)


def test_truncated_export_is_a_located_error(tmp_path) -> None:
    raw = (SAMPLE_DIR / "chat" / "discord.json").read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(raw[: len(raw) * 2 // 3])
    with pytest.raises(InputError) as e:
        _records(str(cut), "discord")
    assert e.value.where and e.value.where.startswith(f"{cut}:")


# -- values(): runs of elements parsed at once, against the element-by-element reading


def _both(raw: bytes, path: tuple[str, ...], block: int = BLOCK) -> tuple[Any, Any]:
    """What ``__iter__`` and ``values()`` make of ``raw``: the values, or the error."""
    out = []
    for read in (lambda a: [v for v, _ in a], lambda a: list(a.values())):
        arr = JsonArray(stream(raw), path, where="f", block=block)
        try:
            out.append((read(arr), arr.members))
        except InputError as e:
            out.append((e.where, e.what))
    return out[0], out[1]


@given(
    items=st.lists(values, max_size=8),
    ws=st.lists(WS, min_size=1, max_size=4),
    block=st.sampled_from([1, 3, 64, 4096, 1 << 20]),
    bom=st.booleans(),
)
def test_values_same_as_element_by_element(items, ws, block, bom) -> None:
    raw = dumps_ws({"a": 1, "messages": items, "z": [2]}, ws).encode()
    raw = b"\xef\xbb\xbf" + raw if bom else raw
    plain, runs = _both(raw, ("messages",), block)
    assert runs == plain
    assert runs[0] == items


@given(
    doc=st.lists(values, min_size=1, max_size=4),
    cut=st.integers(0, 300),
    junk=st.binary(max_size=2),
)
def test_values_hostile_same_errors(doc, cut, junk) -> None:
    """Truncated, garbled or invalid UTF-8 input: values() fails where, and as, the
    element-by-element reading does (or both read the same)."""
    raw = orjson.dumps({"messages": doc + doc})
    for broken in (raw[:cut], raw[:cut] + junk + raw[cut:], raw[:cut] + b"\xff" + raw[cut:]):
        plain, runs = _both(broken, ("messages",))
        assert runs == plain


@pytest.mark.parametrize(
    "raw",
    [
        b'{"messages": [{"a": 1, "a": 2}, {"b": [1, {"b": 2, "b": 3}]}]}',  # duplicate keys
        b'{"messages": [' + b'{"x": "' + b"y" * (3 << 20) + b'"}, {"z": 1}]}',  # a huge string
        b'{"messages": [1, ' + b"[" * 300 + b"]" * 300 + b", 2]}",  # deeper than a run
        b'\xef\xbb\xbf{"messages": [{"a": 1}, {"b": 2}]}',  # BOM
        b'{"messages": [{"a": "\xff"}, {"b": 2}]}',  # invalid UTF-8 inside a string
        b'{"messages": [{"a": "\\ud800"}, {"b": 2}]}',  # a lone surrogate escape
        b'{"messages": [{"a": 1}, {"b": 2},]}',  # a trailing comma
        b'{"messages": [{"a": 1}, {"b": 2}',  # truncated after an element
        b'{"messages": [{"a": 1}, {"b": tru}, {"c": 3}]}',  # an element orjson refuses
        # "}, {" inside strings and between inner objects: not where a run may end
        b'{"messages": [{"a": "}, {"}, {"b": [{"c": 1}, {"d": "x}, {y"}]}, {"e": "}, {"}]}',
        b'{"messages": [{"a": "}, {"}, {"b": [{"c": 1}, {"d": "x}, {y"}]}, {"e": "}, {"},]}',
    ],
)
def test_values_hostile_cases(raw) -> None:
    for block in (7, 40, 1 << 20):
        plain, runs = _both(raw, ("messages",), block)
        assert runs == plain


# -- skipped arrays: runs of objects checked by orjson against the regex walk (plain twin)


def _skims(raw: bytes, path: tuple[str, ...] | None, block: int) -> tuple[Any, Any]:
    """What the skim with runs (``JsonArray._skip_array``) and the plain walk make of
    ``raw``: the members, keys, kinds and elements, or the error."""
    out = []
    for runs in (False, True):
        arr = JsonArray(stream(raw), path, where="f", skip=("messages",), block=block)
        arr.skim_runs = runs
        try:
            got = [v for v, _ in arr]
            out.append((got, arr.members, arr.keys, arr.kinds))
        except InputError as e:
            out.append((e.where, e.what))
    return out[0], out[1]


objects = st.lists(
    st.one_of(st.dictionaries(text, values, max_size=3), values), min_size=0, max_size=12
)


@given(
    items=objects,
    ws=st.lists(WS, min_size=1, max_size=4),
    block=st.sampled_from([1, 3, 16, 64, 4096, 1 << 20]),
)
def test_skip_array_same_as_the_walk(items, ws, block) -> None:
    doc = {"a": 1, "messages": items, "z": [{"x": items}, {"y": 2}], "w": {"v": items}}
    raw = dumps_ws(doc, ws).encode()
    for path in (None, ("w", "v"), ("z",)):
        plain, runs = _skims(raw, path, block)
        assert runs == plain
    assert _skims(raw, None, block)[1][1] == {k: v for k, v in doc.items() if k != "messages"}


@given(
    items=st.lists(st.dictionaries(text, values, max_size=3), min_size=1, max_size=6),
    cut=st.integers(0, 400),
    junk=st.sampled_from([b"", b"}", b"]", b",", b'"', b"x", b"\xff", b"}, {"]),
    block=st.sampled_from([5, 64, 1 << 20]),
)
def test_skip_array_hostile_same_as_the_walk(items, cut, junk, block) -> None:
    """Truncated, garbled or invalid input: the skim with runs fails where, and as, the
    walk does (or both read the same)."""
    raw = orjson.dumps({"messages": items + items, "after": 1})
    for broken in (raw[:cut], raw[:cut] + junk + raw[cut:]):
        plain, runs = _skims(broken, None, block)
        assert runs == plain


@pytest.mark.parametrize(
    "raw",
    [
        b'{"messages": [{"a": "}, {"}, {"b": [{"c": 1}, {"d": "x}, {y"}]}, {"e": "}, {"}], "z": 1}',
        b'{"messages": [{"a": 1} {"b": 2}, {"c": 3}, {"d": 4}], "z": 1}',  # no comma: walked
        b'{"messages": [{"a": 1}, {"b": tru}, {"c": 3}, {"d": 4}], "z": 1}',  # orjson refuses
        b'{"messages": [{"a": 1}, 2, {"c": 3}, {"d": 4}], "z": 1}',  # not only objects
        b'{"messages": [{"a": "' + b"y" * (3 << 20) + b'"}, {"z": 1}, {"q": 2}], "z": 1}',
        b'{"messages": [' + b'{"a": "xy"}, ' * 50_000 + b'{"b": 1}], "z": [1]}',
        b'{"messages": [{"a": 1}, {"b": 2},], "z": 1}',  # a trailing comma
        b'{"messages": [{"a": 1}, {"b": 2}',  # truncated
        b'{"messages": [{"a": 1}, {"b": 2}]]}',  # a closer too many
    ],
)
def test_skip_array_hostile_cases(raw) -> None:
    for block in (7, 40, 1 << 16, 1 << 20):
        plain, runs = _skims(raw, None, block)
        assert runs == plain


def test_an_empty_array_then_a_member_of_the_same_name() -> None:
    """Duplicate keys: the last is the value (as orjson and json read them); after an
    empty array at the path, the next member of that name is the array read."""
    doc = b'{"a": 1, "items": [], "b": 2, "items": [{"x": 1}, {"x": 2}], "c": 3}'
    arr = JsonArray(io.BytesIO(doc), ("items",))
    assert [x for x, _ in arr] == orjson.loads(doc)["items"]
    assert arr.found and arr.members == {"a": 1, "b": 2, "c": 3}
    first = b'{"items": [{"x": 1}], "items": [{"x": 2}]}'
    assert [x for x, _ in JsonArray(io.BytesIO(first), ("items",))] == [{"x": 1}]  # kept


def test_a_later_array_at_the_path_is_passed_over_not_kept() -> None:
    """After the array read, a later member of its name is passed over: it was parsed
    whole into ``members`` (a second ``orderedItems`` of any size held in memory at once,
    where ``members`` holds the small members beside the array)."""
    doc = b'{"items": [{"x": 1}], "b": 2, "items": [{"x": 2}, {"x": 3}], "c": 3}'
    arr = JsonArray(io.BytesIO(doc), ("items",))
    assert [x for x, _ in arr] == [{"x": 1}]
    assert arr.members == {"b": 2, "c": 3} and arr.keys == ["items", "b", "items", "c"]
