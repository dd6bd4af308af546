"""Every format's own fixture changed the way real exports differ (docs/ids.md): a message
repeated verbatim (exported twice), a message repeated with one word changed (edited, then
exported again), elements or lines reordered, ids removed; the changed export sits beside
the fixture in another folder under the same file name.

- two different messages (other text, speaker or time) of the changed file never share
  an id; a verbatim repeat may keep its id (the store counts it as already there) or get
  its own; read in one run with the fixture, the two files' content hashes differ
  unless the message is the same (a source's own id names its message: an edit between
  two exports keeps it);
- nothing of the changed file is lost silently: every word the fixture's messages hold is
  in the changed file's messages as often, unless the reader reported a rejection or a
  warning for that file.

JSON documents change element-wise (any list of objects; JSON lines: the lines), text
exports line-wise (a block of lines repeated, one word changed in the copy; two lines
swapped), a mailbox message-wise (one mail's lines are headers and MIME parts: a single
``.eml`` is only copied). Every format of the registry has a fixture (``format_cases.CASES``,
test_ids_property.py holds that); built exports (a zip, a tar, a Maildir, Parquet) are
built from the changed text; a Word document and HTML and XML exports are left out. The
examples are few.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from format_cases import CASES, Case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from convo.core.errors import ConvoError
from convo.importers.context import Rejection
from convo.pipeline.ingest import Ingest

ID_KEYS = ("id", "_id", "uuid", "messageId", "message_id", "event_id", "ts", "tool_call_id")
WORD = re.compile(r"[^\W\d_]{3,}")


def _kind(path: Path) -> str:
    """How a file changes: ``json`` (one document), ``ytd`` (an X archive's part: a
    JSON array after its ``window.YTD`` line), ``jsonl`` (a value a line), ``text``,
    or ``binary`` (copied as it is: a Word document, and HTML and XML exports, whose
    lines are no units: a div repeated by lines is no export's shape)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return "binary"
    stripped = text.lstrip()
    if _YTD.match(stripped):
        return "ytd"
    if stripped.startswith("From "):
        return "mbox"
    if re.match(r"(?i)[a-z-]+: ", stripped) and "\nMessage-ID:" in text:
        return "binary"  # one mail: its lines are headers and MIME parts, not messages
    if stripped[:1] == "<":
        return "binary"  # HTML and XML: lines are no units of theirs (copied as they are)
    if stripped[:1] in "[{":
        try:
            json.loads(text)
            return "json"
        except json.JSONDecodeError:
            pass
        lines = [ln for ln in text.splitlines() if ln.strip()]
        try:
            [json.loads(ln) for ln in lines]
            return "jsonl"
        except json.JSONDecodeError:
            pass
    return "text"


# An X (Twitter) archive's part: ``window.YTD.<name>.part0 = `` and a JSON array, changed
# as the array (its lines are no units: a line repeated gives an object a key twice).
_YTD = re.compile(r"window\.YTD\.\w+\.part\d+\s*=\s*")


def _lists(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of the lists of objects in a JSON value (where messages sit)."""
    out = []
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        out.append(path)
    items = (
        value.items() if isinstance(value, dict) else enumerate(value)
        if isinstance(value, list) else ()
    )  # fmt: skip
    for key, child in items:
        out += _lists(child, (*path, key))
    return out


def _at(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _strings(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths of the string leaves that hold a word."""
    if isinstance(value, str):
        return [path] if WORD.search(value) else []
    items = (
        value.items() if isinstance(value, dict) else enumerate(value)
        if isinstance(value, list) else ()
    )  # fmt: skip
    return [p for key, child in items for p in _strings(child, (*path, key))]


def _edit_word(text: str, k: int) -> str:
    """``text`` with its k-th word (mod their number) changed."""
    words = list(WORD.finditer(text))
    if not words:
        return text + " zebra"
    m = words[k % len(words)]
    return text[: m.start()] + "Zebrafinch" + text[m.end() :]


def _drop_ids(value: Any) -> None:
    if isinstance(value, dict):
        for key in ID_KEYS:
            value.pop(key, None)
        for child in value.values():
            _drop_ids(child)
    elif isinstance(value, list):
        for child in value:
            _drop_ids(child)


@st.composite
def json_change(draw: st.DrawFn, doc: Any) -> tuple[Any, str]:
    """One change of a JSON value (a JSON lines file: its list of lines)."""
    places = _lists(doc)
    if not places:
        return doc, "none"
    path = draw(st.sampled_from(places))
    items = _at(doc, path)
    i = draw(st.integers(0, len(items) - 1))
    j = draw(st.integers(0, len(items)))
    kind = draw(st.sampled_from(["repeat", "edited", "reorder", "drop-ids"]))
    if kind == "repeat":
        items.insert(j, copy.deepcopy(items[i]))
    elif kind == "edited":
        item = copy.deepcopy(items[i])
        leaves = _strings(item)
        if leaves:
            leaf = draw(st.sampled_from(leaves))
            new = _edit_word(_at(item, leaf), draw(st.integers(0, 50)))
            if leaf:
                _at(item, leaf[:-1])[leaf[-1]] = new
            else:
                item = new
        items.insert(j, item)
    elif kind == "reorder":
        items[i], items[j % len(items)] = items[j % len(items)], items[i]
    else:
        _drop_ids(items[i] if draw(st.booleans()) else doc)
    return doc, f"{kind} {path}[{i}]->{j}"


@st.composite
def text_change(draw: st.DrawFn, lines: list[str]) -> tuple[list[str], str]:
    """One change of a text export's lines."""
    if not lines:
        return lines, "none"
    i = draw(st.integers(0, len(lines) - 1))
    n = draw(st.integers(1, 4))
    j = draw(st.integers(1, len(lines)))  # after the first line (a mail's headers, WEBVTT)
    kind = draw(st.sampled_from(["repeat", "edited", "swap"]))
    block = lines[i : i + n]
    if kind == "repeat":
        lines[j:j] = block
    elif kind == "edited":
        k = draw(st.integers(0, 50))
        worded = [x for x, ln in enumerate(block) if WORD.search(ln)]
        if worded:
            x = worded[k % len(worded)]
            block = [*block[:x], _edit_word(block[x], k), *block[x + 1 :]]
        lines[j:j] = block
    else:
        j = min(i + 1, len(lines) - 1)
        lines[i], lines[j] = lines[j], lines[i]
    return lines, f"{kind} {i}+{n}->{j}"


@st.composite
def mail_change(draw: st.DrawFn, mails: list[str]) -> tuple[list[str], str]:
    """One change of a mailbox's messages (each with its ``From `` line)."""
    i = draw(st.integers(0, len(mails) - 1))
    j = draw(st.integers(0, len(mails)))
    kind = draw(st.sampled_from(["repeat", "edited", "swap"]))
    mail = mails[i] if mails[i].endswith("\n\n") else mails[i].rstrip("\n") + "\n\n"
    if kind == "repeat":
        mails.insert(j, mail)
    elif kind == "edited":
        head, sep, body = mail.partition("\n\n")
        mails.insert(j, head + sep + _edit_word(body, draw(st.integers(0, 50))))
    else:
        mails[i], mails[j % len(mails)] = mails[j % len(mails)], mails[i]
    return mails, f"mail {kind} {i}->{j}"


@st.composite
def changed(draw: st.DrawFn, path: Path) -> tuple[str, list[str]]:
    """The file's text after one to three changes, and what they were."""
    kind = _kind(path)
    text = path.read_text(encoding="utf-8")
    done = []
    if kind == "json":
        doc = json.loads(text)
        for _ in range(draw(st.integers(1, 3))):
            doc, what = draw(json_change(doc))
            done.append(what)
        return json.dumps(doc, ensure_ascii=False, indent=1), done
    if kind == "ytd":
        prefix = _YTD.match(text.lstrip())
        assert prefix is not None
        doc = json.loads(text.lstrip()[prefix.end() :])
        for _ in range(draw(st.integers(1, 3))):
            doc, what = draw(json_change(doc))
            done.append(what)
        return prefix[0] + json.dumps(doc, ensure_ascii=False, indent=1), done
    if kind == "jsonl":
        rows = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
        for _ in range(draw(st.integers(1, 3))):
            rows, what = draw(json_change(rows))
            done.append(what)
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), done
    if kind == "mbox":  # whole messages: repeated, one body word changed, swapped
        mails = re.split(r"(?m)^(?=From )", text)[1:]
        for _ in range(draw(st.integers(1, 3))):
            mails, what = draw(mail_change(mails))
            done.append(what)
        return "".join(mails), done
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        lines, what = draw(text_change(lines))
        done.append(what)
    return "".join(lines), done


def _place(case: Case, folder: Path, text: str | None) -> Path:
    """The case's export in ``folder`` (its text replaced by ``text``), as its reader takes it."""
    src = ROOT / case.path
    folder.mkdir(parents=True)
    if case.make is not None:
        if text is not None:
            src = folder.parent / f"{folder.name}-src" / src.name
            src.parent.mkdir()
            src.write_text(text, encoding="utf-8")
        return case.make(src, folder, None)
    dst = folder / src.name
    if src.is_dir():
        shutil.copytree(src, dst)
        return dst
    shutil.copy(src, dst)
    for name in case.siblings:
        shutil.copy(src.with_name(name), dst.with_name(name))
    if text is not None:
        dst.write_text(text, encoding="utf-8")
    return dst


def _target(case: Case) -> Path | None:
    """The file whose text changes: the case's file; None for a folder (the Slack export:
    its day files are the ``slack-file`` case) and a ``binary`` one (``_kind``)."""
    src = ROOT / case.path
    if src.is_dir():
        return None
    return None if _kind(src) == "binary" else src


def _read(case: Case, paths: list[Path]) -> tuple[list[Any], list[Rejection], list[str]]:
    rejects: list[Rejection] = []
    warnings: list[str] = []
    run = Ingest(format_name=case.fmt, on_reject=rejects.append, on_warning=warnings.append)
    try:
        msgs = list(run.messages([str(p) for p in paths]))
    except ConvoError as e:  # the change made the file unreadable: said, not lost
        rejects.append(Rejection(str(e), "error"))
        msgs = []
    return msgs, rejects, warnings


def _words(msgs: list[Any]) -> Counter[str]:
    """The words of the messages' texts and extras (a reader keeps some there: LM Studio's
    other versions), case-folded (a header line read as text keeps its word), links
    left out (``_URL``)."""
    texts = (_URL.sub(" ", t) for m in msgs for t in (*m.text_chunks, *_prose(m.extra)))
    return Counter(w.casefold() for t in texts for w in WORD.findall(t))


# A link's words are not counted: a link entry repeated with one word edited (an X
# archive's two expansions of one t.co link) can expand it only one way.
_URL = re.compile(r"\bhttps?://\S+")


def _lost(before: list[Any], after: list[Any]) -> dict[str, int]:
    """Words of ``before`` that ``after`` holds fewer times, save those of its speakers (a
    repeated line may read as a name; a name's turns may merge)."""
    names = {w.casefold() for m in after for w in WORD.findall(m.speaker or "")}
    return {w: n for w, n in (_words(before) - _words(after)).items() if w not in names}


def _prose(value: Any) -> list[str]:
    """The string values of an extra that hold a space (texts, not ids or keys)."""
    if isinstance(value, str):
        return [value] if " " in value.strip() else []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [t for v in items for t in _prose(v)]


def _content(m: Any) -> tuple:
    return (tuple(m.text_chunks), m.speaker, m.timestamp)


def _said(m: Any) -> tuple:
    """What a content hash of a transcript holds: its time is the offset in the recording
    (``transcripts.textturns``), so a copy without its date line is the same cue."""
    return (tuple(m.text_chunks), m.speaker)


def _shared(msgs: list[Any], key: Any = _content) -> dict[str, list[str]]:
    """The ids of ``msgs`` that two different messages share: {id: their contents}."""
    by_id: dict[str, set[tuple]] = {}
    for m in msgs:
        by_id.setdefault(m.id, set()).add(key(m))
    return {i: sorted(map(str, c)) for i, c in by_id.items() if len(c) > 1}


CHANGING = [c for c in CASES if _target(c) is not None]


@pytest.mark.parametrize("case", CHANGING, ids=lambda c: f"{c.fmt}-{Path(c.path).name}")
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_changed_export_keeps_ids_apart_and_loses_nothing(case: Case, data: Any) -> None:
    target = _target(case)
    assert target is not None
    text, done = data.draw(changed(target))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        one = _place(case, root / "one", None)
        other = _place(case, root / "other", text)
        before, _, _ = _read(case, [one])
        after, rejects, warnings = _read(case, [other])
        both, _, _ = _read(case, [one, other])
    assert not _shared(after), f"{done}: different messages share an id: {_shared(after)}"
    # across the two files only a content hash must differ: a source's own id names its
    # message, and the same message edited between two exports keeps it (the store
    # keeps the one it has; docs/ids.md)
    across = {i: c for i, c in _shared(both, _said).items() if i.startswith("h:")}
    assert not across, f"{done}: two exports' different messages share an id: {across}"
    if not rejects and not warnings:
        lost = _lost(before, after)
        assert not lost, f"{done}: words lost silently: {lost}"
