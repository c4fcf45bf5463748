"""Offsets in other units than code points (UTF-8 bytes, UTF-16 units) converted to code points, and the
one rule that finds a quote again near where its offsets point. Placing a span with them, and saying
why it could not be placed, is :mod:`citeview.core.parsing.placing`."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Literal, TypeVar

NEAR_CHARS = 64  # how far from its offset a quote may be found again and still count as its place
# A shorter quote ("**", ".", "7") would be found near any offset by chance: it is never looked for.
NEAR_MIN_CHARS = 4


# In UTF-8 every code point has exactly one byte that is not a continuation byte (0x80-0xBF), so the
# code points before a byte offset are the bytes before it less the continuation bytes among them.
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
_STRIDE = 1024  # bytes between the code-point counts kept, so each conversion reads at most this many


class ByteOffsets:
    """UTF-8 byte offsets of one text, turned into code-point offsets.

    One pass over the text keeps the code-point count at every ``_STRIDE``-th byte; a conversion
    then counts only from the nearest of those. Linear in the text and in the number of offsets,
    whatever their order, in memory a fraction of the text's."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8", errors="surrogatepass")
        self._size = len(self.data)
        self._counts = [0]
        for stride_start in range(0, len(self.data) - _STRIDE + 1, _STRIDE):
            self._counts.append(self._counts[-1] + _codepoints_in(self.data[stride_start : stride_start + _STRIDE]))
        # The last offset converted and its count: offsets mostly come in order (a support per
        # sentence), and the next one is then counted from there, over the bytes between the two.
        self._last_byte = 0
        self._last_count = 0

    def codepoint(self, byte_offset: int) -> int | None:
        """The code point at ``byte_offset``; None when the offset falls inside a character or past the end."""
        if not 0 <= byte_offset <= self._size:
            return None
        if byte_offset < self._size and 0x80 <= self.data[byte_offset] < 0xC0:  # a continuation byte
            return None
        return self.codepoints_before(byte_offset)

    def codepoints_before(self, byte_offset: int) -> int:
        """How many code points start before ``byte_offset`` (which may fall inside a character)."""
        last = self._last_byte
        if last <= byte_offset < last + _STRIDE:  # (_codepoints_in, written out: once per offset)
            count = self._last_count + len(self.data[last:byte_offset].translate(None, _CONTINUATION_BYTES))
        else:
            start = byte_offset - byte_offset % _STRIDE
            count = self._counts[start // _STRIDE] + len(
                self.data[start:byte_offset].translate(None, _CONTINUATION_BYTES)
            )
        self._last_byte, self._last_count = byte_offset, count
        return count

    def in_range(self, byte_offset: int) -> bool:
        return 0 <= byte_offset <= self._size


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Utf16Offsets:
    """UTF-16 code-unit offsets of one text turned into code points.

    Only the astral characters (two units each: emoji, some kanji) are kept, so a conversion is a
    binary search and the memory is in proportion to them, not to the text."""

    def __init__(self, text: str) -> None:
        self.text_length = len(text)
        self.astral = [match.start() for match in _ASTRAL.finditer(text)]  # in code points
        self._unit_starts = [point + number for number, point in enumerate(self.astral)]  # in units
        self.unit_length = self.text_length + len(self.astral)

    @property
    def has_astral(self) -> bool:
        """Whether UTF-16 units and code points differ anywhere in the text."""
        return bool(self.astral)

    def codepoint(self, unit: int) -> int | None:
        """The code point at UTF-16 offset ``unit``; None inside a surrogate pair or outside the text."""
        if not 0 <= unit <= self.unit_length:
            return None
        before = bisect.bisect_left(self._unit_starts, unit)  # astral characters that start before ``unit``
        if before and self._unit_starts[before - 1] + 1 == unit:
            return None
        return unit - before

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """The code points at UTF-16 offsets ``start`` <= ``end``; None if either is inside a
        surrogate pair or outside the text (``codepoint`` twice, in one call: asked per citation)."""
        if start < 0 or end > self.unit_length:
            return None
        starts = self._unit_starts
        before_start = bisect.bisect_left(starts, start)
        before_end = bisect.bisect_left(starts, end, before_start)
        if (before_start and starts[before_start - 1] + 1 == start) or (
            before_end and starts[before_end - 1] + 1 == end
        ):
            return None
        return start - before_start, end - before_end

    def any_astral_before(self, point: int) -> bool:
        return bisect.bisect_left(self.astral, point) > 0


# What a provider's offsets count.
Unit = Literal["code_points", "utf16", "utf8"]


def codepoint_span(text: str, start: int, end: int, unit: Unit) -> tuple[int, int] | None:
    """The code-point span that offsets ``start``..``end`` in ``unit`` denote in ``text``; None when
    they run backwards, past the text, or inside a character."""
    if not 0 <= start <= end:
        return None
    if unit == "code_points" or text.isascii():
        return (start, end) if end <= len(text) else None  # the units agree on this text
    if unit == "utf16":
        return kept_utf16_offsets(text).span(start, end)
    converter = kept_byte_offsets(text)
    first, last = converter.codepoint(start), converter.codepoint(end)
    return (first, last) if first is not None and last is not None else None


# Asked once per citation of the same text: made once per text and kept by the text's identity, not
# its value, since a cache by value compares the whole text each time it is asked.
_KEPT = 8
_Converter = TypeVar("_Converter", Utf16Offsets, ByteOffsets)
_kept_utf16: dict[int, tuple[str, Utf16Offsets]] = {}
_kept_utf8: dict[int, tuple[str, ByteOffsets]] = {}
_last_utf16: list[tuple[str, Utf16Offsets] | None] = [None]


def forget_kept_offsets() -> None:
    """Let go of every text kept with its tables: a dump's texts are kept while it is parsed, and
    not past it (a worker would otherwise hold a large answer and its UTF-8 bytes between dumps)."""
    _kept_utf16.clear()
    _kept_utf8.clear()
    _last_utf16[0] = None


def kept_utf16_offsets(text: str) -> Utf16Offsets:
    """:class:`Utf16Offsets` of ``text``, made once while the same text object is asked about."""
    last = _last_utf16[0]  # asked once per citation, mostly of the same text as the last: answered first
    if last is not None and last[0] is text:
        return last[1]
    converter = _kept_converter(_kept_utf16, Utf16Offsets, text)
    _last_utf16[0] = (text, converter)
    return converter


def kept_byte_offsets(text: str) -> ByteOffsets:
    """:class:`ByteOffsets` of ``text``, made once while the same text object is asked about."""
    return _kept_converter(_kept_utf8, ByteOffsets, text)


def _kept_converter(
    kept: dict[int, tuple[str, _Converter]], make: Callable[[str], _Converter], text: str
) -> _Converter:
    found = kept.get(id(text))
    if found is not None and found[0] is text:
        if next(reversed(kept)) != id(text):  # the latest asked is kept longest: the answer over its blocks
            kept[id(text)] = kept.pop(id(text))
        return found[1]
    converter = make(text)
    if len(kept) >= _KEPT:
        del kept[next(iter(kept))]
    kept[id(text)] = (text, converter)
    return converter


def approximate_codepoint(offsets: ByteOffsets, byte_offset: int) -> int:
    """The code point at or before ``byte_offset``, the offset first brought inside the text."""
    return offsets.codepoints_before(max(0, min(byte_offset, len(offsets.data))))


def _codepoints_in(data: bytes) -> int:
    return len(data.translate(None, _CONTINUATION_BYTES))


def find_near(text: str, wanted: str, around: int, window: int = NEAR_CHARS) -> int | None:
    """Where ``wanted`` stands in ``text`` within ``window`` characters of ``around``, when it stands
    there exactly once; None when it is shorter than NEAR_MIN_CHARS, absent or there several times.
    A fixed window keeps each search's cost the same however long the text."""
    if len(wanted.strip()) < NEAR_MIN_CHARS:
        return None
    window_start = max(0, around - window - len(wanted))
    window_end = min(len(text), around + window + len(wanted))
    first = text.find(wanted, window_start, window_end)
    if first < 0 or text.find(wanted, first + 1, window_end) >= 0:
        return None
    return first
