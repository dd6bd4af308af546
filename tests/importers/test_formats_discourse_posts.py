"""Discourse ``/posts.json`` (``latest_posts``) in ``convo.importers.forums.discourse``.

The fixture follows Discourse's API (docs.discourse.org, "Get latest posts across
topics"): ``{"latest_posts": [post...]}``, newest first, each post with ``id``,
``username``, ``name``, ``created_at``, ``cooked``, ``post_number``,
``reply_to_post_number``, ``topic_id``, ``topic_slug``, ``topic_title`` and
``actions_summary``.
"""

from __future__ import annotations

from pathlib import Path

from formats_helpers import run

from conftest import assert_golden
from convo.core.io import Source
from convo.importers.forums import discourse
from convo.importers.registry import registry

PATH = Path(__file__).resolve().parents[1] / "fixtures" / "forum" / "discourse-posts-latest.json"


def test_golden_and_mapping():
    recs, rejects, warnings = run(discourse.read, PATH)
    assert_golden("forum/discourse-posts-latest.jsonl", recs)
    same_here, which, first, thanks = recs
    assert (
        first["subject"] == "Upgrade breaks SSO"
        and first["thread"] == "discourse:meta.example.org:412"
    )
    assert (
        which["replyTo"] == "discourse:meta.example.org:post:9001"
    )  # no number: answers the topic
    assert same_here["replyTo"] == "discourse:meta.example.org:post:9002"
    assert same_here["extra"]["topic_title"] == "Upgrade breaks SSO"
    assert thanks["thread"] == "discourse:meta.example.org:398" and "replyTo" not in thanks
    assert thanks["extra"]["reply_to_post_number"] == 4
    assert [(r.where, r.reason) for r in rejects] == [
        ("discourse-posts-latest.json#post-5", "post without an id")
    ]
    assert warnings == [
        "discourse-posts-latest.json: 1 reply target(s) not in this file (replyTo left out)"
    ]


def test_detected():
    assert registry.detect(Source(PATH)).name == "discourse"
