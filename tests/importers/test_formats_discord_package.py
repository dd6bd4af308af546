"""Discord's own data package (``convo.importers.apps.discord_package``).

Two packages made to the layouts found (see the module docstring): ``package/`` the newer
one (``messages.json`` arrays with numeric ``ID`` and naive UTC times, ``channel.json``
with named types, a server channel, a DM, a group DM whose label is null, attachments
separated by spaces, an empty message, a time that does not read, a non-ASCII owner
name) and ``old_package/`` the older one (``messages.csv`` with CRLF rows, a quoted
cell with a comma and a line break, offsets ``+00:00`` and ``+02:00``, a bare-id channel
folder beside a ``c``-prefixed one, numeric channel types, an owner with a
discriminator and no ``global_name``, whose friend's ``global_name`` follows and is not
taken for the owner's).
"""

from __future__ import annotations

import json

import pytest
from chat_exports_helpers import ingest
from formats_helpers import FIXTURES, TEXT, assert_one_text_an_id, files_taken, run
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.apps import discord_package
from convo.importers.registry import registry
from convo.pipeline.notes import clash_warning

ROOT = FIXTURES / "discord_package"
NEW = ROOT / "package" / "messages"
OLD = ROOT / "old_package" / "messages"
GUILD = NEW / "c1012224565567721552" / "messages.json"
DM = NEW / "c1102291754930929684" / "messages.json"
OLD_GUILD = OLD / "464051583559139340" / "messages.csv"


def test_goldens():
    for path, golden in ((GUILD, "guild"), (DM, "dm"), (OLD_GUILD, "old-guild")):
        recs, _, _ = run(discord_package.read, path)
        assert_golden(f"formats/discord_package/{golden}.jsonl", recs)


def test_newer_package_mapping_rejects_and_empties():
    recs, rejects, warnings = run(discord_package.read, GUILD)
    assert [r["id"] for r in recs] == [
        "discord:1213036756992000000",
        "discord:1213037008650240000",
        "discord:1213094638387200000",
    ]
    first, files, mixed = recs
    assert first["metadata"] == {"speaker": "Maple Éire 🍁", "listeners": []}
    assert first["timestamp"] == "2024-03-01T08:15:00Z"  # naive: UTC
    assert {r["thread"] for r in recs} == {"general in Garden club"}
    assert {r["format"] for r in recs} == {"discord"}
    assert files["textChunks"][0].startswith("[attachment] https://cdn.discordapp.com/")
    assert len(files["extra"]["attachments"]) == 2  # separated by a space
    assert mixed["textChunks"][0] == "café はい مرحبا"
    assert (
        mixed["extra"]["guild"] == "Garden club" and mixed["extra"]["channel_type"] == "GUILD_TEXT"
    )
    assert [(r.where, r.reason) for r in rejects] == [
        ("messages.json:26", "Timestamp 'yesterday' is not a time")
    ]
    assert warnings == [
        "messages.json: skipped messages with neither text nor attachment (embeds, stickers): 1 "
        "(at messages.json:20)"
    ]


def test_dm_listener_and_group_dm_label():
    recs, _, _ = run(discord_package.read, DM)
    assert {r["thread"] for r in recs} == {"Direct Message with fern.k#0"}
    assert {tuple(r["metadata"]["listeners"]) for r in recs} == {("fern.k",)}
    assert len({r["id"] for r in recs}) == 3  # the same words twice, two ids
    group, _, _ = run(discord_package.read, NEW / "c446865271341187072" / "messages.json")
    assert group[0]["thread"] == "c446865271341187072"  # a null label, a nameless channel
    assert group[0]["metadata"]["listeners"] == []


def test_older_csv_package():
    recs, rejects, warnings = run(discord_package.read, OLD_GUILD)
    assert [(r["timestamp"], r["textChunks"]) for r in recs] == [
        ("2020-08-25T22:54:05Z", ["<:NotLikeThis:237729324885606403>"]),
        (
            "2020-08-25T22:55:00Z",
            [
                'a line, with a comma\nand a "quoted" second line',
                "[attachment] https://cdn.discordapp.com/attachments/464051583559139340/"
                "747951969171275809/cat.gif",
            ],
        ),
        ("2020-08-25T23:00:00Z", ["Zeit für Kaffee ☕"]),  # +02:00
    ]
    assert {r["metadata"]["speaker"] for r in recs} == {"Ann#1234"}
    assert {r["thread"] for r in recs} == {"general in Dream World"}
    assert [r.reason for r in rejects] == ["Timestamp 'not a date' is not a time"]
    assert len(warnings) == 1
    dm, _, _ = run(discord_package.read, OLD / "c502291754930929684" / "messages.csv")
    assert dm[0]["metadata"] == {"speaker": "Ann#1234", "listeners": ["Bob#0042"]}


def test_detection_and_side_files():
    for path in (
        GUILD,
        DM,
        OLD_GUILD,
        NEW / "index.json",
        NEW / "c446865271341187072" / "channel.json",
    ):
        assert registry.detect(Source(path)).name == "discord-package"
    for side in (NEW / "index.json", OLD / "464051583559139340" / "channel.json"):
        assert run(discord_package.read, side) == ([], [], [])


def test_an_empty_channel_reads_as_no_messages(tmp_path):
    path = tmp_path / "messages.json"
    path.write_text("[]\n")
    assert registry.detect(Source(path)).name == "discord-package"
    assert run(discord_package.read, path)[:2] == ([], [])


def test_a_lone_channel_json_says_it_holds_no_messages(tmp_path):
    lone = tmp_path / "channel.json"
    lone.write_text('{"id": "1", "type": "DM"}')
    recs, rejects, warnings = run(discord_package.read, lone)
    assert (recs, rejects) == ([], []) and "holds no messages" in warnings[0]


def test_without_user_json_the_author_is_unknown(tmp_path):
    path = tmp_path / "messages.json"
    path.write_bytes(GUILD.read_bytes())
    recs, _, warnings = run(discord_package.read, path)
    assert {r["metadata"]["speaker"] for r in recs} == {None}
    assert any("the author is unknown" in w for w in warnings)


def test_the_whole_messages_folder_ingests_with_nothing_unrecognised():
    from convo.pipeline.ingest import Ingest

    run_ = Ingest()
    recs = list(run_.messages([NEW, OLD]))
    assert run_.stats.unrecognised == []
    assert run_.stats.rejected == 2
    assert len(recs) == 11 and {r.format for r in recs} == {"discord"}


def test_the_whole_package_ingests_with_nothing_unrecognised(tmp_path):
    """A package holds account/, activity/, servers/ beside messages/ (discord_data's
    layout): ingesting the package's folder left account/user.json, servers/index.json,
    each server's guild.json and audit-log.json and the activity events unrecognised
    (exit 1). They hold no messages, and read as none."""
    import shutil

    from convo.pipeline.ingest import Ingest

    root = tmp_path / "package"
    shutil.copytree(ROOT / "package", root)
    server = root / "servers" / "1012224565567721000"
    server.mkdir(parents=True)
    (root / "servers" / "index.json").write_text('{"1012224565567721000": "Garden club"}')
    (server / "guild.json").write_text('{"id": "1012224565567721000", "name": "Garden club"}')
    (server / "audit-log.json").write_text("[]")
    events = root / "activity" / "analytics"
    events.mkdir(parents=True)
    (events / "events-2024-00000-of-00001.json").write_text(
        '{"event_type": "launch_success", "event_id": "AQ", "timestamp": "2024-01-01"}\n'
    )
    run_ = Ingest()
    recs = list(run_.messages([root]))
    assert run_.stats.unrecognised == []
    assert recs and {r.format for r in recs} == {"discord"}
    for side in (root / "account" / "user.json", server / "guild.json"):
        assert run(discord_package.read, side) == ([], [], [])


def test_no_other_file_is_read_as_discord_package():
    assert files_taken({"discord-package"}, {"discord_package"}) == {}


def test_an_id_repeated_on_other_text_is_not_shared(tmp_path):
    rows = [
        {"ID": 5, "Timestamp": "2024-01-01 00:00:00", "Contents": "one", "Attachments": ""},
        {"ID": 5, "Timestamp": "2024-01-01 00:00:01", "Contents": "two", "Attachments": ""},
        {"ID": 5, "Timestamp": "2024-01-01 00:00:00", "Contents": "one", "Attachments": ""},
    ]
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(rows))
    recs, _, warnings = ingest(path, "discord-package")
    assert recs[0]["id"] == recs[2]["id"] == "discord:5" != recs[1]["id"]
    assert f"{path}: {clash_warning(1)}" in warnings


def _csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(TEXT, st.booleans()), min_size=1, max_size=8), st.booleans())
def test_any_package_file_reads_back(tmp_path_factory, msgs, as_csv):
    folder = tmp_path_factory.mktemp("pkg")
    if as_csv:
        lines = [discord_package.HEADER] + [
            f"{900 + k},2024-01-01 00:00:{k:02d}.5+00:00,{_csv_cell(t)},"
            + ("https://cdn.example/f.png" if f else "")
            for k, (t, f) in enumerate(msgs)
        ]
        path = folder / "messages.csv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        rows = [
            {"ID": 900 + k, "Timestamp": f"2024-01-01 00:00:{k:02d}", "Contents": t,
             "Attachments": "https://cdn.example/f.png" if f else ""}
            for k, (t, f) in enumerate(msgs)
        ]  # fmt: skip
        path = folder / "messages.json"
        path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    recs, rejects, _ = run(discord_package.read, path)
    assert not rejects
    assert [r["textChunks"] for r in recs] == [
        [t] + (["[attachment] https://cdn.example/f.png"] if f else []) for t, f in msgs
    ]
    assert [r["id"] for r in recs] == [f"discord:{900 + k}" for k in range(len(msgs))]


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400), st.integers(0, 300), st.booleans())
def test_hostile_input_never_crashes(tmp_path_factory, noise, cut, as_csv):
    from convo.core.errors import ConvoError

    folder = tmp_path_factory.mktemp("hostile")
    src = OLD_GUILD if as_csv else GUILD
    raw = src.read_bytes()
    path = folder / src.name
    path.write_bytes(raw[: max(len(raw) - cut, 40)] + noise)
    try:
        recs, _, _ = ingest(path, "discord-package")  # the pipeline holds an id to one message
    except ConvoError:
        return
    assert_one_text_an_id(recs)


@pytest.mark.parametrize(
    ("disc", "owner"),
    [("1234", "ann#1234"), ("0", "ann"), ("0000", "ann"), ("1" * 5000, "ann#" + "1" * 5000)],
)
def test_the_owner_s_discriminator(tmp_path, disc, owner):
    """A discriminator of zeros is none (the new usernames); a 5,000-digit one was
    ``int``'s ValueError, a traceback."""
    from convo.importers.apps.discord_package import _owner

    (tmp_path / "account").mkdir()
    (tmp_path / "account" / "user.json").write_text(
        json.dumps({"username": "ann", "discriminator": disc})
    )
    assert _owner(tmp_path) == owner
