"""A response's answer as sanitised HTML, and the view of its source list, from the contract JSON.

Both work on the normalised JSON (not on parser objects), so a stored result can be re-rendered
and the page and the stored HTML agree on every generated id.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape
from typing import Any

from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS, Place, placeholders_shown
from citeview.core.common.bidi_controls import show_bidi_controls
from citeview.core.common.links import is_safe_http_url, url_domain
from citeview.core.common.phrases import Translate, phrase_text, untranslated
from citeview.core.common.shortening import shortened
from citeview.core.rendering.markdown import Anchor, AnchorLink, Card, cards_markup, render_markdown


def response_prefix(index: int) -> str:
    """The prefix of every id generated for the ``index``-th response of a page."""
    return f"cv-r{index}"


def source_anchor(prefix: str, ordinal: int) -> str:
    return f"{prefix}-src-{ordinal}"


def citation_anchor(prefix: str, index: int) -> str:
    return f"{prefix}-cite-{index}"


@dataclass(slots=True)  # not frozen: an answer makes thousands, and frozen fields cost a call each
class Footnote:
    """One mark drawn in the answer: a marker replaced in place, or a footnote after a cited span."""

    anchor: str
    start: int
    end: int
    replaces_span: bool
    marker: str  # the marker as written, "" for span citations
    source_keys: list[str]
    cited_text: str | None = None
    citation: int = 0  # its index in the response's citations
    position: int = 0  # a span's footnote: which of the citation's sources it shows (1-based)


def footnotes(response: dict[str, Any], prefix: str, until: int | None = None) -> list[Footnote]:
    """The marks an answer gets (those ending at or before ``until``, when given). Markers stay where
    they are; a span cited by several citations of one source (a Claude block quoting a page twice)
    gets one footnote per source after its end."""
    marks: list[Footnote] = []
    for index, citation, position, keys in _footnote_sources(response, until):
        anchor = citation_anchor(prefix, index)
        start, end = citation["start"], citation["end"]
        if citation["marker"]:
            marks.append(Footnote(anchor, start, end, True, citation["marker"], keys, citation=index))
            continue
        own = anchor if len(citation["source_keys"]) == 1 else f"{anchor}-{position}"
        marks.append(Footnote(own, start, end, False, "", keys, citation["cited_text"], index, position))
    return marks


def _footnote_sources(
    response: dict[str, Any], until: int | None, drawn: bool = True
) -> Iterator[tuple[int, dict[str, Any], int, list[str]]]:
    """Each footnote as (citation index, citation, 1-based position among its sources, its sources),
    without making it: those ending at or before ``until`` (all, without it), or with ``drawn`` off,
    those after it. A marker is one footnote for all its sources; a span one per source, once per
    place it ends."""
    seen_spans: set[tuple[int, str]] = set()
    for index, citation in enumerate(response["citations"]):
        if until is not None and (citation["end"] <= until) != drawn:
            continue  # a dense answer has hundreds of thousands: those not asked for are not even made
        if citation["marker"]:
            yield index, citation, 0, citation["source_keys"]
            continue
        for position, key in enumerate(citation["source_keys"], 1):
            if (citation["end"], key) not in seen_spans:
                seen_spans.add((citation["end"], key))
                yield index, citation, position, [key]


def drawn_until(response: dict[str, Any], max_drawn: int | None = None) -> int:
    """Where the answer's footnotes stop: the end of its rendered part (MAX_MARKDOWN_CHARS), or sooner,
    where its ``max_drawn``-th citation ends. Each source of a footnote counts as one citation drawn,
    and so does each unresolved marker; marks ending at the same place are drawn together. Past this
    point the answer is shown as written, and nothing links to a footnote there (the source list counts
    those citations instead), so that a dump of nothing but markers costs in proportion to a cap, not
    to its markers times the page they would draw."""
    rendered_end = min(len(response["text"]), MAX_MARKDOWN_CHARS)
    if max_drawn is None:
        return rendered_end
    ends = [citation["end"] for _, citation, _, keys in _footnote_sources(response, rendered_end) for _ in keys]
    ends += [marker["end"] for marker in response["unresolved"] if marker["end"] <= rendered_end]
    if len(ends) <= max_drawn:
        return rendered_end
    return heapq.nsmallest(max_drawn, ends)[-1] if max_drawn > 0 else -1


def render_response(
    response: dict[str, Any], prefix: str, gettext: Translate = untranslated, max_drawn: int | None = None
) -> dict[str, Any]:
    """What takes rendering, done once when a dump is stored: the answer's HTML (sanitised), with our
    own words in ``gettext``'s language, and where footnotes stop being drawn (``drawn_until``), which
    the source list and the evidence view (``evidence.evidence_view``, made with the page) agree with."""
    until = drawn_until(response, max_drawn)
    labels = source_labels(response)
    return {
        "answer": render_answer(response, prefix, labels, gettext, until),
        "drawn_until": until,
        "reasoning": [
            {"kind": reasoning["kind"], "html": _render_reasoning(response, reasoning, n, prefix, labels, gettext)}
            for n, reasoning in enumerate(response.get("reasoning", []))
        ],
    }


def _render_reasoning(
    response: dict[str, Any],
    reasoning: dict[str, Any],
    number: int,
    prefix: str,
    labels: dict[str, str],
    gettext: Translate,
) -> str:
    """The model's plan or thinking with its own footnotes, which link to the response's source list
    and are numbered apart from the answer's (their ids carry the reasoning's own prefix)."""
    own = {
        "text": reasoning["text"],
        "citations": reasoning["citations"],
        "unresolved": [],
        "sources": response["sources"],
        "diagnostics": [d for d in response["diagnostics"] if d["code"] == "source_conflict"],
    }
    return render_answer(own, f"{prefix}-{reasoning['kind']}{number}", labels, gettext, source_prefix=prefix)


def render_answer(
    response: dict[str, Any],
    prefix: str,
    labels: dict[str, str] | None = None,
    gettext: Translate = untranslated,
    until: int | None = None,
    source_prefix: str | None = None,
) -> str:
    """The answer's Markdown as sanitised HTML, each citation up to ``until`` (:func:`drawn_until`) a
    link to its source entry and each cited span (a Gemini segment, a Claude block) subtly highlighted.
    ``labels`` are the sources' labels (:func:`source_labels`); the source list's ids have
    ``source_prefix`` (by default the answer's own ``prefix``)."""
    until = drawn_until(response) if until is None else until
    if labels is None:
        labels = source_labels(response)
    text = response["text"][:MAX_MARKDOWN_CHARS]
    explanations = _unresolved_explanations(response, gettext)
    parts = _FootnoteParts(prefix, response, labels, gettext, source_prefix or prefix)
    anchors: list[Anchor] = []
    places: list[Place] = []
    # Marks past the drawn part are not even made: a 50 MB answer has a hundred thousand of them.
    for mark in footnotes(response, prefix, until):
        links, cards, conflict = parts.of(mark)
        anchors.append(Anchor(mark.anchor, mark.marker, links, cards=cards, conflict=conflict))
        end = mark.end if mark.replaces_span else _before_trailing_space(text, mark.start, mark.end)
        places.append(Place(mark.start, end, replace=mark.replaces_span))
    for index, marker in enumerate(response["unresolved"]):
        if marker["end"] > until:
            continue
        explanation = explanations.get(marker["start"]) or gettext("{marker} points at no source.").format(
            marker=readable_marker(marker["marker"], marker["ref"])
        )
        anchors.append(
            Anchor(
                f"{prefix}-unresolved-{index}",
                readable_marker(marker["marker"], marker["ref"]),
                explanation=explanation,
                unresolved_label=gettext("no source"),
            )
        )
        places.append(Place(marker["start"], marker["end"], replace=True))
    drawn = [c for c in response["citations"] if not c["marker"] and c["end"] <= until]
    spans = sorted({(c["start"], c["end"]) for c in drawn if c["start"] < c["end"]})
    for pair, (start, end) in enumerate(spans):
        start = _after_block_syntax(text, start)
        anchors.append(Anchor("", "", kind="open", pair=pair))
        places.append(Place(start, start, priority=2))
        anchors.append(Anchor("", "", kind="close", pair=pair))
        end = _before_trailing_space(text, start, end)
        places.append(Place(end, end, priority=0))

    html = render_markdown(text, _visible_places(text, places), anchors)
    if until < min(len(response["text"]), MAX_MARKDOWN_CHARS):
        note = gettext(
            "Footnotes are drawn up to character {position:,} of this answer, for its first citations; the "
            "{count:,} citations and markers of the answer are all in the normalised JSON, and past that point "
            "they are shown as written."
        ).format(position=max(until, 0), count=len(response["citations"]) + len(response["unresolved"]))
        html += f'<p class="cv-truncated">{escape(note)}</p>'
    if len(response["text"]) > MAX_MARKDOWN_CHARS:
        note = gettext(
            "The answer is longer than {limit:,} characters; the rest is in the raw dump and the normalised JSON."
        ).format(limit=MAX_MARKDOWN_CHARS)
        html += f'<p class="cv-truncated">{escape(note)}</p>'
    # Sanitised as it was rendered (render_markdown); the notes and the cards are ours, escaped.
    return shown_private_use(html) + cards_markup(parts.cards)


# OpenAI's inline citation tokens are written in private-use characters no font draws: U+E200 opens a
# token, U+E202 separates its family ("cite") from each source id and the line locator, U+E201 closes it.
_TOKEN_OPEN, _TOKEN_CLOSE, _TOKEN_SEPARATOR = "\ue200", "\ue201", "\ue202"
_PRIVATE_USE_SHOWN = {ord(c): f"⟨U+{ord(c):04X}⟩" for c in (_TOKEN_OPEN, _TOKEN_CLOSE, _TOKEN_SEPARATOR)}


def readable_marker(marker: str, ref: str) -> str:
    """A marker as a reader can see it: ``[cite: turn0search0, L8-L13]`` for a private-use citation
    token, ``[ref]`` for a citation that has no text of its own (a Mistral reference chunk), otherwise
    the marker as written."""
    if not marker:
        return f"[{ref}]"
    if _TOKEN_SEPARATOR not in marker and _TOKEN_OPEN not in marker:
        return marker
    family, *ids = marker.strip(_TOKEN_OPEN + _TOKEN_CLOSE).split(_TOKEN_SEPARATOR)
    shown = f"{family}: {', '.join(i for i in ids if i)}" if ids else family
    return f"[{shown.translate(_PRIVATE_USE_SHOWN)}]"


def shown_private_use(html: str) -> str:
    """The private-use characters of a citation token that stand alone in the text (no token was read
    around them) written as their code points, never drawn as an invisible box."""
    if _TOKEN_OPEN in html or _TOKEN_CLOSE in html or _TOKEN_SEPARATOR in html:
        return html.translate(_PRIVATE_USE_SHOWN)
    return html


# Matched at a line's start (``(?<![^\n])``): a search never reads an indent again from each of its places.
_BLOCK_SYNTAX = re.compile(r"(?<![^\n])[ \t]*(?:(?:[*+-]|\d{1,9}[.)])[ \t]+|#{1,6}[ \t]+|>[ \t]?)+")


def _after_block_syntax(text: str, position: int) -> int:
    """A highlight that starts a line starts after its list bullet, heading or quote mark, which
    must stay at the line start for the Markdown to mean what it says."""
    if position > 0 and text[position - 1] != "\n":
        return position
    match = _BLOCK_SYNTAX.match(text, position)
    return match.end() if match else position


def _before_trailing_space(text: str, start: int, end: int) -> int:
    """A footnote goes after the span's last visible character: a block ending in a blank line keeps
    its footnote in its own paragraph."""
    while end > start and end <= len(text) and text[end - 1].isspace():
        end -= 1
    return end


def _visible_places(text: str, places: list[Place]) -> list[Place]:
    """A footnote whose span ends inside code or a link moves to the end of that paragraph, where it
    can be seen; a highlight that cannot be drawn is left out (its footnote stays)."""
    if all(place.replace for place in places):
        return places  # markers replaced where they stand: found where Markdown shows them, nothing moves
    shown = placeholders_shown(text, places)
    moved = list(places)
    for index, place in enumerate(places):
        if index in shown or place.replace:
            continue
        if place.priority == 1:
            paragraph_end = text.find("\n\n", place.end)
            end = len(text.rstrip()) if paragraph_end < 0 else paragraph_end
            moved[index] = Place(end, end)
        else:
            moved[index] = Place(len(text) + 1, len(text) + 1)  # past the end: never placed
    return moved


def source_entries(response: dict[str, Any], prefix: str, until: int | None = None) -> list[dict[str, Any]]:
    """What the source list shows for each source, in the response's order. Back-links go only to
    citations drawn in the answer (up to ``until``, see :func:`drawn_until`); those past it are counted."""
    until = drawn_until(response) if until is None else until
    cited_by: dict[str, list[dict[str, str]]] = {}
    for mark in footnotes(response, prefix, until):
        for key in mark.source_keys:
            places = cited_by.setdefault(key, [])
            places.append({"anchor": mark.anchor, "marker": mark.marker, "place": _place_label(len(places))})
    cited_past_rendering = _cited_past(response, until)  # no footnote there to go back to
    conflicts = _conflicting_keys(response)
    labels = source_labels(response)
    without_position = set(response.get("cited_without_position", []))
    cited_in: dict[str, list[str]] = {}  # the plan or thinking that cites a source, apart from the answer
    for reasoning in response.get("reasoning", []):
        for citation in reasoning["citations"]:
            for key in citation["source_keys"]:
                kinds = cited_in.setdefault(key, [])
                if reasoning["kind"] not in kinds:
                    kinds.append(reasoning["kind"])
    entries = []
    for ordinal, source in enumerate(response["sources"], 1):
        extra = dict(source["extra"])
        snippet_kind = extra.pop("snippet_kind", None)
        entries.append(
            {
                "anchor": source_anchor(prefix, ordinal),
                "label": labels[source["key"]],
                "key": source["key"],
                "kind": source["kind"],
                "title": source["title"],
                "url": source["url"],
                "link": source["url"] if is_safe_http_url(source["url"]) else None,
                "domain": url_domain(source["url"]),
                "snippet": extra.pop("snippet", None),
                "snippet_kind": snippet_kind,
                "extra": extra,
                "details": _details(extra),
                "cited_by": cited_by.get(source["key"], []),
                "cited_past_rendering": cited_past_rendering.get(source["key"], 0),
                "cited_without_position": source["key"] in without_position,
                "cited_in": cited_in.get(source["key"], []),
                "conflict": source["key"] in conflicts,
            }
        )
    return entries


# The extra fields a source's entry shows in its own lines; every other one is listed under its
# field name, so nothing the dump says of a source is out of sight.
_EXTRA_SHOWN_APART = {
    "redirect",
    "date",
    "last_updated",
    "document_name",
    "file_search_store",
    "source",
    "document_index",
    "retrieved_at",
    "caller",
    "url_retrieval_status",
    "not_retrieved",
    "consulted",
}
DETAIL_CHARS = 300


def _details(extra: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (name, shortened(str(value), DETAIL_CHARS))
        for name, value in extra.items()
        if name not in _EXTRA_SHOWN_APART and value is not None and value is not False
    ]


def source_labels(response: dict[str, Any]) -> dict[str, str]:
    """Each source's label, as the source list and the footnotes show it: marker numbers are the
    provider's (Perplexity's ids); otherwise footnotes count sources."""
    uses_markers = any(c["marker"] for c in response["citations"])
    return {
        source["key"]: source["key"] if uses_markers and len(source["key"]) <= 8 else str(ordinal)
        for ordinal, source in enumerate(response["sources"], 1)
    }


def _cited_past(response: dict[str, Any], until: int) -> dict[str, int]:
    """Per source, how many of its footnotes come after ``until``, where none is drawn."""
    counts: dict[str, int] = {}
    for _index, _citation, _position, keys in _footnote_sources(response, until, drawn=False):
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
    return counts


def _place_label(position: int) -> str:
    """a, b, …, z, aa, ab, … — which of a source's citations a back-link returns to."""
    letters = ""
    position += 1
    while position:
        position, rest = divmod(position - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


# A source's card is written once, but a title or an address from a dump can be of any length: each
# part of a card is held to a length.
CARD_TEXT_CHARS = 280
CARD_TITLE_CHARS = 200
CARD_URL_CHARS = 300


class _FootnoteParts:
    """What each footnote of an answer is drawn with: its links, and the cards that describe them,
    each card written once. A source's card is made at the first footnote link that shows the source
    and named after it (``…-cite-<citation>-<n>-card``, its n-th source); a citation's own card
    (``…-cite-<citation>-card``) holds what differs from one citation of a source to the next: the
    passage it quotes and the provider's confidence."""

    def __init__(
        self, prefix: str, response: dict[str, Any], labels: dict[str, str], gettext: Translate, source_prefix: str
    ) -> None:
        self.cards: list[Card] = []
        self._prefix = prefix
        self._source_prefix = source_prefix
        self._response = response
        self._ordinals = {source["key"]: n for n, source in enumerate(response["sources"], 1)}
        self._sources = {source["key"]: source for source in response["sources"]}
        self._labels = labels
        self._conflicts = _conflicting_keys(response)
        self._gettext = gettext
        self._of_source: dict[str, str] = {}
        self._of_citation: dict[int, str] = {}
        self._links: dict[tuple[str, str], AnchorLink] = {}
        # Markers cite few sources many times: a marker's parts are made once per number and sources.
        self._of_marker: dict[tuple[str, tuple[str, ...]], tuple[list[AnchorLink], str, bool]] = {}

    def of(self, mark: Footnote) -> tuple[list[AnchorLink], str, bool]:
        """The footnote's links, the ids of its cards, and whether its number has two URLs."""
        if not mark.marker:
            return self._made(mark)
        key = (mark.marker, tuple(mark.source_keys))
        made = self._of_marker.get(key)
        if made is None:
            made = self._of_marker[key] = self._made(mark)
        return made

    def _made(self, mark: Footnote) -> tuple[list[AnchorLink], str, bool]:
        shown = [(i, key) for i, key in enumerate(mark.source_keys) if key in self._ordinals]
        marker = readable_marker(mark.marker, "") if mark.marker else ""
        links = [self._link(key, marker if i == 0 and marker else f"[{self._labels[key]}]") for i, key in shown]
        cards = [self._of_source_card(key, mark.citation, mark.position or i + 1) for i, key in shown]
        if not mark.marker:
            cards.append(self._of_citation_card(mark.citation))
        conflict = any(key in self._conflicts for key in mark.source_keys)
        return links, " ".join(card for card in cards if card), conflict

    def _link(self, key: str, label: str) -> AnchorLink:
        made = self._links.get((key, label))
        if made is None:
            href = f"#{source_anchor(self._source_prefix, self._ordinals[key])}"
            made = self._links[(key, label)] = _anchor_link(href, label, self._gettext, key in self._conflicts)
        return made

    def _of_source_card(self, key: str, citation: int, position: int) -> str:
        card = self._of_source.get(key)
        if card is None:
            card = self._of_source[key] = f"{citation_anchor(self._prefix, citation)}-{position}-card"
            source = self._sources[key]
            self.cards.append(_source_card(card, source, self._gettext, conflict=key in self._conflicts))
        return card

    def _of_citation_card(self, index: int) -> str:
        """The citation's own card, or "" when it carries nothing of its own (no quote, no confidence)."""
        card = self._of_citation.get(index)
        if card is None:
            evidence = _evidence_card(
                f"{citation_anchor(self._prefix, index)}-card",
                self._response["citations"][index],
                self._labels,
                self._gettext,
            )
            card = self._of_citation[index] = evidence.id if evidence else ""
            if evidence:
                self.cards.append(evidence)
        return card


def _source_card(card_id: str, source: dict[str, Any], gettext: Translate, *, conflict: bool) -> Card:
    # A source's title is a name people read: its bidi controls are shown, not obeyed (core.common.bidi_controls).
    title = str(source["title"] or url_domain(source["url"]) or source["url"] or source["key"])
    redirect = source["extra"].get("redirect")
    return Card(
        card_id,
        title=show_bidi_controls(shortened(title, CARD_TITLE_CHARS)),
        domain="" if redirect else (url_domain(source["url"]) or ""),
        text=shortened(str(source["extra"].get("snippet") or ""), CARD_TEXT_CHARS),  # any JSON value
        url=show_bidi_controls(shortened(source["url"] or "", CARD_URL_CHARS)),
        note=gettext("⚠ conflict: this number has two URLs") if conflict else "",
    )


def _evidence_card(card_id: str, citation: dict[str, Any], labels: dict[str, str], gettext: Translate) -> Card | None:
    quote = shortened(str(citation["cited_text"] or ""), CARD_TEXT_CHARS)
    scores = [
        (key, score) for key, score in zip(citation["source_keys"], citation.get("confidence") or [], strict=False)
    ]
    if not quote and not scores:
        return None
    confidence = gettext("confidence {score:.2f}")
    if len(scores) == 1:
        note = confidence.format(score=scores[0][1])
    else:  # a Gemini support scores each of its sources
        note = " · ".join(f"[{labels.get(key, key)}] {confidence.format(score=score)}" for key, score in scores)
    return Card(card_id, text=quote, note=note)


def _anchor_link(href: str, label: str, gettext: Translate, conflict: bool) -> AnchorLink:
    # The name holds the visible number (the label-in-name rule); a conflict is said, not only coloured.
    name = gettext("source {label}").format(label=label.strip("[]"))
    if conflict:
        name = gettext("{name} ({note})").format(name=name, note=gettext("⚠ conflict: this number has two URLs"))
    return AnchorLink(href, label, name)


def _conflicting_keys(response: dict[str, Any]) -> set[str]:
    return {
        key for d in response["diagnostics"] if d["code"] == "source_conflict" for key in d["details"].get("keys", [])
    }


def _unresolved_explanations(response: dict[str, Any], gettext: Translate) -> dict[int, str]:
    return {
        d["details"].get("start"): phrase_text(d["phrase"], gettext)
        for d in response["diagnostics"]
        if d["code"] == "unresolved_marker"
    }
