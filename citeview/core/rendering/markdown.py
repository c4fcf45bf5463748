"""The Markdown renderer for answers, and its citation-anchor plugin.

Citation markers are replaced by placeholders ``[\\uFDD0<n>]`` (U+FDD0 is a Unicode noncharacter,
reserved for exactly this kind of internal use) before markdown-it sees the text. The plugin's
inline rule turns each placeholder into a token and one render rule writes its HTML.

The same rule, in probe mode, tells the parsers which markers Markdown shows as plain text: not in
code, not in a link's destination or label. So "is this a citation" and "where is its footnote"
are answered by one parser, never by two that could disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from citeview.core.links import is_safe_http_url

PLACEHOLDER_MARK = "\ufdd0"
# markdown-it costs about 25 µs a character in its worst case: render (and probe) at most this much.
MAX_MARKDOWN_CHARS = 100_000


@dataclass(frozen=True)
class AnchorLink:
    href: str
    label: str
    title: str


@dataclass(frozen=True)
class Anchor:
    """One place in the answer that cites sources (``links``) or cites nothing (``explanation``)."""

    id: str
    marker: str
    links: list[AnchorLink] = field(default_factory=list)
    explanation: str = ""
    conflict: bool = False


@lru_cache(maxsize=1)
def answer_renderer() -> MarkdownIt:
    """CommonMark + tables + strikethrough, raw HTML off, images off, only http(s) links."""
    md = MarkdownIt("js-default")
    md.disable("image")
    md.validateLink = is_safe_http_url  # type: ignore[method-assign]
    md.inline.ruler.before("link", "citeview_anchor", _parse_anchor)
    md.add_render_rule("citeview_anchor", _render_anchor)
    md.add_render_rule("link_open", _render_link_open)
    return md


def with_placeholders(text: str, places: list[tuple[int, int, bool]]) -> str:
    """``text`` with the ``i``-th place marked by placeholder ``i``: replacing the span when the
    third item is true (a marker), else just after it (a cited span). Overlapping places are skipped."""
    text = text.replace(PLACEHOLDER_MARK, "\ufffd")  # a dump cannot forge our placeholders
    pieces = []
    position = 0
    for index, (start, end, replace) in sorted(enumerate(places), key=lambda p: (p[1][1], p[1][0])):
        if end > len(text) or (start < position if replace else end < position):
            continue  # several footnotes may follow one span; replaced markers never overlap
        pieces.append(text[position : start if replace else end])
        pieces.append(f"[{PLACEHOLDER_MARK}{index}]")
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def spans_shown_as_text(text: str, spans: list[tuple[int, int]]) -> set[int]:
    """Indexes of the spans Markdown shows as plain text: not code, not inside a link or autolink."""
    env: dict[str, Any] = {"citeview_probe": set()}
    answer_renderer().parse(with_placeholders(text, [(s, e, True) for s, e in spans]), env)
    return env["citeview_probe"]


def render_markdown(text: str, places: list[tuple[int, int, bool]], anchors: list[Anchor]) -> str:
    return answer_renderer().render(with_placeholders(text, places), {"citeview_anchors": anchors})


def _parse_anchor(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    # Silent calls come from link-label scanning: there a placeholder is plain text, so a link whose
    # label holds one still parses as the link it is.
    if silent or not src.startswith(f"[{PLACEHOLDER_MARK}", pos):
        return False
    close = src.find("]", pos + 2)
    digits = src[pos + 2 : close] if close > 0 else ""
    if not digits.isdigit():
        return False
    index = int(digits)
    probe: set[int] | None = state.env.get("citeview_probe")
    if probe is not None:
        if state.linkLevel > 0:
            return False  # inside a link's label: the text of a link, not a citation
        probe.add(index)
    elif index >= len(state.env.get("citeview_anchors") or []):
        return False
    else:
        token = state.push("citeview_anchor", "", 0)
        token.meta = {"index": index, "in_link": state.linkLevel > 0}
    state.pos = close + 1
    return True


def _render_anchor(self: Any, tokens: list[Any], idx: int, options: Any, env: dict[str, Any]) -> str:
    meta = tokens[idx].meta
    anchor: Anchor = env["citeview_anchors"][meta["index"]]
    if meta["in_link"]:  # a span's footnote that falls inside link text: no link within a link
        return f'<sup class="cv-cite">{escape(anchor.marker or "*")}</sup>'
    if not anchor.links:
        tip_id = f"{anchor.id}-tip"
        return (
            f'<span class="cv-unresolved" id="{anchor.id}" tabindex="0" aria-describedby="{tip_id}">'
            f'<span class="cv-unresolved-icon" aria-hidden="true">⚠</span>{escape(anchor.marker)}'
            f'<span class="cv-unresolved-label">no source</span>'
            f'<span class="cv-tip" role="tooltip" id="{tip_id}">{escape(anchor.explanation)}</span></span>'
        )
    links = []
    for position, link in enumerate(anchor.links):
        own_id = f' id="{anchor.id}"' if position == 0 else ""
        classes = "cv-cite-link" if position == 0 else "cv-cite-link cv-cite-extra"
        links.append(
            f'<a{own_id} class="{classes}" href="{escape(link.href)}" title="{escape(link.title)}">{escape(link.label)}</a>'
        )
    classes = "cv-cite cv-cite-conflict" if anchor.conflict else "cv-cite"
    return f'<sup class="{classes}">{"".join(links)}</sup>'


def _render_link_open(self: Any, tokens: list[Any], idx: int, options: Any, env: dict[str, Any]) -> str:
    token = tokens[idx]
    token.attrSet("target", "_blank")
    token.attrSet("rel", "noopener noreferrer nofollow")
    token.attrSet("title", token.attrGet("href") or "")  # reviewers see where a link goes before following it
    return self.renderToken(tokens, idx, options, env)
