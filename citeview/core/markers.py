"""Finding ``[N]`` and ``[web:N]`` citation markers in answer text.

A scan finds every candidate; the answer renderer's own Markdown parse decides what each one is
(:func:`~citeview.core.rendering.markdown.read_places`). A candidate Markdown shows as plain text
is a citation marker; any other is returned with what Markdown made of it (code, a link, a link
reference definition, an escape), so that no candidate is ever dropped without a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citeview.core.rendering.markdown import MAX_MARKDOWN_CHARS, Place, read_places

MARKER = re.compile(r"\[(web:)?([0-9]{1,6})\]")
# Reasoning models have put their thinking before the answer; its brackets cite nothing the reader sees.
LEADING_THINKING = re.compile(r"\A\s*<think>.*?(?:</think>|\Z)", re.S)
_PLACEHOLDER_IN_URL = re.compile("\\[\ufdd0([0-9]+)\\]")


@dataclass(frozen=True)
class MarkerMatch:
    start: int
    end: int
    text: str  # "[2]" or "[web:2]"
    ref: str  # "2"
    is_web: bool


@dataclass(frozen=True)
class NotAMarker:
    """A candidate that Markdown does not show as plain text, and what it is part of instead."""

    match: MarkerMatch
    part: str  # what Markdown made of it (see :class:`~citeview.core.rendering.markdown.Hidden`)
    url: str = ""  # the address of the link it belongs to, as written


@dataclass
class MarkersRead:
    """Every candidate after the leading reasoning section, each either a marker or not, in text order."""

    markers: list[MarkerMatch] = field(default_factory=list)
    not_markers: list[NotAMarker] = field(default_factory=list)


def read_markers(text: str) -> MarkersRead:
    skip_to = thinking_end(text)
    candidates = [
        MarkerMatch(m.start(), m.end(), m.group(0), m.group(2), bool(m.group(1)))
        for m in MARKER.finditer(text, skip_to)
    ]
    checked = [m for m in candidates if m.end <= MAX_MARKDOWN_CHARS]
    places = read_places(text[:MAX_MARKDOWN_CHARS], [Place(m.start, m.end, replace=True) for m in checked])
    read = MarkersRead()
    for index, candidate in enumerate(checked):
        if index in places.shown:
            read.markers.append(candidate)
            continue
        hidden = places.hidden[index]
        url = _PLACEHOLDER_IN_URL.sub(lambda m: checked[int(m.group(1))].text, hidden.url)
        read.not_markers.append(NotAMarker(candidate, hidden.part, url))
    # Past what is rendered there is no Markdown to ask; every candidate there counts.
    read.markers += candidates[len(checked) :]
    return read


def thinking_end(text: str) -> int:
    """Where a leading ``<think>…</think>`` section ends (0 when the answer has none)."""
    match = LEADING_THINKING.match(text)
    return match.end() if match else 0
