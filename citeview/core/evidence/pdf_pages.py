"""A PDF's pages within its extracted text: kept apart from the extraction so that finding a passage
imports no PDF or HTML library."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    """A PDF page: its number as a reader counts it (from 1) and where its text stands in the whole."""

    number: int
    start: int
    end: int


def page_at(pages: Sequence[Page], offset: int) -> int | None:
    """The number of the page the character at ``offset`` of the text is on (None outside a PDF);
    the separator after a page belongs to it."""
    index = bisect_right([page.start for page in pages], offset) - 1
    return pages[index].number if index >= 0 else None
