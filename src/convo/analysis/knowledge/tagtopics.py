"""A message's first topics: its tags (not those that say what kind it is), and each
topic's key, the same for every spelling (``firsts``); ``extract.topics_of`` adds the
subject and hashtags, and the key phrases (``ranked_topics``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from convo.analysis.knowledge.keyphrases import PhraseStats, top_phrases
from convo.analysis.knowledge.text import clean_subject

_CACHE_MAX = 1 << 16  # entries of a cache (bounded memory)

# Tags importers give a message to say what kind it is (importers/apps/common.py's
# SYSTEM_TAG, IRC's actions and notices, bots' and boosts'), not what it is about.
KIND_TAGS = frozenset({"system", "bot", "boost", "action", "notice"})


def topic_tags(tags: Any) -> list[str]:
    """The tags of a record that are topics: strings, not a ``KIND_TAGS`` one."""
    if not isinstance(tags, list):
        return []
    return [t for t in tags if isinstance(t, str) and t.casefold() not in KIND_TAGS]


def firsts(items: Iterable[str]) -> dict[str, str]:
    """Each topic's key (case-folded, its whitespace one space) -> its first spelling
    (whitespace one space); empty topics are dropped."""
    seen: dict[str, str] = {}
    keys = _TOPIC_KEYS
    for item in items:
        found = keys.get(item)
        if found is None:  # a message's tags and subject are its conversation's
            if len(keys) >= _CACHE_MAX:
                keys.clear()
            spelling = " ".join(item.split())
            found = keys[item] = (spelling.casefold(), spelling)
        if found[1]:
            seen.setdefault(*found)
    return seen


_TOPIC_KEYS: dict[str, tuple[str, str]] = {}  # topic -> (its key, its spelling)
_TAG_TOPICS: dict[tuple[Any, ...], dict[str, str]] = {}  # tags -> ``firsts`` of their topics
_NO_TOPICS: dict[str, str] = {}


def tag_topics(tags: Any) -> dict[str, str]:
    """``firsts(topic_tags(tags))`` (read only: it is shared), remembered per list of
    tags: a conversation repeats a few. With ``keyphrases._SETS`` (cachegrind, the chat
    messages of 5k records of benchmarks/bench_query.py's store, three rounds):
    ``topics_of`` 49.1k -> 43.0k instructions a message. Equal tuples of tags have the
    same topics (only strings are topics, and a string equals only itself)."""
    if not tags:
        return _NO_TOPICS
    if not isinstance(tags, list):
        return firsts(topic_tags(tags))
    key = tuple(tags)
    try:
        found = _TAG_TOPICS.get(key)
    except TypeError:  # a tag that is a list or an object
        return firsts(topic_tags(tags))
    if found is None:
        if len(_TAG_TOPICS) >= _CACHE_MAX:
            _TAG_TOPICS.clear()
        found = _TAG_TOPICS[key] = firsts(topic_tags(tags))
    return found


def first_topics(subject: Any, tags: Any, hashtags: list[str]) -> dict[str, str]:
    """``firsts`` of a message's subject (without ``Re:``), tags and hashtags (read only:
    it may be ``tag_topics``')."""
    if subject is None and not hashtags:
        return tag_topics(tags)  # most messages: their tags are their first topics
    topics = [clean_subject(subject)] if isinstance(subject, str) else []
    if tags:
        topics += topic_tags(tags)
    topics += hashtags
    return firsts(topics)


def dedupe(items: Iterable[str]) -> list[str]:
    """The topics ``items``, each key's first spelling (``firsts``)."""
    return list(firsts(items).values())


def ranked_topics(
    seen: dict[str, str], cands: list[str], stats: PhraseStats, names: Collection[str]
) -> list[str]:
    """The topics ``seen`` (``firsts`` of the subject, tags and hashtags) then the best
    of the key-phrase candidates ``cands`` on the conversation's ``stats`` (words of
    people's ``names`` are not topics), deduplicated."""
    if not cands:
        return list(seen.values())
    # The keys are the phrases ``keyphrases.skipped(topics)`` rules out (case folding
    # keeps whitespace and makes none), so a key phrase that is its own case fold is
    # its own key, a new one: then the topics are the keys' spellings and the phrases.
    top, folded = top_phrases(cands, stats.ranking(), seen.keys(), names)
    found = [*seen.values(), *top]
    return found if folded else dedupe(found)
