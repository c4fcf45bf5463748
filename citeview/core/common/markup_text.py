"""The text of HTML markup, read by one scan without a tree: blocks and list items as lines, a table
row as one line with its cells between bars, scripts, styles and comments left out. The snapshot
reader (``extract``) falls back on it; a provider whose retrieved passages are HTML (Azure On Your
Data) shows their text with it, without loading the snapshot reader's parsers."""

from __future__ import annotations

import html
import re

BLOCKS = {
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "div", "dl", "dt", "figcaption",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
    "ol", "p", "pre", "section", "table", "ul", "body", "html",
}  # fmt: skip
# A table row is one line, its cells between bars, and a list item a line that starts with a dash, as
# trafilatura writes them: each is a passage of its own (``passages``), never cut at a stop inside it.
CELLS = {"td", "th"}
ROW, ITEM = "tr", "li"
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)?[^<>]*>")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")


def opening_text(tag: str, cells: int = 0) -> str:
    if tag in CELLS:
        return " | "
    if tag == ROW:
        return "\n"
    if tag in BLOCKS or tag == ITEM:
        return " " if cells else ("\n- " if tag == ITEM else "\n")
    return ""


def closing_text(tag: str, cells: int = 0) -> str:
    if tag == ROW:
        return " |\n"
    if tag in BLOCKS or tag == ITEM:
        return " " if cells else "\n"
    return ""


def markup_stripped(document: str) -> str:
    """The text between the tags, found by scanning once: no tree, so no depth limit."""
    pieces, position, cells = [], 0, 0
    lowered = document.translate(_ASCII_LOWER)  # str.lower() can change the length ("İ")
    while position < len(document):
        start = document.find("<", position)
        if start < 0:
            pieces.append(document[position:])
            break
        pieces.append(document[position:start])
        for opening, closing in (("<script", "</script"), ("<style", "</style"), ("<!--", "-->")):
            if lowered.startswith(opening, start):
                end = lowered.find(closing, start)
                position = len(document) if end < 0 else lowered.find(">", end) + 1 or len(document)
                break
        else:
            tag = _TAG.match(document, start)
            if tag is None:  # a lone "<" is text
                pieces.append("<")
                position = start + 1
            else:
                name = (tag.group(2) or "").lower()
                if tag.group(1):
                    cells = max(cells - (name in CELLS), 0)  # a stray closing tag closes nothing
                    pieces.append(closing_text(name, cells))
                else:
                    pieces.append(opening_text(name, cells))
                    cells += name in CELLS
                position = tag.end()
    return tidied(html.unescape("".join(pieces)))


def tidied(text: str) -> str:
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n", "\n".join(lines)).strip()
