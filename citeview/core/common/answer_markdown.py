"""The one Markdown reading of an answer, shared by the parsers and the renderer.

Citation markers are replaced by placeholders ``[\\uFDD0<n>]`` (U+FDD0 is a Unicode noncharacter,
reserved for exactly this kind of internal use) before markdown-it sees the text. An inline rule,
tried after markdown-it's own link rule, turns each placeholder that Markdown leaves as plain text
into an anchor.

Read as a probe (:func:`read_places`), the parse tells the parsers what became of each marker: shown
as text (a citation), or part of code, of a link or of a link reference definition, or escaped. The
renderer (``citeview.core.rendering.markdown``) draws with a parser made by the same
:func:`answer_parser`, so "is this a citation" and "where is its footnote" are answered by one
reading, never by two that could disagree.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block.reference import reference
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from citeview.core.common.links import is_safe_http_url

PLACEHOLDER_MARK = "\ufdd0"
_PLACEHOLDER_START = f"[{PLACEHOLDER_MARK}"
# A placeholder's number, wherever Markdown put it: a placeholder that became a link's label (``[1](…)``)
# lost its brackets to the link. U+FDD0 comes only from placeholders (a dump's own is replaced).
_PLACEHOLDER_NUMBER = re.compile(f"{PLACEHOLDER_MARK}([0-9]+)")
# A reference label that a marker would look up (labels are compared upper-cased): ``[1]: https://…``
# would make every ``[1]`` of the answer a link to an address the source list does not know.
_MARKER_LABEL = re.compile(f"(?:WEB:)?[0-9]{{1,6}}|{PLACEHOLDER_MARK}[0-9]+", re.IGNORECASE)
# markdown-it's worst case grows with the text (bench/README.md, "Costs behind the limits"): render
# (and probe) at most this much.
MAX_MARKDOWN_CHARS = 100_000


def answer_parser() -> MarkdownIt:
    """A new markdown-it for answers: CommonMark + tables + strikethrough, raw HTML off, images off,
    only http(s) links, and the placeholders read as anchors. The renderer adds how to draw them."""
    md = MarkdownIt("js-default")
    md.disable("image")
    md.validateLink = is_safe_http_url  # type: ignore[method-assign]
    md.block.ruler.at("reference", _reference_unless_marker_label)
    # After the link rule: where Markdown makes a link of ``[1](…)`` or ``[1][x]``, the link stands.
    md.inline.ruler.after("link", "citeview_anchor", _parse_anchor)
    # A placeholder followed by neither ``(`` nor ``[`` is never a link (no reference definition may
    # have a marker's label), so it is read before the link rule: that rule's label scan cost a
    # dense answer 5 to 7% of its rendering (bench/README.md, "Rendering a dense answer").
    md.inline.ruler.before("link", "citeview_anchor_alone", _parse_anchor_alone)
    return md


@lru_cache(maxsize=1)
def _probe() -> MarkdownIt:
    return answer_parser()


@dataclass(slots=True)  # not frozen: an answer makes thousands, and frozen fields cost a call each
class Place:
    """Where an anchor goes: replacing ``start``..``end`` (a marker), or inserted at ``end``.
    At one position, closing marks come first (priority 0), then footnotes (1), then opening marks (2)."""

    start: int
    end: int
    replace: bool = False
    priority: int = 1


def with_placeholders(text: str, places: list[Place]) -> str:
    """``text`` with the ``i``-th place marked by placeholder ``i``; a replacement overlapping an
    earlier one is skipped."""
    text = text.replace(PLACEHOLDER_MARK, "\ufffd")  # a dump cannot forge a placeholder
    pieces = []
    position = 0
    for at, _priority, index in sorted((p.start if p.replace else p.end, p.priority, i) for i, p in enumerate(places)):
        place = places[index]
        if place.end > len(text) or at < position:
            continue
        pieces.append(text[position:at])
        pieces.append(f"[{PLACEHOLDER_MARK}{index}]")
        position = place.end if place.replace else at
    pieces.append(text[position:])
    return "".join(pieces)


@dataclass(frozen=True)
class Hidden:
    """What Markdown made of a place it does not show as plain text."""

    # "code" | "link_text" | "link_address" | "reference_definition" | "escaped" | "table_cell" | "too_deep"
    part: str
    url: str = ""  # the link's address, as a reader writes it (for the parts of a link)


@dataclass
class PlacesRead:
    """What one parse made of each place: shown as plain text, or hidden in something else."""

    shown: set[int] = field(default_factory=set)
    hidden: dict[int, Hidden] = field(default_factory=dict)


def read_places(text: str, places: list[Place]) -> PlacesRead:
    """What Markdown makes of each place of ``text``: every index is either shown or hidden, and how."""
    if not places:
        return PlacesRead()  # nothing to ask about: the probe would parse the whole answer for no answer
    shown: set[int] = set()
    env: dict[str, Any] = {"citeview_probe": shown}
    tokens = _probe().parse(with_placeholders(text, places), env)
    read = PlacesRead(shown)
    for token in tokens:
        if token.type in ("fence", "code_block"):
            _hide_placeholders(read, f"{token.info} {token.content}", Hidden("code"))  # info: after the ```
        _read_inline(read, token.children or [])
    for label, definition in env.get("citeview_definitions", []):
        url = _readable_url(definition["href"])
        hidden = Hidden("reference_definition", url)
        _hide_placeholders(read, f"{label} {url} {definition['title']}", hidden)
    for index in read.shown:
        read.hidden.pop(index, None)  # a dump may spell a placeholder percent-encoded in an address
    left_out = [index for index in range(len(places)) if index not in read.shown and index not in read.hidden]
    if left_out:
        _name_what_was_left_out(read, text, places, tokens, left_out)
    return read


def _name_what_was_left_out(
    read: PlacesRead, text: str, places: list[Place], tokens: list[Token], left_out: list[int]
) -> None:
    """Markdown leaves some text out without a token to show for it: the cells of a table row past
    its header's columns, and whatever is nested past its limit (100 levels of quotes and lists)."""
    tables = [token.map for token in tokens if token.type == "table_open" and token.map]
    line_starts = [0] + [match.end() for match in re.finditer("\n", text)]
    for index in left_out:
        line = bisect_right(line_starts, places[index].start) - 1
        in_table = any(first <= line < last for first, last in tables)
        read.hidden[index] = Hidden("table_cell" if in_table else "too_deep")


def placeholders_shown(text: str, places: list[Place]) -> set[int]:
    """Indexes of the places Markdown would show as plain text: not code, not inside a link or autolink."""
    return read_places(text, places).shown


def _read_inline(read: PlacesRead, children: list[Token]) -> None:
    links: list[str] = []  # the addresses of the links the walk is inside
    for child in children:
        if child.type == "citeview_anchor":
            if links:
                read.hidden.setdefault(child.meta["index"], Hidden("link_text", links[-1]))
            else:
                read.shown.add(child.meta["index"])
        elif child.type == "link_open":
            url = _readable_url(str(child.attrGet("href") or ""))
            links.append(url)
            _hide_placeholders(read, f"{url} {child.attrGet('title') or ''}", Hidden("link_address", url))
        elif child.type == "link_close":
            links.pop()
        elif child.type == "code_inline":
            _hide_placeholders(read, child.content, Hidden("code"))
        elif child.type == "text" and links:
            _hide_placeholders(read, child.content, Hidden("link_text", links[-1]))  # ``[1](…)``: the link's label
        elif child.type == "text":
            # A placeholder the inline rule never saw as one: its bracket was escaped (``\\[1]``).
            _hide_placeholders(read, child.content, Hidden("escaped"))


def _hide_placeholders(read: PlacesRead, content: str, hidden: Hidden) -> None:
    if PLACEHOLDER_MARK not in content:
        return
    for match in _PLACEHOLDER_NUMBER.finditer(content):
        read.hidden.setdefault(int(match.group(1)), hidden)


def _readable_url(href: str) -> str:
    """A link's address as markdown-it shows link text: percent-escapes decoded."""
    readable: str = _probe().normalizeLinkText(href)
    return readable


def _reference_unless_marker_label(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's link reference definition, refused when its label is a marker: ``[1]: https://…``
    stays a line of text (its ``[1]`` a citation like any other), and no ``[1]`` becomes a link to it."""
    env = state.env
    earlier = env.pop("references", None)
    line = state.line
    found = reference(state, start_line, end_line, silent)
    made: dict[str, Any] = env.pop("references", {})
    if earlier is not None:
        env["references"] = earlier
    if not found or silent:
        return found
    label, definition = next(iter(made.items()))
    if _MARKER_LABEL.fullmatch(label):
        state.line = line
        return False
    env.setdefault("references", {}).setdefault(label, definition)  # the first definition of a label wins
    env.setdefault("citeview_definitions", []).append((label, definition))  # every one, for the probe
    return True


def _parse_anchor_alone(state: StateInline, silent: bool) -> bool:
    """:func:`_parse_anchor`, for a placeholder that no link can start. One followed by ``(``, or by
    a ``[`` that opens no placeholder (``[1][x]`` may name a reference), is left to the link rule, and
    to ``_parse_anchor`` after it if no link is made; ``[1][2]`` is two markers, as no reference has a
    placeholder's label."""
    src, pos = state.src, state.pos
    if silent or not src.startswith(_PLACEHOLDER_START, pos):
        return False
    after = src.find("]", pos + 2) + 1
    if after == 0 or src.startswith("(", after):
        return False
    if src.startswith("[", after) and not src.startswith(_PLACEHOLDER_START, after):
        return False
    return _parse_anchor(state, silent)


def _parse_anchor(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    # Silent calls come from link-label scanning: there a placeholder is plain text, so a link whose
    # label holds one still parses as the link it is.
    if silent or not src.startswith(_PLACEHOLDER_START, pos):
        return False
    close = src.find("]", pos + 2)
    digits = src[pos + 2 : close] if close > 0 else ""
    if not digits.isdigit():
        return False
    index = int(digits)
    env = state.env
    probe: set[int] | None = env.get("citeview_probe")
    if probe is not None and state.linkLevel == 0:
        probe.add(index)  # shown as text: a citation (a token is made only where the link must be named)
        state.pos = close + 1
        return True
    if probe is None:
        if index >= env["citeview_anchor_count"]:
            return False
        # A footnote's markup depends on nothing Markdown decides later: the renderer's mark for it
        # goes straight into the text, with no token to make and render (a dense answer has thousands).
        mark: str | None = env["citeview_footnote_mark"](index, state.linkLevel > 0)
        if mark is not None:
            state.pending += mark
            state.pos = close + 1
            return True
    token = state.push("citeview_anchor", "", 0)
    token.meta = {"index": index, "in_link": state.linkLevel > 0}
    state.pos = close + 1
    return True
