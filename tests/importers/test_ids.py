"""Ids name their source (docs/ids.md): two different exports never share an id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA
from convo.core.io import Source
from convo.importers.build import clean_scope, folder_scope, scoped_id
from convo.importers.context import ImportOptions
from convo.pipeline.ingest import Ingest
from convo.pipeline.run import run_ingest

SE = SAMPLE_DATA / "forum" / "stackexchange"


def _ids(paths: list[Path], warnings: list[str] | None = None) -> list[str]:
    run = Ingest(on_warning=(warnings if warnings is not None else []).append)
    return [m.id for m in run.messages([str(p) for p in paths])]


def _saved(paths: list[Path], store: Path) -> int:
    summary = run_ingest([str(p) for p in paths], ImportOptions(), save=True, store=str(store))
    assert summary.appended is not None
    return sum(1 for _ in store.open())


def test_scoped_id_and_its_scope(tmp_path):
    assert scoped_id("se", "cooking", "12") == "se:cooking:12"
    assert scoped_id("se", None, "12") == "se:12"
    assert clean_scope(" Meta.Example.ORG ") == "meta.example.org"
    assert clean_scope("a b:c") == "a-b-c"
    assert clean_scope(" : ") is None
    path = tmp_path / "My Site" / "Posts.xml"
    path.parent.mkdir()
    path.write_text("<posts/>")
    assert folder_scope(Source(path)) == "my-site"


def _site_dump(tmp_path: Path, folder: str) -> Path:
    dst = tmp_path / folder
    shutil.copytree(SE, dst)
    return dst


def test_two_stack_exchange_sites_keep_every_post(tmp_path):
    """The issue's case: two sites' dumps both number their posts from 1."""
    a = _site_dump(tmp_path, "cooking.stackexchange.com")
    b = _site_dump(tmp_path, "superuser.com")
    one = _ids([a / "Posts.xml", a / "Comments.xml"])
    assert one[0] == "se:cooking:10" and "se:cooking:c100" in one
    assert _ids([b / "Posts.xml"])[0] == "se:superuser:10"
    store = tmp_path / "store.jsonl"
    files = [a / "Posts.xml", a / "Comments.xml", b / "Posts.xml", b / "Comments.xml"]
    assert _saved(files, store) == 2 * len(one)
    assert _saved(files, store) == 2 * len(one)  # a re-ingest adds nothing


def test_stack_exchange_site_from_the_file_prefix(tmp_path):
    dump = tmp_path / "dumps"
    dump.mkdir()
    shutil.copy(SE / "Posts.xml", dump / "History.meta-Posts.xml")
    assert _ids([dump / "History.meta-Posts.xml"])[0] == "se:history.meta:10"


def test_stack_exchange_from_stdin_says_it_has_no_site(monkeypatch):
    warnings: list[str] = []
    monkeypatch.setattr("sys.stdin", open(SE / "Posts.xml"))  # noqa: SIM115
    run = Ingest(format_name="stackexchange", on_warning=warnings.append)
    assert next(iter(run.messages(["-"]))).id == "se:10"
    assert any("no site known" in w for w in warnings)


def _discourse_topic(host: str | None, first_post: int) -> dict:
    avatar = (
        f"/user_avatar/{host}/bob/{{size}}/3.png" if host else "/letter_avatar/bob/{size}/2.png"
    )
    posts = [
        {"id": first_post + k, "post_number": k + 1, "username": "bob", "raw": f"post {k}",
         "created_at": "2024-01-02T03:04:05Z", "avatar_template": avatar}
        for k in range(3)
    ]  # fmt: skip
    return {"id": 7, "title": "T", "post_stream": {"posts": posts}}


def test_discourse_instance_from_the_avatar_host_else_the_folder(tmp_path):
    (tmp_path / "forum").mkdir()
    a = tmp_path / "forum" / "a.json"
    a.write_text(json.dumps(_discourse_topic("meta.Example.org", 1)))
    b = tmp_path / "forum" / "b.json"
    b.write_text(json.dumps(_discourse_topic(None, 1)))
    assert _ids([a])[:2] == [
        "discourse:meta.example.org:post:1",
        "discourse:meta.example.org:post:2",
    ]
    assert _ids([b])[0] == "discourse:forum:post:1"
    assert _saved([a, b], tmp_path / "store.jsonl") == 6


@pytest.mark.parametrize("host", ["meta.example.org", None])
def test_discourse_replies_and_threads_share_the_scope(tmp_path, host):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_discourse_topic(host, 10)))
    run = Ingest()
    msgs = list(run.messages([str(path)]))
    scope = host or tmp_path.name.lower()
    assert {m.thread for m in msgs} == {f"discourse:{scope}:7"}
    assert msgs[1].reply_to == f"discourse:{scope}:post:10"


PHPBB = Path(__file__).resolve().parent.parent / "fixtures" / "forum" / "phpbb-posts.xml"
_CONFIG = """	<table name="phpbb_config">
		<column>config_name</column>
		<column>config_value</column>
		<row><value>sitename</value><value>Tea</value></row>
		<row><value>server_name</value><value>Forum.Example.org</value></row>
	</table>
</dataset>"""


def test_phpbb_board_from_its_config_else_the_folder(tmp_path):
    (tmp_path / "board").mkdir()
    configured = tmp_path / "board" / "a.xml"
    configured.write_text(PHPBB.read_text().replace("</dataset>", _CONFIG))
    plain = tmp_path / "board" / "b.xml"
    shutil.copy(PHPBB, plain)
    assert _ids([configured])[:2] == ["phpbb:forum.example.org:1", "phpbb:forum.example.org:2"]
    assert _ids([plain])[0] == "phpbb:board:1"
    assert _saved([configured, plain], tmp_path / "store.jsonl") == 6


def _tg_chat(peer: int, me: int, kind: str = "personal_chat") -> dict:
    msgs = [
        {"id": k, "type": "message", "date": "2024-01-02T03:04:05", "date_unixtime": "1704164645",
         "from": name, "from_id": f"user{who}", "text": f"hi {k}"}
        for k, (name, who) in enumerate([("Peer", peer), ("Me", me), ("Peer", peer)], 1)
    ]  # fmt: skip
    return {"name": "Peer", "type": kind, "id": peer, "messages": msgs}


def test_telegram_personal_chats_are_numbered_per_account(tmp_path):
    """Two people's exports of their chats with a third share the chat id and the
    message numbers; the account tells them apart."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_tg_chat(7, 42)))
    b.write_text(json.dumps(_tg_chat(7, 43)))
    assert _ids([a]) == ["telegram:42/7:1", "telegram:42/7:2", "telegram:42/7:3"]
    assert _saved([a, b], tmp_path / "store.jsonl") == 6


def test_telegram_full_export_names_its_account(tmp_path):
    chat = _tg_chat(7, 42) | {"name": "Peer"}
    group = _tg_chat(9, 42, "public_supergroup")
    full = {"personal_information": {"user_id": 42, "first_name": "Me"},
            "chats": {"about": "", "list": [chat, group]}}  # fmt: skip
    path = tmp_path / "result.json"
    path.write_text(json.dumps(full))
    ids = _ids([path])
    assert ids[0] == "telegram:42/7:1"
    assert ids[3] == "telegram:9:1"  # a supergroup numbers its own messages: as before


def test_short_made_up_ids_are_unique_in_their_file_only(tmp_path):
    """Agent messages numbered 1, 2... in two files are different messages; uuids stay."""
    paths = []
    for name in ("a", "b"):
        msgs = [{"id": str(k), "role": "user", "content": f"{name} {k}", "metadata": {}}
                for k in (1, 2)]  # fmt: skip
        msgs.append({"id": f"{name}-0123456789abcdef", "role": "assistant", "content": "ok",
                     "metadata": {}})  # fmt: skip
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(msgs))
    run = Ingest(format_name="jianmu")
    ids = [m.id for m in run.messages([str(paths[0])])]
    assert ids == ["jianmu:a.json:1", "jianmu:a.json:2", "a-0123456789abcdef"]
    assert _saved(paths, tmp_path / "store.jsonl") == 6


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("_chat.txt", "[8/15/23, 9:12:33 AM] Mom: Happy birthday!\n"),
        ("meeting_saved_chat.txt", "00:11:09\tAlice Smith:\tthanks all\n"),
    ],
)
def test_a_name_every_export_has_is_scoped_by_its_folder(tmp_path, name, text):
    """Two chats saved under the name their app gives every export, with the same line
    (a greeting sent to two groups): two messages, told apart by their folders."""
    paths = []
    for chat in ("Family", "Friends"):
        (tmp_path / chat).mkdir()
        paths.append(tmp_path / chat / name)
        paths[-1].write_text(text)
    assert len(set(_ids(paths))) == 2
    assert _saved(paths, tmp_path / "store.jsonl") == 2
    assert _saved(paths, tmp_path / "store.jsonl") == 2  # a re-ingest adds nothing


def test_a_file_with_its_own_name_keeps_its_ids_in_another_folder(tmp_path):
    text = "[8/15/23, 9:12:33 AM] Mom: Happy birthday!\n"
    paths = []
    for chat in ("a", "b"):
        (tmp_path / chat).mkdir()
        paths.append(tmp_path / chat / "WhatsApp Chat with Mom.txt")
        paths[-1].write_text(text)
    assert len(set(_ids(paths))) == 1
