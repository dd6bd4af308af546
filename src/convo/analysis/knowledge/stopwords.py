"""Stopwords of the common European languages, and which of them a message is written in.

Decision: a small curated list per language (German, French, Spanish, Italian,
Portuguese, Dutch: articles, pronouns, prepositions, conjunctions, auxiliaries and
common adverbs, about a hundred words each, chosen from the function-word lists that
keyword extractors such as YAKE ship), rather than a dependency: the lists are short,
reviewed by hand, and cover what breaks key phrases. English has its own larger list
with conversational filler (``ENGLISH``).

``language(words)`` picks the language whose list the message's words hit most
(English unless another language hits more); key phrases of the message then break
on that language's stopwords and on English ones (conversations mix in English words).
A word is looked up once in ``_LANGS`` (word -> the languages listing it), so picking a
language costs one dict lookup per word, in C loops.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from itertools import repeat

_LISTS = {
    "de": """
        aber alle allem allen aller alles als also am an ander andere anderen auch auf aus
        bei bin bis bist da damit dann das dass dem den denn der des dessen dich die diese
        dieser dieses dir doch
        dort du durch ein eine einem einen einer eines er es etwas euch euer für gegen
        gewesen hab habe haben hat hatte hätte hier hin hinter ich ihm ihn ihnen ihr ihre im
        in indem ins ist jede jedem jeden jeder jetzt kann kein keine können könnte machen
        man mein meine mich mir mit muss musste nach nicht nichts noch nun nur ob oder ohne
        schon sehr sein seine sich sie sind so solche soll sollte sondern sonst über um und
        uns unser unter viel vom von vor war waren warum was weil weiter welche wenn wer
        werde werden wie wieder will wir wird wo wollen würde zu zum zur zwar zwischen ja
        nein danke bitte gut mal halt eben genau
    """,
    "fr": """
        au aux avec ce ces cette dans de des du elle elles en est et eux il ils je la le les
        leur leurs lui ma mais me même mes moi mon ne nos notre nous on ou où par pas pour
        qu que qui sa se ses son sont sur ta te tes toi ton tu un une vos votre vous été
        être avoir ai as avons avez ont était étaient fait faire comme aussi bien très plus
        moins tout tous toute toutes si non oui merci alors donc car ni depuis encore déjà
        peut peu ici là cela ça celui celle entre sans sous chez vers quand comment pourquoi
        quel quelle quels quelles
    """,
    "es": """
        al algo algunos ante antes como con contra cual cuando de del desde donde durante
        el ella ellas ellos en entre era eres es esa ese eso esta está estaba estado están
        estar este esto estos fue fueron ha había han hay hasta la las le les lo los más me
        mi mis mucho muy nada ni no nos nosotros o otra otro para pero poco por porque que
        qué quien se sea ser si sí sin sobre son su sus también tan tanto te tener tengo
        ti tiene todo todos tu tú un una uno unos usted ya yo gracias hola bueno así aquí
        ahora
    """,
    "it": """
        a ad al alla alle anche ancora avere che chi ci come con cosa da dal dalla degli dei
        del della delle di dove e è ed era essere fa fare fra gli ha hai hanno ho il in io
        la le lei li lo loro lui ma mi mia mio molto ne nei nel nella noi non nostro o per
        perché più poi può quando quello questa questo qui se sei si sia siamo sono su sua
        suo sul sulla tra tu tutti tutto un una uno voi già grazie ciao bene allora così
        sempre
    """,
    "pt": """
        a ao aos as até com como da das de dela dele do dos e é ela ele eles em entre era
        essa esse esta está estão eu foi for há isso isto já lhe mais mas me mesmo meu
        minha muito na nas não nem no nos nós num numa o os ou para pela pelo por porque
        quando que quem se sem ser seu seus sua suas só também te tem ter teu tu um uma
        você vocês obrigado obrigada olá bem aqui agora então
    """,
    "nl": """
        aan al alles als bij dan dat de der deze die dit doch doen door dus een en er ge
        geen geweest haar had heb hebben heeft hem het hier hij hoe hun iemand ik in is ja
        je kan kon kunnen maar me meer men met mij mijn moet na naar niet niets nog nu of om
        omdat ons ook op over reeds te tegen toch toen tot u uit uw van veel voor want waren
        was wat we wel werd wezen wie wij wil worden zal ze zelf zich zij zijn zo zonder zou
        bedankt dank graag goed
    """,
}

STOPWORDS: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in _LISTS.items()}
_LANGS: dict[str, tuple[str, ...]] = {}
for _lang, _words in STOPWORDS.items():
    for _w in _words:
        _LANGS[_w] = (*_LANGS.get(_w, ()), _lang)
del _lang, _words, _w


_FOREIGN: dict[frozenset[str], frozenset[str]] = {}  # English list -> the other words


def _foreign_only(english: frozenset[str]) -> frozenset[str]:
    found = _FOREIGN.get(english)
    if found is None:
        if len(_FOREIGN) > 8:
            _FOREIGN.clear()
        found = _FOREIGN[english] = frozenset(_LANGS.keys() - english)
    return found


def language(words: Iterable[str | None], english: frozenset[str]) -> str | None:
    """The language (``de``, ``fr``, ...) whose stopwords ``words`` (lower-case; None
    entries are skipped) hit most, or None for English (``english`` is its list) and
    when nothing is hit. Ties go to the first language in alphabetical order."""
    words = words if isinstance(words, list) else list(words)
    # Counted in C loops (any, sum over map): this runs once per message. A language
    # wins only with more hits than English, so only when the message holds one of its
    # stopwords that is not an English one (most hold none), and only when the words
    # some other list has outnumber the English ones.
    if not any(map(_foreign_only(english).__contains__, words)):
        return None
    en = sum(map(english.__contains__, words))
    if sum(map(_LANGS.__contains__, words)) <= en:
        return None
    hits: dict[str, int] = {}
    for langs in filter(None, map(_LANGS.get, words)):
        for lang in langs:
            hits[lang] = hits.get(lang, 0) + 1
    best = max(sorted(hits), key=hits.__getitem__)
    return best if hits[best] > en else None


# English words that are no topic on their own or at a phrase's end: times of day and
# nouns that only stand for something else ("the trickiest part", "this morning").
_FILLER = "morning afternoon evening tonight night part parts bit bits piece way ways point points"
FILLER = frozenset(f"{_FILLER} idea ideas lot".split())


def _past(word: str) -> bool:
    return word.endswith("ed") and not word.endswith("eed") and len(word) > 4


def verbal(words: list[str]) -> bool:
    """Whether a phrase is only verb forms: one word in ``-ed`` (``joined``), or words
    that each end in ``-ing`` or ``-ed`` (``approached solving``; not ``-eed``: ``speed``).
    A single ``-ing`` word is often a thing (``meeting``, ``logging``)."""
    if len(words) == 1:
        return _past(words[0])
    # Most phrases have a word ending in neither: ruled out by a C loop first.
    if not all(map(str.endswith, words, _ENDINGS)):
        return False
    return all(w.endswith("ing") or _past(w) for w in words)


_ENDINGS = repeat(("ing", "ed"))


_PAST = frozenset(
    [
        "wrote",
        "said",
        "made",
        "sent",
        "took",
        "gave",
        "found",
        "built",
        "ran",
        "broke",
        "told",
        "went",
        "got",
        "did",
        "saw",
        "met",
        "kept",
        "left",
        "thought",
        "knew",
        "brought",
        "bought",
    ]
)


def named_verb(words: list[str], names: Collection[str]) -> bool:
    """Whether a phrase is a person's name and past-tense verbs only (``bob wrote``,
    ``carol replied``): who did something, not what it is about."""
    return (
        len(words) > 1
        and any(w in names for w in words)
        and all(w in names or w in _PAST or _past(w) for w in words)
    )


# English: function words and conversational filler, which break key phrases.
_ENGLISH_TEXT = """
    a about above after again against all almost along already also although always am among an
    and another any anybody anyone anything anyway anywhere are aren't around as ask asked at away
    back be became because become been before behind being below best better between both but by
    can can't cannot could couldn't did didn't do does doesn't doing don't done down during each
    either else enough etc even ever every everybody everyone everything few first for from
    further get gets getting give given go goes going gone good got great had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how how's
    however i i'd i'll i'm i've if in indeed instead into is isn't it it'd it'll it's its itself
    just keep kind last least less let let's lets like likely look looks lot lots made make makes
    many may maybe me might mine more most much must mustn't my myself need needs never new next
    no nobody none nor not nothing now of off often oh ok okay old on once one ones only onto or
    other others otherwise our ours ourselves out over own per perhaps please put quite rather
    re really right said same say says see seem seems seen shall shan't she she'd she'll she's
    should shouldn't since so some somebody someone something sometimes soon still such sure take
    tell than thank thanks that that's the their theirs them themselves then there there's these
    they they'd they'll they're they've thing things think this those though through thus to today
    together too tomorrow took toward towards try trying two under until up upon us use used using
    very via want wanted wants was wasn't way we we'd we'll we're we've well went were weren't what
    what's whatever when when's where where's whether which while who who's whom whose why why's
    will with within without won't would wouldn't yes yet you you'd you'll you're you've your
    yours yourself yourselves yeah yep yup nope hey hi hello bye cheers thx ty lol hmm uh um ah
    gonna gotta wanna kinda sorta actually basically definitely probably totally pretty stuff
    anyways also cool nice awesome agree agreed guess mean means know knew think thought feel
    sounds sound fine hope hopefully let's lemme wait still tbh imo fyi btw pm am
"""
ENGLISH = frozenset(_ENGLISH_TEXT.split()) | FILLER
