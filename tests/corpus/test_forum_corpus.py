"""Every real forum file in the shared corpus imports, or fails with one located line."""

from __future__ import annotations

from functools import cache

import pytest

from conftest import corpus_files
from convo.core.errors import ConvoError
from convo.pipeline.ingest import Ingest

FILES = corpus_files("forum")

# Messages expected from the files whose content we checked by hand.
EXPECTED = {
    "reddit-thread-thallada-fixture.json": 5,  # t3 + 4 comments; 2 "more" stubs warned
    "discourse-topic.json": 4,
    "discourse-topic_posts.json": 1,
    "discourse-private_messages.json": 1,  # a listing: one message per topic
    "github-issues-dogsheep.json": 2,
    "github-issue-comments-dogsheep.json": 3,
    "stackexchange-history-meta-Posts.xml": 112,  # 38 questions + 74 answers
    "stackexchange-history-meta-Comments.xml": 199,
    "stackexchange-history-meta-Users.xml": 0,  # names only
    "phpbb-dbunit-content_visibility-delete_post.xml": 4,
}


@cache
def _import(path) -> tuple[list[dict], list, list[str], ConvoError | None]:
    rejects: list = []
    warnings: list[str] = []
    run = Ingest(on_reject=rejects.append, on_warning=warnings.append)
    msgs: list[dict] = []
    try:
        msgs.extend(m.serialize() for m in run.messages([path]))
    except ConvoError as e:
        return msgs, rejects, warnings, e
    return msgs, rejects, warnings, None


def _all_ids() -> set[str]:
    return {m["id"] for path in FILES for m in _import(path)[0]}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_imports_or_fails_cleanly(path):
    msgs, rejects, _, error = _import(path)
    if error is not None:
        assert error.where and error.where.startswith(str(path)), str(error)
        assert "\n" not in str(error)
        return
    assert all(m["textChunks"] and isinstance(m["textChunks"][0], str) for m in msgs)
    assert all(
        m["format"] in {"reddit", "discourse", "hackernews", "stackexchange", "github", "phpbb"}
        for m in msgs
    )
    assert len({m["id"] for m in msgs}) == len(msgs)
    if path.name in EXPECTED:
        assert len(msgs) == EXPECTED[path.name]
        assert not rejects


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_reply_links_resolve(path):
    """replyTo names a message of the corpus; only a comment's issue may live elsewhere."""
    msgs, _, _, _ = _import(path)
    ids = _all_ids()
    for m in msgs:
        if "replyTo" in m:
            assert m["replyTo"] in ids or m["replyTo"] == m.get("thread"), m["id"]


def test_reddit_warnings():
    path = next((p for p in FILES if p.name.startswith("reddit-thread")), None)
    if path is None:
        pytest.skip("corpus not found")
    msgs, _, warnings, _ = _import(path)
    assert sum("'more' stub not expanded" in w for w in warnings) == 2
    assert [m["metadata"]["speaker"] for m in msgs] == [None, "ferris", "crab", None, "rustacean"]
    assert msgs[4]["textChunks"] == ['The section on "unsafe" is the best part.']
    assert msgs[2]["replyTo"] == msgs[1]["id"]
