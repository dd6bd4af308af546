"""A damaged SQLite file, for every format that reads one (slackdump, AutoGen's logs.db,
Cursor's state.vscdb, Goose's sessions.db, Ollama's db.sqlite, Messages' chat.db; LLM's logs.db has its own
in test_formats_llm_logsdb.py): bytes
overwritten at random past the header give records, or one InputError naming the file;
never another exception. Before ``importers.sqlitedb`` held the readers' errors, files
of these escaped as tracebacks: ``UnicodeDecodeError`` (SQLite's message of a damaged
schema, not UTF-8) in slackdump and Cursor, and an ``IndexError`` on a damaged Cursor key.
Deterministic (a seeded generator), so a failure names its file."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import test_formats_autogen_runtime as autogen
import test_formats_goose as goose
import test_formats_ollama as ollama
import test_formats_slackdump as slackdump

import convo
from convo.core.errors import ConvoError

CURSOR = Path(__file__).parent.parent / "fixtures/formats/cursor/globalStorage/state.vscdb"
WEBUI = Path(__file__).parent.parent / "fixtures/formats/open_webui_db/webui.db"
CHAT_DB = Path(__file__).parent.parent / "fixtures/formats/imessage/chat.db"


def _database(fmt: str, folder: Path) -> Path:
    if fmt == "slackdump":
        path = folder / "slackdump.sqlite"
        slackdump._database(path, slackdump._chunks())
        return path
    if fmt == "autogen-runtime":
        path = folder / "logs.db"
        autogen._logs_db(path)
        return path
    if fmt == "goose":
        path = folder / "sessions.db"
        goose._sessions_db(path)
        return path
    if fmt == "ollama":
        path = folder / "db.sqlite"
        ollama._app_db(path)
        return path
    if fmt == "open-webui":
        return WEBUI
    return CHAT_DB if fmt == "imessage-db" else CURSOR


@pytest.mark.parametrize(
    "fmt",
    ["slackdump", "autogen-runtime", "cursor", "goose", "ollama", "open-webui", "imessage-db"],
)
def test_damaged_databases_read_or_are_one_input_error(tmp_path, fmt):
    data = _database(fmt, tmp_path).read_bytes()
    rng = random.Random(1)
    escaped = []
    for i in range(150):
        hit = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            at = rng.randint(100, len(hit) - 1)
            junk = rng.randbytes(rng.randint(1, 64))
            hit[at : at + len(junk)] = junk[: len(hit) - at]
        path = tmp_path / f"hit-{i}.db"
        path.write_bytes(bytes(hit))
        try:
            list(convo.read_messages(path, format=fmt))
        except ConvoError as e:
            assert str(path) in str(e) or path.name in str(e), e
        except Exception as e:  # what the test looks for
            escaped.append(f"{path.name}: {type(e).__name__}: {e}")
        path.unlink()
    assert escaped == []
