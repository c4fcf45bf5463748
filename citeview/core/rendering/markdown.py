"""The Markdown renderer for answers: citation anchors drawn as footnotes, the rest sanitised.

The answer is read by the parser every stage shares (``citeview.core.common.answer_markdown``); this module
adds how each anchor is drawn, and sanitises what markdown-it makes of the text.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt

from citeview.core.common.answer_markdown import Place, answer_parser, with_placeholders
from citeview.core.rendering.sanitize import sanitize_html


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
    """The answers' parser (:func:`answer_parser`, the one the parsers' probe reads with), drawing
    cited spans' highlights and links that open apart."""
    md = answer_parser()
    md.core.ruler.push("citeview_balance_spans", _balance_span_marks)
    md.add_render_rule("citeview_anchor", _render_anchor)
    md.add_render_rule("link_open", _render_link_open)
    return md


def render_markdown(text: str, places: list[Place], anchors: list[Anchor]) -> str:
    """``text`` as sanitised HTML, each place drawn as its anchor.

    What markdown-it makes of the text is sanitised; the anchors' markup is put in afterwards, in
    place of a mark that the sanitiser keeps as text. That markup is citeview's own, every value in
    it escaped as it is built (``_footnote_markup``; the hostile suite holds it to that), and a dense
    answer is mostly anchors: sanitising them too tripled what a page takes to draw.

    The mark is made afresh for each answer, so no dump can write it, and of letters and digits:
    the sanitiser's HTML parser reads those fastest (it stops at each noncharacter to report it).
    """
    marks = _Marks(f"cv{secrets.token_hex(8)}")
    markup_made: dict[Any, tuple[str, str]] = {}

    # (It holds no reference to ``env``: a cycle would keep every anchor and markup of a large answer
    # alive until the cycle collector ran, which is off while a dump is parsed.)
    def footnote_mark(index: int, in_link: bool) -> str | None:
        """The mark of a footnote's markup; None for a span's opening or closing, drawn from its token."""
        anchor = anchors[index]
        if anchor.kind != "cite":
            return None
        return marks.of(_footnote_markup(anchor, in_link, markup_made))

    env: dict[str, Any] = {
        "citeview_marks": marks,
        "citeview_anchors": anchors,
        "citeview_spans": any(anchor.kind != "cite" for anchor in anchors),
        "citeview_anchor_count": len(anchors),
        "citeview_footnote_mark": footnote_mark,
    }
    html = sanitize_html(answer_renderer().render(with_placeholders(text, places), env))
    return re.sub(f"{marks.mark}([0-9]{{7}})", lambda match: marks.markup[int(match.group(1))], html)


class _Marks:
    """The marks an answer's own markup stands in place of until the rest is sanitised."""

    def __init__(self, mark: str) -> None:
        self.mark = mark
        self.markup: list[str] = []

    def of(self, markup: str) -> str:
        """The mark :func:`render_markdown` replaces with ``markup`` once the rest is sanitised."""
        self.markup.append(markup)
        return f"{self.mark}{len(self.markup) - 1:07d}"  # seven digits: the text after a mark may be digits


def _balance_span_marks(state: Any) -> None:
    """Keep a span's highlight only where it opens and closes at one level of the same paragraph;
    a span crossing emphasis or a block boundary keeps its footnote and loses the highlight."""
    if not state.env.get("citeview_spans"):
        return  # an answer with markers alone has no highlight to balance
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
    marks: _Marks = env["citeview_marks"]
    return marks.of('<span class="cv-supported">' if anchor.kind == "open" else "</span>")


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
