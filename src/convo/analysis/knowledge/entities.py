"""Content entities of a message's text, by rules, a gazetteer and the shape of words.

``find(text)`` gives ``[name, type]`` pairs in order of appearance, one per name:

- Names of the gazetteer (``gazetteer``): software and products, technologies,
  programming and natural languages, organisations, places; weekdays (``date``). A
  name listed as spelt (``Rust``, ``Teams``) is found with its capital and, when it
  is a plain capitalised word, not as the first word of a sentence ("Teams should..."
  is no product); names no English word shares are found in any case (``pytest``).
  An entity is named as the gazetteer spells it, so spellings merge.
- Shapes: dates (``2025-04-10``, ``3 March 2024``, ``Mon 6 Jan 2025``, ``March 3``,
  ``24 de diciembre``, ``Q1 2025``, ``FY25``, ``2025-W24``, ``the 16th``, years 1950-2049
  standing alone; month names as words), times (``14:00``, ``2 pm``, ``18:00 GMT``,
  ``10:00 – 11:00 (CET)``), versions (``v2``, ``v2.1``, ``1.2.3``, ``2.4`` after
  ``version``/``release``/``build``, a comparison (``>=3.10``) or ``to``/``in``/``on``, or
  before ``release``; after a software name also a bare number, ``Node 22``; and those
  listed after one: ``3.10, 3.12 and 3.13``), amounts (currencies before or after,
  percentages, a number or a spelled-out number with a unit or a counted plural noun:
  ``129 EUR``, ``CA$5``, ``+30%``, ``18 minutes``, ``twelve hours``, ``3 eggs``), files (a
  name with a known extension, with its path), bare domains (``canada.ca/visit``, a
  ``url``) and cloud regions (``eu-central-1``, a ``place``).
- Word shapes: a capitalised word with an inner capital (``TypeAgent``, ``GitHub``) is a
  ``product``; a lower-case hyphenated name ending in ``-service``, ``-api``, ``-cli``
  and the like (``auth-service``) is a ``project``; a run of capitalised words inside
  a sentence that ends in a head word names a place (``Central Station``) or an
  organisation (``Auth Team``, ``Acme Inc``).

Speed: the text is split on whitespace and each distinct piece is classified once (a
bounded cache); a message whose pieces are all plain words (most of them) costs one
dictionary look-up per piece in a C loop. The patterns for shapes run only on a
message that has a digit, a currency sign, a file extension or a spelled-out number.
"""

from __future__ import annotations

import re
from itertools import compress

from convo.analysis.knowledge import gazetteer as g
from convo.analysis.knowledge.keyphrases import STOPWORDS
from convo.analysis.knowledge.text import split_pieces

__all__ = ["find"]

Found = list[list[str]]  # [name, type] pairs

# --- the gazetteer, as look-up tables -------------------------------------------------


def _names(text: str) -> list[str]:
    return [w.replace("_", " ") for w in text.split()]


def _types(name: str, default: str) -> str:
    low = name.casefold()
    if low in g.TECHNOLOGY:
        return "technology"
    if low in g.LANGUAGE_PROGRAMMING:
        return "language"
    return default


_EXACT: dict[str, tuple[str, str]] = {}  # a token as written -> (name, type)
_ANY: dict[str, tuple[str, str]] = {}  # a case-folded token -> (name, type)
_PHRASES: dict[str, list[tuple[str, str]]] = {}  # first word -> [(phrase, type)]


def _add(names: list[str], kind: str, any_case: bool = False) -> None:
    for name in names:
        entry = (name, _types(name, kind))
        if " " in name:
            _PHRASES.setdefault(name.split()[0], []).append(entry)
        elif any_case:
            _ANY.setdefault(name.casefold(), entry)
        else:
            _EXACT.setdefault(name, entry)


_add(_names(g.PLACES), "place")
_add(_names(g.ORGANISATIONS), "organisation")
_add(_names(g.NATURAL_LANGUAGES), "language")
_add(_names(g.SOFTWARE_AS_SPELT), "software")
_add(_names(g.SOFTWARE_ANY_CASE), "software", any_case=True)
_add(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"], "date")
_add(_names(g.MONTHS), "date")
_add(_names(g.EVENTS), "event")
# A software name of the any-case list spelt with capitals is still the same entity.
_SPELLING = {name.casefold(): entry for name, entry in _EXACT.items()}
for _key, (_name, _kind) in list(_ANY.items()):
    if _key in _SPELLING:
        _ANY[_key] = _SPELLING[_key]
_ANY["jwts"] = _ANY["jwt"]  # the plural, the same thing

# --- word shapes ----------------------------------------------------------------------

_TOKEN = re.compile(r"\.NET\b|[^\W_](?:[\w+#&'’./-]*[\w+#])?")
_CAMEL = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]+){1,3}\d{0,2}")
_NOT_CAMEL = re.compile(r"(?:Mc|Mac|De|Di|Da|La|Le|Van|Von|O)[A-Z][a-z]+")
_PROJECT = re.compile(
    r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*-(?:service|svc|api|server|client|cli|lib|sdk|app|bot|ui"
    r"|web|core|worker|gateway|proxy|db|frontend|backend|daemon|agent|plugin|extension)"
)
_CAPITALISED = re.compile(r"[A-Z][a-z'’]+|[A-Z]{2,}")
_HEADS = g.PLACE_HEADS | g.ORGANISATION_HEADS
_SENTENCE_END = frozenset(".!?:;\x00")
_SHAPE_HINT = re.compile(r"[0-9$€£¥₹₩%]|\.[A-Za-z0-9]{1,5}\b")
# spelled-out numbers ("twelve hours", "two leeks") also run the patterns
_NUMBER_WORDS = frozenset(
    {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
     "twelve", "fifteen", "twenty", "thirty", "forty", "fifty", "sixty", "ninety", "hundred"}
)  # fmt: skip
_EDGE = "\"'`“”‘’()[]{}<>*_,;:!?."

# Kinds of what a piece holds (``_Piece``):
_SHAPE = 1  # a digit, a currency sign or a dot before a short word: run the patterns
_KNOWN = 2  # a gazetteer name (exact or any case), or a phrase's first word
_PRODUCT = 3  # a camel-case word
_PROJECT_KIND = 4
_HEAD = 5  # a head word of a place or organisation (``Station``, ``Team``)

_CACHE_MAX = 1 << 16


class _Pieces(dict):
    """A whitespace-separated piece -> what it holds: a tuple of (kind, token, first)
    (``first``: the token begins the piece); the empty tuple for nothing."""

    def __missing__(self, piece: str) -> tuple:
        found: list[tuple[int, str, bool]] = []
        if "://" in piece:  # a link the URL pattern leaves (file-service://x): nothing
            self[piece] = ()
            return ()
        if _SHAPE_HINT.search(piece) or piece.lower() in _NUMBER_WORDS:
            found.append((_SHAPE, "", False))
        for m in _TOKEN.finditer(piece):
            tok = m.group()
            if tok.endswith(("'s", "’s")):
                tok = tok[:-2]
            first = not piece[: m.start()].strip(_EDGE)
            if tok in _EXACT or tok in _PHRASES or tok.casefold() in _ANY:
                found.append((_KNOWN, tok, first))
            elif _CAMEL.fullmatch(tok) and not _NOT_CAMEL.fullmatch(tok):
                found.append((_PRODUCT, tok, first))
            elif _PROJECT.fullmatch(tok):
                found.append((_PROJECT_KIND, tok, first))
            elif tok in _HEADS:
                found.append((_HEAD, tok, first))
        value = self[piece] = tuple(found)
        return value


_PIECES = _Pieces()


def _starts_sentence(pieces: list[str], i: int) -> bool:
    if i == 0:
        return True
    before = pieces[i - 1].rstrip("\"')]*”’")
    return not before or before[-1] in _SENTENCE_END


def _known(tok: str, text: str, at_start: bool) -> tuple[str, str] | None:
    """The gazetteer entry ``tok`` names (a phrase when the text has one), or None;
    a name of the any-case list keeps the text's spelling unless the gazetteer has one
    with capitals (``JWT`` for ``jwts``)."""
    for phrase, kind in _PHRASES.get(tok, ()):
        if phrase in text:
            return phrase, kind
    entry = _EXACT.get(tok)
    if entry is not None:
        plain_word = tok[1:].islower() and tok.isalpha()
        if plain_word and at_start and entry[1] not in ("date", "language", "place"):
            return None  # "Teams should ...", "Spark joy": a word, not the product
        return entry
    entry = _ANY.get(tok.casefold())
    if entry is None or tok.islower() or not entry[0].islower():
        return entry  # as the gazetteer spells it, when it knows how
    return tok, entry[1]


def find(text: str, quotes: bool = True, pieces: list[str] | None = None) -> Found:
    """The content entities of ``text`` (module docstring), ``[name, type]`` pairs;
    quoted titles only with ``quotes`` (not in a tool's arguments or output).
    ``pieces``: ``text.split_pieces(text)``, when the caller has them."""
    if pieces is None:
        pieces = split_pieces(text)
    if len(_PIECES) > _CACHE_MAX:
        _PIECES.clear()
    held = list(map(_PIECES.__getitem__, pieces))
    quoted = quotes and ("'" in text or '"' in text or "“" in text)
    if not (quoted or any(held)):
        return []
    out: dict[str, list[str]] = {}
    shapes = False
    for i in compress(range(len(pieces)), held):
        for kind, tok, first in held[i]:
            if kind == _SHAPE:
                shapes = True
            else:
                _word(kind, tok, first and _starts_sentence(pieces, i), pieces, i, text, out)
    if shapes:
        _shapes(text, out)
    if quoted:
        _quoted(text, out)
    return _outermost(out)


def _word(
    kind: int, tok: str, at_start: bool, pieces: list[str], i: int, text: str,
    out: dict[str, list[str]],
) -> None:  # fmt: skip
    """What the word ``tok`` of piece ``i`` (``at_start``: a sentence's first) names."""
    if kind == _HEAD:
        if not at_start:
            _run_before(pieces, i, tok, out)
    elif kind == _KNOWN:
        entry = _known(tok, text, at_start)
        if entry is not None:
            out.setdefault(entry[0].casefold(), [entry[0], entry[1]])
            if entry[1] in ("software", "language", "technology"):
                _version_after(pieces, i + 1, out)
    elif kind == _PRODUCT:
        out.setdefault(tok.casefold(), [tok, "product"])
    else:
        out.setdefault(tok.casefold(), [tok, "project"])


def _outermost(out: dict[str, list[str]]) -> Found:
    """The entities, less a name inside a longer one (``JWTs`` in a title)."""
    if len(out) < 2:
        return list(out.values())
    long = [k for k in out if " " in k]
    if not long:
        return list(out.values())
    spaced = [f" {x} " for x in long]
    return [
        v for k, v in out.items()
        if not any(f" {k} " in x or f" {k}s " in x for x in spaced if x != f" {k} ")
    ]  # fmt: skip


_QUOTED = re.compile(
    r"""(?<![\w'"“])(?:'(?P<a>[A-Z][^'\n]{2,80}?)'|"(?P<b>[A-Z][^"\n]{2,80}?)"|“(?P<c>[A-Z][^”\n]{2,80}?)”)(?![\w'"])"""
)


def _quoted(text: str, out: dict[str, list[str]]) -> None:
    """A quoted run of two to eight words that starts with a capital, not a sentence:
    a title or a name (``'Revoking JWTs at scale'``, ``"Casa Alfama"``): at least half
    its words capitalised, no sentence punctuation or code."""
    for m in _QUOTED.finditer(text):
        name = m.group(m.lastgroup or "a")
        words = name.split()
        if (
            2 <= len(words) <= 8
            and name == " ".join(words)
            and not _NOT_TITLE.search(name)
            and 2 * sum(w[0].isupper() for w in words) >= len(words)
        ):
            out.setdefault(name.casefold(), [name, "title"])


_NOT_TITLE = re.compile(r"[.!?,;:{}\\%<>=]\s|[.!?,;:{}\\%<>=]$|[{}\\%<>=]")


_VERSION_NUMBER = re.compile(r"v?(\d+(?:\.\d+)*(?:\.x)?|\d+\.\d+-\w+|\d{2}[Hh]\d)[,.;:)]?")
_VERSION_JOIN = frozenset({"and", "or", "to", "&", "/", "->", "→", "vs", "and/or"})


def _version_after(pieces: list[str], i: int, out: dict[str, list[str]]) -> None:
    """The version right after a software name (``Postgres 16``, ``Python 3.11 and
    3.12``, ``Node 22.x``), and those listed after it."""
    while i < len(pieces):
        m = _VERSION_NUMBER.fullmatch(pieces[i])
        if m is None or (m.group(1).isdigit() and len(m.group(1)) > 2):
            return  # "Python 2024": a year, not a version
        out.setdefault(m.group(1).casefold(), [m.group(1), "version"])
        if i + 2 < len(pieces) and pieces[i + 1] in _VERSION_JOIN:
            i += 2
        elif pieces[i].endswith(","):
            i += 1
        else:
            return


def _run_before(pieces: list[str], i: int, head: str, out: dict[str, list[str]]) -> None:
    """The capitalised words right before the head word ``head`` (piece ``i``) inside a
    sentence, with it: a place (``Central Station``) or an organisation (``Auth
    Team``), when there is at least one."""
    words = [head]
    j = i - 1
    while j >= 0 and len(words) < 6:
        word = pieces[j].lstrip(_EDGE)
        if word != pieces[j] or not _CAPITALISED.fullmatch(word) or _starts_sentence(pieces, j):
            if word == pieces[j] and _CAPITALISED.fullmatch(word) and word.lower() not in STOPWORDS:
                words.append(word)  # the sentence's first word: the run's start
            break
        words.append(word)
        j -= 1
    if len(words) > 1:
        name = " ".join(reversed(words))
        kind = "place" if head in g.PLACE_HEADS else "organisation"
        out.setdefault(name.casefold(), [name, kind])


# --- shapes: dates, times, versions, amounts, files -----------------------------------

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?"
    # German, Dutch, Swedish, French, Spanish, Portuguese, Italian (what differs)
    r"|Januar|Februar|März|Mai|Juni|Juli|Oktober|Dezember|januari|februari|maart|mei|juni"
    r"|juli|augustus|oktober|mars|augusti|janvier|février|avril|juin|juillet|août"
    r"|septembre|octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio"
    r"|agosto|septiembre|octubre|noviembre|diciembre|janeiro|fevereiro|março|maio|junho"
    r"|julho|setembro|outubro|novembro|dezembro|gennaio|febbraio|aprile|maggio|giugno"
    r"|luglio|settembre|ottobre|dicembre)"
)
_WEEKDAY = (
    r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun|Monday|Tuesday|Wednesday|Thursday"
    r"|Friday|Saturday|Sunday|Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag)"
)
_ZONE = (
    r"(?:UTC|GMT|CET|CEST|EET|EEST|WET|WEST|BST|IST|JST|KST|SGT|AEST|AEDT|NZST|NZDT|EST|EDT"
    r"|CST|CDT|MST|MDT|PST|PDT|ET|PT|CT|BRT|ART|Uhr)"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_EXTENSIONS = (
    "py|pyi|js|mjs|cjs|ts|tsx|jsx|json|jsonl|ndjson|ya?ml|toml|ini|cfg|conf|env|md|rst|txt"
    "|csv|tsv|pdf|docx?|xlsx?|pptx?|odt|ods|odp|rtf|png|jpe?g|gif|svg|webp|heic|bmp|ico"
    "|mp3|mp4|m4a|wav|ogg|flac|mov|avi|mkv|webm|zip|tar|gz|tgz|bz2|xz|7z|rar|html?|css|scss"
    "|sql|db|sqlite|log|sh|bash|zsh|ps1|bat|exe|dll|so|dylib|rs|go|java|kt|c|h|cc|cpp|hpp"
    "|cs|rb|php|pl|swift|ipynb|vtt|srt|sbv|eml|mbox|ics|vcf|epub|lock|whl|deb|rpm|dmg|apk"
    "|iso|xml|proto|tf|lua|r|jl|scala|ex|exs|erl|hs|ml|vue|svelte"
)
_UNITS = (
    r"ms|milliseconds?|secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|weeks?|months?"
    r"|years?|[KMGTP]i?B|bytes|[KMG]bps|GHz|MHz|km|kg|mg|lbs?|miles?|cm|mm|meters?|metres?"
    r"|feet|ft|inch(?:es)?|°[CF]|[CF](?![\w°])"
)
_CURRENCY = (
    r"USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|CNY|RMB|INR|SEK|NOK|DKK|PLN|CZK|HUF|TRY|BRL|MXN|ARS"
    r"|SGD|HKD|KRW|VND|THB|IDR|ZAR|AED|ILS|BTC|ETH"
)
_NUMBER = r"\d(?:[\d,.]*\d)?"  # 1,299.99; 12.400,00: no trailing comma
_SIGN = r"[$€£¥₹₩₺₽]|(?:CA|US|A|NZ|HK|S|R)\$"
_SCALE = r"(?:\s?(?:[kKmM](?!\w)|bn|million|billion|thousand|Mio\.?|Mrd\.?))?"
_NUMBER_WORD = (
    r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty"
    r"|forty|fifty|sixty|ninety|hundred)"
)
_NOUN_AFTER = (  # a counted noun: a plural that is no verb or function word
    r"(?!(?:is|was|has|its|this|thus|plus|minus|as|us|yes|does|less|unless|across|always"
    r"|perhaps|besides|towards|afterwards|sometimes|times|ones|others|of|days|weeks|hours"
    r"|goes|says|makes|takes|gets|needs|seems|means|works|looks|comes|runs|stays"
    r"|minutes|seconds|months|years)\b)[a-z][a-z-]{2,}[a-rt-z]?s(?<!ss)(?!\w)"
)
_SHAPES = re.compile(  # all but ``vreq`` begin a word: one look-behind skips the inside
    rf"""
    (?<!\w)(?:(?P<datetime>(?<![\d.-])\d{{4}}-[01]\d-[0-3]\d
        (?:[T ][0-2]\d:[0-5]\d(?::[0-5]\d)?(?:Z|[+-][0-2]\d:?[0-5]\d)?)?(?![\d-]))
    | (?P<isoweek>(?<![\w-])\d{{4}}-W[0-5]\d(?!\w))
    | (?P<dmy>(?<![\w.])\d{{1,2}}[/.][01]?\d[/.](?:\d{{4}}|\d{{2}})(?![\w./]))
    | (?P<datetext>(?<!\w)
        (?:(?:{_WEEKDAY},?\s+)?{_DAY}\.?(?:\s*[–-]\s*{_DAY})?\s+(?:of\s+|de\s+)?{_MONTH}(?:(?<=[a-z]{{3}})\.|(?<!\.)(?=\W|$))
            (?:,?\s+(?:de\s+)?\d{{4}})?
        | (?:{_WEEKDAY}\s+)?{_MONTH}\.?\s+{_DAY}(?:,?\s+\d{{4}})?(?![\w:])
        | {_MONTH}\s+\d{{4}})(?![\w:]))
    | (?P<quarter>(?<![\w-])(?:[QH][1-4](?:\s+(?:FY)?\d{{4}}|\s?'?\d{{2}}(?!\w))?|FY\s?'?\d{{2}}(?:\d{{2}})?)(?![\w-]))
    | (?P<ordinal>(?<!\w)the\s+(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)(?!\w))
    | (?P<time>(?<![\w:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?[AaPp]\.?[Mm]\.?(?!\w))?
        (?:\s+[–-]\s+(?:[01]?\d|2[0-3]):[0-5]\d(?:\s?[AaPp]\.?[Mm]\.?(?!\w))?)?
        (?:\s?(?:{_ZONE}|\({_ZONE}\))(?!\w))?(?![\w:]))
    | (?P<clock>(?<![\w:.])(?:1[0-2]|0?[1-9])\s?(?:[ap]\.m\.|[AaPp][Mm](?!\w))(?:\s{_ZONE}(?!\w))?)
    | (?P<vprefix>(?<![\w.])v(?P<vp>\d+(?:\.\d+)*(?:-[\w.]+)?)(?![\w.]))
    | (?P<vword>(?i:version|release|build|ver\.|rev\.)\s+(?P<vw>\d+(?:\.\d+)+)(?![\w.]))
    | (?P<vbefore>(?<![\w.])(?P<vb>\d+(?:\.\d+)+)\s+(?i:release|version|build|beta|alpha|rc\d*)(?!\w))
    | (?P<semver>(?<![\w.])\d+\.\d+\.\d+(?:-[\w.]*\w)?(?!\w|\.\d))
    | (?P<vprep>(?<!\w)(?i:to|from|in|on|since|before|after)\s(?P<vq>\d+\.\d+)
        (?!\w|\.\d|,\d|\s?(?:%|[A-Za-z°€$£¥]|-\w)))
    | (?P<money>(?<!\w)(?:{_SIGN})\s?{_NUMBER}{_SCALE}
        | (?<![\w.])(?:{_CURRENCY})\s?{_NUMBER}{_SCALE}
        | (?<![\w.])\d{{1,3}}(?:[ \u00a0\u202f]\d{{3}})+(?:[.,]\d+)?\s?(?:{_CURRENCY}|€|£|zł|kr)(?!\w)
        | (?<![\w.]){_NUMBER}{_SCALE}\s?(?:{_CURRENCY}|[€£¥₩zł]|zł|kr|dollars?|euros?|pounds?|yen|bucks|cents?|reais)(?!\w))
    | (?P<percent>(?<![\w.])[+−-]?\d+(?:[.,]\d+)?(?:\s?[–-]\s?\d+(?:[.,]\d+)?)?\s?(?:%|percent(?!\w)))
    | (?P<unit>(?<![\w.,])(?!(?:19|20)\d\d\s)(?:\d+(?:[.,]\d+)?(?:\s?[–-]\s?\d+(?:[.,]\d+)?)?|{_NUMBER_WORD})
        (?:x(?!\w)|\s?(?:{_UNITS})|[\s-](?:(?i:days?|weeks?|hours?|minutes?|months?|years?|nights?|percent|kilos?|kilometres?|kilometers?|degrees?|tablespoons?|teaspoons?|tsp|tbsp|ml|g|l|Wh|kWh|W|V|rps|stunden|minutos|minuti)))(?!\w))
    | (?P<count>(?<![\w.,$€£])(?!(?:19|20)\d\d\s)(?:\d{{1,3}}(?:,\d{{3}})+|\d+|{_NUMBER_WORD})\s{_NOUN_AFTER})
    | (?P<year>(?<![\w.$€£:/-])(?:19[5-9]\d|20[0-4]\d)(?![\w.:/-]|\s?%))
    | (?P<region>(?<![\w-])(?:us|eu|ap|sa|ca|me|af|il)-(?:east|west|north|south|central|northeast|northwest|southeast|southwest)-\d(?!\w))
    | (?P<domain>(?<![\w@./:-])(?:[a-z0-9][a-z0-9-]*\.)+(?:com|org|net|io|dev|app|ai|co|gov|edu|uk|de|fr|es|pt|it|nl|se|no|dk|fi|pl|at|ch|be|ca|us|au|nz|jp|vn|fm|me|tv|eu)(?:/[\w./%-]*[\w/])?(?![\w@-]))
    | (?P<file>(?<![\w/.@~-])(?:~?/)?(?:[\w.-]+/)*[\w-][\w.-]*\.(?:{_EXTENSIONS})(?![\w/-]|\.\w)))
    | (?P<vreq>(?:>=|<=|==|~=|!=|\^|~>?|(?<![=-])>|<)\s?(?P<vr>\d+(?:\.\d+)+(?:\.\*)?)(?!\w|\.\d))
    """,
    re.X,
)
_KIND = {
    "datetime": "date", "dmy": "date", "datetext": "date", "year": "date",
    "time": "time", "clock": "time",
    "vprefix": "version", "vword": "version", "vreq": "version", "vprep": "version", "vbefore": "version", "semver": "version",
    "money": "amount", "percent": "amount", "unit": "amount",
    "file": "file", "isoweek": "date", "quarter": "date", "ordinal": "date",
    "count": "amount", "region": "place", "domain": "url",
}  # fmt: skip
_VALUE = {"vprefix": "vp", "vword": "vw", "vbefore": "vb", "vreq": "vr", "vprep": "vq"}
# more versions listed after one ("3.10, 3.12 and 3.13")
_MORE_VERSIONS = re.compile(r"(?:,\s?|\s(?:and|or|to)\s)(v?\d+\.\d+(?:\.\d+)*)(?!\w|\.\d|%)")
_IP = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}")


def _shapes(text: str, out: dict[str, list[str]]) -> None:
    for m in _SHAPES.finditer(text):
        group = m.lastgroup
        assert group is not None
        kind = _KIND[group]
        name = " ".join(m.group(_VALUE.get(group, group)).split())
        if kind == "date":
            name = name.rstrip(".")
        if kind == "version" and _IP.fullmatch(name):
            continue
        if kind == "file" and (name.casefold() in _ANY or name in _EXACT):
            continue  # Node.js, Vue.js: software, not files
        if kind == "version" and group == "vprefix":
            name = "v" + name
        out.setdefault(name.casefold(), [name, kind])
        if kind == "version":
            end = m.end()
            while (more := _MORE_VERSIONS.match(text, end)) is not None:
                out.setdefault(more.group(1).casefold(), [more.group(1), "version"])
                end = more.end()


# --- what chat importers write for attachments and tool calls -------------------------

_MEDIA = re.compile(
    r"\[(?:attachment|file|photo|image|video|audio|document|voice|animation|gif)\b"
    r"(?:\s+(?P<inner>[^\]\n]+))?\]\s*(?P<after>[^\n]*)",
    re.I,
)
_NAMED_FILE = re.compile(rf".*[^\s/]\.(?:{_EXTENSIONS})", re.I)
HEAD = 400  # characters of a tool call or result that are read for entities


def side_text(chunks: list[str], everything: bool = False) -> tuple[str, Found]:
    """What the text of tool calls, tool results and attachments adds: the first
    ``HEAD`` characters of each such chunk (of every chunk with ``everything``: a tool's
    message), and the file each attachment names (``[attachment] notes/plan v1.pdf``,
    with its path and spaces)."""
    heads: list[str] = []
    files: Found = []
    for chunk in chunks:
        if not isinstance(chunk, str) or not (everything or chunk.startswith("[")):
            continue
        m = _MEDIA.match(chunk)
        if m is not None:  # "[image 18 bytes]": what follows, not the sizes
            named = [
                [name, "file"]
                for name in ((m.group("inner") or "").strip(), m.group("after").strip())
                if _NAMED_FILE.fullmatch(name) and "://" not in name
            ]
            files += named
            if not named:
                heads.append(m.group("after")[:HEAD])
            continue
        tool = _TOOL.match(chunk)
        if tool is not None:  # "[tool_use Bash] {...}": what follows, not the tool's name
            heads.append(chunk[tool.end() : tool.end() + HEAD])
        elif everything:
            heads.append(chunk[:HEAD])
    return "\n".join(heads), files


_TOOL = re.compile(r"\[(?:tool_use|tool_result|tool_call|function_call)\b[^\]\n]*\]?")
