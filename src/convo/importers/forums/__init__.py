"""The forum family: Reddit, Discourse, Hacker News, Stack Exchange, GitHub, phpBB, and
the social posts of Mastodon and X/Twitter archives.

Every post is a message whose speaker is its author (deleted/removed/missing authors
become null, counted and warned once per file), listeners are the ``@``-mentioned users
(``u/name`` on Reddit), ``thread`` is the topic/question/issue and ``replyTo`` the
parent's id, so ``convo show`` can draw the reply tree. Ids and threads are the source's
own ids with a prefix, and the site, instance or board they are numbered in where they
are not unique everywhere (docs/ids.md): ``reddit:t1_xyz`` (thread ``reddit:t3_abc``),
``discourse:meta.example.org:post:83`` (thread ``discourse:meta.example.org:57``),
``hn:8863``, ``se:cooking:12`` / ``se:cooking:c7`` (comments), phpBB
``phpbb:<board>:4`` (thread ``phpbb:<board>:topic-2``), GitHub ``github:owner/repo#12``
(the issue, also the thread) and ``github:owner/repo#12/comment/ID``.

Decisions where the sources are silent:

- A post that names no parent but is not the first replies to the topic's first post
  (Discourse posts without ``reply_to_post_number``, top-level Reddit comments, GitHub
  comments, phpBB posts), so every thread is one tree.
- A parent that is not in the file is left out of ``replyTo`` (Discourse, with a warning)
  except where the id is known without seeing it (Reddit ``parent_id``, HN ``parent``,
  GitHub ``issue_url``, Stack Exchange ``ParentId``/``PostId``), so files imported
  separately still link up.
- Things with no id (trimmed fixtures) get the pipeline's content-hash id, computed by
  the reader so replies can point at them.
- Reddit "more" stubs and Discourse posts missing from a topic's stream are warned, not
  fetched. Discourse topic listings (``topic_list``, e.g. private messages) import each
  topic as one message: its title as text, the original poster as speaker, the other
  participants as listeners, ``extra.listing`` true.
- XML (Stack Exchange, phpBB) is streamed through expat with entity declarations refused
  (see ``convo.importers.xmlstream``).

Detection is by content only; each site's module holds its sniff (keys that only that
source writes) beside its reader, and its ``FORMATS``; this package registers them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from convo.importers.registry import Registry


def register(registry: Registry) -> None:
    """Declare the forum formats (each module imported when a gate admits a source or its
    format is named: ``importers.gates``)."""
    from convo.importers.gates import JSON, Gate, json_with

    both = ("*.json", "*.jsonl")
    registry.declare(__package__, (
        ("reddit", "reddit", ("*.json", "*.jsonl", "*.ndjson"), JSON),
        ("reddit_export", "reddit-export", ("*.csv",), Gate(pattern=r"\A[^\n]*,")),
        ("discourse", "discourse", ("*.json",), JSON),
        ("discourse_raw", "discourse-raw", ("*.md", "*.txt"), Gate(pattern=r"\A\s*(?:[^|\s]+ )?\| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d")),
        ("discourse_archive", "discourse-archive", ("user_archive*.csv", "preferences.json"), Gate(pattern=r"\A[^\n]*topic_title,categories,is_pm"), json_with('"avatar_template"', opens="{")),
        ("hackernews", "hackernews", both, JSON),
        ("stackexchange", "stackexchange", ("*Posts.xml", "*Comments.xml", "*Users.xml", "*Votes.xml", "*Badges.xml", "*PostHistory.xml", "*PostLinks.xml", "*Tags.xml"), Gate(opens="<")),
        ("stackexchange_api", "stackexchange-api", ("*.json",), json_with('"question_id"', '"answer_id"', '"comment_id"')),
        ("github", "github", ("*.json",), JSON),
        ("phpbb", "phpbb", ("*.xml",), Gate(words=("<dataset",))),
        ("mastodon", "mastodon", ("outbox.json", "actor.json", "likes.json", "bookmarks.json"), json_with('"orderedItems"', '"outbox"', opens="{")),
        ("mastodon_api", "mastodon-api", ("*.json",), json_with('"acct"')),
        ("bluesky", "bluesky", ("*.json",), json_with('"at://did:')),
        ("gitlab", "gitlab", both, json_with('"noteable_', '"iid"')),
        ("twitter", "twitter", ("tweets*.js", "tweet.js", "deleted-tweets*.js", "community-tweet*.js"), Gate(words=("window.YTD.",))),
    ), family="forum")  # fmt: skip
