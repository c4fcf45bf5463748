"""A stream saved by a test recorder as JSON Lines of frames (OpenRouter's ai-sdk-provider keeps its
e2e fixtures so): ``{"json": <an SSE data payload, parsed>}``, ``{"text": <a piece of a payload>}``,
``{"comment": …}`` and ``{"delay_ms": …}``. The payloads are the stream; the rest is the recorder's.

Pieces of text are joined until the next parsed frame and read as the payloads they hold. Where the
recorder lost part of a payload (its pieces stop mid-string and run into the next event), that run
of pieces is counted as damaged and the frames after it are read."""

from __future__ import annotations

from typing import Any

from citeview.core.framing.framed import FramedDump
from citeview.core.framing.strict_json import STRICT_DECODER

_FRAME_KEYS = frozenset({"json", "text", "comment", "delay_ms"})


def is_recorded_frames(values: list[Any]) -> bool:
    """Whether every value is one of the recorder's frames, and some hold a payload."""
    if len(values) < 2:
        return False
    for value in values:
        if type(value) is not dict or len(value) != 1 or next(iter(value)) not in _FRAME_KEYS:
            return False
    return any("json" in value or "text" in value for value in values)


def unwrap_recorded_frames(dump: FramedDump) -> FramedDump:
    unwrapped = FramedDump("jsonl", [], cut_off=dump.cut_off)
    pieces: list[str] = []
    for frame in dump.values:
        if "json" in frame:
            _read_pieces(pieces, unwrapped)
            pieces = []
            unwrapped.values.append(frame["json"])
        elif frame.get("text") == "[DONE]":  # the stream's end, saved as a frame of its own
            _read_pieces(pieces, unwrapped)
            pieces = []
            unwrapped.done_marker = True
        elif isinstance(frame.get("text"), str):
            pieces.append(frame["text"])
    _read_pieces(pieces, unwrapped)
    return unwrapped


def _read_pieces(pieces: list[str], dump: FramedDump) -> None:
    """The payloads the joined pieces hold, added to ``dump``. A payload that cannot be read is
    counted as damaged, and the rest of the run left: nothing in it can be trusted to start one."""
    text = "".join(pieces).strip()
    at = 0
    while at < len(text):
        try:
            value, at = STRICT_DECODER.raw_decode(text, at)
        except (ValueError, RecursionError):
            dump.damaged_frames += 1
            return
        dump.values.append(value)
        while at < len(text) and text[at].isspace():
            at += 1
