"""``analyse`` for a batch of messages (``Conversation.observe_records``), the same results.

The plain message (a body with no chunk marker and nothing marked: no URL, address,
mention or hashtag) is analysed in one loop here, without ``analyse``'s layers of
calls: its pieces, entities, candidates, questions (only with a ``?`` and a listener)
and statements (only with an entity); ``with_side`` as always; ``with_subject`` only when the
record has a subject. Any other message takes ``body_analysis.analyse_body`` itself.

Measured with cachegrind over 20k records of benchmarks/bench_query.py's store:
``analyse`` 137k instructions a message, this loop 132k (-3.4%).

A design measured and left out: the batch as one text (the bodies joined by a
separator piece, split once, each piece mapped through the entity and candidate
caches once, the candidate runs of the whole batch split and filtered by one C loop
each, cut back into messages at the separators). It cost 3.2k instructions a message
more than ``analyse``, not less: a message's work is already C loops over its pieces
through caches, and a batch text takes the widest character kind of its messages (one
emoji makes every character four bytes), so the joins and splits copy and scan more
than the messages' own texts do; the Python calls it saves were 2.4k instructions.
"""

from __future__ import annotations

from typing import Any

from convo.analysis.knowledge.body_analysis import (
    Analysis,
    analyse_body,
    said_of,
    with_side,
    with_subject,
)
from convo.analysis.knowledge.entities import find
from convo.analysis.knowledge.keyphrases import candidates
from convo.analysis.knowledge.text import NEWLINE, may_be_marked, questions, unquoted

_NL = f" {NEWLINE} "  # a line break, as ``text.split_pieces`` makes it


def analyse_all(records: list[dict[str, Any]], heard: list[list[str]]) -> list[Analysis]:
    """``[analyse(r, h) for r, h in zip(records, heard)]`` (``heard``: each record's
    listeners)."""
    out: list[Analysis] = []
    add = out.append
    for record, h, t in zip(records, heard, _plain_texts(records), strict=True):
        if not t:
            a = with_side(record, analyse_body(record, h))
        else:  # ``analyse_body``'s plain path
            pieces = t.replace("\n", _NL).split() if "\n" in t else t.split()
            found = find(t, True, pieces)
            a = Analysis(
                [], [], [], [], questions(t) if h and "?" in t else [], candidates(t, pieces),
                found, said_of(record, t, found, h, []) if found else [],
            )  # fmt: skip
        add(with_subject(record, a) if "subject" in record else a)
    return out


def _plain_texts(records: list[dict[str, Any]]) -> list[str]:
    """The body of each plain message, its chunks joined; "" for any other message.

    Read in one loop without the calls of ``message_body``: not a tool's message, text
    chunks that are a list of strings, none starting with ``[``, every one printable and
    ``unquoted`` (what ``body`` keeps as it is), nothing marked. With no chunk starting
    with ``[`` none is a tool call or an attachment, so ``with_side`` adds nothing either
    (cachegrind, 20k records of benchmarks/bench_query.py's store, with ``keyphrases``'
    ASCII case-fold test: 340.7k -> 333.6k instructions a message)."""
    out: list[str] = []
    add = out.append
    for record in records:
        chunks: Any = record["textChunks"] if "textChunks" in record else record.get("text_chunks")
        try:
            t = "\n".join(chunks) if type(chunks) is list else ""
        except TypeError:  # not all strings
            t = ""
        if (
            not t or ("[" in t and (t.startswith("[") or "\n[" in t))
            or record.get("role") == "tool" or not unquoted(t)
            or not all(map(str.isprintable, chunks)) or may_be_marked(t)
        ):  # fmt: skip
            t = ""
        add(t)
    return out
