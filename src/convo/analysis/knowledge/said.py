"""Who did what, where a sentence says so plainly: ``I fixed parser.py``, ``Bob wrote it
(runbook.md)``, ``Deployed auth-service v2.1 to staging``, ``I'll update the README.md``.

``said(text, entities, people)`` reads each sentence that names a thing (an entity of
``THINGS``: software, a project, a file, a product, a technology, an organisation, a
place, a title) and begins with its subject and a verb:

- the subject is ``I`` (the speaker), one of the message's people named by the first
  word of their name (``Bob`` for ``Bob Jones``), or nobody when the sentence begins
  with a past-tense verb (a status line: the speaker);
- the verb is a past form (``-ed``, or an irregular one: ``wrote``, ``built``), or
  ``will``/``'ll``/``'m going to`` and a verb (future);
- the object is the first such thing named after the verb.

Each is ``[subject, verb, tense, object]`` with the subject ``""`` for the speaker, else
the person's value as the metadata has it; the verb in its plain form (``wrote`` ->
``write``, ``deployed`` -> ``deploy``). Anything else (a question, ``we``, a sentence
that names no thing) says nothing: an action is made only where the text is plain.
"""

from __future__ import annotations

import re

THINGS = frozenset(
    {"software", "project", "file", "product", "technology", "organisation", "place", "title"}
)
_IRREGULAR = {
    "wrote": "write", "built": "build", "made": "make", "sent": "send", "took": "take",
    "gave": "give", "found": "find", "ran": "run", "broke": "break", "put": "put",
    "set": "set", "read": "read", "left": "leave", "began": "begin", "got": "get",
    "did": "do", "saw": "see", "met": "meet", "paid": "pay", "sold": "sell",
    "bought": "buy", "brought": "bring", "drew": "draw", "drove": "drive", "flew": "fly",
    "kept": "keep", "led": "lead", "lost": "lose", "shut": "shut", "spent": "spend",
    "split": "split", "stole": "steal", "struck": "strike", "threw": "throw",
    "told": "tell", "understood": "understand", "went": "go", "won": "win", "hid": "hide",
    "forgot": "forget", "chose": "choose", "rewrote": "rewrite", "rebuilt": "rebuild",
    "undid": "undo", "upgraded": "upgrade", "shipped": "ship",
}  # fmt: skip
_E_STEMS = ("at", "iz", "us", "os", "ov", "rg", "dg", "lv", "rv", "ac", "nc", "as", "ng", "yz", "ur", "ar", "ir", "ok")  # fmt: skip
_DOUBLED = ("bb", "dd", "gg", "mm", "nn", "pp", "tt")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
_FUTURE = re.compile(r"(?:will|'ll|’ll|am going to|'m going to|’m going to)\s+([a-z]+)\b")
_NOT_VERBS = frozenset({"need", "feed", "seed", "speed", "red", "bed", "bred", "shed", "wed"})


def plain_verb(word: str) -> str | None:
    """The plain form of a past-tense verb (None: ``word`` is not one)."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if not w.endswith("ed") or len(w) < 5 or w in _NOT_VERBS or w.endswith("eed"):
        return None
    stem = w[:-2]
    if stem.endswith("i"):
        return stem[:-1] + "y"
    if stem.endswith(_DOUBLED) and len(stem) > 3:
        return stem[:-1]
    if stem.endswith(_E_STEMS):
        return stem + "e"
    return stem


def _first_name(value: str) -> str:
    word = _WORD.search(value)
    return word.group().casefold() if word else ""


def said(text: str, entities: list[list[str]], people: list[str]) -> list[list[str]]:
    """Who did what to which thing in ``text`` (module docstring)."""
    things = [name for name, kind in entities if kind in THINGS]
    if not things:
        return []
    names = {_first_name(p): p for p in people if _first_name(p)}
    out: list[list[str]] = []
    for sentence in _SENTENCE.split(text):
        if sentence.rstrip().endswith("?") or not any(t in sentence for t in things):
            continue
        found = _clause(sentence.strip(), names)
        if found is None:
            continue
        subject, verb, tense, rest = found
        at = [(rest.find(t), t) for t in things if t in rest]
        if at:
            out.append([subject, verb, tense, min(at)[1]])
    return out


_SELF = {"i": "", "i'll": "will ", "i’ll": "will ", "i'm": "am ", "i’m": "am "}


def _clause(sentence: str, names: dict[str, str]) -> tuple[str, str, str, str] | None:
    """(subject, verb, tense, the rest) of a sentence that begins with them, or None."""
    words = list(_WORD.finditer(sentence))
    if not words or words[0].start() > 2:
        return None
    first = words[0].group()
    key = first.casefold()
    if key in _SELF or key in names:
        subject = "" if key in _SELF else names[key]
        after = _SELF.get(key, "") + sentence[words[0].end() :].lstrip()
        future = _FUTURE.match(after)
        if future:
            return subject, future.group(1), "future", after[future.end() :]
        if len(words) > 1 and words[1].start() - words[0].end() <= 2:
            verb = plain_verb(words[1].group())
            if verb is not None:
                return subject, verb, "past", sentence[words[1].end() :]
        return None
    verb = plain_verb(first)
    if verb is not None and first[0].isupper():
        return "", verb, "past", sentence[words[0].end() :]
    return None
