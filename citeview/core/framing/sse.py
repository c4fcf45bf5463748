"""Server-sent events: a stream as servers write it, read and proven in C, and any other as the
WHATWG spec reads it (comments, data over several lines, CR line ends, a cut)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import repeat
from operator import add
from typing import Any

import msgspec
import orjson

from citeview.core.errors import DumpError
from citeview.core.framing.framed import LINE_BREAK, MAX_DEPTH, STREAMED_PART_BYTES, FramedDump, Unproven
from citeview.core.framing.jsonl import each_line_alone
from citeview.core.framing.strict_json import (
    DECODER,
    MAY_ESCAPE_COLON,
    count_braces,
    count_brackets,
    json_error,
    loads_strict,
    refuse_deep,
    written_proof,
)
from citeview.core.phrases import phrase

SSE_FIELD_LINE = re.compile(r"^(data|event|id|retry)?:")


# One event per `data:` line, ended by a blank line, perhaps named by an `event:` line before it:
# streams as servers write them. Split on this, a whole stream is framed in C; a comment, an `id:`,
# data over several lines, CR line ends or a cut leave a gap between events for the careful reader.
# An event starts a line (``(?<![^\n])``): a line of 10,000 "event:" is read once, not from each.
_SIMPLE_SSE_EVENT = re.compile(
    rb"(?<![^\n])(?:event: ?([^\r\n]*)\r?\n)?data: ?([^\r\n]*)(?:(?:\r?\n){2,}|(?:\r?\n)?\Z)"
)


def read_simple_sse(raw: bytes) -> FramedDump | None:
    parts = _SIMPLE_SSE_EVENT.split(raw)
    if len(parts) < 4 or any(parts[0::3]):
        return None
    names, payloads = parts[1::3], parts[2::3]
    done_marker = payloads[-1].strip() == b"[DONE]"
    if done_marker:
        del names[-1], payloads[-1]
    try:
        values = _proven_events(list(map(orjson.loads, payloads)), payloads)
        event_names: list[str | None] = (
            [n.decode("utf-8") if n is not None else None for n in names] if any(names) else [None] * len(names)
        )
    except (ValueError, RecursionError, orjson.JSONEncodeError):  # decoding errors are ValueErrors
        return None  # the careful reader says which event is wrong, or reads a cut stream
    # A value nests no deeper than it has brackets: only events with many are walked.
    brackets = map(add, map(count_braces, payloads), map(count_brackets, payloads))
    refuse_deep([value for value, count in zip(values, brackets, strict=True) if count > MAX_DEPTH])
    return FramedDump("sse", values, event_names, done_marker=done_marker, depth_checked=True)


def read_lined_sse(raw: bytes) -> FramedDump | None:
    """A stream as servers write it, read without a regular expression: every event one ``data: ``
    line, each perhaps after one ``event: `` line, each followed by a blank line, ``\\n`` line ends.
    The lines are split and each field told by its place in C; the events are read by
    ``_proven_json``'s reader and proven all at once. None when the stream is laid out otherwise or
    anything in it needs a slower reader."""
    if not _may_be_lined(raw):
        return None
    read = _read_lined_part(raw, last=True)
    if read is None or not read[0]:
        return None
    values, names, done_marker = read
    return FramedDump("sse", values, names, done_marker=done_marker, depth_checked=True)


def lined_sse_values(raw: bytes) -> Iterator[list[Any]] | None:
    """``read_lined_sse``'s values, a part of the stream at a time (``STREAMED_PART_BYTES`` of it,
    cut after a blank line), so that a large stream's values are never all held at once. None when
    the stream cannot be laid out so; the iterator raises :class:`Unproven` at a part
    ``read_lined_sse`` would not have read, for the caller to read the stream the careful way."""
    if not _may_be_lined(raw):
        return None
    return _lined_parts(raw)


def _lined_parts(raw: bytes) -> Iterator[list[Any]]:
    named = raw.startswith(b"event: ")
    start, size, read_any = 0, len(raw), False
    while start < size:
        end = raw.find(b"\n\n", start + STREAMED_PART_BYTES)
        end = size if end == -1 or end + 2 >= size else end + 2
        part = raw[start:end]
        if part.startswith(b"event: ") != named:
            raise Unproven
        read = _read_lined_part(part, last=end == size)
        del part
        if read is None:
            raise Unproven
        read_any = read_any or bool(read[0])
        yield read[0]
        del read  # (before the next part is read: one part's values at a time)
        start = end
    if not read_any:
        raise Unproven


def _may_be_lined(raw: bytes) -> bool:
    return not (b"\r" in raw or MAY_ESCAPE_COLON in raw or not raw.endswith(b"\n\n"))


def _read_lined_part(raw: bytes, *, last: bool) -> tuple[list[Any], list[str | None], bool] | None:
    """The values and event names of a whole stream (``last``), or of a part of one that ends
    where an event does; and whether the stream ended with ``data: [DONE]``."""
    if raw.startswith(b"event: "):
        lines = raw.split(b"\n")
        count, rest = divmod(len(lines) - 1, 3)  # (event, data, blank) per event, and the last line end
        if rest or not count or any(lines[2:-1:3]):
            return None
        data, names_text = b"\n".join(lines[1:-1:3]), b"\n".join(lines[0:-1:3])
        del lines  # (each copy of the stream is let go as soon as the next is made: a dump's memory is bounded)
        # No line holds a line end: each starts with its field's name when the joined lines hold it so often.
        if not (names_text.startswith(b"event: ") and names_text.count(b"\nevent: ") == count - 1):
            return None
        try:
            names: list[str | None] = list(names_text[7:].decode("utf-8").split("\nevent: "))
        except UnicodeDecodeError:
            return None
        if not (data.startswith(b"data: ") and data.count(b"\ndata: ") == count - 1):
            return None
        colons = data.count(b":")
        payloads = data[6:].split(b"\ndata: ")
        del data
    else:
        if not raw.startswith(b"data: "):
            return None
        payloads = raw[6:-2].split(b"\n\ndata: ")
        count = len(payloads)
        # Only the line ends around the blank lines, so each event is one line, its data.
        if raw.count(b"\n") != 2 * count:
            return None
        names = [None] * count
        colons = raw.count(b":")
    done_marker = last and payloads[-1].strip() == b"[DONE]"
    if done_marker:
        del payloads[-1], names[-1]
    large = _large_events(payloads)
    try:
        values = _decoded_letting_go(payloads)
    except (msgspec.DecodeError, RecursionError):
        return None
    # Each data line's colon is its field's; the others are the payloads'.
    if not _events_proven(values, colons - count, large):
        return None
    return values, names, done_marker


def _decoded_letting_go(payloads: list[Any]) -> list[Any]:
    """Each payload decoded, a batch at a time, each batch's bytes let go once decoded (its places
    in ``payloads`` emptied): a stream's bytes and their values are never all held together."""
    values: list[Any] = []
    for start in range(0, len(payloads), _PROOF_BATCH):
        batch = payloads[start : start + _PROOF_BATCH]
        payloads[start : start + len(batch)] = repeat(None, len(batch))
        values.extend(map(DECODER.decode, batch))
    return values


def _large_events(payloads: list[bytes]) -> set[int]:
    """The places of the payloads over ``_LARGE_EVENT_BYTES``, looked for a batch at a time (the sum
    in C): most batches hold none."""
    large: set[int] = set()
    for start in range(0, len(payloads), _PROOF_BATCH):
        batch = payloads[start : start + _PROOF_BATCH]
        if sum(map(len, batch)) > _LARGE_EVENT_BYTES:
            large.update(start + i for i, payload in enumerate(batch) if len(payload) > _LARGE_EVENT_BYTES)
    return large


def _events_proven(values: list[Any], payload_colons: int, large: set[int]) -> bool:
    """Whether the events read hold every key their payloads do (``_proven_json``'s proof) and nest
    no deeper than ``MAX_DEPTH``: written indented, a batch of events at a time (so the writing
    stays small), the events' own members start four spaces in, a value n levels deep 2n in. A
    large event (a stream's last, repeating the whole answer) is written a piece at a time."""
    too_deep = b"\n" + b" " * (2 * MAX_DEPTH + 2)
    colons = 0
    for start in range(0, len(values), _PROOF_BATCH):
        batch = values[start : start + _PROOF_BATCH]
        for index in sorted((i for i in large if start <= i < start + _PROOF_BATCH), reverse=True):
            event_colons, event_too_deep = written_proof(batch.pop(index - start))
            if event_too_deep:
                return False
            colons += event_colons
        try:
            written = orjson.dumps(batch, option=orjson.OPT_INDENT_2)
        except orjson.JSONEncodeError:  # an integer beyond 64 bits, or nesting beyond orjson's reach
            return False
        if too_deep in written:
            return False
        colons += written.count(b":")
    return colons == payload_colons


_PROOF_BATCH = 1000  # events proven per call: few calls, and the copies made for it stay small


_LARGE_EVENT_BYTES = 64 * 1024  # an event this large is proven a piece at a time (written_proof)


def _proven_events(values: list[Any], payloads: list[bytes]) -> list[Any]:
    """``_proven_json``'s proof for events orjson decoded, a batch per call; an event of a batch that
    fails it is read again by ``loads_strict``."""
    for start in range(0, len(values), _PROOF_BATCH):
        end = min(start + _PROOF_BATCH, len(values))
        if orjson.dumps(values[start:end]) == b"[" + b",".join(payloads[start:end]) + b"]":
            continue
        for index in range(start, end):
            if orjson.dumps(values[index]) != payloads[index]:
                values[index] = loads_strict(payloads[index])
    return values


def looks_like_sse(stripped: str) -> bool:
    first_line = LINE_BREAK.split(stripped, maxsplit=1)[0]
    return bool(SSE_FIELD_LINE.match(first_line))


def read_sse(text: str) -> FramedDump:
    """Parse SSE as the WHATWG spec reads it: blank line ends an event, ``:`` starts a comment."""
    dump = FramedDump("sse", [])
    name: str | None = None
    data: list[str] = []
    start_line = 1
    pending_error: DumpError | None = None

    def dispatch() -> None:
        nonlocal name, data, pending_error
        payload = "\n".join(data)
        event_name, lines_of_event = name, data
        name, data = None, []
        if not payload.strip():
            return
        if pending_error is not None:  # an unreadable event followed by another one
            raise pending_error
        if payload.strip() == "[DONE]":
            dump.done_marker = True
            return
        try:
            dump.values.append(loads_strict(payload))
            dump.event_names.append(event_name)
        except (ValueError, RecursionError) as exc:
            separate = each_line_alone(lines_of_event)
            if separate is None:
                where = phrase("The data of the event at line {line}", line=start_line)
                pending_error = json_error(exc, payload, where)
                return
            # Saved without the blank lines between events: each data line is an event of its own.
            dump.values.extend(separate)
            dump.event_names.extend([event_name] * len(separate))

    for number, line in enumerate(LINE_BREAK.split(text), 1):
        if not line:
            dispatch()
            continue
        if line.startswith(":"):
            continue
        field_name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if not data and name is None:
            start_line = number
        if field_name == "data":
            data.append(value)
        elif field_name == "event":
            name = value
    dispatch()
    if pending_error is not None:
        dump.cut_off = True  # only the last event may be broken: the stream was cut there
    if not dump.values:
        raise DumpError("invalid_sse", phrase("The event stream holds no events with JSON data."))
    return dump
