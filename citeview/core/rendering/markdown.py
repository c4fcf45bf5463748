"""The Markdown renderer for answers, and its citation-anchor plugin.

Citation markers are replaced by placeholders ``[\\uFDD0<n>]`` (U+FDD0 is a Unicode noncharacter,
reserved for exactly this kind of internal use) before markdown-it sees the text. The plugin's
inline rule, tried after markdown-it's own link rule, turns each placeholder that Markdown leaves as
plain text into a token, and one render rule writes its HTML.

The same parse, read as a probe (:func:`read_places`), tells the parsers what became of each
marker: shown as text (a citation), or part of code, of a link or of a link reference definition,
or escaped. So "is this a citation" and "where is its footnote" are answered by one parser, never
by two that could disagree.
"""

from __future__ import annotations

import re
import secrets
from bisect import bisect_right
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block.reference import reference
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from citeview.core.links import is_safe_http_url
from citeview.core.rendering.sanitize import sanitize_html

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


@dataclass(frozen=True, eq=False)  # made once per source and label, so compared (and hashed) by identity
class AnchorLink:
    """One source a footnote links to."""

    href: str
    label: str
    name: str  # the accessible name: "source 3"


@dataclass(slots=True)  # not frozen: an answer makes thousands, and frozen fields cost a call each
class Anchor:
    """One place in the answer that cites sources (``links``) or cites nothing (``explanation``)."""

    id: str
    marker: str
    links: list[AnchorLink] = field(default_factory=list)
    cards: str = ""  # the ids of the cards its links are described by, shown on hover and focus
    explanation: str = ""
    unresolved_label: str = "no source"  # the visible word beside a marker that cites nothing
    conflict: bool = False
    kind: str = "cite"  # "cite" | "open" | "close": a cited span's highlight begins or ends here
    pair: int = -1  # which opening and closing mark belong together


@dataclass(frozen=True)
class Card:
    """What a reviewer needs to judge a footnote without leaving the sentence: a source's card,
    written once however often the source is cited, or a citation's own evidence (its quote)."""

    id: str
    title: str = ""
    domain: str = ""
    text: str = ""  # the source's snippet, or the passage a citation quotes
    url: str = ""
    note: str = ""  # a conflict, the provider's confidence


@lru_cache(maxsize=1)
def answer_renderer() -> MarkdownIt:
    """CommonMark + tables + strikethrough, raw HTML off, images off, only http(s) links."""
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
    md.core.ruler.push("citeview_balance_spans", _balance_span_marks)
    md.add_render_rule("citeview_anchor", _render_anchor)
    md.add_render_rule("link_open", _render_link_open)
    return md


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
    tokens = answer_renderer().parse(with_placeholders(text, places), env)
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
    readable: str = answer_renderer().normalizeLinkText(href)
    return readable


def render_markdown(text: str, places: list[Place], anchors: list[Anchor]) -> str:
    """``text`` as sanitised HTML, each place drawn as its anchor.

    What markdown-it makes of the text is sanitised; the anchors' markup is put in afterwards, in
    place of a mark that the sanitiser keeps as text. That markup is citeview's own, every value in
    it escaped as it is built (``_footnote_markup``; the hostile suite holds it to that), and a dense
    answer is mostly anchors: sanitising them too tripled what a page takes to draw.

    The mark is made afresh for each answer, so no dump can write it, and of letters and digits:
    the sanitiser's HTML parser reads those fastest (it stops at each noncharacter to report it).
    """
    mark = f"cv{secrets.token_hex(8)}"
    env: dict[str, Any] = {
        "citeview_mark": mark,
        "citeview_anchors": anchors,
        "citeview_own": [],
        "citeview_spans": any(anchor.kind != "cite" for anchor in anchors),
        "citeview_markup": {},
    }
    html = sanitize_html(answer_renderer().render(with_placeholders(text, places), env))
    own: list[str] = env["citeview_own"]
    return re.sub(f"{mark}([0-9]{{7}})", lambda match: own[int(match.group(1))], html)


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
        anchors: list[Anchor] = env["citeview_anchors"]
        if index >= len(anchors):
            return False
        if anchors[index].kind == "cite":
            # A footnote's markup depends on nothing Markdown decides later: its mark goes straight
            # into the text, with no token to make and render (a dense answer has thousands).
            markup = _footnote_markup(anchors[index], state.linkLevel > 0, env["citeview_markup"])
            state.pending += _own_mark(env, markup)
            state.pos = close + 1
            return True
    token = state.push("citeview_anchor", "", 0)
    token.meta = {"index": index, "in_link": state.linkLevel > 0}
    state.pos = close + 1
    return True


def _balance_span_marks(state: Any) -> None:
    """Keep a span's highlight only where it opens and closes at one level of the same paragraph;
    a span crossing emphasis or a block boundary keeps its footnote and loses the highlight."""
    if "citeview_probe" in state.env or not state.env.get("citeview_spans"):
        return  # a probe draws nothing; an answer with markers alone has no highlight to balance
    anchors: list[Anchor] = state.env.get("citeview_anchors") or []
    for block in state.tokens:
        children = block.children or []
        opened: dict[int, int] = {}
        depth = 0
        for position, token in enumerate(children):
            depth += token.nesting
            if token.type != "citeview_anchor":
                continue
            anchor = anchors[token.meta["index"]]
            token.meta["depth"] = depth
            if anchor.kind == "open":
                opened[anchor.pair] = position
            elif anchor.kind == "close":
                start = opened.pop(anchor.pair, None)
                if start is None or children[start].meta["depth"] != depth or _dips(children, start, position):
                    token.meta["drop"] = True
                    if start is not None:
                        children[start].meta["drop"] = True
        for position in opened.values():
            children[position].meta["drop"] = True


def _dips(children: list[Any], start: int, end: int) -> bool:
    """Whether the tokens between two marks close something opened before the first."""
    depth = 0
    for token in children[start + 1 : end]:
        depth += token.nesting
        if depth < 0:
            return True
    return depth != 0


def _render_anchor(self: Any, tokens: list[Any], idx: int, options: Any, env: dict[str, Any]) -> str:
    """A cited span's highlight, where it opens or closes (footnotes are marked as they are parsed)."""
    meta = tokens[idx].meta
    anchor = env["citeview_anchors"][meta["index"]]
    if meta.get("drop") or meta["in_link"]:
        return ""
    return _own_mark(env, '<span class="cv-supported">' if anchor.kind == "open" else "</span>")


def _own_mark(env: MutableMapping[str, Any], markup: str) -> str:
    """The mark :func:`render_markdown` replaces with ``markup`` once the rest is sanitised."""
    own: list[str] = env["citeview_own"]
    own.append(markup)
    return f"{env['citeview_mark']}{len(own) - 1:07d}"  # seven digits: the text after a mark may be digits


def _footnote_markup(anchor: Anchor, in_link: bool, made: dict[Any, tuple[str, str]]) -> str:
    """A footnote's HTML: its links, or the explanation of a marker that cites nothing. Footnotes
    that differ only in their id share the rest of their markup (``made``)."""
    if in_link:  # a span's footnote that falls inside link text: no link within a link
        return f'<sup class="cv-cite">{escape(anchor.marker or "*")}</sup>'
    if not anchor.links:
        tip_id = f"{anchor.id}-tip"
        return (
            f'<span class="cv-unresolved" id="{anchor.id}" tabindex="0" aria-describedby="{tip_id}">'
            f'<span class="cv-unresolved-icon" aria-hidden="true">⚠</span>{escape(anchor.marker)}'
            f'<span class="cv-unresolved-label">{escape(anchor.unresolved_label)}</span>'
            f'<span class="cv-tip" role="tooltip" id="{tip_id}">{escape(anchor.explanation)}</span></span>'
        )
    key = (tuple(anchor.links), anchor.cards, anchor.conflict)
    pieces = made.get(key)
    if pieces is None:
        pieces = made[key] = _footnote_pieces(anchor)
    return f"{pieces[0]}{anchor.id}{pieces[1]}"


def _footnote_pieces(anchor: Anchor) -> tuple[str, str]:
    """A footnote's markup before and after its id."""
    links = []
    for position, link in enumerate(anchor.links):
        classes = "cv-cite-link" if position == 0 else "cv-cite-link cv-cite-extra"
        links.append(
            f' class="{classes}" href="{escape(link.href)}" aria-label="{escape(link.name)}" '
            f'aria-describedby="{anchor.cards}">{escape(link.label)}</a>'
        )
    classes = "cv-cite cv-cite-conflict" if anchor.conflict else "cv-cite"
    return f'<sup class="{classes}"><a id="', f'"{"<a".join(links)}</sup>'


def cards_markup(cards: list[Card]) -> str:
    """The cards the footnotes refer to, each once, out of sight: a script shows a footnote's cards
    beside it on hover and focus, and a screen reader reads them as the footnote's description."""
    if not cards:
        return ""
    return f'<div class="cv-cards" hidden>{"".join(_card_markup(card) for card in cards)}</div>'


def _card_markup(card: Card) -> str:
    parts = []
    if card.title:
        parts.append(f'<span class="cv-pop-title">{escape(card.title)}</span>')
    if card.domain:
        parts.append(f'<span class="cv-pop-domain">{escape(card.domain)}</span>')
    if card.text:
        parts.append(f'<span class="cv-pop-text">{escape(card.text)}</span>')
    if card.url:
        parts.append(f'<span class="cv-pop-url">{escape(card.url)}</span>')
    if card.note:
        parts.append(f'<span class="cv-pop-note">{escape(card.note)}</span>')
    return f'<span class="cv-pop-entry" id="{card.id}" role="tooltip">{"".join(parts)}</span>'


def _render_link_open(self: Any, tokens: list[Any], idx: int, options: Any, env: dict[str, Any]) -> str:
    token = tokens[idx]
    token.attrSet("target", "_blank")
    token.attrSet("rel", "noopener noreferrer nofollow")
    token.attrSet("title", token.attrGet("href") or "")  # reviewers see where a link goes before following it
    rendered: str = self.renderToken(tokens, idx, options, env)
    return rendered
