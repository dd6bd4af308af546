"""HTML to readable plain text with the standard library's parser (no regex stripping).

Used for HTML-only mail, Discourse ``cooked``, Hacker News and Stack Exchange bodies and
Teams messages. Block elements become line breaks, list items get bullets, links keep
their target when it differs from the text (``text (url)``), images show their alt text,
``<pre>`` keeps its whitespace, and script/style/head content is dropped.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK = {
    "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "main", "nav", "ol", "p", "pre", "section", "table", "tr", "ul", "title",
}  # fmt: skip
_SKIP = {"script", "style", "head", "template", "noscript", "svg", "math"}
_VOID_BREAK = {"br"}
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANKS = re.compile(r"\n{3,}")


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.links: list[tuple[str | None, int]] = []
        self.lists: list[list[int]] = []  # per open list: [ordered, counter]

    def _newline(self, n: int = 1) -> None:
        self.out.append("\n" * n)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
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
            self.out.append("> ")
        elif tag in _BLOCK:
            self._block_start(tag)
        elif tag in ("td", "th"):
            self.out.append(" | ")
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

    def _block_start(self, tag: str) -> None:
        self._newline(2 if tag in ("p", "div", "pre", "table", "h1", "h2", "h3") else 1)
        if tag == "pre":
            self.pre += 1
        if tag == "hr":
            self.out.append("---")
            self._newline()

    def _image(self, a: dict[str, str | None]) -> None:
        alt = (a.get("alt") or "").strip()
        src = a.get("src") or ""
        if alt:
            self.out.append(f"[{alt}]")
        elif src and not src.startswith("data:"):
            self.out.append(f"[image {src}]")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip:
            return
        if tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self._newline()
        elif tag == "a" and self.links:
            href, start = self.links.pop()
            text = "".join(self.out[start:]).strip()
            if href and not href.startswith(("#", "javascript:", "mailto:")) and href not in text:
                self.out.append(f" ({href})" if text else href)
        elif tag in _BLOCK:
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            self._newline(
                2 if tag in ("p", "div", "pre", "table", "h1", "h2", "h3", "blockquote") else 1
            )

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            self.out.append(data)
        else:
            self.out.append(_SPACES.sub(" ", data.replace("\n", " ")))


def html_to_text(html: str) -> str:
    """Readable text from an HTML document or fragment (never raises on bad markup)."""
    if not html:
        return ""
    conv = _Converter()
    try:
        conv.feed(html)
        conv.close()
    except (AssertionError, ValueError):  # pragma: no cover - html.parser is very lenient
        pass
    text = "".join(conv.out)
    lines = [line.rstrip() if line.strip() else "" for line in text.split("\n")]
    text = "\n".join(
        line.lstrip(" ") if not line.startswith(("  ", "- ")) else line for line in lines
    )
    return _BLANKS.sub("\n\n", text).strip()
