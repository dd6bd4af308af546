"""Text whose source does not declare its encoding: the one place the encoding is guessed.

``convo.core.io.decode_text`` reads heads for sniffing (cheaply: UTF-8, else cp1252);
readers of text formats (transcripts, IRC logs, WhatsApp, Signal, Discord and Zoom text
exports, mail parts and headers without a charset) decode their bytes here.

Decisions, where the formats are silent:

- A declaration wins: a BOM (the readers handle UTF-16/32 BOMs before they get here), a
  MIME charset. ``--encoding`` (``ImportOptions.encoding``) replaces only the guess: what
  declares nothing is read in that encoding, every line of it, UTF-8-looking or not (the
  user has said what the bytes are).
- Bytes that are valid UTF-8 are UTF-8: legacy text is almost never valid UTF-8. Lines
  are decided one by one, so a log that mixes UTF-8 lines with Latin-1 ones (an IRC
  channel whose clients disagreed) keeps both right.
- The rest is in one legacy encoding per file (or per mail part), guessed once, at the
  first line that is not UTF-8, from every such line of the head and that line: among
  ``LEGACY`` (the encodings real exports and mail are written in), charset-normalizer's
  measure of chaos first (control characters, odd symbols, impossible sequences), then
  how well the decoded letters fit one language's alphabet (charset-normalizer's letter
  frequency tables, so cp1250 Croatian is not read as cp1252's ``Ðino, doðavola``), then
  the commoner encoding. When nothing fits, cp1252 (which maps every byte but five).
- The guess is never silent: ``Guess.warning`` names it and how sure it is (the share
  of the decoded letters one language's alphabet explains, less the chaos), and says
  ``--encoding`` overrides it.
"""

from __future__ import annotations

import codecs
import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from convo.core.errors import UsageError

# The legacy encodings guessed among, the most common first (a tie goes to the earlier).
LEGACY = (
    "cp1252", "cp1250", "cp1251", "koi8_r", "koi8_u", "iso8859_2", "iso8859_7", "cp1253",
    "cp1254", "cp1255", "cp1256", "cp1257", "big5", "gb18030", "shift_jis", "euc_jp",
    "euc_kr", "cp874",
)  # fmt: skip
FALLBACK = "cp1252"
SAMPLE_BYTES = 64 * 1024
# The letters charset-normalizer's frequency tables (the most frequent ones only) leave
# out of the Latin alphabets: without them ``ç`` would not be French, nor Croatian ``đ``
# (which cp1252 reads as ``ð``) Croatian.
_MORE_LETTERS = {
    "French": "àâçèéêëîïôùûüÿœæ", "Spanish": "áéíñóúü", "Portuguese": "áâãàçéêíóôõú",
    "German": "äöüß", "Italian": "àèéìíòóù", "Czech": "áčďéěíňóřšťúůýž",
    "Slovak": "áäčďéíĺľňóôŕšťúýž", "Polish": "ąćęłńóśźż", "Croatian": "čćđšž",
    "Slovene": "čšž", "Hungarian": "áéíóöőúüű", "Romanian": "ăâîșşțţ", "Turkish": "çğıöşü",
    "Danish": "æøå", "Norwegian": "æøå", "Swedish": "åäö", "Finnish": "äöå",
    "Lithuanian": "ąčęėįšųūž", "Estonian": "äõöüšž", "Dutch": "éëïöü",
}  # fmt: skip
# Scripts whose text cannot be listed letter by letter: their letters all fit (a wrong
# CJK decoding shows as chaos instead).
_IDEOGRAPHIC = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "HALFWIDTH", "FULLWIDTH")
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Guess:
    """A legacy encoding chosen for bytes that declare none: its codec and how sure (0-100)."""

    encoding: str
    confidence: int

    @property
    def label(self) -> str:
        """The encoding's usual name: ``windows-1251``, ``iso-8859-2``, ``koi8-r``."""
        return label(self.encoding)

    def warning(self, what: str = "text that is not UTF-8") -> str:
        """The one line that says what was chosen: ``read as windows-1251 (guessed, 94%)``."""
        return (
            f"{what} read as {self.label} (guessed, {self.confidence}%); use --encoding to override"
        )


def label(codec: str) -> str:
    """The usual name of a Python codec: ``cp1251`` -> ``windows-1251``."""
    name = codecs.lookup(codec).name
    m = re.fullmatch(r"cp(125\d)", name)
    if m:
        return f"windows-{m[1]}"
    m = re.fullmatch(r"iso8859[-_](\d+)", name)
    if m:
        return f"iso-8859-{m[1]}"
    return name.replace("_", "-")


def check_encoding(name: str | None) -> str | None:
    """The codec ``--encoding NAME`` names (None stays None), or a UsageError."""
    if name is None:
        return None
    try:
        return codecs.lookup(name.strip()).name
    except (LookupError, ValueError):
        raise UsageError(
            f"unknown --encoding {name!r}", hint="e.g. windows-1251, latin-1, shift_jis, koi8-r"
        ) from None


@functools.cache
def _alphabets() -> dict[str, frozenset[str]]:
    from charset_normalizer.constant import FREQUENCIES

    out = {}
    for lang, letters in FREQUENCIES.items():
        extra = _MORE_LETTERS.get(lang, "")
        out[lang] = frozenset(c for c in [*letters, *extra] if not c.isascii())
    return out


def _script(c: str) -> str:
    """A letter's script (its Unicode name's first word); kana, hangul and ideographs are
    one script, which Japanese mixes within a word."""
    name = unicodedata.name(c, "?").split(" ", 1)[0]
    return "CJK" if name.startswith(_IDEOGRAPHIC) else name


def fit(text: str) -> float:
    """How well ``text``'s non-ASCII letters read as one language (0-1): the share of them
    the best language's alphabet holds, less the share of words that mix scripts
    (``Josй``: a Latin word with a Cyrillic letter is a wrong code page)."""
    letters = [c for c in text if not c.isascii() and c.isalpha()]
    if not letters:
        return 0.0
    wide = sum(_script(c) == "CJK" for c in letters)
    lower = [c.lower() for c in letters]  # one letter may lower to two ("İ")
    best = wide or max(sum(c in alphabet for c in lower) for alphabet in _alphabets().values())
    words = [w for w in _WORD.findall(text) if not w.isascii()]
    mixed = sum(len({_script(c) for c in w if c.isalpha()}) > 1 for w in words)
    return best / len(letters) * (1 - mixed / max(len(words), 1))


def guess_encoding(data: bytes, among: tuple[str, ...] = LEGACY) -> Guess:
    """The legacy encoding of ``data`` (bytes that are not UTF-8), as the module says."""
    from charset_normalizer import from_bytes

    sample = data[:SAMPLE_BYTES]
    matches = list(from_bytes(sample, cp_isolation=list(among)))
    if not matches:
        return Guess(FALLBACK, 0)
    order = {cs: i for i, cs in enumerate(among)}
    scored = []
    for m in matches:
        # a match stands for every encoding that decodes the sample the same way
        same = [cs for cs in m.could_be_from_charset if cs in order]
        if not same:
            continue
        first = min(same, key=order.__getitem__)
        text = sample.decode(first, "replace")
        scored.append((round(m.chaos, 2), -fit(text), -m.coherence, order[first], first))
    if not scored:
        return Guess(FALLBACK, 0)
    chaos, neg_fit, _, _, best = min(scored)
    # decodings as good as the best (a short Hebrew line reads as Russian too) share the odds
    tied = sum((c, round(f, 2)) == (chaos, round(neg_fit, 2)) for c, f, *_ in scored)
    return Guess(best, round(100 * min(-neg_fit, 1.0) * (1 - chaos) / tied))


class LineDecoder:
    """Decodes one file's lines (or one mail part) as the module says; call it with bytes.

    ``override`` is ``--encoding``; ``head`` the file's first bytes, the sample a guess is
    made from; ``warn`` gets the ``Guess`` once, when one is made.
    """

    def __init__(
        self,
        head: bytes = b"",
        override: str | None = None,
        warn: Callable[[Guess], None] | None = None,
    ):
        self.override = override
        self.guess: Guess | None = None
        self._head = head
        self._warn = warn

    def __call__(self, raw: bytes) -> str:
        if self.override:
            return raw.decode(self.override, "replace")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode(self.legacy(raw), "replace")

    def legacy(self, raw: bytes) -> str:
        """The codec for lines that are not UTF-8 (the guess, made on the first one)."""
        if self.override:
            return self.override
        if self.guess is None:
            self.guess = guess_encoding(_not_utf8(self._head) + b"\n" + raw)
            if self._warn is not None:
                self._warn(self.guess)
        return self.guess.encoding


def _not_utf8(data: bytes) -> bytes:
    """The lines of ``data`` that are not UTF-8 (a cut last line included)."""
    out = []
    for line in data.splitlines():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            out.append(line)
    return b"\n".join(out)
