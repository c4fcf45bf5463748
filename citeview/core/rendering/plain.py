"""Markdown as the words a reader sees, for where a statement is shown as text: the check panel, the
item list, the report, the exports. ``**発表基準**：…`` reads ``発表基準：…``."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token


@lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    # As the answer is rendered: raw HTML stays text, and an image is its "!" and a link to it.
    md = MarkdownIt("js-default")
    md.disable("image")
    return md


def plain_text(markdown: str) -> str:
    """The text of one statement's inline Markdown without its marks: emphasis, strikethrough, code
    ticks, link syntax (the link text stays; its address goes) and backslash escapes. Line breaks
    become spaces: a statement is one line of the report or of a spreadsheet cell."""
    pieces: list[str] = []
    for token in _inline_parser().parseInline(markdown):
        _collect(token.children or [], pieces)
    return " ".join("".join(pieces).split())


def _collect(children: list[Token], pieces: list[str]) -> None:
    for child in children:
        if child.type in ("text", "code_inline", "html_inline"):
            pieces.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            pieces.append(" ")
