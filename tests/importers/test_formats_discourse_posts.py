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
        "discourse-posts-latest.json: 1 reply target not in this file (replyTo left out)"
    ]


def test_detected():
    assert registry.detect(Source(PATH)).name == "discourse"


def test_an_uploaded_images_lightbox_caption_is_not_text(tmp_path):
    """Discourse draws a caption (file name, pixel size, bytes) over an uploaded image
    (a real OpenAI community post, 2024): it read ``image829×327 12.9 KB`` after the
    image; now the image is ``[alt]`` and its link."""
    import json

    cooked = (
        '<p>It stops after 3K tokens:</p>\n<p><div class="lightbox-wrapper">'
        '<a class="lightbox" href="https://cdn.example.org/original/shot.png" title="shot">'
        '<img src="https://cdn.example.org/optimized/shot_690x272.png" alt="shot" width="690">'
        '<div class="meta"><svg class="fa d-icon" aria-hidden="true"><use href="#far-image">'
        '</use></svg><span class="filename">shot</span><span class="informations">829×327 '
        "12.9 KB</span></div></a></div></p>"
    )
    doc = {
        "latest_posts": [
            {"id": 7, "username": "ann", "created_at": "2024-07-14T09:03:19.612Z",
             "cooked": cooked, "post_number": 1, "topic_id": 3, "topic_title": "Stops"}
        ]
    }  # fmt: skip
    path = tmp_path / "posts.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    recs, _, _ = run(discourse.read, path)
    assert recs[0]["textChunks"] == [
        "It stops after 3K tokens:\n\n[shot] (https://cdn.example.org/original/shot.png)"
    ]


def test_a_search_answer(tmp_path):
    """``/search.json`` (as meta.discourse.org answers it): posts of several topics whose
    text is a ``blurb`` excerpt and whose topics' titles are in ``topics``; it was
    "format not recognised"."""
    import json

    doc = {
        "posts": [
            {"id": 31, "username": "ann", "avatar_template": "/user_avatar/forum.example.org/ann/{size}/1_2.png",
             "created_at": "2021-01-16T20:49:42.681Z", "like_count": 1,
             "blurb": "Does the banner show the flair? I installed it locally...",
             "post_number": 38, "topic_id": 5},
            {"id": 32, "username": "bob", "avatar_template": "/user_avatar/forum.example.org/bob/{size}/2_2.png",
             "created_at": "2021-01-19T08:24:29.678Z", "blurb": "Is this still working? @ann",
             "post_number": 1, "topic_title_headline": "Ratings", "topic_id": 6},
        ],
        "topics": [{"id": 5, "title": "Topic Banner", "slug": "topic-banner"}],
        "users": [],
        "grouped_search_result": {"term": "flair", "post_ids": [31, 32]},
    }  # fmt: skip
    path = tmp_path / "search.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert registry.detect(Source(path)).name == "discourse"
    recs, rejects, _ = run(discourse.read, path)
    assert rejects == []
    banner, ratings = recs
    assert banner["textChunks"] == ["Does the banner show the flair? I installed it locally..."]
    assert banner["extra"]["topic_title"] == "Topic Banner" and banner["extra"]["excerpt"] is True
    assert banner["thread"] == "discourse:forum.example.org:5" and "replyTo" not in banner
    assert ratings["subject"] == "Ratings" and ratings["metadata"]["listeners"] == ["ann"]
