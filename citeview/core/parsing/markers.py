"""Finding ``[N]`` and ``[web:N]`` citation markers in answer text.

A scan finds every candidate; the answer renderer's own Markdown parse decides what each one is
(:func:`~citeview.core.common.answer_markdown.read_places`). A candidate Markdown shows as plain text
is a citation marker; any other is returned with what Markdown made of it (code, a link, a link
reference definition, an escape), so that no candidate is ever dropped without a word.

Brackets that look like markers in a notation citeview does not read (``[static_doc_1]``, ``[1, 2]``,
``【1】``) are found too, where Markdown shows them as text, so that an answer citing in a way no
source list can answer does not pass for one that cites nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS, Place, read_places

MARKER = re.compile(r"\[(web:)?([0-9]{1,6})\]")
# Azure OpenAI On Your Data's notation: [doc1], [doc2], … (numbered from 1 in its citations' order).
DOC_MARKER = re.compile(r"\[(doc)([0-9]{1,6})\]")
# Reasoning models have put their thinking before the answer; its brackets cite nothing the reader sees.
LEADING_THINKING = re.compile(r"\A\s*<think>.*?(?:</think>|\Z)", re.S)
_PLACEHOLDER_IN_URL = re.compile("\\[\ufdd0([0-9]+)\\]")
# Marker-like tokens of notations no API read here uses: a name with a number ([static_doc_1],
# [doc2], [ref:3], [source-4]; never [web:N], which is a marker, nor a name such as [COVID-19]),
# numbers listed or ranged ([1, 2], [1-3]: up to three digits each, so that a year range is not
# one), a footnote caret ([^1]), full-width digits ([１]) and full-width brackets (【1】,
# 【4:0†source】, ［2］).
UNKNOWN_NOTATION = re.compile(
    r"\[(?:(?!web:[0-9]{1,6}\]|[A-Z]+-[0-9]+\])[A-Za-z][A-Za-z0-9_.:#-]{0,40}?[0-9]{1,6}"
    r"|[0-9]{1,3}(?:[ ]?[,、–-][ ]?[0-9]{1,3})+"
    r"|\^[0-9]{1,6}"
    r"|[０-９]{1,6})\]"
    r"|【[0-9０-９]{1,6}(?:[:：][0-9]{1,6})?(?:†[^】\n]{0,80})?】"
    r"|［[0-9０-９]{1,6}］"
)
# What every marker and token of the patterns above opens with: a text holding none has none of them.
_OPENING_BRACKETS = ("[", "【", "［")
# The tokens of :data:`UNKNOWN_NOTATION` that name sources by number alone, as ``[N]`` does: one number
# ([^2], [２], 【2】, ［2］) or several, listed or ranged ([1, 3], [1-3]). (int() reads full-width digits.)
_ONE_NUMBER = re.compile(r"\[\^?([0-9０-９]{1,6})\]|【([0-9０-９]{1,6})】|［([0-9０-９]{1,6})］")
_LISTED_NUMBERS = re.compile(r"\[([0-9]{1,3}(?:[ ]?[,、–-][ ]?[0-9]{1,3})+)\]")
_LIST_SEPARATOR = re.compile(r"[ ]?[,、][ ]?")
_RANGE = re.compile(r"([0-9]{1,3})[ ]?[–-][ ]?([0-9]{1,3})")
# The most numbers one token may name ([1-20], [1, 3, 5]) before it is read as a notation of its own:
# each number named is a citation, so a token's cost stays in proportion to its length.
MOST_NUMBERS_NAMED = 50


# Whether the span start..end lies in text a reader already cited or flagged.
Held = Callable[[int, int], bool]


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
    part: str  # what Markdown made of it (see :class:`~citeview.core.common.answer_markdown.Hidden`)
    url: str = ""  # the address of the link it belongs to, as written


@dataclass(frozen=True)
class UnknownNotation:
    """A marker-like token of a notation citeview does not read, shown in the answer as written."""

    start: int
    end: int
    text: str


@dataclass
class MarkersRead:
    """Every candidate after the leading reasoning section, each either a marker or not, in text
    order; and the marker-like tokens of other notations that the answer shows as text."""

    markers: list[MarkerMatch] = field(default_factory=list)
    not_markers: list[NotAMarker] = field(default_factory=list)
    unknown: list[UnknownNotation] = field(default_factory=list)


def read_markers(text: str, notation: re.Pattern[str] = MARKER, held: Held | None = None) -> MarkersRead:
    """The markers of ``notation`` (a pattern whose second group is the number, as :data:`MARKER`'s).
    Candidates inside ``held`` spans (text a reader already cited or flagged) are left out unasked."""
    skip_to = thinking_end(text)
    candidates = [
        MarkerMatch(m.start(), m.end(), m.group(0), m.group(2), m.group(1) == "web:")
        for m in notation.finditer(text, skip_to)
        if held is None or not held(m.start(), m.end())
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
    read.unknown = [t for t in unknown_notations(text, skip_to, held) if not notation.fullmatch(t.text)]
    return read


def unknown_notations(text: str, skip_to: int = 0, held: Held | None = None) -> list[UnknownNotation]:
    """The marker-like tokens of other notations from ``skip_to`` on that Markdown shows as text
    (not those in code or links, as for markers), and every one past the rendered part. Most
    answers have none, and then the answer is not parsed again."""
    found = [
        UnknownNotation(m.start(), m.end(), m.group(0))
        for m in UNKNOWN_NOTATION.finditer(text, skip_to)
        if held is None or not held(m.start(), m.end())
    ]
    checked = [token for token in found if token.end <= MAX_MARKDOWN_CHARS]
    # A parse of their own: asking about them in the markers' parse could change what a marker is.
    places = read_places(text[:MAX_MARKDOWN_CHARS], [Place(t.start, t.end, replace=True) for t in checked])
    return [token for index, token in enumerate(checked) if index in places.shown] + found[len(checked) :]


def may_hold_markers(text: str) -> bool:
    """Whether ``text`` may hold a marker of any notation here: a search for its brackets, many times
    faster than the patterns' scan, so that an answer without one costs next to nothing."""
    return any(bracket in text for bracket in _OPENING_BRACKETS)


def numbers_named(token: str) -> list[int] | None:
    """The numbers a marker-like token names, in order, where it names sources by number alone:
    ``[^2]``, ``【2】`` → [2]; ``[1, 3]`` → [1, 3]; ``[2-4]`` → [2, 3, 4]. None for a token that names
    something else (``[static_doc_1]``, ``【4:0†source】``) or a range that runs backwards."""
    one = _ONE_NUMBER.fullmatch(token)
    if one is not None:
        return [int(next(group for group in one.groups() if group))]
    listed = _LISTED_NUMBERS.fullmatch(token)
    if listed is None:
        return None
    numbers: list[int] = []
    for part in _LIST_SEPARATOR.split(listed.group(1)):
        if part.isdecimal():
            numbers.append(int(part))
        elif (bounds := _RANGE.fullmatch(part)) is None or int(bounds.group(2)) < int(bounds.group(1)):
            return None  # (a run such as 1-2-3)
        else:
            numbers += range(int(bounds.group(1)), int(bounds.group(2)) + 1)
        if len(numbers) > MOST_NUMBERS_NAMED:
            return None  # no answer cites so many at once: [1-999,1-999,…] would cost memory, not help
    return numbers


def thinking_end(text: str) -> int:
    """Where a leading ``<think>…</think>`` section ends (0 when the answer has none)."""
    match = LEADING_THINKING.match(text)
    return match.end() if match else 0
