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


# Issue 36 §6 and §7: zoned Limnoria times, bouncer logs (dircproxy, bip), and detection
# that does not hinge on a log's length or one byte.


def test_limnoria_time_with_zone_is_read_with_it():
    recs, rejects, warnings = run(irc.read, DIR / "ChannelLogger-#tea.zoned.log")
    assert not rejects and not warnings
    assert [r["timestamp"] for r in recs] == [
        "2022-03-01T10:00:00Z",
        "2022-03-01T10:00:04Z",
        "2022-03-01T09:00:06Z",
        "2022-03-01T10:00:09Z",
    ]
    assert recs[1]["metadata"]["speaker"] == "alice" and recs[2]["tags"] == ["action"]


def test_bip_log():
    recs, rejects, warnings = run(irc.read, DIR / "bip-#tea.01.log")
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"]) for r in recs]
    assert got == [
        (None, "-!- alice!~alice@wonder.land has joined #tea", ["system"]),
        ("alice", "hello from bip", []),
        ("bob", "alice: hi", []),
        ("alice", "waves", ["action"]),
    ]
    assert recs[2]["metadata"]["listeners"] == ["alice"]
    assert recs[1]["timestamp"] == "2022-03-01T10:00:05Z" and recs[0]["thread"] == "#tea"


def test_dircproxy_log_takes_its_year_from_start_date():
    from datetime import datetime

    from convo.importers.context import ImportOptions

    opts = ImportOptions(start_date=datetime(2022, 1, 1))
    recs, rejects, warnings = run(irc.read, DIR / "#tea.dircproxy.log", opts)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"]) for r in recs]
    assert got == [
        (None, "--> alice (~alice@wonder.land) has joined #tea", ["system"]),
        ("alice", "hello from dircproxy", []),
        ("bob", "waves", ["action"]),
        ("bob", "a notice", ["notice"]),
        ("bob", "alice: hi", []),
    ]
    assert recs[1]["timestamp"] == "2022-03-01T10:01:00Z" and recs[0]["thread"] == "#tea"
    _, _, warnings = run(irc.read, DIR / "#tea.dircproxy.log")
    assert warnings == ["#tea.dircproxy.log: 5 lines without a known date get the epoch sentinel"]


@pytest.mark.parametrize(
    "name", ["ChannelLogger-#tea.zoned.log", "bip-#tea.01.log", "#tea.dircproxy.log"]
)
def test_new_dialects_are_detected(name):
    assert registry.detect(Source(DIR / name)).name == "irc"


def test_two_line_log_with_a_byte_that_is_not_utf8_is_detected():
    path = DIR / "two-lines.weechatlog"
    assert irc.sniff(Source(path)) > 0
    assert registry.detect(Source(path)).name == "irc"
    recs, _, warnings = run(irc.read, path)
    assert [r["textChunks"][0] for r in recs] == ["hello café", "alice, tea?"]
    assert len(warnings) == 1 and "windows-1252" in warnings[0]


def test_short_text_that_is_not_all_log_lines_is_not_irc(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("2022-03-01 10:00:05\t@alice\thello\nDear diary, today I read logs.\n")
    assert irc.sniff(Source(path)) == 0


# IRCCloud's log export (a real one pasted in monero-project/meta issue 427, and an
# importer's notes on it: the irclog-stats `ircimport` tool) and mIRC's logs (mIRC's
# ``Session Start:``/``Session Ident:`` lines as NeoStats' LogServ writes them for mIRC,
# log parsers' tests quoting real logs with mIRC's colour codes kept).


def test_irccloud_export():
    path = DIR / "irccloud-tea.txt"
    assert registry.detect(Source(path)).name == "irc"  # not WhatsApp's [date time]
    recs, rejects, warnings = run(irc.read, path)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"]) for r in recs]
    assert got[:6] == [
        (None, "→ Joined channel #tea", ["system"]),
        (None, "ChanServ set +o alice", ["system"]),
        (None, "Channel mode is +cnt", ["system"]),
        ("alice", "good morning", []),
        ("hatter", "alice: the clocks stopped again", []),
        ("dormouse", "checks in", ["action"]),
    ]
    assert got[6][2] == got[7][2] == got[9][2] == ["system"]
    assert got[8] == ("bridge", "[keybase] <surae>: relayed words", [])
    assert {r["thread"] for r in recs} == {"#tea"}  # its first line, the file names none
    assert recs[3]["timestamp"] == "2022-03-01T10:00:05Z"
    assert recs[4]["metadata"]["listeners"] == ["alice"]


def test_mirc_log_sessions_events_and_colour_codes():
    path = DIR / "mirc-tea.log"
    assert registry.detect(Source(path)).name == "irc"
    recs, rejects, warnings = run(irc.read, path)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["textChunks"][0], r["tags"]) for r in recs]
    assert got == [
        (None, "Now talking in #tea", ["system"]),
        (None, "Topic is 'Unbirthday planning'", ["system"]),
        (None, "Set by alice!~a@wonder.land on Mon Feb 28 09:00:00", ["system"]),
        ("alice", "good morning", []),
        ("hatter", "alice: the clocks stopped", []),
        ("dormouse", "yawns", ["action"]),
        (None, "march (~m@h) has joined #tea", ["system"]),
        (None, "alice sets mode: +o march", ["system"]),
        ("alice", "past midnight", []),
        (None, "Disconnected", ["system"]),
    ]
    assert {r["thread"] for r in recs} == {"#tea"}
    assert recs[3]["timestamp"] == "2022-03-01T10:01:00Z"
    assert recs[8]["timestamp"] == "2022-03-02T00:05:00Z"  # after ``Session Time:``


def test_dated_lines_with_an_offset_keep_it(tmp_path):
    path = tmp_path / "znc.log"
    path.write_text(
        "[2022-03-01T10:00:00+0100] <alice> hello\n[2022-03-01T10:00:04+0100] <bob> hi\n"
        "[2022-03-01T10:00:09+0100] * bob waves\n"
    )
    recs, rejects, _ = run(irc.read, path)
    assert not rejects
    assert [r["timestamp"] for r in recs] == [
        "2022-03-01T09:00:00Z",
        "2022-03-01T09:00:04Z",
        "2022-03-01T09:00:09Z",
    ]
    assert recs[2]["tags"] == ["action"]


def test_eggdrop_log():
    """Eggdrop's logfile (its irc.mod's putlog lines: joins, ``Nick change:``, ``Topic
    changed on``, mode changes, quits, ``Action:``), named ``#chan.log.YYYYMMDD``."""
    path = DIR / "eggdrop_#tea.log.20220301"
    assert registry.detect(Source(path)).name == "irc"
    recs, rejects, warnings = run(irc.read, path)
    assert not rejects and not warnings
    got = [(r["metadata"]["speaker"], r["tags"]) for r in recs]
    assert got == [
        (None, ["system"]),
        ("alice", []),
        ("bob", []),
        ("bob", ["action"]),
        (None, ["system"]),
        (None, ["system"]),
        (None, ["system"]),
        (None, ["system"]),
    ]
    assert recs[3]["textChunks"] == ["waves"]
    assert recs[0]["timestamp"] == "2022-03-01T10:00:00Z" and recs[0]["thread"] == "#tea"
