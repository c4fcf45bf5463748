"""Reading a dump's bytes into JSON values: one object, a JSON array, JSON Lines (``jsonl``), SSE text
(``sse``), or AWS's binary event stream (``eventstream``); the values read strictly (``strict_json``).
This module chooses the layout.

Every way a dump can be unreadable ends here in one :class:`DumpError` that names what is wrong.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from itertools import chain
from typing import IO, Any

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import phrase
from citeview.core.framing.eventstream import event_stream_values, looks_like_event_stream
from citeview.core.framing.framed import LINE_BREAK, MAX_DEPTH, DumpReading, FramedDump, decode_dump_text
from citeview.core.framing.jsonl import json_document, read_json_or_jsonl
from citeview.core.framing.recorded import is_recorded_frames, unwrap_recorded_frames
from citeview.core.framing.source import PART_BYTES, DumpFile
from citeview.core.framing.sse import looks_like_sse, sse_values
from citeview.core.framing.strict_json import (
    UNPROVEN,
    json_error,
    loads_strict,
    proven_and_checked,
    refuse_deep,
)

__all__ = [
    "LINE_BREAK",
    "MAX_DEPTH",
    "DumpFile",
    "DumpReading",
    "FramedDump",
    "decode_dump_text",
    "json_error",
    "loads_strict",
    "read_dump",
    "read_in_parts",
    "refuse_what_is_not_text",
]

# Signatures of files people save by mistake instead of the response body.
_BINARY_SIGNATURES = {
    b"%PDF": phrase("This is a PDF document, not a saved API response."),
    b"\x89PNG": phrase("This is a PNG image, not a saved API response."),
    b"\xff\xd8\xff": phrase("This is a JPEG image, not a saved API response."),
    b"GIF8": phrase("This is a GIF image, not a saved API response."),
    b"PK\x03\x04": phrase("This is a ZIP archive (or an Office document), not a saved API response."),
    b"\x1f\x8b": phrase("This is a gzip-compressed file, not a saved API response."),
}

_HEAD_BYTES = 8192  # what is looked at to tell the layout (and the binary files, by their NUL bytes)


def read_in_parts(source: DumpFile) -> DumpReading:
    """The values of the dump in ``source``, read by its layout's reader: a stream (SSE, AWS's event
    stream) a part at a time as the values are asked for, any other layout whole (one JSON document,
    JSON Lines). Raises :class:`DumpError` for a dump that cannot be read, when the reading comes to it."""
    head = source.peek(_HEAD_BYTES)
    # Binary, so before the text checks (its NUL bytes): a prelude whose checksum holds is no accident.
    if looks_like_event_stream(head):
        reading = DumpReading("eventstream", iter(()))
        reading.values = chain.from_iterable(_failure_kept(event_stream_values(source, reading), reading))
        return reading
    if _is_sse(source):
        reading = DumpReading("sse", iter(()))
        reading.values = chain.from_iterable(_failure_kept(sse_values(source, reading), reading))
        return reading
    dump = _read_document(source.rest())
    return DumpReading(
        dump.framing,
        iter(dump.values),
        done_marker=dump.done_marker,
        cut_off=dump.cut_off,
        repaired_strings=dump.repaired_strings,
        damaged_frames=dump.damaged_frames,
    )


def _failure_kept(parts: Iterator[list[Any]], reading: DumpReading) -> Iterator[list[Any]]:
    """The parts' values, the error that ends them kept in the reading (``DumpReading.failure``)."""
    try:
        yield from parts
    except DumpError as error:
        reading.failure = error
        raise


def read_dump(dump: bytes | IO[bytes]) -> FramedDump:
    """The whole reading: every value of the dump at once, read by ``read_in_parts``."""
    reading = read_in_parts(DumpFile(dump))
    values = list(reading.values)
    return FramedDump(
        reading.framing,
        values,
        done_marker=reading.done_marker,
        cut_off=reading.cut_off,
        repaired_strings=reading.repaired_strings,
        depth_checked=True,
        damaged=reading.damaged,
        damaged_frames=reading.damaged_frames,
    )


def _is_sse(source: DumpFile) -> bool:
    """Whether the dump is laid out as SSE, told from its first bytes (more when they are blank); not
    when they are no UTF-8 (the whole reading says where), nor no text."""
    size = _HEAD_BYTES
    while True:
        head = source.peek(size)
        ended = len(head) < size
        try:  # (a character cut at the head's end is read with the next part; at the dump's, it is cut off)
            if ended:
                text = decode_dump_text(head)[0]
            else:
                text = codecs.getincrementaldecoder("utf-8")().decode(head).removeprefix("\ufeff")
        except (DumpError, UnicodeDecodeError):
            return False
        stripped = text.lstrip()
        if len(stripped) >= 16 or ended:
            break
        size += PART_BYTES
    if not stripped:
        return False  # blank: the whole reading says it is empty
    refuse_what_is_not_text(head)
    return not stripped.startswith("<") and looks_like_sse(stripped)


def _read_document(raw: bytes) -> FramedDump:
    """A dump laid out as one JSON document or JSON Lines, read whole (or the error for any other)."""
    dump = _read_text_dump(raw)
    if dump.framing == "jsonl" and is_recorded_frames(dump.values):
        dump = unwrap_recorded_frames(dump)  # its payloads are checked below as any values are
    if not (dump.depth_checked or raw.count(b"{") + raw.count(b"[") <= MAX_DEPTH):
        refuse_deep(dump.values)
    reading = DumpReading(dump.framing, iter(()))
    reading.repaired(dump.values, raw)
    dump.repaired_strings = reading.repaired_strings
    return dump


def _read_text_dump(raw: bytes) -> FramedDump:
    refuse_what_is_not_text(raw)
    dump = _read_proven(raw.removeprefix(codecs.BOM_UTF8))
    if dump is None:
        text, cut_in_character = decode_dump_text(raw)
        dump = _read_text(text)
        if cut_in_character and dump.framing in ("json", "json-array"):
            raise DumpError("truncated_json", phrase("The dump ends in the middle of a character: it looks cut off."))
        dump.cut_off = dump.cut_off or cut_in_character
    return dump


def _read_proven(raw: bytes) -> FramedDump | None:
    """The fast reading of one JSON document. None when the dump is laid out otherwise, or anything in
    it needs the careful reader (which also says exactly what is wrong)."""
    start = raw[:4096].lstrip()[:1]  # (not the whole dump: that would copy it to read one byte)
    if start in (b"{", b"["):
        value, depth_checked = proven_and_checked(raw)
        if value is UNPROVEN:
            return None
        dump = json_document(value)
        dump.depth_checked = depth_checked
        return dump
    return None


def _read_text(text: str) -> FramedDump:
    """A text that is no stream (``_is_sse`` said so first)."""
    stripped = text.lstrip()
    if stripped.startswith("<"):
        raise DumpError(
            "html",
            phrase(
                "This is an HTML page, not an API response. Save the response body (JSON or the event "
                "stream) rather than the web page that showed it."
            ),
        )
    if stripped[:1] in ("{", "["):
        return read_json_or_jsonl(text)
    raise DumpError(
        "invalid_json",
        phrase("This is not JSON, JSON Lines or an event stream: it starts with {start}.", start=_preview(stripped)),
    )


def refuse_what_is_not_text(raw: bytes) -> None:
    """Refuse at once what is plainly no saved response: nothing, UTF-16, a PDF or an image."""
    if not raw or raw.isspace():  # (not raw.strip(), which copies the dump)
        raise DumpError("empty", phrase("The dump is empty: paste or upload a saved API response."))
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise DumpError(
            "not_utf8", phrase("The dump is UTF-16 text; citeview reads UTF-8. Save it as UTF-8 and try again.")
        )
    for signature, message in _BINARY_SIGNATURES.items():
        if raw.startswith(signature):
            raise DumpError("binary", message)
    if b"\x00" in raw[:8192]:
        raise DumpError("binary", phrase("The dump contains binary data (NUL bytes), not a saved API response."))


def _preview(text: str, limit: int = 24) -> str:
    head = text[:limit]
    return repr(head + ("…" if len(text) > limit else ""))
