"""The Markdown renderer for answers, and its citation-anchor plugin.

Before rendering, the answer's citation markers are replaced by placeholders
``[\\uFDD0<n>]`` (U+FDD0 is a Unicode noncharacter, reserved for exactly this kind of internal
use); the plugin's inline rule turns each into a token, and one render rule writes its HTML.
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


def placeholder(index: int) -> str:
    return f"[{PLACEHOLDER_MARK}{index}]"


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


def render_markdown(text: str, anchors: list[Anchor]) -> str:
    return answer_renderer().render(text, {"citeview_anchors": anchors})


def _parse_anchor(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if not src.startswith(f"[{PLACEHOLDER_MARK}", pos):
        return False
    close = src.find("]", pos + 2)
    digits = src[pos + 2 : close] if close > 0 else ""
    anchors = state.env.get("citeview_anchors") or []
    if not digits.isdigit() or int(digits) >= len(anchors):
        return False
    if not silent:
        token = state.push("citeview_anchor", "", 0)
        token.meta = {"index": int(digits)}
    state.pos = close + 1
    return True


def _render_anchor(self: Any, tokens: list[Any], idx: int, options: Any, env: dict[str, Any]) -> str:
    anchor: Anchor = env["citeview_anchors"][tokens[idx].meta["index"]]
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
