"""What reading a dump's bytes gives: its JSON values, in order, and how they were laid out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import phrase

if TYPE_CHECKING:
    from citeview.core.framing.eventstream import DamagedMessage

LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class DumpReading:
    """A dump's JSON values as its layout's reader reads them: ``values`` gives each once, a stream's a
    part of the file at a time (the values of the parts before are not kept). What the reading found
    on the way (a cut, strings repaired, damaged messages) is known once every value is read."""

    framing: str  # "json" | "json-array" | "jsonl" | "sse" | "eventstream"
    values: Iterator[Any]
    done_marker: bool = False  # an SSE `data: [DONE]` line was seen
    cut_off: bool = False  # the last event was cut off mid-way and dropped
    repaired_strings: int = 0  # strings whose lone surrogates were replaced by U+FFFD
    # Messages of an event stream that could not be read; each also stands among the values, where it was.
    damaged: list[DamagedMessage] = field(default_factory=list)
    # Runs of a recorder's frames that could not be read into payloads (framing/recorded.py).
    damaged_frames: int = 0
    failure: DumpError | None = None  # what ended ``values`` before the dump's end: its bytes' problem

    def repaired(self, values: list[Any], raw: bytes) -> list[Any]:
        """``values`` (read from ``raw``) with what text cannot hold replaced, counted."""
        from citeview.core.framing.strict_json import MAY_HOLD_UNSHOWABLE, repair_unshowable

        if b"\\u" in raw and MAY_HOLD_UNSHOWABLE.search(raw):  # (the first test is the quicker)
            self.repaired_strings += repair_unshowable(values)
        return values


@dataclass
class FramedDump:
    """The JSON values of a dump, in order, and how they were laid out: a whole reading, or what a
    layout's reader makes of a whole document (one JSON value, JSON Lines)."""

    framing: str  # "json" | "json-array" | "jsonl" | "sse" | "eventstream"
    values: list[Any]
    done_marker: bool = False  # an SSE `data: [DONE]` line was seen
    cut_off: bool = False  # the last event was cut off mid-way and dropped
    repaired_strings: int = 0  # strings whose lone surrogates were replaced by U+FFFD
    depth_checked: bool = False  # no value nests deeper than MAX_DEPTH
    # Messages of an event stream that could not be read; each also stands among the values, where it was.
    damaged: list[DamagedMessage] = field(default_factory=list)
    # Runs of a recorder's frames that could not be read into payloads (framing/recorded.py).
    damaged_frames: int = 0


MAX_DEPTH = 64  # provider responses nest a dozen levels; far deeper is an attack or a mistake


def decode_dump_text(raw: bytes, offset: int = 0) -> tuple[str, bool]:
    """The dump (or a part of it, ``offset`` bytes in) as text, and whether its last character was
    cut off (a stream saved mid-character). A byte-order mark is dropped at the dump's start only."""
    try:
        text, cut = raw.decode("utf-8"), False
    except UnicodeDecodeError as exc:
        if not (exc.reason == "unexpected end of data" and exc.end == len(raw)):
            raise _not_utf8(raw[exc.start], offset + exc.start) from None
        text, cut = raw[: exc.start].decode("utf-8", errors="strict"), True
    # A UTF-8 byte-order mark carries no content.
    return (text.removeprefix("\ufeff") if offset == 0 else text), cut


def _not_utf8(byte: int, offset: int) -> DumpError:
    return DumpError(
        "not_utf8",
        phrase(
            "The dump is not valid UTF-8 (byte 0x{byte:02x} at offset {offset}). Save it as UTF-8: "
            "Shift_JIS, EUC-JP and other encodings are not read.",
            byte=byte,
            offset=offset,
        ),
    )
