"""What reading a dump's bytes gives: its JSON values, in order, and how they were laid out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeview.core.framing.eventstream import DamagedMessage

LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class FramedDump:
    """The JSON values of a dump, in order, and how they were laid out."""

    framing: str  # "json" | "json-array" | "jsonl" | "sse" | "eventstream"
    values: list[Any]
    event_names: list[str | None] = field(default_factory=list)  # SSE `event:` names, parallel to values
    done_marker: bool = False  # an SSE `data: [DONE]` line was seen
    cut_off: bool = False  # the last event was cut off mid-way and dropped
    repaired_strings: int = 0  # strings whose lone surrogates were replaced by U+FFFD
    depth_checked: bool = False  # no value nests deeper than MAX_DEPTH
    # Messages of an event stream that could not be read; each also stands among the values, where it was.
    damaged: list[DamagedMessage] = field(default_factory=list)
    # Runs of a recorder's frames that could not be read into payloads (framing/recorded.py).
    damaged_frames: int = 0


MAX_DEPTH = 64  # provider responses nest a dozen levels; far deeper is an attack or a mistake


# A stream read a part at a time (``lined_sse_values``, ``plain_event_stream_values``) is read this
# much at a time: its values for a part are a few times the part, far below the whole stream's.
STREAMED_PART_BYTES = 1024 * 1024


class Unproven(Exception):
    """A part of a stream read a part at a time is not as the fast reader of the whole stream would
    read it: the stream is to be read whole, the careful way, which says what is wrong."""
