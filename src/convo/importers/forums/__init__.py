"""The forum family: Reddit, Discourse, Hacker News, Stack Exchange, GitHub, phpBB.

Every post is a message whose speaker is its author (deleted/removed/missing authors
become null, counted and warned once per file), listeners are the ``@``-mentioned users
(``u/name`` on Reddit), ``thread`` is the topic/question/issue and ``replyTo`` the
parent's id, so ``convo show`` can draw the reply tree. Ids and threads are the source's
own ids with a prefix: ``reddit:t1_xyz`` (thread ``reddit:t3_abc``), ``discourse:post:83``
(thread ``discourse:57``), ``hn:8863``, ``se:12`` / ``se:c7`` (comments), phpBB
``phpbb:4`` (thread ``phpbb:topic-2``), GitHub ``github:owner/repo#12`` (the issue, also
the thread) and ``github:owner/repo#12/comment/ID``.

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
  (see ``forum_xml``).

Detection is by content only; each sniff looks for keys that only that source writes.
"""

from __future__ import annotations

import re

from convo.core.io import Source

_REDDIT_LISTING = re.compile(r'"kind"\s*:\s*"Listing"')
_REDDIT_THING = re.compile(
    r'"kind"\s*:\s*"(?:t1|t3|more)"\s*,\s*"data"|"data"\s*:\s*\{[^{}]*"subreddit'
)
_REDDIT_DUMP = re.compile(r'"subreddit"\s*:')
_REDDIT_DUMP_KEYS = re.compile(r'"(?:link_id|parent_id|selftext|subreddit_id|num_comments)"\s*:')
_DISCOURSE_POSTS = re.compile(r'"post_stream"\s*:\s*\{')
_DISCOURSE_POST_KEYS = re.compile(r'"(?:post_number|cooked|topic_id)"\s*:')
_DISCOURSE_LIST = re.compile(r'"topic_list"\s*:\s*\{')
_DISCOURSE_LIST_KEYS = re.compile(r'"(?:topics|posters|highest_post_number|bumped_at)"\s*:')
_HN_ALGOLIA = re.compile(r'"created_at_i"\s*:\s*\d')
_HN_ALGOLIA_KEYS = re.compile(r'"(?:story_id|parent_id|points|children)"\s*:')
_HN_TYPE = re.compile(r'"type"\s*:\s*"(?:story|comment|job|poll|pollopt)"')
_HN_TIME = re.compile(r'"time"\s*:\s*\d{9,}')
_HN_KEYS = re.compile(r'"(?:by|kids|parent|descendants)"\s*:')
_GITHUB = re.compile(r'"(?:html_url|url|issue_url)"\s*:\s*"https?://(?:api\.)?github\.com/')
_GITHUB_ISSUE = re.compile(r'github\.com/(?:repos/)?[^/"]+/[^/"]+/(?:issues|pull)s?/\d+')
_GITHUB_USER = re.compile(r'"user"\s*:\s*\{')


def _text(source: Source) -> str:
    return source.head_text()


def _json_start(text: str) -> bool:
    return text.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")


def sniff_reddit(source: Source) -> int:
    text = _text(source)
    if not _json_start(text):
        return 0
    if _REDDIT_LISTING.search(text) and _REDDIT_THING.search(text):
        return 95
    if _REDDIT_THING.search(text):
        return 85
    if _REDDIT_DUMP.search(text) and _REDDIT_DUMP_KEYS.search(text) and '"author"' in text:
        return 80
    return 0


def sniff_discourse(source: Source) -> int:
    text = _text(source)
    if not _json_start(text):
        return 0
    if _DISCOURSE_POSTS.search(text) and _DISCOURSE_POST_KEYS.search(text):
        return 95
    if _DISCOURSE_LIST.search(text) and _DISCOURSE_LIST_KEYS.search(text):
        return 90
    return 0


def sniff_hackernews(source: Source) -> int:
    text = _text(source)
    if not _json_start(text):
        return 0
    if _HN_ALGOLIA.search(text) and _HN_ALGOLIA_KEYS.search(text):
        return 90
    if _HN_TYPE.search(text) and _HN_TIME.search(text) and _HN_KEYS.search(text):
        return 85
    return 0


def sniff_github(source: Source) -> int:
    text = _text(source)
    if not _json_start(text):
        return 0
    if _GITHUB.search(text) and _GITHUB_ISSUE.search(text) and _GITHUB_USER.search(text):
        return 90
    return 0


_SE_ROOTS = {"posts": "PostTypeId=", "comments": "PostId=", "users": "Reputation="}


def sniff_stackexchange(source: Source) -> int:
    from convo.importers.forums.stackexchange import root_tag

    text = _text(source)
    if not text.lstrip("\ufeff \t\r\n").startswith("<"):
        return 0
    marker = _SE_ROOTS.get(root_tag(text))
    return 90 if marker and "<row " in text and marker in text else 0


def sniff_phpbb(source: Source) -> int:
    text = _text(source)
    if "<dataset" in text and re.search(r'<table\s+name="phpbb_', text):
        return 85
    return 0


def _lazy(module: str):
    """A reader that imports its module on first use (keeps `convo --help` fast)."""

    def read(source, ctx):
        import importlib

        return importlib.import_module(f"{__package__}.{module}").read(source, ctx)

    return read


def register(registry) -> None:
    """Register the forum formats."""
    from convo.importers.registry import Format

    formats = [
        ("reddit", "Reddit thread JSON (.json of a thread) or Pushshift comment/submission "
         "dumps, one object a line", ("*.json", "*.jsonl", "*.ndjson"), sniff_reddit,
         "reddit", '[{"kind": "Listing", "data": {"children": [{"kind": "t3", ...}]}}, ...]'),
        ("discourse", "Discourse topic JSON (/t/ID.json), posts (/t/ID/posts.json) or topic "
         "lists", ("*.json",), sniff_discourse, "discourse",
         '{"post_stream": {"posts": [{"id": 83, "post_number": 1, "cooked": "<p>Hi</p>"}]}}'),
        ("hackernews", "Hacker News items: Algolia items/ID trees or Firebase item JSON (one, "
         "an array, or one a line)", ("*.json", "*.jsonl"), sniff_hackernews, "hackernews",
         '{"id": 1, "author": "pg", "created_at_i": 1160418111, "children": [...]}'),
        ("stackexchange", "Stack Exchange data dump Posts.xml / Comments.xml (names from "
         "Users.xml beside them)", ("*Posts.xml", "*Comments.xml", "*Users.xml"),
         sniff_stackexchange, "stackexchange", '<posts><row Id="1" PostTypeId="1" Body="..." /></posts>'),
        ("github", "GitHub REST issues (list or one) and issue comments JSON",
         ("*.json",), sniff_github, "github",
         '[{"number": 12, "title": "...", "user": {"login": "alice"}, "body": "..."}]'),
        ("phpbb", "phpBB posts table in a DbUnit XML dataset (names from phpbb_users)",
         ("*.xml",), sniff_phpbb, "phpbb",
         '<dataset><table name="phpbb_posts"><column>post_id</column>...</table></dataset>'),
    ]  # fmt: skip
    for name, description, patterns, sniff, module, example in formats:
        registry.register(
            Format(
                name=name,
                family="forum",
                description=description,
                patterns=patterns,
                sniff=sniff,
                read=_lazy(module),
                example=example,
            )
        )
