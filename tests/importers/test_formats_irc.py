"""IRC logs (``convo.importers.apps.irc``): irssi, WeeChat, ZNC, Limnoria, HexChat.

Fixtures reproduce each client's default log lines: irssi (``--- Log opened``, ``--- Day
changed``, ``HH:MM <@nick>``, `` * nick`` actions, ``-!-`` events), WeeChat
(tab-separated ``date<TAB>prefix<TAB>text`` with ``-->``/``<--``/``--``/`` *``), ZNC's
``log`` module (``[HH:MM:SS] <nick>``, ``*** Joins:``, ``-NickServ-`` notices; the date in
the file name), Limnoria's ChannelLogger (``ISO-time  <nick>``) and HexChat/XChat
(``**** BEGIN LOGGING AT`` ctime header, ``Mon DD HH:MM:SS <nick><TAB>text``, ``*<TAB>``
events), as shown by log2timeline/plaso's XChat parser and the clients' sources found
with the code search.
"""

from __future__ import annotations

import pytest
from formats_helpers import FIXTURES, detect_name, fresh_registry, run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import irc
from convo.importers.registry import registry

DIR = FIXTURES / "irc"
FILES = {
    "irssi": "#tea.log",
    "weechat": "irc.libera.#tea.weechatlog",
    "znc": "libera_#tea_20220301.log",
    "limnoria": "ChannelLogger-#tea.2022-03-01.log",
    "hexchat": "libera-#tea.log",
}


@pytest.mark.parametrize("client", sorted(FILES))
def test_golden(client):
    recs, _, warnings = run(irc.read, DIR / FILES[client])
    assert not warnings
    assert_golden(f"formats/irc/{client}.jsonl", recs)
    assert {r["thread"] for r in recs} == {"#tea"}
    assert all(r["timestamp"].startswith("2022-03-0") for r in recs)


def test_irssi_mapping_day_change_and_reject():
    recs, rejects, _ = run(irc.read, DIR / FILES["irssi"])
    assert [(r.where, r.reason) for r in rejects] == [("#tea.log:11", "not a irssi log line")]
    by_text = {r["textChunks"][0]: r for r in recs}
    hatter = by_text["alice: the clocks stopped again"]
    assert hatter["metadata"] == {"speaker": "hatter", "listeners": ["alice"]}
    assert by_text["good morning"]["extra"] == {"mode": "@"}
    assert by_text["sighs"]["tags"] == ["action"]
    assert by_text["-!- dormouse is now known as dozy"]["tags"] == ["system"]
    assert by_text["past midnight, still here"]["timestamp"] == "2022-03-02T00:05:00Z"


def test_hexchat_events_and_actions():
    recs, _, _ = run(irc.read, DIR / FILES["hexchat"])
    kinds = [(r["textChunks"][0], r["tags"], r["metadata"]["speaker"]) for r in recs]
    assert kinds == [
        ("Now talking on #tea", ["system"], None),
        ("bob (~b@h) has joined #tea", ["system"], None),
        ("hexchat here", [], "alice"),
        ("alice: hi", [], "bob"),
        ("waves", ["action"], "bob"),
    ]


def test_znc_notice_and_date_from_name():
    recs, _, _ = run(irc.read, DIR / FILES["znc"])
    assert recs[-1]["tags"] == ["notice"] and recs[-1]["metadata"]["speaker"] == "NickServ"
    assert recs[1]["timestamp"] == "2022-03-01T10:00:03Z"


def test_undated_znc_file_warns(tmp_path):
    path = tmp_path / "tea.log"
    path.write_bytes((DIR / FILES["znc"]).read_bytes())
    recs, _, warnings = run(irc.read, path)
    assert recs[0]["timestamp"] == "1970-01-01T00:00:00Z"
    assert warnings == ["tea.log: 5 lines without a known date get the epoch sentinel"]


def test_sniff_and_detect_among_builtins():
    reg = fresh_registry(irc)
    for name in FILES.values():
        assert irc.sniff(Source(DIR / name)) >= 70
        assert detect_name(reg, DIR / name) == "irc"


def test_sniff_refuses_other_text(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("00:00:05 Alice: hello\n00:00:09 Bob: hi\n00:00:12 Alice: bye\n")
    assert irc.sniff(Source(path)) == 0


def test_global_registry_detects():
    assert registry.detect(Source(DIR / FILES["irssi"])).name == "irc"
