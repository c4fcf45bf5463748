"""Statements: the sentences, list items and table rows of an answer, each with the citations that
stand in it or at its end (``../shared/docs/evidence-review.md``, "The unit: a statement and its citations").

Splitting is deliberately plain: sentence terminators and Markdown line structure, never inside a code
span, a fenced block, a URL or a number. A table row is one statement, its cells together: a cell alone
("33以上") claims nothing, and a header row names the columns, so it is no statement at all. There is
no list of abbreviations: only initialisms (``U.S.``, ``e.g.``) are told from a sentence's end, so
``Dec. 5`` splits. One pass over the text and one sorted walk over the citations: answers run to
100,000 characters with thousands of citations.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from citeview.core.parsing.markers import DOC_MARKER, MARKER, thinking_end


@dataclass(frozen=True)
class Statement:
    index: int  # 0-based, in text order
    start: int  # code points into the response's text, end exclusive
    end: int
    text: str  # text[start:end], no surrounding whitespace
    citations: list[int]  # indexes into response["citations"]
    unresolved: list[int]  # indexes into response["unresolved"]
    row: bool = False  # a table row: its cells, without the outer pipes

    @property
    def key(self) -> str:
        """Stable for a stored response, so checks can be kept against it."""
        return f"s{self.start}-{self.end}"


Span = tuple[int, int]

# A run of text with no sentence end (a marker-only answer, a list run on without stops) is cut into
# statements of at most this many characters: a statement is copied into every check of its citations
# and into each export row, so its length must not grow with the answer.
MAX_STATEMENT_CHARS = 1_000
_LONGEST_MARKER = len("[web:999999]")

# What the sentence scanner stops at: a terminator run, a backtick run (a code span may start), a URL.
_STOPS = re.compile(r"[.!?。！？．]+|`+|https?://", re.I)
_ASCII_TERMINATORS = frozenset(".!?")
# Closing quotes, brackets and emphasis stay with the sentence they close.
_CLOSERS = frozenset("」』）)\"'”’］]】〕〉》*_~")
_EMPHASIS = frozenset("*_~")
_QUOTE_CLOSERS = frozenset("」』")
_HORIZONTAL_SPACE = frozenset(" \t\u3000")
_BACKTICKS = re.compile(r"`+")
# A URL runs to whitespace or a closing bracket; Japanese punctuation never belongs to one.
_URL = re.compile(r"https?://[^\s`)\]}>」』）】〕〉》。、，！？]*", re.I)
_URL_TRAILING = ".,:;!?'\"*_~"  # as in GFM autolinks: punctuation at the very end is the sentence's
# OpenAI writes its source as a link, in parentheses or closing the line: after a sentence it is that
# sentence's, like a marker. Its words never run into another "[" nor a tag into another "<": each place
# a search tries reads up to the next one, not to the line's end, so a line of 10,000 "([" or "<" takes
# one pass, not 10,000.
_LINK_TRAILER = re.compile(r"\(\[[^\][\n]+\]\([^()\s]+\)\)|\[[^\][\n]+\]\([^()\s]+\)(?=[ \t]*(?:\n|\Z))")
_HTML_TAG = re.compile(r"<[^<>\n]*>")
_NOT_SPACE = re.compile(r"\S")  # (in a str pattern, what str.isspace() is not)

# Each is matched at a line's start (``(?<![^\n])``): a search never reads a line's indent again from
# each of its places.
_FENCE = re.compile(r"(?<![^\n])[ \t]*(`{3,}|~{3,})")
_QUOTE = re.compile(r"(?<![^\n])[ \t]*(?:>[ \t]?)+")
_RULE = re.compile(r"(?<![^\n])[ \t]*(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|=+[ \t]*)$")
_HEADING = re.compile(r"(?<![^\n])[ \t]*#{1,6}(?:[ \t]+|$)")
_ITEM = re.compile(r"(?<![^\n])[ \t]*(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)")
_SEPARATOR_CHARS = frozenset("|:- \t")
_CELL_BORDER = re.compile(r"\\.|\|")  # an escaped character, or a pipe that splits cells
# A line that ends like this is not continued by the next one: a lead-in ("以下の通り："), a hard break,
# or a line in bold only (a pseudo-heading such as "**結論**").
_CLOSED_LINE = re.compile(r"(?:[:：\\]|[ \t]{2}|<br\s*/?>)$|^[ \t]*(\*\*|__)[^\n]*\1[ \t]*$")


def statements(response: dict[str, Any]) -> list[Statement]:
    """The statements of one normalised response, in text order, each citation and unresolved
    marker in exactly one of them (none at all when the text is blank)."""
    text = response["text"]
    spans = _spans(response)
    if not spans:
        return []
    citation_homes, marker_homes = _homes_of(response, spans)
    citations_in, markers_in = _grouped(citation_homes, len(spans)), _grouped(marker_homes, len(spans))
    return [
        Statement(index, start, end, text[start:end], citations_in[index], markers_in[index], row)
        for index, (start, end, row) in enumerate(spans)
    ]


def statement_count_and_homes(response: dict[str, Any]) -> tuple[int, list[int], list[int]]:
    """How many statements :func:`statements` finds, and the statement of each citation and of each
    unresolved marker, without making the statements (a count of an answer with 100,000 of them
    held each one's text and lists)."""
    spans = _spans(response)
    if not spans:
        return 0, [], []
    return len(spans), *_homes_of(response, spans)


def _spans(response: dict[str, Any]) -> list[tuple[int, int, bool]]:
    """Each statement's start, end, and whether it is a table row."""
    text = response["text"]
    citations, unresolved = response["citations"], response["unresolved"]
    marker_ends = {m["start"]: m["end"] for m in [*citations, *unresolved] if m.get("marker")}
    pieces = (
        (*_stripped(text, start, end), row)
        for start, end, row in _blocks(text, thinking_end(text))
        for start, end in ([(start, end)] if row else _sentences(text, (start, end), marker_ends))
    )
    found = [(start, end, row) for start, end, row in pieces if _has_words(text[start:end])]
    if not found and (citations or unresolved):
        # nothing reads as a sentence, but the markers need a home
        found = [(*_stripped(text, 0, len(text)), False)]
    if not found or found[0][0] == found[0][1]:  # a blank text has nowhere to put anything
        return []
    return [(*piece, row) for start, end, row in found for piece in _within_length(text, (start, end), marker_ends)]


def _homes_of(response: dict[str, Any], spans: list[tuple[int, int, bool]]) -> tuple[list[int], list[int]]:
    """The statement of each citation, and of each unresolved marker."""
    return (
        _homes(spans, [_citation_place(c) for c in response["citations"]]),
        _homes(spans, [(m["start"], False) for m in response["unresolved"]]),
    )


def _blocks(text: str, begin: int) -> list[tuple[int, int, bool]]:
    """The stretches that sentences are split within: paragraphs, list items, headings and quoted
    lines, without their Markdown prefixes; and table rows, each whole (True), without their outer
    pipes. Fenced code, rules, a table's header and delimiter rows are in none."""
    blocks: list[tuple[int, int, bool]] = []
    continues = False  # the next plain line continues the last block (a soft line break)
    for kind, start, end in _lines(text, begin):
        if kind == "text" and continues:
            blocks[-1] = (blocks[-1][0], end, False)
        elif kind in ("text", "item", "heading", "quote"):
            blocks.append((start, end, False))
        elif kind == "table":
            blocks.append((*_row(text, start, end), True))
        continues = kind in ("text", "item") and not _CLOSED_LINE.search(text[start:end])
    return blocks


def _lines(text: str, begin: int) -> list[tuple[str, int, int]]:
    """Each line from ``begin`` as (kind, where its content starts, where it ends)."""
    lines: list[tuple[str, int, int]] = []
    fence = ""  # the opening fence while inside a fenced block
    for start, end in _line_spans(text, begin):
        if fence:
            fence = "" if _closes_fence(text[start:end], fence) else fence
            lines.append(("code", start, end))
            continue
        line = text[start:end]  # on its own: the first line may start after </think>, mid-line
        opening = _FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in line[opening.end() :]):
            fence = opening.group(1)
            lines.append(("code", start, end))
            continue
        quote = _QUOTE.match(line)
        content = start + quote.end() if quote else start
        kind, prefix = _kind(text, content, end)
        lines.append(("quote" if quote and kind == "text" else kind, content + prefix, end))
    _mark_pipe_tables(text, lines)
    return lines


def _line_spans(text: str, begin: int) -> list[Span]:
    spans = []
    while begin <= len(text):
        newline = text.find("\n", begin)
        end = len(text) if newline < 0 else newline
        spans.append((begin, end - 1 if text.endswith("\r", begin, end) else end))
        begin = end + 1
    return spans


def _closes_fence(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and stripped == fence[0] * len(stripped)


def _kind(text: str, start: int, end: int) -> tuple[str, int]:
    """What a line (after any ``>``) is, and how long its Markdown prefix is."""
    line = text[start:end]
    if not line.strip():
        return "blank", 0
    if "|" in line and "-" in line and set(line) <= _SEPARATOR_CHARS:
        return "separator", 0
    if _RULE.match(line):
        return "rule", 0  # also a setext underline: the title above it is a line of its own already
    if line.lstrip().startswith("|"):
        return "table", 0
    for kind, prefix in (("heading", _HEADING), ("item", _ITEM)):
        if match := prefix.match(line):
            return kind, match.end()
    return "text", 0


def _mark_pipe_tables(text: str, lines: list[tuple[str, int, int]]) -> None:
    """The header row above each separator row (with or without a leading pipe), and the rows written
    without a leading pipe under it."""
    for number, (kind, _, _) in enumerate(lines):
        if kind != "separator":
            continue
        if number and (lines[number - 1][0] == "table" or _is_row(text, lines[number - 1])):
            lines[number - 1] = ("header", *lines[number - 1][1:])
        below = number + 1
        while below < len(lines) and _is_row(text, lines[below]):
            lines[below] = ("table", *lines[below][1:])
            below += 1


def _is_row(text: str, line: tuple[str, int, int]) -> bool:
    kind, start, end = line
    return kind in ("text", "item") and "|" in text[start:end]


def _row(text: str, start: int, end: int) -> Span:
    """A table row without the pipes that open and close it (an escaped ``\\|`` is a cell's text)."""
    borders = [border for border in _CELL_BORDER.finditer(text, start, end) if border.group() == "|"]
    if borders and not text[start : borders[0].start()].strip():
        start = borders.pop(0).end()
    if borders and not text[borders[-1].end() : end].strip():
        end = borders[-1].start()
    return start, max(start, end)


def _sentences(text: str, block: Span, marker_ends: dict[int, int]) -> list[Span]:
    """``block`` cut after each sentence terminator, skipping code spans and URLs."""
    start, end = block
    code_spans = _code_spans(text, start, end)
    sentences = []
    position = start
    while stop := _STOPS.search(text, position, end):
        token = stop.group()
        if token[0] == "`":
            position = code_spans.get(stop.start(), stop.end())
        elif token[0] in "hH":
            url = _URL.match(text, stop.start(), end)
            position = max(stop.end(), stop.start() + len(url.group().rstrip(_URL_TRAILING))) if url else stop.end()
        elif (cut := _sentence_end(text, (start, end), stop.span(), marker_ends)) is not None:
            sentences.append((start, cut))
            start = position = cut
        else:
            position = stop.end()
    return [*sentences, (start, end)] if start < end else sentences


def _code_spans(text: str, start: int, end: int) -> dict[int, int]:
    """Where each code span opens, mapped to where it ends: a backtick run is closed by the next run of
    the same length; a run that nothing closes is literal (CommonMark)."""
    runs = [(run.start(), run.end()) for run in _BACKTICKS.finditer(text, start, end)]
    next_same: list[int | None] = [None] * len(runs)
    last_seen: dict[int, int] = {}
    for number in range(len(runs) - 1, -1, -1):
        length = runs[number][1] - runs[number][0]
        next_same[number] = last_seen.get(length)
        last_seen[length] = number
    spans = {}
    number = 0
    while number < len(runs):
        closer = next_same[number]
        if closer is None:
            number += 1
            continue
        spans[runs[number][0]] = runs[closer][1]
        number = closer + 1
    return spans


def _sentence_end(text: str, piece: Span, run: Span, marker_ends: dict[int, int]) -> int | None:
    """Where the sentence of ``piece`` (its start, and the end of its block) whose terminators are
    ``text[run]`` ends, or None where they end none: ``2.5``, ``example.com``, ``2．5``, ``「はい。」と``."""
    start, end = piece
    terminators = text[run[0] : run[1]]
    if terminators == "．" and _between_digits(text, run[0]):
        return None
    if terminators == "." and (_ends_initialism(text, run[0]) or _ends_enumerator(text, start, run[0])):
        return None
    english = set(terminators) <= _ASCII_TERMINATORS
    cut = _after_closers(text, start, run[1], end, english)
    if not english and text[cut - 1] in _QUOTE_CLOSERS and cut < end and text[cut].isalnum():
        return None  # 「はい。」と言った: a quotation inside the sentence
    spaced = cut == end or text[cut].isspace()
    cut = _after_markers(text, cut, end, marker_ends)
    if english and not (spaced or cut == end or text[cut].isspace()):
        if "." not in terminators and _is_cjk(text[cut]):
            return cut  # 「です!次は」: a half-width ! or ? in Japanese text needs no space after it
        return None  # a period ends an English sentence only before a space: not in 2.5 or v1.2.3
    return cut


def _is_cjk(char: str) -> bool:
    """Kana, kanji, CJK punctuation and full-width forms."""
    return "\u3000" <= char <= "\u9fff" or "\uf900" <= char <= "\uffef"


def _between_digits(text: str, position: int) -> bool:
    return 0 < position < len(text) - 1 and text[position - 1].isdigit() and text[position + 1].isdigit()


def _ends_initialism(text: str, position: int) -> bool:
    """``U.S.``, ``e.g.``, ``a.m.``: far more often inside a sentence than at its end."""
    letter, dot, letter_before = (text[position - k] if position >= k else "" for k in (1, 2, 3))
    word_start = position < 4 or not text[position - 4].isalnum()
    return letter.isalpha() and dot == "." and letter_before.isalpha() and word_start


def _ends_enumerator(text: str, start: int, position: int) -> bool:
    """``1.`` opening a piece (``**1. Title**``, a cell "2. Step") numbers it; it ends nothing."""
    digits = position
    while digits > start and text[digits - 1].isdigit():
        digits -= 1
    if digits == position or digits - start > 8:  # (not sliced first: a long piece made this quadratic)
        return False
    return not any(character.isalnum() for character in text[start:digits])


def _after_closers(text: str, start: int, position: int, end: int, english: bool) -> int:
    """Past the quotes, brackets and emphasis that close the sentence starting at ``start``."""
    while position < end and text[position] in _CLOSERS:
        if text[position] not in _EMPHASIS:
            position += 1
            continue
        run_end = position
        while run_end < end and text[run_end] == text[position]:
            run_end += 1
        if not _closes_emphasis(text, start, (position, run_end), end, english):
            break
        position = run_end
    return position


def _closes_emphasis(text: str, start: int, run: Span, end: int, english: bool) -> bool:
    """Before a space or punctuation emphasis closes (CommonMark's flanking rule). Before a letter it
    would open in English; Japanese has no spaces, so there it closes when the sentence opened it:
    ``**東京です。**大阪`` closes, ``東京です。**大阪**`` opens."""
    if run[1] == end or text[run[1]].isspace() or _is_punctuation(text[run[1]]):
        return True
    mark = text[run[0] : run[1]]
    return not english and text.count(mark, start, run[0]) % 2 == 1


def _is_punctuation(character: str) -> bool:
    return unicodedata.category(character)[0] in "PS"


def _after_markers(text: str, position: int, end: int, marker_ends: dict[int, int]) -> int:
    """Past the citation markers that follow (``。[1]``, ``. [2][3]``): they cite the sentence before."""
    while True:
        marker = position
        while marker < end and text[marker] in _HORIZONTAL_SPACE:
            marker += 1
        marker_end = marker_ends.get(marker)
        if marker_end is None:
            match = MARKER.match(text, marker, end) or _LINK_TRAILER.match(text, marker, end)
            marker_end = match.end() if match else None
        if marker_end is None or marker_end > end or marker_end <= marker:
            return position
        position = marker_end


def _within_length(text: str, span: Span, marker_ends: dict[int, int]) -> list[Span]:
    """``span`` in pieces of at most MAX_STATEMENT_CHARS, cut at a space where there is one in the
    second half of a piece, and never inside a marker."""
    start, end = span
    pieces = []
    while end - start > MAX_STATEMENT_CHARS:
        limit = start + MAX_STATEMENT_CHARS
        space = max(text.rfind(" ", start + MAX_STATEMENT_CHARS // 2, limit), text.rfind("\n", start, limit))
        cut = space if space > start + MAX_STATEMENT_CHARS // 2 else _outside_marker(text, start, limit, marker_ends)
        pieces.append(_stripped(text, start, cut))
        # Where the rest's text starts, found without copying the rest (once per piece: quadratic).
        text_starts = _NOT_SPACE.search(text, cut, end)
        start = text_starts.start() if text_starts else cut
    return [*pieces, (start, end)]


def _outside_marker(text: str, start: int, cut: int, marker_ends: dict[int, int]) -> int:
    """``cut``, or the start of the marker it would fall inside (markers are short: a few positions back)."""
    for begin in range(cut - 1, max(start, cut - _LONGEST_MARKER), -1):
        if marker_ends.get(begin, begin) > cut:
            return begin
    return cut


def _stripped(text: str, start: int, end: int) -> Span:
    piece = text[start:end]
    stripped = piece.strip()
    if not stripped:
        return start, start
    leading = len(piece) - len(piece.lstrip())
    return start + leading, start + leading + len(stripped)


def _has_words(piece: str) -> bool:
    """A letter or digit once markers and tags are gone; Markdown syntax holds neither."""
    return any(character.isalnum() for character in _HTML_TAG.sub("", DOC_MARKER.sub("", MARKER.sub("", piece))))


def _citation_place(citation: dict[str, Any]) -> tuple[int, bool]:
    """The position that decides a citation's statement, and whether it is an insertion point."""
    if citation.get("marker") is not None:
        return citation["start"], False
    if citation["start"] == citation["end"]:
        return citation["start"], True  # an OpenAI file citation: the point where the sentence ends
    return citation["end"] - 1, False  # a cited span belongs where it ends


def _homes(spans: list[tuple[int, int, bool]], places: list[tuple[int, bool]]) -> list[int]:
    """The statement each place belongs to: the last that starts at or before it (so whitespace and
    dropped pieces between statements go to the one before), or the first."""
    homes = [0] * len(places)
    current = 0
    for number in sorted(range(len(places)), key=lambda n: places[n][0]):
        position, insertion = places[number]
        while current + 1 < len(spans) and spans[current + 1][0] <= position:
            current += 1
        ends_previous = insertion and current > 0 and spans[current - 1][1] == position
        homes[number] = current - 1 if ends_previous else current
    return homes


def _grouped(homes: list[int], count: int) -> list[list[int]]:
    groups: list[list[int]] = [[] for _ in range(count)]
    for number, home in enumerate(homes):
        groups[home].append(number)
    return groups
