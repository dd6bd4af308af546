"""Forum importers: golden files from sample_data/forum, detection by content, behaviour."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import SAMPLE_DATA, assert_golden, records
from convo.core.errors import InputError
from convo.core.io import Source
from convo.importers.registry import registry
from convo.pipeline.ingest import Ingest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "forum"

GOLDEN = [
    ("forum/reddit-thread.json", "reddit"),
    ("forum/discourse-topic.json", "discourse"),
    ("forum/hn-item.json", "hackernews"),
    ("forum/stackexchange/Posts.xml", "stackexchange"),
    ("forum/stackexchange/Comments.xml", "stackexchange"),
    ("forum/github-issue.json", "github"),
    ("forum/github-issue-comments.json", "github"),
]


def ingest(path, base: Path = SAMPLE_DATA, monkeypatch=None, fmt=None):
    """Records, rejections and warnings of one input, named relative to ``base``."""
    rejects, warnings = [], []
    run = Ingest(format_name=fmt, on_reject=rejects.append, on_warning=warnings.append)
    msgs = [m.serialize() for m in run.messages([path])]
    return msgs, rejects, warnings


@pytest.fixture
def in_samples(monkeypatch):
    monkeypatch.chdir(SAMPLE_DATA)


@pytest.fixture
def in_fixtures(monkeypatch):
    monkeypatch.chdir(FIXTURES)


@pytest.mark.parametrize(("name", "fmt"), GOLDEN)
def test_golden(in_samples, name, fmt):
    msgs, rejects, _ = ingest(name)
    assert not rejects
    assert {m["format"] for m in msgs} == {fmt}
    stem = name.removeprefix("forum/").rsplit(".", 1)[0].replace("/", "-")
    assert_golden(f"forum/{stem}.jsonl", msgs)


def _copy_nameless(src: Path, tmp_path: Path) -> Path:
    """The file under a name that says nothing (stdin has no name either)."""
    dst = tmp_path / "input"
    shutil.copy(src, dst)
    return dst


@pytest.mark.parametrize(
    ("name", "fmt"), [*GOLDEN, ("forum/stackexchange/Users.xml", "stackexchange")]
)
def test_detected_by_content(tmp_path, name, fmt):
    source = Source(_copy_nameless(SAMPLE_DATA / name, tmp_path))
    assert registry.detect(source).name == fmt


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("pushshift-comments.jsonl", "reddit"),
        ("hn-firebase.jsonl", "hackernews"),
        ("hn-bigquery.json", "hackernews"),
        ("discourse-latest.json", "discourse"),
        ("phpbb-posts.xml", "phpbb"),
    ],
)
def test_fixtures_detected_by_content(tmp_path, name, fmt):
    assert registry.detect(Source(_copy_nameless(FIXTURES / name, tmp_path))).name == fmt


def test_every_sample_file_is_claimed():
    """`make demo` ingests sample_data/ whole: every forum file must be detected."""
    for path in sorted((SAMPLE_DATA / "forum").rglob("*")):
        if path.is_file():
            assert registry.detect(Source(path)).family == "forum", path


def test_reddit_tree_and_warnings(in_samples):
    msgs, _, warnings = ingest("forum/reddit-thread.json")
    by_id = {m["id"]: m for m in msgs}
    assert by_id["reddit:t1_k2carol"]["replyTo"] == "reddit:t1_k1bob"
    assert by_id["reddit:t1_k1bob"]["replyTo"] == "reddit:t3_1abcde"
    assert all(m["thread"] == "reddit:t3_1abcde" for m in msgs)
    assert by_id["reddit:t1_k4gone"]["metadata"]["speaker"] is None
    assert by_id["reddit:t1_k1bob"]["metadata"]["listeners"] == ["Carol"]
    assert "&" in by_id["reddit:t3_1abcde"]["textChunks"][0]
    assert any("'more' stub not expanded: 3" in w for w in warnings)
    assert sum("deleted" in w for w in warnings) == 1


def test_discourse_reply_numbers(in_samples):
    msgs, _, _ = ingest("forum/discourse-topic.json")
    by_id = {m["id"]: m for m in msgs}
    assert by_id["discourse:forum:post:503"]["replyTo"] == "discourse:forum:post:502"
    assert by_id["discourse:forum:post:503"]["textChunks"] == [
        "@Bob agreed, JWT with short expiry."
    ]
    assert by_id["discourse:forum:post:501"]["subject"] == "Auth library for the new service"
    assert by_id["discourse:forum:post:501"]["timestamp"] == "2024-03-06T09:00:00Z"


def test_stackexchange_names_and_accepted(in_samples):
    msgs, _, warnings = ingest("forum/stackexchange/Posts.xml")
    by_id = {m["id"]: m for m in msgs}
    assert by_id["se:stackexchange:12"]["extra"]["accepted"] is True
    assert by_id["se:stackexchange:12"]["metadata"]["speaker"] == "Carol"
    assert by_id["se:stackexchange:13"]["tags"] == ["git", "rebase"]
    assert any("PostTypeId 5 skipped" in w for w in warnings)


def test_stackexchange_without_users(tmp_path):
    shutil.copy(SAMPLE_DATA / "forum/stackexchange/Posts.xml", tmp_path / "Posts.xml")
    msgs, _, warnings = ingest(tmp_path / "Posts.xml")
    assert msgs[0]["metadata"]["speaker"] == "user1"
    assert any("not resolved" in w for w in warnings)


def test_pushshift_dump(in_fixtures):
    msgs, rejects, _ = ingest("pushshift-comments.jsonl")
    assert [m["id"] for m in msgs] == ["reddit:t3_q1", "reddit:t1_c1", "reddit:t1_c2"]
    assert msgs[0]["textChunks"] == ["Dumps are fun\nhttps://example.org/a"]
    assert msgs[2]["replyTo"] == "reddit:t1_c1"
    assert msgs[1]["metadata"]["listeners"] == ["Alice"]
    assert [r.where for r in rejects] == [
        "pushshift-comments.jsonl:3",
        "pushshift-comments.jsonl:5",
    ]


def test_pushshift_dump_replies_speak_to_the_parent_author(in_fixtures):
    """A Pushshift dump of plain objects (``RS_``/``RC_`` lines, no Reddit Things) gives a
    reply's listener as the thread file does: the author of its ``parent_id`` when that
    came earlier in the file; a mention wins; a deleted parent's author is unknown; a
    parent not in the file gives none."""
    msgs, rejects, _ = ingest("pushshift-replies.ndjson")
    assert not rejects
    assert_golden("forum/pushshift-replies.jsonl", msgs)
    heard = {m["id"]: m["metadata"]["listeners"] for m in msgs}
    assert heard == {
        "reddit:t3_s9": [],
        "reddit:t1_k1": ["Ann"],  # the post's author
        "reddit:t1_k2": ["Ben"],  # the comment it answers
        "reddit:t1_k3": ["Cat"],  # its mention
        "reddit:t1_k4": ["Ben"],  # a deleted author still answered Ben
        "reddit:t1_k5": [],  # its parent's author was deleted
        "reddit:t1_k6": [],  # its parent is not in the file
    }
    assert msgs[0]["subject"] == "Which & why?"


def test_pushshift_dump_and_thread_file_agree_on_listeners(tmp_path):
    """The same comments as Reddit Things in a thread file and as Pushshift lines: the
    same listeners."""
    lines = (FIXTURES / "pushshift-replies.ndjson").read_text().splitlines()[:4]
    objs = [json.loads(x) for x in lines]
    post, comments = objs[0], objs[1:]
    tree: dict = {"kind": "Listing", "data": {"children": []}}
    for c in reversed(comments):  # nest each comment under the one before it
        c = dict(c, replies=tree if tree["data"]["children"] else "")
        tree = {"kind": "Listing", "data": {"children": [{"kind": "t1", "data": c}]}}
    thread = [{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": post}]}}, tree]
    p = tmp_path / "thread.json"
    p.write_text(json.dumps(thread))
    from_thread, _, _ = ingest(p)
    from_dump, _, _ = ingest(FIXTURES / "pushshift-replies.ndjson")
    listeners = {m["id"]: m["metadata"]["listeners"] for m in from_thread}
    assert listeners == {m["id"]: m["metadata"]["listeners"] for m in from_dump[:4]}


def test_hn_firebase(in_fixtures):
    msgs, rejects, _warnings = ingest("hn-firebase.jsonl")
    assert not rejects
    by_id = {m["id"]: m for m in msgs}
    assert by_id["hn:8952"]["textChunks"] == ["Looks neat & fast."]
    assert by_id["hn:9224"]["thread"] == "hn:8863"
    assert by_id["hn:9224"]["metadata"]["speaker"] is None
    assert by_id["hn:9300"]["extra"]["dead"] is True
    assert "thread" not in by_id["hn:9300"]
    # a reply names the author it answers when the parent came earlier (issue 36)
    assert by_id["hn:8952"]["metadata"]["listeners"] == ["Alice"]
    assert by_id["hn:9224"]["metadata"]["listeners"] == ["Bob"]  # deleted, yet it answered Bob
    assert by_id["hn:9300"]["metadata"]["listeners"] == []  # its parent is not in the dump


def test_hn_array(tmp_path):
    (tmp_path / "items.json").write_text(
        '[{"by":"Alice","id":1,"time":1175714200,"type":"story","title":"T"},'
        '{"by":"Bob","id":2,"parent":1,"time":1175714300,"type":"comment","text":"hi"}, 5]'
    )
    msgs, rejects, _ = ingest(tmp_path / "items.json")
    assert [m["replyTo"] for m in msgs[1:]] == ["hn:1"]
    assert len(rejects) == 1 and rejects[0].where.endswith("#item-3")


def test_discourse_listing(in_fixtures):
    msgs, rejects, warnings = ingest("discourse-latest.json")
    assert len(msgs) == 1 and len(rejects) == 1
    assert msgs[0]["metadata"] == {"speaker": "Alice", "listeners": ["Bob", "Carol"]}
    assert msgs[0]["extra"]["listing"] is True
    assert any("topic listing" in w for w in warnings)


def test_phpbb_dataset(in_fixtures):
    msgs, rejects, _ = ingest("phpbb-posts.xml")
    assert [m["metadata"]["speaker"] for m in msgs] == ["Alice", "Bob", "Carol"]
    assert msgs[0]["textChunks"] == ["Hello <b> all & @Bob"]
    assert msgs[1]["textChunks"] == ["Thanks Alice"]
    assert msgs[1]["replyTo"] == "phpbb:forum:1" and msgs[0]["subject"] == "Welcome"
    assert msgs[0]["metadata"]["listeners"] == ["Bob"]
    assert len(rejects) == 1


def test_phpbb_without_posts_table(tmp_path):
    path = tmp_path / "d.xml"
    path.write_text('<dataset><table name="phpbb_users"><column>user_id</column></table></dataset>')
    with pytest.raises(InputError, match="no phpbb_posts table"):
        ingest(path)


def test_github_issue_then_comments(in_samples):
    issue, _, _ = ingest("forum/github-issue.json")
    comments, _, _ = ingest("forum/github-issue-comments.json")
    assert issue[0]["id"] == "github:example/convo#7"
    assert issue[0]["tags"] == ["bug", "email"]
    assert issue[0]["textChunks"][0].count("\r") == 0
    assert {c["replyTo"] for c in comments} == {issue[0]["id"]}
    assert comments[0]["metadata"]["listeners"] == ["Alice", "Carol"]
    assert comments[1]["metadata"]["listeners"] == []  # a mail address is not a mention


def test_invalid_json_document_is_located(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{"post_stream": {"posts": [\n{"id": 1,\n')
    with pytest.raises(InputError) as e:
        ingest(path)
    assert str(e.value).startswith(f"{path}:")


def test_cli_stdin(runner):
    from convo.cli.app import app

    data = (SAMPLE_DATA / "forum/reddit-thread.json").read_bytes()
    result = runner.invoke(app, ["ingest", "-"], input=data)
    assert result.exit_code == 0, result.output
    out = records(result.stdout)
    assert len(out) == 5 and out[0]["source_id"] == "stdin#t3_1abcde"


def test_cli_unsafe_xml_is_one_line(runner, tmp_path):
    from convo.cli.app import app

    path = tmp_path / "Posts.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE posts [<!ENTITY a "x">]>\n'
        '<posts><row Id="1" PostTypeId="1" Body="&a;" /></posts>'
    )
    result = runner.invoke(app, ["ingest", "--from", "stackexchange", str(path)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert f"{path}:2: unsafe XML refused" in result.output


def test_reddit_thread_as_reddit_writes_it():
    """A thread's ``.json`` as Reddit serves it (no ``raw_json=1``): entities in the
    title as in the bodies, a moderator's stickied comment with an ``edited`` time, a
    deleted reply, a ``more`` stub with ids and a "continue this thread" stub (id ``_``,
    no children). Replies without mentions speak to the author they answer."""
    recs, rejects, warnings = ingest(FIXTURES / "reddit-thread-raw.json", base=FIXTURES)
    assert rejects == []
    post, bob, gone, carol = recs
    assert post["subject"] == "Switching to uv & ruff"
    assert post["textChunks"] == ["Is it worth it? & why > 3.8"]
    assert post["metadata"] == {"speaker": "alice", "listeners": []}
    assert bob["metadata"] == {"speaker": "bob", "listeners": ["alice"]}
    assert gone["metadata"] == {"speaker": None, "listeners": ["bob"]}
    assert carol["metadata"] == {"speaker": "carol", "listeners": ["bob"]}
    assert carol["replyTo"] == "reddit:t1_kc1" and carol["thread"] == "reddit:t3_1abcde"
    assert bob["timestamp"] == "2023-11-14T22:15:00Z"
    assert any("'continue this thread' stub" in w for w in warnings)
    assert any("2 comments (2 ids listed)" in w for w in warnings)


def test_reddit_user_comments_page_speaks_to_the_post_author(tmp_path):
    """``/user/NAME/comments.json`` lists a user's comments without their posts; each names
    the post's author (``link_author``) and title (``link_title``)."""

    def t1(cid, parent, author="annlee", link_author="poster1"):
        return {"kind": "t1", "data": {
            "id": cid, "name": f"t1_{cid}", "author": author, "parent_id": parent, "link_id": "t3_abc",
            "link_author": link_author, "link_title": "Tides?", "body": "text", "created_utc": 1700000000.0,
            "subreddit": "AskReddit", "replies": ""}}  # fmt: skip

    page = {"kind": "Listing", "data": {"children": [t1("c1", "t3_abc"), t1("c2", "t1_zz9")]}}
    p = tmp_path / "comments.json"
    p.write_text(json.dumps(page))
    recs, rejects, _ = ingest(p)
    assert not rejects
    assert (
        recs[0]["metadata"]["listeners"] == ["poster1"]
        and recs[0]["extra"]["link_title"] == "Tides?"
    )
    assert recs[1]["metadata"]["listeners"] == []  # answers a comment not in the file
    deleted = {
        "kind": "Listing",
        "data": {"children": [t1("c3", "t3_abc", link_author="[deleted]")]},
    }
    p.write_text(json.dumps(deleted))
    recs, _, _ = ingest(p)
    assert recs[0]["metadata"]["listeners"] == []


def test_reddit_inbox_reads_private_messages_and_replies():
    """``/message/inbox.json`` (as turnage/graw's ``inbox.json`` fixture has it): private
    messages (``t4``) were rejected as an unsupported kind; an inbox comment reply had no
    thread and no listener. Now a ``t4`` speaks to its ``dest`` in the conversation of its
    ``first_message_name`` (the ids ``reddit-export`` gives), nested replies too."""
    recs, rejects, _ = ingest(FIXTURES / "reddit-inbox.json", base=FIXTURES)
    assert rejects == []
    reply, pm, first, answer = recs
    assert reply["metadata"] == {"speaker": "harbourmaster", "listeners": ["tidewatcher"]}
    assert reply["thread"] == reply["replyTo"] == "reddit:t3_3qq8zz"
    assert reply["textChunks"] == ["Check the > access log first"]
    assert pm["id"] == "reddit:t4_4dw002" and pm["thread"] == "reddit:t4_4dw001"
    assert pm["replyTo"] == "reddit:t4_4dw001" and pm["subject"] == "re: tide tables"
    assert pm["metadata"] == {"speaker": "saltmarsh", "listeners": ["tidewatcher"]}
    assert pm["textChunks"] == ["Yes, got it & thanks."]
    assert first["thread"] == first["id"] == "reddit:t4_3z1ucp" and "replyTo" not in first
    assert answer["thread"] == answer["replyTo"] == "reddit:t4_3z1ucp"
    assert answer["metadata"] == {"speaker": "tidewatcher", "listeners": ["saltmarsh"]}
    assert answer["timestamp"] == "2015-08-21T20:13:18Z"


def test_reddit_morechildren_answer_reads_its_things():
    """``/api/morechildren`` answers ``{"json": {"data": {"things": [...]}}}`` (graw's
    ``more.json``): it was one "Reddit Thing without a data object"."""
    recs, rejects, warnings = ingest(FIXTURES / "reddit-morechildren.json", base=FIXTURES)
    assert rejects == []
    assert [r["id"] for r in recs] == ["reddit:t1_fvb001", "reddit:t1_fvb002"]
    assert recs[0]["textChunks"] == ["Low tide at 6 & high at noon."]
    assert recs[1]["metadata"]["listeners"] == ["reefwalker"]
    assert all(r["thread"] == "reddit:t3_hb04a7" for r in recs)
    assert any("3 comments (2 ids listed)" in w for w in warnings)


def test_reddit_link_post_url_is_unescaped(tmp_path):
    """Reddit escapes ``&`` in a link post's ``url`` as in its other strings."""
    post = {"kind": "t3", "data": {"id": "58t9kn", "name": "t3_58t9kn", "author": "ann",
            "title": "Out", "selftext": "", "is_self": False, "subreddit": "pics",
            "url": "https://i.example/d2?fit=max&amp;h=1536", "created_utc": 1477145169}}  # fmt: skip
    p = tmp_path / "post.json"
    p.write_text(json.dumps({"kind": "Listing", "data": {"children": [post]}}))
    (rec,), _, _ = ingest(p)
    assert rec["textChunks"] == ["Out\nhttps://i.example/d2?fit=max&h=1536"]
    assert rec["extra"]["url"] == "https://i.example/d2?fit=max&h=1536"


@pytest.mark.parametrize("wrap", [lambda objs: objs, lambda objs: {"data": objs, "metadata": {}}])
def test_reddit_pushshift_objects_in_an_array_or_an_api_answer(tmp_path, wrap):
    """Pushshift objects (a Thing's ``data`` alone, string ``created_utc`` as in the
    2015 dumps) saved as a JSON array, or as the Pushshift/Arctic Shift API answers them
    (``{"data": [...]}``): each was rejected as a "Thing without a data object"."""
    objs = [
        {"id": "15qzk2", "author": "ann", "title": "New year", "selftext": "Hi &amp; bye",
         "is_self": True, "created_utc": "1356998655", "subreddit": "videos"},
        {"id": "cnas8z", "name": "t1_cnas8z", "author": "ben", "body": "Same &gt; here",
         "link_id": "t3_15qzk2", "parent_id": "t3_15qzk2", "created_utc": "1420070400",
         "subreddit": "videos", "subreddit_id": "t5_2qh1e"},
    ]  # fmt: skip
    p = tmp_path / "input"
    p.write_text(json.dumps(wrap(objs)))
    assert registry.detect(Source(p)).name == "reddit"
    recs, rejects, _ = ingest(p)
    assert rejects == []
    assert [r["id"] for r in recs] == ["reddit:t3_15qzk2", "reddit:t1_cnas8z"]
    assert [r["textChunks"] for r in recs] == [["Hi & bye"], ["Same > here"]]
    assert recs[1]["metadata"] == {"speaker": "ben", "listeners": ["ann"]}
    assert recs[1]["timestamp"] == "2015-01-01T00:00:00Z"


def test_hn_algolia_search_answer_reads_its_hits(tmp_path):
    """``hn.algolia.com/api/v1/search?...`` answers ``{"hits": [...]}``: it was one item
    "without an id" (rejected); each hit is an item (``objectID``, ``comment_text``)."""
    story = {"_tags": ["story", "author_dh", "story_8863"], "author": "dh", "children": [9000],
             "created_at": "2007-04-04T19:16:40Z", "created_at_i": 1175714200, "objectID": "8863",
             "points": 111, "story_id": 8863, "title": "Dropbox", "url": "http://x.example/"}  # fmt: skip
    comment = {"_tags": ["comment", "author_pg", "story_8863"], "author": "pg",
               "comment_text": "It&#x27;s <i>fine</i>.", "created_at_i": 1175792700, "objectID": "9000",
               "parent_id": 8863, "story_id": 8863, "story_title": "Dropbox"}  # fmt: skip
    answer = {"hits": [story, comment], "nbHits": 2, "page": 0, "query": "dropbox"}
    p = tmp_path / "search.json"
    p.write_text(json.dumps(answer))
    assert registry.detect(Source(p)).name == "hackernews"
    recs, rejects, _ = ingest(p)
    assert not rejects
    assert [r["id"] for r in recs] == ["hn:8863", "hn:9000"]
    assert recs[1]["textChunks"] == ["It's fine."] and recs[1]["replyTo"] == "hn:8863"
    assert recs[1]["metadata"]["listeners"] == ["dh"] and recs[0]["subject"] == "Dropbox"


def test_discourse_cooked_mentions_oneboxes_and_reply_listeners():
    """A topic's ``cooked`` posts as Discourse writes them: a mention link read
    ``@sam (/u/sam)``, a link's onebox preview added the page's title and description
    (none of them the author's words), and a reply (``reply_to_user``, a quote) had no
    listener; a poll read as its option list and voter count. Now ``@sam``, the previewed
    URL, the author replied to, and ``[poll] option (votes), ...``."""
    recs, rejects, _ = ingest(FIXTURES / "discourse-topic-cooked.json", base=FIXTURES)
    assert rejects == []
    first, reply, poll, closed = recs
    assert first["textChunks"] == [
        'Has anyone tried @sam\'s approach? :thinking:\n\nprint("hi & bye")'
    ]
    assert first["metadata"] == {"speaker": "ann", "listeners": ["sam"]}
    assert first["subject"] == "Tides & times"
    assert reply["textChunks"] == [
        "ann:\n\n> Has anyone tried\n\nYes, works fine.\n\nhttps://example.org/post"
    ]
    assert reply["metadata"] == {"speaker": "bo", "listeners": ["ann"]}
    assert poll["metadata"]["listeners"] == ["ann"]  # answers the topic: its first post
    # a poll: one line, the votes from the post's ``polls`` (it read "- Rocks\n- Sand\n\n3\n\nvoters")
    assert poll["textChunks"] == [
        "Which is better?\n\n[poll] Rocks (2), Sand & shells (1)\n\nVote!"
    ]
    assert closed["textChunks"] == ["[closed.enabled]"] and closed["metadata"]["listeners"] == []


def test_hn_long_link_reads_its_url_once(tmp_path):
    """Hacker News cuts a long link's text (``https://x/long_na...``): it read
    ``https://x/long_na... (https://x/long_name)``; now the URL once."""
    item = {"by": "ann", "id": 9224, "parent": 8863, "time": 1175786918, "type": "comment",
            "text": 'See <a href="https:&#x2F;&#x2F;en.wikipedia.org&#x2F;wiki&#x2F;Tide_tables_of_the_north_sea" '
                    'rel="nofollow">https:&#x2F;&#x2F;en.wikipedia.org&#x2F;wiki&#x2F;Tide_tables_of_t...</a>.'}  # fmt: skip
    p = tmp_path / "item.json"
    p.write_text(json.dumps(item))
    (rec,), _, _ = ingest(p)
    assert rec["textChunks"] == ["See https://en.wikipedia.org/wiki/Tide_tables_of_the_north_sea."]


def test_stackexchange_dump_tables_without_messages(tmp_path):
    """A data dump's folder holds Votes, Badges, PostHistory, PostLinks and Tags beside
    Posts, Comments and Users: each was "format not recognised" and counted as rejected
    (an .xml file), so ingesting a whole dump failed. They are the dump's tables now:
    beside Posts.xml silent, PostHistory (the posts' revisions) always said."""
    dump = tmp_path / "cooking.stackexchange.com"
    shutil.copytree(FIXTURES / "stackexchange-dump", dump)
    for name in ("Posts.xml", "Comments.xml", "Users.xml"):
        shutil.copy(SAMPLE_DATA / "forum" / "stackexchange" / name, dump / name)
    for name in ("Votes.xml", "Badges.xml", "PostHistory.xml", "PostLinks.xml", "Tags.xml"):
        assert registry.detect(Source(dump / name)).name == "stackexchange"
    recs, rejects, warnings = ingest(dump)
    assert rejects == [] and recs
    said = [w for w in warnings if "holds no messages" in w]
    assert len(said) == 1 and "PostHistory.xml (1 post revisions)" in said[0]
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(dump / "Votes.xml", alone / "Votes.xml")
    recs, rejects, warnings = ingest(alone / "Votes.xml")
    assert recs == [] and rejects == []
    assert any("Votes.xml (1 votes) holds no messages" in w for w in warnings)


def test_hn_algolia_poll_reads_its_options():
    """An Algolia ``items/ID`` poll lists its ``pollopt`` items in ``options`` (every item
    has the key, empty): they were left out, unsaid; now read before the comments,
    replying to the poll, their votes as ``points``."""
    recs, rejects, _ = ingest(FIXTURES / "hn-algolia-poll.json", base=FIXTURES)
    assert rejects == []
    assert [r["id"] for r in recs] == ["hn:126809", "hn:126810", "hn:126811", "hn:126900"]
    assert recs[1]["replyTo"] == "hn:126809" and recs[1]["extra"]["points"] == 335
    assert recs[2]["textChunks"] == ["No, I like them."]
    assert all(r["thread"] == "hn:126809" for r in recs)


def test_hacker_news_from_bigquery_reads_its_quoted_numbers():
    """BigQuery's JSON export of ``bigquery-public-data.hacker_news.full`` quotes every
    INT64 (``"time": "1160418111"``, ``"id": "15"``, ``"score": "57"``): it was not
    recognised, and the story's points stayed a string."""
    msgs, rejects, _ = ingest(FIXTURES / "hn-bigquery.json")
    assert not rejects
    assert [(m["id"], m.get("replyTo"), m["timestamp"]) for m in msgs] == [
        ("hn:15", "hn:1", "2006-10-09T18:21:51Z"), ("hn:1", None, "2006-10-09T18:21:51Z")
    ]  # fmt: skip
    assert msgs[1]["extra"]["points"] == 57 and msgs[0]["textChunks"][0].startswith(
        "I agree & more"
    )
