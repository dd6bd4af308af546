"""X/Twitter archive posts (``convo.importers.forums.twitter``).

Fixtures follow the archive as its readers read real ones (timhutton/twitter-archive-parser
``parser.py``: ``tweet.js``, ``tweets.js``, ``tweets-part*.js``, ``{"tweet": {...}}`` or
the bare tweet, ``created_at`` as ``Tue Mar 19 14:05:17 +0000 2019``, t.co ``urls``, one
t.co link for all of ``extended_entities.media``; a test fixture of a 2025 archive's
``tweets.js``: ``edit_info``, string counts and indices): a thread of two, a reply with
a photo and a video, a retweet, an edited tweet, a long post cut in ``tweets.js`` whose
whole text is in ``note-tweet.js`` (linked by its time alone, as the archive's readers
match them); a 2019 ``tweet.js`` without
``account.js``; ``deleted-tweets.js``.
"""

from __future__ import annotations

from formats_helpers import FIXTURES, detect_name, files_taken, fresh_registry, run

from convo.core.io import Source
from convo.importers.forums import twitter
from convo.importers.registry import registry

DIR = FIXTURES / "twitter"


def test_tweets_js():
    recs, rejects, warnings = run(twitter.read, DIR / "tweets.js")
    assert not rejects and not warnings
    rt, first, second, reply, tweet, edited, long = recs  # oldest first (newest first in the file)
    assert rt["tags"] == ["retweet"] and rt["metadata"]["listeners"] == ["carol_c"]
    assert first["metadata"] == {"speaker": "tidewatcher", "listeners": []}
    assert second["replyTo"] == first["id"] == second["thread"] == first["thread"]
    assert second["metadata"]["listeners"] == []  # a reply to oneself
    assert reply["textChunks"] == [
        "@saltmarsh @tidewatcher Low water & crabs > sand #rockpools, see "
        "https://tides.example.org/table?port=12&day=6",
        "[image] https://pbs.twimg.com/media/FjAaAaAaAaA.jpg",
        "[video] https://video.twimg.com/ext_tw_video/1600000000000000102/pu/vid/1280x720/high.mp4?tag=12",
    ]
    assert reply["metadata"] == {"speaker": "tidewatcher", "listeners": ["saltmarsh"]}
    assert reply["replyTo"] == reply["thread"] == "twitter:1600000000000000100"
    assert reply["tags"] == ["rockpools"] and reply["timestamp"] == "2022-12-06T10:30:00Z"
    assert reply["extra"]["favorite_count"] == 5
    assert reply["extra"]["source"] == "Twitter for Android"
    assert edited["extra"]["edit_of"] == "1700000000000000300"
    assert edited["thread"] == tweet["thread"] == tweet["id"] == "twitter:1700000000000000300"
    assert len({r["id"] for r in recs}) == 7
    # a long post: cut with "…" in tweets.js, whole in note-tweet.js (linked by its time)
    assert long["textChunks"][0].endswith("which is why a storm surge can raise it by a metre.")
    assert "high & rising" in long["textChunks"][0]
    assert long["extra"]["note_tweet_id"] == "1800000000000000999"


def test_2019_tweet_js_without_account_js():
    recs, rejects, warnings = run(twitter.read, DIR / "tweet-2019" / "tweet.js")
    assert [r["metadata"] for r in recs] == [
        {"speaker": None, "listeners": ["saltmarsh"]},  # no in_reply_to_screen_name
        {"speaker": None, "listeners": []},
    ]
    assert recs[0]["replyTo"] == recs[0]["thread"] == "twitter:1100000000000000001"
    assert [(r.where, r.reason) for r in rejects] == [
        ("tweet.js#tweet-3", "not a tweet (no id_str)")
    ]
    assert any("no account.js" in w for w in warnings)


def test_deleted_tweets():
    (rec,), _, _ = run(twitter.read, DIR / "deleted-tweets.js")
    assert rec["tags"] == ["deleted"] and rec["extra"]["deleted_at"] == "2023-04-25T09:10:00Z"


def test_detection():
    reg = fresh_registry(twitter)
    for name in ("tweets.js", "deleted-tweets.js", "tweet-2019/tweet.js"):
        assert detect_name(reg, DIR / name) == "twitter"
        assert registry.detect(Source(DIR / name)).name == "twitter"
    assert files_taken({"twitter"}, {"twitter"}) == {}
    assert (
        registry.detect(Source(FIXTURES / "twitter_dm" / "direct-messages.js")).name == "twitter-dm"
    )


def test_links_are_expanded_in_one_pass(tmp_path):
    """Each t.co link was replaced by a ``str.replace`` over the whole text: a link that
    starts another (``https://t.co/ab`` and ``https://t.co/abcd``) broke the longer one,
    and many links in a long text took quadratic time (40,000 links in 2 MB: 9 s)."""
    import json
    import time

    urls = [{"url": "https://t.co/ab", "expanded_url": "https://one.example"},
            {"url": "https://t.co/abcd", "expanded_url": "https://two.example"}]  # fmt: skip
    urls += [{"url": f"https://t.co/x{i:07d}", "expanded_url": f"https://e.example/{i}"}
             for i in range(40_000)]  # fmt: skip
    text = "see https://t.co/abcd and https://t.co/ab " + " ".join(u["url"] for u in urls[2:])
    tweet = {"id_str": "1", "full_text": text, "created_at": "Wed Oct 12 09:30:00 +0000 2022",
             "entities": {"urls": urls}}  # fmt: skip
    path = tmp_path / "tweets.js"
    path.write_text("window.YTD.tweets.part0 = " + json.dumps([{"tweet": tweet}]))
    began = time.monotonic()
    (rec,), _, _ = run(twitter.read, path)
    assert time.monotonic() - began < 5  # about 0.1 s
    said = rec["textChunks"][0]
    assert said.startswith("see https://two.example and https://one.example https://e.example/0 ")
    assert said.endswith(" https://e.example/39999")


def test_a_long_reply_chain_is_walked_once():
    """Each tweet walked up its reply chain alone: a self-thread of 20,000 tweets took a
    minute (quadratic). The roots found are kept: each parent is looked up a bounded
    number of times; a loop (a damaged file) still ends."""

    class Counted(dict):
        looked = 0

        def get(self, key, default=None):
            Counted.looked += 1
            return super().get(key, default)

    n = 20_000
    parents = Counted({str(i): str(i - 1) for i in range(2, n + 1)})
    roots: dict[str, str] = {}
    assert {twitter._root(str(i), parents, roots) for i in range(1, n + 1)} == {"1"}
    assert Counted.looked < 3 * n
    loop = Counted({"a": "b", "b": "a"})
    assert twitter._root("a", loop, {}) in ("a", "b")


def test_counts_and_links_of_other_json_types(tmp_path):
    """``"favorite_count": "²"`` (``str.isdigit`` passes it, ``int`` refuses it) and a
    link whose ``expanded_url`` is a number were internal errors that stopped the file:
    now no count, and the number's text."""
    import json

    tweet = {"id_str": "1", "full_text": "see https://t.co/ab", "favorite_count": "²",
             "retweet_count": "9" * 5000, "created_at": "Wed Oct 12 09:30:00 +0000 2022",
             "entities": {"urls": [{"url": "https://t.co/ab", "expanded_url": 42}]}}  # fmt: skip
    path = tmp_path / "tweets.js"
    path.write_text("window.YTD.tweets.part0 = " + json.dumps([{"tweet": tweet}]))
    (rec,), _, _ = run(twitter.read, path)
    assert rec["textChunks"] == ["see 42"]
    extra = rec.get("extra", {})
    assert "favorite_count" not in extra and "retweet_count" not in extra


def test_many_long_posts_of_one_second_each_find_their_note(tmp_path):
    """A truncated tweet looked through every note of its second, squeezing each note's
    spaces again: 6,000 long posts in one second took about 17 s (quadratic). Each note
    is squeezed once and found by its start."""
    import json
    import time

    n = 6000
    when = "Wed Oct 12 09:30:00 +0000 2022"
    tweets = [{"tweet": {"id_str": str(i), "created_at": when,
                         "full_text": f"post {i} " + "x" * 200 + "\u2026 https://t.co/ab"}}
              for i in range(n)]  # fmt: skip
    notes = [{"noteTweet": {"noteTweetId": f"n{i}", "createdAt": "2022-10-12T09:30:00.000Z",
                            "core": {"text": f"post {i} " + "x" * 300}}}
             for i in range(n)]  # fmt: skip
    (tmp_path / "tweets.js").write_text("window.YTD.tweets.part0 = " + json.dumps(tweets))
    (tmp_path / "note-tweet.js").write_text("window.YTD.note_tweet.part0 = " + json.dumps(notes))
    began = time.monotonic()
    recs, _, _ = run(twitter.read, tmp_path / "tweets.js")
    assert time.monotonic() - began < 8  # about 1 s
    assert all(r["extra"]["note_tweet_id"] == "n" + r["id"].split(":")[1] for r in recs)
