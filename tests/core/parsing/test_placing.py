"""The one placement step: offsets a provider declares in UTF-8 bytes, UTF-16 units or code points,
end exclusive or inclusive, placed on a text where those units differ (Japanese, emoji); offsets
that do not fit; and a quote found again near where they point."""

from __future__ import annotations

import pytest

from citeview.core.common.model import Response
from citeview.core.common.phrases import phrase
from citeview.core.parsing.offsets import ByteOffsets
from citeview.core.parsing.placing import (
    CODE_POINTS,
    UTF8,
    UTF16,
    Reading,
    fitting,
    note_placement,
    note_where,
    place_byte_span,
    place_checked,
    reanchor,
)

# "東京" is 2 code points, 2 UTF-16 units and 6 UTF-8 bytes; "😀" is 1 code point, 2 UTF-16 units and 4 bytes.
TEXT = "東京😀は晴れ。Tokyo is sunny."
QUOTE = "は晴れ"  # code points 3..6


def _offsets(quote: str, reading: Reading) -> tuple[int, int]:
    """Where ``quote`` stands in TEXT, counted the way ``reading`` counts."""
    start = TEXT.index(quote)
    before, through = TEXT[:start], TEXT[: start + len(quote)]
    encoding = {"utf8": "utf-8", "utf16": "utf-16-le", "code_points": None}[reading.unit]
    size = {"utf8": 1, "utf16": 2}.get(reading.unit, 1)
    first, last = (
        (len(before.encode(encoding)) // size, len(through.encode(encoding)) // size)
        if encoding
        else (len(before), len(through))
    )
    return first, last - 1 if reading.end_inclusive else last


@pytest.mark.parametrize(
    "reading",
    [CODE_POINTS, UTF16, UTF8, Reading("code_points", end_inclusive=True), Reading("utf16", end_inclusive=True)],
)
def test_a_span_in_each_declared_reading_lands_on_the_same_characters(reading):
    start, end = _offsets(QUOTE, reading)
    placement = fitting(TEXT, start, end, [reading], QUOTE.__eq__)
    assert placement is not None
    assert TEXT[placement.start : placement.end] == QUOTE
    assert placement.reading == reading


def test_the_three_units_give_three_different_numbers_for_one_japanese_and_emoji_span():
    assert {_offsets(QUOTE, reading) for reading in (CODE_POINTS, UTF16, UTF8)} == {(3, 6), (4, 7), (10, 19)}


def test_readings_are_tried_in_the_declared_order_and_the_first_that_fits_places_the_span():
    start, end = _offsets(QUOTE, UTF16)
    placement = place_checked(TEXT, start, end, (CODE_POINTS, UTF16, UTF8), QUOTE.__eq__)
    assert (placement.start, placement.end, placement.problem) == (3, 6, None)
    assert placement.reading == UTF16


def test_asking_for_every_reading_lists_each_one_that_fits():
    ascii_text = "Tokyo is sunny."
    placement = place_checked(ascii_text, 0, 5, (CODE_POINTS, UTF16, UTF8), "Tokyo".__eq__, every=True)
    assert placement.fitted == (CODE_POINTS, UTF16, UTF8)  # plain ASCII: the units agree


def test_offsets_inside_an_emoji_fit_no_unit():
    # UTF-16 unit 3 is the middle of 😀's surrogate pair; byte 8 is inside its four bytes
    assert UTF16.span(TEXT, 3, 5) is None
    assert UTF8.span(TEXT, 8, 10) is None


def test_a_span_that_fits_the_text_but_holds_other_words_stays_as_given_with_a_mismatch():
    placement = place_checked(TEXT, 0, 2, (CODE_POINTS, UTF16), "大阪".__eq__)
    assert (placement.start, placement.end, placement.problem) == (0, 2, "segment_text_mismatch")


def test_a_span_past_the_text_is_not_placed_and_says_so_under_offset_out_of_range():
    response = Response(provider="test", api="test", streamed=False)
    placement = place_checked(TEXT, 5, 500, (CODE_POINTS, UTF16, UTF8), QUOTE.__eq__)
    assert placement.start is None and placement.problem == "offset_out_of_range"
    note_placement(response, placement, "warning", phrase("not placed"), start=5, end=500)
    assert [(d.code, d.severity, d.details) for d in response.diagnostics] == [
        ("offset_out_of_range", "warning", {"start": 5, "end": 500})
    ]


def test_a_quote_is_found_again_near_offsets_that_do_not_hold_it():
    text = "前置き。" + "東京😀は晴れのち曇り。" + "後書き。"
    placement = reanchor(text, "は晴れのち曇り", around=0, offsets_fit=True)
    assert text[placement.start : placement.end] == "は晴れのち曇り"
    assert placement.problem == "segment_text_mismatch"  # the offsets were text, the wrong text


def test_a_quote_that_stands_twice_nearby_is_not_placed_and_offsets_past_the_text_are_out_of_range():
    text = "は晴れのち曇り。は晴れのち曇り。"
    placement = reanchor(text, "は晴れのち曇り", around=0, offsets_fit=False)
    assert (placement.start, placement.problem) == (None, "offset_out_of_range")


def test_utf8_byte_spans_are_placed_or_found_again_by_their_quote():
    offsets = ByteOffsets(TEXT)
    quote = "は晴れ。Tokyo"  # long enough to be looked for again (a short one would be found by chance)
    start, end = _offsets(quote, UTF8)
    placed = place_byte_span(offsets, start, end, quote)
    assert (placed.start, placed.end, placed.problem) == (3, 12, None)
    cut = place_byte_span(offsets, start + 1, end, quote)  # inside は: found again, with what was wrong
    assert (cut.start, cut.end, cut.problem) == (3, 12, "offset_inside_character")


def test_a_placement_problem_is_written_in_the_providers_sentence_with_where_the_span_went():
    response = Response(provider="test", api="test", streamed=False)
    offsets = ByteOffsets(TEXT)
    placement = place_byte_span(offsets, 0, 900, QUOTE)  # far out, and the quote is not near byte 900
    note_where(
        response, placement, lambda detail, where: phrase("Support 1: {detail}; {where}.", detail=detail, where=where)
    )
    (diagnostic,) = response.diagnostics
    assert diagnostic.code == "offset_out_of_range"
    assert str(diagnostic.message) == "Support 1: bytes 0–900 but the text has 37 bytes; not placed."
