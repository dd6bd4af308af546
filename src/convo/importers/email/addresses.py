"""Address headers to ``Name <address>`` strings: forgiving parsing, decoded names."""

from __future__ import annotations

import functools
import re
from email.utils import getaddresses

from convo.importers.email.charsets import FOLD, decode_words, raw_header_text

_NEEDS_QUOTES = re.compile(r'[@,;:<>"\[\]]')


def format_address(name: str, addr: str) -> str:
    """``Name <addr>``; a name with address characters in it (an e-mail address, an
    encoded comma) is quoted so that the address stays unambiguous."""
    name = " ".join(name.split())
    addr = addr.strip()
    if not addr:
        return name
    if not name or name.strip("'\"").lower() == addr.lower():
        return addr
    if _NEEDS_QUOTES.search(name):
        name = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{name} <{addr}>"


# Quoted strings and (comments), which may hold commas, are kept whole.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|\((?:[^()\\]|\\.|\([^()]*\))*\)?|[^,"(]+|,')
_ANGLE = re.compile(r"^(.*?)<([^<>]*)>?\s*$", re.S)
# A local part: word characters, and raw 8-bit bytes (surrogates) not yet decoded.
_LOCAL = r"[\w.+%'\udc80-\udcff-]+"
_OBFUSCATED = re.compile(
    r"(?<![^\s<(\"])(" + _LOCAL + r") at ([\w-]+(?:\.[\w-]+)+)(?=$|[\s>)(])", re.I
)
# A whole element that is one spelled-out address: ``x at y (Name)``, ``x AT y DOT org``,
# ``x [at] y.org``; a host of one label is allowed here, where nothing else is written.
_SPELLED = re.compile(
    r"^(" + _LOCAL + r")\s*(?:\s at \s|\s?[\[(]at[\])]\s?)\s*"
    r"([\w-]+(?:(?:\.|\s+dot\s+|\s?[\[(]dot[\])]\s?)[\w-]+)*)\s*(\(.*\))?$",
    re.I | re.X,
)
_DOT = re.compile(r"\s+dot\s+|\s?[\[(]dot[\])]\s?", re.I)
_IN_ANGLES = re.compile(r"<([^<>@]+)>")
_COMMENTED = re.compile(r"^(\S+@\S+)\s*\((.*)\)\s*$", re.S)


def _elements(value: str) -> list[str]:
    """Split an address list on commas outside quoted strings."""
    if '"' not in value and "(" not in value:
        return value.split(",")
    out: list[str] = []
    buf: list[str] = []
    for tok in _TOKENS.findall(value):
        if tok == ",":
            out.append("".join(buf))
            buf = []
        else:
            buf.append(tok)
    out.append("".join(buf))
    return out


def _unquote(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        name = re.sub(r"\\(.)", r"\1", name[1:-1])
    return name


_ANGLED_RUN = re.compile(r"([^<>\"]*)<([^<>]*@[^<>]*)>\s*")


def _angled_runs(elem: str) -> list[tuple[str, str]] | None:
    """``A <a@x> B <b@y>`` (the comma left out, enmime's
    ``malformed-multiple-address-header-values.raw``) as two pairs; None for anything else."""
    if elem.count("<") < 2 or '"' in elem:
        return None
    runs = _ANGLED_RUN.findall(elem)
    rebuilt = "".join(n + f"<{a}>" for n, a in runs)
    if len(runs) < 2 or rebuilt.replace(" ", "") != elem.replace(" ", ""):
        return None
    return [(_unquote(n), a.strip()) for n, a in runs]


def _element_pairs(elem: str) -> list[tuple[str, str]]:
    """(name, address) pairs of one comma-separated element (``_angled_runs`` too)."""
    runs = _angled_runs(elem)
    if runs:
        return runs
    m = _ANGLE.match(elem)
    if m:
        return [(_unquote(m.group(1)), m.group(2).strip())]
    m = _COMMENTED.match(elem)
    if m:
        return [(m.group(2).strip(), m.group(1))]
    words = elem.split()
    if len(words) > 1 and all("@" in w for w in words):
        return [("", w) for w in words]
    if "@" in elem and " " not in elem:
        return [("", elem.strip("<>"))]
    pairs = [p for p in getaddresses([elem]) if p[0] or p[1]]
    return pairs if pairs and "@" in pairs[0][1] else [(_unquote(elem), "")]


def _pairs(value: str) -> list[tuple[str, str]]:
    """(name, address) pairs of one header value; forgiving where getaddresses is not
    (``alice@x <bob@y>``, addresses separated only by spaces, stray brackets,
    ``user at host`` written by list archives)."""
    out: list[tuple[str, str]] = []
    for elem in _elements(value):
        elem = elem.strip()
        if "@" not in elem and elem:
            elem = _unspelled(elem)
        if elem:
            out.extend(_element_pairs(elem))
    return out


def _unspelled(elem: str) -> str:
    """An element whose address is spelled out against harvesters, as list archives and
    careful senders write it (pipermail's ``andy at example.com (Andy)``, ``x AT y DOT
    org``, ``<x [at] y.org>``), with the address made whole; any other element as it is."""
    m = _SPELLED.match(elem)
    if m and (m[3] or "." in m[2] or _DOT.search(m[2])):  # "Meet at noon" is no address
        addr = f"{m[1]}@{_DOT.sub('.', m[2])}"
        return f"{addr} {m[3]}" if m[3] else addr
    angled = _IN_ANGLES.search(elem)
    if angled:
        inner = _SPELLED.match(angled[1].strip())
        if inner and not inner[3]:
            addr = f"{inner[1]}@{_DOT.sub('.', inner[2])}"
            return elem[: angled.start()] + f"<{addr}>" + elem[angled.end() :]
    if re.search(r"\sat\s", elem, re.I):
        return _OBFUSCATED.sub(r"\1@\2", elem, count=1)
    return elem


def addresses(values: list[str] | None, charset: str | None = None) -> list[str]:
    """Every address of some header values, decoded, in order, duplicates dropped.

    ``charset`` reads undeclared 8-bit bytes (the one the message declares elsewhere)."""
    if not values:
        return []
    if len(values) == 1:
        return [a for _, a in _address_list(str(values[0]), charset)]
    out: list[str] = []
    seen: set[str] = set()
    for value in values:
        for key, formatted in _address_list(str(value), charset):
            if key not in seen:
                seen.add(key)
                out.append(formatted)
    return out


@functools.lru_cache(maxsize=8192)
def _address_list(value: str, charset: str | None) -> tuple[tuple[str, str], ...]:
    """(dedupe key, ``Name <addr>``) of one header value; cached, as lists repeat."""
    if "\n" in value:
        value = FOLD.sub(" ", value)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for name, addr in _pairs(value):
        if name and ("=?" in name or not name.isascii()):
            name = decode_words(name, charset)
        if addr and not addr.isascii():
            addr = raw_header_text(addr, charset)
        addr = "".join(addr.split())
        key = (addr or name).lower()
        if not key or key in seen:
            continue
        seen.add(key)
        out.append((key, format_address(name, addr)))
    return tuple(out)
