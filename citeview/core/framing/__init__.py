"""Reading a dump's bytes into JSON values: one object, a JSON array, JSON Lines (``jsonl``), SSE text
(``sse``), or AWS's binary event stream (``eventstream``); the values read strictly (``strict_json``).
This module chooses the layout.

Every way a dump can be unreadable ends here in one :class:`DumpError` that names what is wrong.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

from citeview.core.errors import DumpError
from citeview.core.framing.eventstream import (
    looks_like_event_stream,
    plain_event_stream_values,
    read_framed_event_stream,
)
from citeview.core.framing.framed import LINE_BREAK, MAX_DEPTH, FramedDump, Unproven
from citeview.core.framing.jsonl import json_document, read_json_or_jsonl
from citeview.core.framing.recorded import is_recorded_frames, unwrap_recorded_frames
from citeview.core.framing.sse import lined_sse_values, looks_like_sse, read_lined_sse, read_simple_sse, read_sse
from citeview.core.framing.strict_json import (
    MAY_HOLD_UNSHOWABLE,
    UNPROVEN,
    json_error,
    loads_strict,
    proven_and_checked,
    refuse_deep,
    repair_unshowable,
)
from citeview.core.phrases import phrase

__all__ = [
    "LINE_BREAK",
    "MAX_DEPTH",
    "FramedDump",
    "StreamedDump",
    "Unproven",
    "decode_dump_text",
    "json_error",
    "loads_strict",
    "read_dump",
    "refuse_what_is_not_text",
    "stream_dump",
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


def read_dump(raw: bytes) -> FramedDump:
    # Binary, so before the text checks (its NUL bytes): a prelude whose checksum holds is no accident.
    dump = read_framed_event_stream(raw) if looks_like_event_stream(raw) else _read_text_dump(raw)
    if dump.framing == "jsonl" and is_recorded_frames(dump.values):
        dump = unwrap_recorded_frames(dump)  # its payloads are checked below as any values are
    if not (dump.depth_checked or raw.count(b"{") + raw.count(b"[") <= MAX_DEPTH):
        refuse_deep(dump.values)
    if b"\\u" in raw and MAY_HOLD_UNSHOWABLE.search(raw):  # (the first test is the quicker)
        dump.repaired_strings = repair_unshowable(dump.values)
    return dump


@dataclass
class StreamedDump:
    """A stream's values read a part at a time, as they are asked for (``stream_dump``): each is
    given once, and the values of the parts before are not kept."""

    framing: str  # "sse" | "eventstream"
    values: Iterator[Any]
    repaired_strings: int = 0  # as ``FramedDump``'s, once every value is read

    def repaired(self, part: list[Any]) -> list[Any]:
        """A part's values with what text cannot hold replaced (``repair_unshowable``), counted."""
        self.repaired_strings += repair_unshowable(part)
        return part


def stream_dump(raw: bytes) -> StreamedDump | None:
    """The values of a stream laid out as servers write it (SSE, or AWS's event stream), read as
    ``read_dump`` reads them but a part at a time, or None for any other dump. Iterating raises
    :class:`Unproven` at a part ``read_dump`` would read otherwise: read the dump with it then."""
    if looks_like_event_stream(raw):
        parts, framing = plain_event_stream_values(raw), "eventstream"
    else:
        refuse_what_is_not_text(raw)
        lined = lined_sse_values(raw) if raw.startswith((b"data:", b"event:")) else None
        if lined is None:
            return None
        parts, framing = lined, "sse"
    dump = StreamedDump(framing, iter(()))
    if b"\\u" in raw and MAY_HOLD_UNSHOWABLE.search(raw):
        parts = map(dump.repaired, parts)
    dump.values = chain.from_iterable(parts)
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
    """The fast reading of the two layouts most dumps have: a stream as servers write it, or one JSON
    document. None when the dump is laid out otherwise, or anything in it needs the careful reader
    (which also says exactly what is wrong)."""
    start = raw[:4096].lstrip()[:1]  # (not the whole dump: that would copy it to read one byte)
    if start in (b"{", b"["):
        value, depth_checked = proven_and_checked(raw)
        if value is UNPROVEN:
            return None
        dump = json_document(value)
        dump.depth_checked = depth_checked
        return dump
    if raw.startswith((b"data:", b"event:")):
        return read_lined_sse(raw) or read_simple_sse(raw)
    return None


def _read_text(text: str) -> FramedDump:
    stripped = text.lstrip()
    if stripped.startswith("<"):
        raise DumpError(
            "html",
            phrase(
                "This is an HTML page, not an API response. Save the response body (JSON or the event "
                "stream) rather than the web page that showed it."
            ),
        )
    if looks_like_sse(stripped):
        return read_sse(text)
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


def decode_dump_text(raw: bytes) -> tuple[str, bool]:
    """The dump as text, and whether its last character was cut off (a stream saved mid-character)."""
    try:
        text = raw.decode("utf-8")
        cut = False
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data" and exc.end == len(raw):
            return raw[: exc.start].decode("utf-8", errors="strict").removeprefix("\ufeff"), True
        bad = raw[exc.start]
        raise DumpError(
            "not_utf8",
            phrase(
                "The dump is not valid UTF-8 (byte 0x{byte:02x} at offset {offset}). Save it as UTF-8: "
                "Shift_JIS, EUC-JP and other encodings are not read.",
                byte=bad,
                offset=exc.start,
            ),
        ) from None
    return text.removeprefix("\ufeff"), cut  # a UTF-8 byte-order mark carries no content


def _preview(text: str, limit: int = 24) -> str:
    head = text[:limit]
    return repr(head + ("…" if len(text) > limit else ""))
