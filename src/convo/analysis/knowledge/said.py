"""Who did what, where a sentence says so plainly: ``I fixed parser.py``, ``Bob wrote it
(runbook.md)``, ``Deployed auth-service v2.1 to staging``, ``I'll update the README.md``,
``I'm using the Garmin coach plan``, ``I write mostly Kotlin and Go``.

``said(text, entities, people)`` reads each sentence that names a thing (an entity of
``THINGS``: software, a project, a file, a product, a technology, an organisation, a
place, a title, a language, an event) and begins with its subject and a verb:

- the subject is ``I`` (the speaker), one of the message's people named by the first
  word of their name (``Bob`` for ``Bob Jones``), or nobody when the sentence begins
  with a verb (a status line: the speaker). A short lead-in is passed over: an
  interjection or a name and a comma (``Done, and I fixed``, ``Mateo, I paid``,
  ``Yes, sent you``);
- the verb is a past form (``-ed``, or an irregular one: ``wrote``, ``built``), also
  after ``have``/``'ve`` (past); an ``-ing`` form after ``am``/``'m``/``was``/``have
  been``, or opening a status line when a preposition follows it (``Flying from
  London``; present; ``I'm going hiking`` -> ``hike``); a verb of
  ``_PRESENT`` in its plain form (``I use``, present); or ``will``/``'ll``/``'m going to``
  and a verb (future). One adverb of ``_ADVERBS`` may stand before it (``I already
  paid``);
- the object is the first such thing named after the verb in the same clause (before
  the next comma or semicolon), with the things joined to it by ``and``/``or``/a comma
  (``Kotlin and Go``: one action each).

Each is ``[subject, verb, tense, object]`` with the subject ``""`` for the speaker, else
the person's value as the metadata has it; the verb in its plain form (``wrote`` ->
``write``, ``deployed`` -> ``deploy``, ``using`` -> ``use``). Anything else (a question,
``we``, a sentence that names no thing) says nothing: an action is made only where the
text is plain. tests/fixtures/knowledge/LABELLING.md ("Actions") says what is labelled.
"""

from __future__ import annotations

import re

THINGS = frozenset(
    {"software", "project", "file", "product", "technology", "organisation", "place", "title",
     "language", "event"}
)  # fmt: skip
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


# Stems of ``-ing`` forms that take back an ``e`` (``using`` -> ``use``), besides those
# ending in ``at`` or ``iz`` (``updating``, ``organizing``).
_ING_E = frozenset({
    "us", "sav", "hik", "mov", "mak", "tak", "writ", "shar", "driv", "rid", "com", "leav",
    "serv", "releas", "merg", "chang", "pric", "plac", "clos", "stor", "compil",
    "configur", "receiv", "giv", "liv", "danc", "cod", "bak", "rebas", "renam", "remov",
    "replac", "schedul", "charg", "manag", "purchas", "tun", "shap", "archiv", "prepar",
    "escap", "continu", "issu", "requir", "includ", "provid", "decid", "caus", "invit",
})  # fmt: skip
_NOT_ING = frozenset({"thing", "nothing", "something", "anything", "everything", "morning",
                      "evening", "string", "spring", "king", "ring", "wing", "during",
                      "building", "meeting", "ceiling", "sibling", "pudding", "wedding"})  # fmt: skip


def ing_verb(word: str) -> str | None:
    """The plain form of an ``-ing`` form (None: ``word`` is not one)."""
    w = word.lower()
    if not w.endswith("ing") or len(w) < 5 or w in _NOT_ING:
        return None
    stem = w[:-3]
    if stem.endswith(_DOUBLED) and len(stem) > 3:
        return stem[:-1]
    if stem in _ING_E or stem.endswith(("at", "iz")):
        return stem + "e"
    if stem.endswith("y") and len(stem) <= 2:  # dying, lying
        return stem[:-1] + "ie"
    return stem


# Verbs read in their plain form after ``I`` (present tense): things people do with the
# things they name, not states (``need``, ``like``, ``have`` say nothing done).
_PRESENT = frozenset({
    "use", "write", "run", "share", "keep", "sell", "buy", "pay", "test", "build", "deploy",
    "host", "maintain", "read", "speak", "work", "switch", "move", "ship", "install",
    "migrate", "book", "order", "fly", "drive", "play", "cook", "bake", "teach", "learn",
    "study", "visit", "watch", "send", "attach", "upload", "edit", "fix", "update",
    "publish", "release", "merge", "review", "recommend", "propose", "suggest",
})  # fmt: skip
_ADVERBS = frozenset({"already", "also", "just", "still", "finally", "then", "actually",
                      "now", "mostly", "mainly", "usually", "always", "often", "even"})  # fmt: skip


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
        plain = sentence.strip()
        clause = _LEAD.sub("", plain, count=1)
        found = _clause(clause, names, clause is not plain)
        if found is None:
            continue
        subject, verb, tense, rest = found
        out += [[subject, verb, tense, t] for t in _objects(rest, things)]
    return out


# A lead-in passed over before the subject: an interjection or a name, and a comma
# (``Done, and``, ``Mateo,``, ``Yes,``).
_LEAD = re.compile(r"^(?:[A-Z][\w'’]*|ok|yes|so|oh),\s+(?:and\s+|so\s+)?(?=\w)")
_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+)(?:the\s+)?")


def _objects(rest: str, things: list[str]) -> list[str]:
    """The first thing named in the clause ``rest`` begins (before a comma or semicolon
    that does not join another thing to it), and the things joined to it."""
    at = sorted((rest.find(t), -len(t), t) for t in things if t in rest)
    if not at:
        return []
    start, _, first = at[0]
    cut = min((i for i in (rest.find(","), rest.find(";")) if i >= 0), default=len(rest))
    if start > cut:
        return []
    found = [first]
    end = start + len(first)
    by_start = {i: t for i, _, t in reversed(at)}
    while True:
        join = _JOIN.match(rest, end)
        if join is None or join.end() not in by_start:
            break
        nxt = by_start[join.end()]
        found.append(nxt)
        end = join.end() + len(nxt)
    return found


_SELF = {"i": "", "i'll": "will ", "i’ll": "will ", "i'm": "am ", "i’m": "am ",
         "i've": "have ", "i’ve": "have "}  # fmt: skip
_AUX = re.compile(
    r"(?:(?:am|was|have\s+been)\s+(?P<ing>[a-z]+ing)\b(?:\s+(?P<then>[a-z]+ing)\b)?"
    r"|have\s+(?P<done>[a-z]+)\b)"
)


def _clause(
    sentence: str, names: dict[str, str], led: bool = False
) -> tuple[str, str, str, str] | None:
    """(subject, verb, tense, the rest) of a sentence that begins with them, or None;
    ``led``: a lead-in was passed over (then a status line's verb may be lower-case)."""
    words = list(_WORD.finditer(sentence))
    if not words or words[0].start() > 2:
        return None
    first = words[0].group()
    key = first.casefold()
    if key in _SELF or key in names:
        subject = "" if key in _SELF else names[key]
        after = _SELF.get(key, "") + sentence[words[0].end() :].lstrip()
        return _predicate(subject, after)
    verb = plain_verb(first)
    if verb is not None and (first[0].isupper() or led):
        return "", verb, "past", sentence[words[0].end() :]
    verb = ing_verb(first) if len(words) > 1 else None
    if verb is not None and verb not in _NOT_DONE and words[1].group() in _TOWARDS:
        return "", verb, "present", sentence[words[0].end() :]
    return None


# The prepositions that make an ``-ing`` form opening a sentence a status line
# (``Flying from London``), not a subject (``Reading a file written by Spark panics``).
_TOWARDS = frozenset({"to", "from", "into", "for", "at", "on", "with", "in", "back", "over"})


_NOT_DONE = frozenset({"be", "hav", "do", "go", "get", "look", "feel", "think", "wonder"})


def _predicate(subject: str, after: str) -> tuple[str, str, str, str] | None:
    """What ``subject`` did, from the words ``after`` it (``am``/``have``/``will`` for
    ``'m``/``'ve``/``'ll``)."""
    future = _FUTURE.match(after)
    if future:
        return subject, future.group(1), "future", after[future.end() :]
    aux = _AUX.match(after)
    if aux:
        if aux.group("done") is not None:
            verb = plain_verb(aux.group("done"))
            return (subject, verb, "past", after[aux.end() :]) if verb else None
        verb = ing_verb(aux.group("ing"))
        if verb == "go" and aux.group("then"):  # I'm going hiking
            return subject, ing_verb(aux.group("then")) or "go", "future", after[aux.end() :]
        end = aux.end("ing")
        return (subject, verb, "present", after[end:]) if verb else None
    word = _WORD.match(after)
    if word and word.group().casefold() in _ADVERBS:
        after = after[word.end() :].lstrip()
        word = _WORD.match(after)
    if word is None:
        return None
    w = word.group()
    verb = plain_verb(w)
    if verb is not None:
        return subject, verb, "past", after[word.end() :]
    if w in _PRESENT:
        return subject, w, "present", after[word.end() :]
    return None
