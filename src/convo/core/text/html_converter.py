"""The HTML parser behind ``convo.core.text.html.html_to_text`` (its rules are there).

Apart from it so that importing ``html_to_text`` imports no ``html.parser``: only a
conversion does.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from convo.core.text.html import MAX_QUOTE_DEPTH, tidy

_BLOCK = {
    "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "main", "nav", "ol", "p", "pre", "section", "table", "tr", "ul", "title",
}  # fmt: skip
_SKIP = {"script", "style", "head", "template", "noscript", "svg", "math"}
_VOID_BREAK = {"br"}
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_TEX = "application/x-tex"


def _katex_drawing(attrs: dict[str, str | None]) -> bool:
    """KaTeX's visual copy of a formula (``<span class="katex-html" aria-hidden="true">``,
    beside the MathML whose TeX annotation is read instead)."""
    return attrs.get("aria-hidden") == "true" and "katex-html" in (attrs.get("class") or "").split()


_SCHEME = re.compile(r"^(?:https?://)?(?:www\.)?", re.I)


def _shortened(text: str, href: str) -> bool:
    """Whether a link's text is its URL cut short with an ellipsis (``…`` or ``...``), as
    Hacker News writes a long link: the URL alone then says it, once."""
    cut = text.removesuffix("...").removesuffix("\u2026")
    if cut == text or len(cut) < 8 or any(c.isspace() for c in cut):
        return False
    return _SCHEME.sub("", href).startswith(_SCHEME.sub("", cut))


class Converter(HTMLParser):
    """The event stream ``html_to_text`` reads (``convo.core.text.html``'s rules)."""

    def __init__(self, *, div_lines: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.div_lines = div_lines  # a <div> is a line (mail), not a paragraph
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.links: list[tuple[str | None, int]] = []
        self.lists: list[list[int]] = []  # per open list: [ordered, counter]
        self.quotes: list[int | None] = []  # per open blockquote: where its text starts
        self.cells = 0  # cells so far in the current table row
        self.prefixed = 0  # open quotes that will prefix their lines (at most MAX_QUOTE_DEPTH)
        self.tex: list[str] | None = None  # a formula's TeX being read (KaTeX's annotation)
        self.hidden = 0  # open spans of KaTeX's drawing of a formula (left out)

    def _newline(self, n: int = 1) -> None:
        self.out.append("\n" * n)

    def _formula_start(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        """Whether ``tag`` is taken by a KaTeX formula: its drawing (left out) or its
        TeX annotation (read)."""
        if self.hidden:
            self.hidden += tag == "span"
            return True
        if tag == "annotation" and self.skip and dict(attrs).get("encoding") == _TEX:
            self.tex = []
            return True
        if tag == "span" and _katex_drawing(dict(attrs)):
            self.hidden = 1
            return True
        return False

    def _formula_end(self, tag: str) -> bool:
        """Whether the end of ``tag`` is a KaTeX formula's (its TeX written out)."""
        if self.hidden:
            self.hidden -= tag == "span"
            return True
        if tag == "annotation" and self.tex is not None:
            formula = " ".join("".join(self.tex).split())
            self.tex = None
            if formula:
                self.out.append(f"$${formula}$$")
            return True
        return False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._formula_start(tag, attrs):
            return
        if tag in _SKIP:
            self.skip += 1
            return
        if self.skip:
            return
        if tag in _VOID_BREAK:
            self._newline()
        elif tag in ("ul", "ol"):
            self.lists.append([tag == "ol", 0])
            self._newline()
        elif tag == "li":
            self._list_item()
        elif tag == "blockquote":
            self._newline(2)
            prefixed = self.prefixed < MAX_QUOTE_DEPTH
            self.prefixed += prefixed
            self.quotes.append(len(self.out) if prefixed else None)
        elif tag in _BLOCK:
            self._block_start(tag)
        elif tag in ("td", "th"):
            if self.cells:
                self.out.append(" | ")
            self.cells += 1
        elif tag == "a":
            self.links.append((dict(attrs).get("href"), len(self.out)))
        elif tag == "img":
            self._image(dict(attrs))

    def _list_item(self) -> None:
        self._newline()
        depth = max(len(self.lists) - 1, 0)
        if self.lists and self.lists[-1][0]:
            self.lists[-1][1] += 1
            self.out.append("  " * depth + f"{self.lists[-1][1]}. ")
        else:
            self.out.append("  " * depth + "- ")

    def _paragraph(self, tag: str) -> bool:
        """Whether ``tag`` is set apart by a blank line (else by a line break)."""
        if tag == "div":
            return not self.div_lines
        return tag in ("p", "pre", "table", "h1", "h2", "h3", "blockquote")

    def _line_break(self) -> None:
        """A div's edge in ``div_lines`` mode: a line ends here unless one just did."""
        for chunk in reversed(self.out):
            if chunk:
                if not chunk.endswith("\n"):
                    self._newline()
                return

    def _block_start(self, tag: str) -> None:
        if tag == "div" and self.div_lines:
            self._line_break()
            return
        self._newline(2 if self._paragraph(tag) and tag != "blockquote" else 1)
        if tag == "tr":
            self.cells = 0
        if tag == "pre":
            self.pre += 1
        if tag == "hr":
            self.out.append("---")
            self._newline()

    def _image(self, a: dict[str, str | None]) -> None:
        alt = (a.get("alt") or "").strip()
        src = a.get("src") or ""
        classes = (a.get("class") or "").split()
        if "avatar" in classes:
            return
        if "emoji" in classes:
            self.out.append(alt or (a.get("title") or ""))
        elif alt:
            self.out.append(f"[{alt}]")
        elif src and not src.startswith("data:"):
            self.out.append(f"[image {src}]")

    def handle_endtag(self, tag: str) -> None:
        if self._formula_end(tag):
            return
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        if tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self._newline()
        elif tag == "a" and self.links:
            self._link_end(*self.links.pop())
        elif tag == "blockquote" and self.quotes:
            self.quote_end(self.quotes.pop())
        elif tag == "tr":  # rows follow one another, no blank line between
            return
        elif tag in _BLOCK:
            self._block_end(tag)

    def _block_end(self, tag: str) -> None:
        if tag == "pre":
            self.pre = max(0, self.pre - 1)
        if tag == "div" and self.div_lines:
            self._line_break()
        else:
            self._newline(2 if self._paragraph(tag) else 1)

    def _link_end(self, href: str | None, start: int) -> None:
        text = "".join(self.out[start:]).strip()
        if href and not href.startswith(("#", "javascript:", "mailto:")) and href not in text:
            if _shortened(text, href):  # Hacker News' "https://x/long_na..." for the URL
                del self.out[start:]
                self.out.append(href)
            else:
                self.out.append(f" ({href})" if text else href)

    def quote_end(self, start: int | None) -> None:
        """Prefix every line the quote holds with ``> `` (None: a quote past the depth bound)."""
        if start is not None:
            self.prefixed -= 1
            inner = tidy("".join(self.out[start:]))
            del self.out[start:]
            self.out.append("\n".join(f"> {x}" if x else ">" for x in inner.split("\n")))
        self._newline(2)

    def handle_data(self, data: str) -> None:
        if self.tex is not None:
            self.tex.append(data)
            return
        if self.hidden or self.skip:
            return
        if self.pre:
            self.out.append(data)
        else:
            self.out.append(_SPACES.sub(" ", data.replace("\n", " ")))
