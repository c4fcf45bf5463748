"""The one placement step: a provider declares what its offsets count, and this module places the span
on the text or writes why it could not.

A provider says which readings its offsets may have (:class:`Reading`: the unit, UTF-8 bytes, UTF-16
units or code points, and whether the end is inclusive), what the span should cover (its quote, or a
test such as "the link to this page"), and where to look again when the offsets do not fit (its
quote, near where they point). The step answers with a :class:`Placement`; the provider words the
sentence a reviewer reads, and the ``note_*`` functions here write it under its code. Every offset
diagnostic code is written in this module only (``tests/test_offset_codes.py`` holds that).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from citeview.core.common.model import Response
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.parsing.offsets import (
    NEAR_CHARS,
    ByteOffsets,
    Unit,
    approximate_codepoint,
    codepoint_span,
    find_near,
)

# The offset diagnostic codes, each written here and nowhere else.
_OUT_OF_RANGE = "offset_out_of_range"  # no offsets, or offsets that do not fit the text
_INSIDE_CHARACTER = "offset_inside_character"  # byte offsets that cut a character in two
_MISMATCH = "segment_text_mismatch"  # offsets that fit the text but hold other words than the span's own
_EMPTY = "empty_span"  # offsets that mark no text (start = end)
_UNIT = "offset_unit"  # which reading of the offsets placed the spans

OFFSET_CODES = (_OUT_OF_RANGE, _INSIDE_CHARACTER, _MISMATCH, _EMPTY, _UNIT)


@dataclass(frozen=True, slots=True)
class Reading:
    """One way a provider's offsets may count: their unit, and whether the end is inclusive."""

    unit: Unit = "code_points"
    end_inclusive: bool = False

    def span(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """The code-point span of ``text`` these offsets denote in this reading, if whole characters."""
        return codepoint_span(text, start, end + 1 if self.end_inclusive else end, self.unit)


CODE_POINTS = Reading("code_points")
UTF16 = Reading("utf16")
UTF8 = Reading("utf8")


@dataclass(slots=True)  # made once per citation of answers with hundreds of thousands: not frozen, which costs
class Placement:
    start: int | None  # code points; None when the span could not be placed
    end: int | None
    problem: str | None  # a diagnostic code, when the offsets did not simply fit
    detail: Phrase | None = None  # what was wrong with the offsets, for people
    reading: Reading | None = None  # the reading that fitted
    fitted: tuple[Reading, ...] = ()  # every reading that fitted, when all were asked for

    @property
    def placed(self) -> bool:
        return self.start is not None


def fitting(
    text: str, start: int, end: int, readings: Iterable[Reading], fits: Callable[[str], bool], *, every: bool = False
) -> Placement | None:
    """The span in the first of ``readings`` whose text ``fits``; None when none does. With ``every``,
    the placement also lists every reading that fits (to say once which unit a whole answer uses)."""
    found: Placement | None = None
    for reading in readings:
        last = end + 1 if reading.end_inclusive else end
        if reading.unit == "code_points":  # (codepoint_span's first case, written out: asked per citation)
            span = (start, last) if 0 <= start <= last <= len(text) else None
        else:
            span = codepoint_span(text, start, last, reading.unit)
        if span is None or not fits(text[span[0] : span[1]]):
            continue
        if found is None:
            found = Placement(span[0], span[1], None, None, reading)  # (by place: faster than by name)
            if not every:
                return found
        found.fitted += (reading,)
    return found


def place_checked(
    text: str,
    start: int,
    end: int,
    readings: Iterable[Reading],
    fits: Callable[[str], bool] | None,
    *,
    every: bool = False,
) -> Placement:
    """Place ``start``..``end`` in the first reading whose text ``fits`` (with no test, as code points).
    Offsets that fit in no reading stay where they point as code points, with a mismatch, when that is
    text; else they are not placed."""
    if fits is not None and (found := fitting(text, start, end, readings, fits, every=every)) is not None:
        return found
    if not 0 <= start < end <= len(text):
        return Placement(None, None, _OUT_OF_RANGE)
    if fits is None:
        return Placement(start, end, None, None, CODE_POINTS)
    return Placement(start, end, _MISMATCH)


def reanchor(text: str, quote: str | None, around: int, *, offsets_fit: bool, window: int = NEAR_CHARS) -> Placement:
    """Offsets that did not fit in any reading: the span is the quote where it stands once within
    ``window`` of ``around``, else nothing, never a guess. The problem is a mismatch when the offsets
    were a span of the text (``offsets_fit``, as the provider's readings count), else offsets out of
    range."""
    problem = _MISMATCH if offsets_fit else _OUT_OF_RANGE
    near = find_near(text, quote, around, window) if quote is not None else None
    if near is None or quote is None:
        return Placement(None, None, problem)
    return Placement(near, near + len(quote), problem)


def place_byte_span(offsets: ByteOffsets, start: int, end: int, expected_text: str | None) -> Placement:
    """Place a byte span on the text; check it against ``expected_text`` when the provider gave one.

    A span whose offsets do not fit is placed only where ``expected_text`` occurs exactly once near
    where the offsets point; otherwise it stays unplaced, never at a guessed position.
    """
    if not 0 <= start <= end <= len(offsets.data):
        problem = _OUT_OF_RANGE
        detail = phrase(
            "bytes {start}–{end} but the text has {size} bytes", start=start, end=end, size=len(offsets.data)
        )
    elif (cp_start := offsets.codepoint(start)) is None or (cp_end := offsets.codepoint(end)) is None:
        problem = _INSIDE_CHARACTER
        detail = phrase("bytes {start}–{end} cut a character in two", start=start, end=end)
    else:
        found = offsets.text[cp_start:cp_end]
        if expected_text is None or found == expected_text:
            return Placement(cp_start, cp_end, None)
        problem = _MISMATCH
        detail = phrase(
            "bytes {start}–{end} hold {found!r}, not {expected!r}",
            start=start,
            end=end,
            found=found[:40],
            expected=expected_text[:40],
        )
    near = find_near(offsets.text, expected_text, approximate_codepoint(offsets, start)) if expected_text else None
    if near is None:
        return Placement(None, None, problem, detail)
    # ``detail`` says what was wrong with the offsets, not where the span went: the caller's sentence
    # says that once ("placed where its text stands", or what it does with a span it cannot show).
    return Placement(near, near + len(expected_text or ""), problem, detail)


def outside_values(text: str, start: int, end: int) -> dict[str, int]:
    """What a sentence about a span outside its text names: the span's offsets and the text's length."""
    return {"start": start, "end": end, "length": len(text)}


# --- Writing what happened -------------------------------------------------------------------------


def note_placement(response: Response, placement: Placement, severity: str, message: Phrase, **details: object) -> None:
    """Why a span was not simply placed, under the code the placement found."""
    response.diagnose(placement.problem or _OUT_OF_RANGE, severity, message, **details)


def note_where(
    response: Response, placement: Placement, say: Callable[[Phrase | None, Phrase], Phrase], **details: object
) -> None:
    """A placement's problem, if any, in the provider's sentence ``say(detail, where)``, where
    ``where`` says whether the span was placed where its quote stands or not at all."""
    if not placement.problem:
        return
    where = phrase("placed where its text stands") if placement.placed else phrase("not placed")
    response.diagnose(placement.problem, "warning", say(placement.detail, where), **details)


def note_no_span(response: Response, message: Phrase, **details: object) -> None:
    """A span given without usable offsets (none, or not numbers, or outside the text)."""
    response.diagnose(_OUT_OF_RANGE, "warning", message, **details)


def note_marks_nothing(response: Response, message: Phrase, **details: object) -> None:
    """A span whose offsets mark no text."""
    response.diagnose(_EMPTY, "info", message, **details)


def note_unit(response: Response, message: Phrase, **details: object) -> None:
    """Which reading of the offsets placed the spans, where it was not the plain one."""
    response.diagnose(_UNIT, "info", message, **details)
