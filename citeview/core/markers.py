"""Finding ``[N]`` and ``[web:N]`` citation markers in answer text, outside code.

Code is whatever Markdown renders as code: fenced and indented blocks (found by markdown-it's own
block parser, so the rule matches the rendering exactly) and inline code spans.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

from citeview.core.framing import LINE_BREAK

MARKER = re.compile(r"\[(web:)?(\d{1,6})\]")
# Reasoning models have put their thinking before the answer; its brackets cite nothing the reader sees.
THINKING = re.compile(r"<think>.*?(?:</think>|\Z)", re.S)
_BLANK_LINE = re.compile(r"(?:\r\n|\r|\n)[ \t]*(?=\r\n|\r|\n|$)")


@dataclass(frozen=True)
class MarkerMatch:
    start: int
    end: int
    text: str  # "[2]" or "[web:2]"
    ref: str  # "2"
    is_web: bool


def find_markers(text: str) -> list[MarkerMatch]:
    code = _merged([*code_ranges(text), *(m.span() for m in THINKING.finditer(text))])
    found = []
    for match in MARKER.finditer(text):
        start, end = match.span()
        if _inside(start, code) or _is_link_label(text, start, end) or _is_escaped(text, start):
            continue
        found.append(MarkerMatch(start, end, match.group(0), match.group(2), bool(match.group(1))))
    return found


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` (code points, end exclusive) that Markdown renders as code."""
    line_starts = _line_starts(text)
    blocks: list[tuple[int, int]] = []
    for token in _block_parser().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            first, last = token.map
            blocks.append((line_starts[first], line_starts[min(last, len(line_starts) - 1)]))
    ranges = list(blocks)
    position = 0
    for block_start, block_end in [*blocks, (len(text), len(text))]:
        ranges.extend(_inline_code_spans(text, position, block_start))
        position = block_end
    return sorted(ranges)


@lru_cache(maxsize=1)
def _block_parser() -> MarkdownIt:
    return MarkdownIt("js-default")


def _line_starts(text: str) -> list[int]:
    """Offset of each line's first character, plus ``len(text)`` as the end of the last line."""
    return [0, *(m.end() for m in LINE_BREAK.finditer(text)), len(text)]


def _inline_code_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """CommonMark code spans: a backtick run closed by the next run of the same length, within a paragraph."""
    spans = []
    paragraph_start = start
    for blank in _BLANK_LINE.finditer(text, start, end):
        spans.extend(_code_spans_in_paragraph(text, paragraph_start, blank.start()))
        paragraph_start = blank.end()
    spans.extend(_code_spans_in_paragraph(text, paragraph_start, end))
    return spans


def _code_spans_in_paragraph(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans = []
    i = start
    while True:
        opening = text.find("`", i, end)
        if opening < 0:
            return spans
        run_end = _run_end(text, opening, end)
        if _is_escaped(text, opening):
            i = opening + 1
            continue
        closing = _closing_run(text, run_end, end, run_end - opening)
        if closing is None:
            i = run_end  # an unmatched run is literal backticks
            continue
        spans.append((opening, closing))
        i = closing


def _run_end(text: str, i: int, end: int) -> int:
    while i < end and text[i] == "`":
        i += 1
    return i


def _closing_run(text: str, i: int, end: int, length: int) -> int | None:
    while True:
        found = text.find("`", i, end)
        if found < 0:
            return None
        run_end = _run_end(text, found, end)
        if run_end - found == length:
            return run_end
        i = run_end


def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _inside(position: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether ``position`` falls in one of the sorted, non-overlapping ``ranges``."""
    index = bisect_right(ranges, (position, math.inf)) - 1
    return index >= 0 and ranges[index][0] <= position < ranges[index][1]


def _is_link_label(text: str, start: int, end: int) -> bool:
    """``[1](https://…)`` is a Markdown link and ``[1]: https://…`` a link definition, not markers."""
    if text.startswith("(", end):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    return text.startswith(":", end) and not text[line_start:start].strip()


def _is_escaped(text: str, position: int) -> bool:
    backslashes = 0
    while position - backslashes - 1 >= 0 and text[position - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1
