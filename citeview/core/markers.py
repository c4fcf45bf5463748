"""Finding ``[N]`` and ``[web:N]`` citation markers in answer text.

A marker counts only where Markdown shows it as plain text: the answer renderer's own parser is
asked (not in code, not in a link), so the citations found and the footnotes drawn always agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeview.core.rendering.markdown import MAX_MARKDOWN_CHARS, spans_shown_as_text

MARKER = re.compile(r"\[(web:)?([0-9]{1,6})\]")
# Reasoning models have put their thinking before the answer; its brackets cite nothing the reader sees.
LEADING_THINKING = re.compile(r"\A\s*<think>.*?(?:</think>|\Z)", re.S)


@dataclass(frozen=True)
class MarkerMatch:
    start: int
    end: int
    text: str  # "[2]" or "[web:2]"
    ref: str  # "2"
    is_web: bool


def find_markers(text: str) -> list[MarkerMatch]:
    skip_to = thinking_end(text)
    candidates = [
        MarkerMatch(m.start(), m.end(), m.group(0), m.group(2), bool(m.group(1)))
        for m in MARKER.finditer(text, skip_to)
        if not _is_link_label(text, m.start(), m.end()) and not _is_escaped(text, m.start())
    ]
    checked = [m for m in candidates if m.end <= MAX_MARKDOWN_CHARS]
    shown = spans_shown_as_text(text[:MAX_MARKDOWN_CHARS], [(m.start, m.end) for m in checked])
    # Past what is rendered there is no Markdown to ask; every marker there counts.
    return [m for i, m in enumerate(checked) if i in shown] + candidates[len(checked) :]


def thinking_end(text: str) -> int:
    """Where a leading ``<think>…</think>`` section ends (0 when the answer has none)."""
    match = LEADING_THINKING.match(text)
    return match.end() if match else 0


def _is_link_label(text: str, start: int, end: int) -> bool:
    """``[1](https://…)`` is a Markdown link and ``[1]: https://…`` a link definition, not markers."""
    if text.startswith("(", end):
        return True
    if not text.startswith(":", end):
        return False  # (checked first: looking back for the line start costs the whole line each time)
    line_start = text.rfind("\n", 0, start) + 1
    return not text[line_start:start].strip()


def _is_escaped(text: str, position: int) -> bool:
    backslashes = 0
    while position - backslashes - 1 >= 0 and text[position - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1
