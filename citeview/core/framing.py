"""Reading a dump's bytes into JSON values: one object, a JSON array, JSON Lines, SSE text, or
AWS's binary event stream (``citeview.core.eventstream``).

Every way a dump can be unreadable ends here in one :class:`DumpError` that names what is wrong.
"""

from __future__ import annotations

import codecs
import json
import math
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import repeat
from operator import add, methodcaller
from typing import Any

import msgspec
import orjson

from citeview.core.errors import DumpError
from citeview.core.eventstream import (
    MAX_HEADERS_BYTES,
    MAX_MESSAGE_BYTES,
    MIN_MESSAGE_BYTES,
    PRELUDE_BYTES,
    DamagedMessage,
    looks_like_event_stream,
    read_event_stream,
)
from citeview.core.eventstream import _headers as read_headers
from citeview.core.phrases import Phrase, phrase

LINE_BREAK = re.compile(r"\r\n|\r|\n")
SSE_FIELD_LINE = re.compile(r"^(data|event|id|retry)?:")

# Signatures of files people save by mistake instead of the response body.
_BINARY_SIGNATURES = {
    b"%PDF": phrase("This is a PDF document, not a saved API response."),
    b"\x89PNG": phrase("This is a PNG image, not a saved API response."),
    b"\xff\xd8\xff": phrase("This is a JPEG image, not a saved API response."),
    b"GIF8": phrase("This is a GIF image, not a saved API response."),
    b"PK\x03\x04": phrase("This is a ZIP archive (or an Office document), not a saved API response."),
    b"\x1f\x8b": phrase("This is a gzip-compressed file, not a saved API response."),
}


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


MAX_DEPTH = 64  # provider responses nest a dozen levels; far deeper is an attack or a mistake


def read_dump(raw: bytes) -> FramedDump:
    # Binary, so before the text checks (its NUL bytes): a prelude whose checksum holds is no accident.
    dump = _read_event_stream(raw) if looks_like_event_stream(raw) else _read_text_dump(raw)
    if not (dump.depth_checked or raw.count(b"{") + raw.count(b"[") <= MAX_DEPTH):
        _refuse_deep(dump.values)
    if b"\\u" in raw and _MAY_HOLD_UNSHOWABLE.search(raw):  # (the first test is the quicker)
        dump.repaired_strings = _repair_unshowable(dump.values)
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


def _read_event_stream(raw: bytes) -> FramedDump:
    plain = _read_plain_event_stream(raw)
    if plain is not None:
        return plain
    stream = read_event_stream(raw, loads_strict)
    if all(isinstance(value, DamagedMessage) for value in stream.values):
        if stream.damaged:
            raise DumpError(
                "binary",
                phrase(
                    "This is an AWS event stream (the body of a Bedrock stream), but none of its messages can be "
                    "read. {first}",
                    first=stream.damaged[0].message(),
                ),
            )
        raise DumpError(
            "truncated_json",
            phrase(
                "This is an AWS event stream (the body of a Bedrock stream) that ends inside its first message: "
                "it looks cut off."
            ),
        )
    return FramedDump("eventstream", stream.values, cut_off=stream.cut_off, damaged=stream.damaged)


def _read_plain_event_stream(raw: bytes) -> FramedDump | None:
    """An event stream as AWS sends it, every message whole, of the few header blocks a stream
    repeats: read as ``read_event_stream`` reads it, each header block once, the payloads proven
    together as a stream's events are. None at anything else (a damaged or cut message, an error
    message, a payload ``json`` must read): ``read_event_stream`` then reads it and says what is wrong."""
    names_by_headers: dict[bytes, str | None] = {}
    names: list[str] = []
    payloads: list[bytes] = []
    offset, size = 0, len(raw)
    while offset < size:
        prelude = raw[offset : offset + PRELUDE_BYTES]
        if len(prelude) < PRELUDE_BYTES or zlib.crc32(prelude[:8]) != int.from_bytes(prelude[8:]):
            return None if raw[offset:].strip() else _plain_event_stream(names, payloads)
        total, headers_length = int.from_bytes(prelude[:4]), int.from_bytes(prelude[4:8])
        if not MIN_MESSAGE_BYTES <= total <= MAX_MESSAGE_BYTES or headers_length > min(
            MAX_HEADERS_BYTES, total - MIN_MESSAGE_BYTES
        ):
            return None
        message = raw[offset : offset + total]
        if len(message) < total or zlib.crc32(message[:-4]) != int.from_bytes(message[-4:]):
            return None
        headers = message[PRELUDE_BYTES : PRELUDE_BYTES + headers_length]
        if headers not in names_by_headers:
            names_by_headers[headers] = _event_name_of(headers)
        name = names_by_headers[headers]
        if name is None:
            return None
        names.append(name)
        payloads.append(message[PRELUDE_BYTES + headers_length : -4])
        offset += total
    return _plain_event_stream(names, payloads)


def _event_name_of(headers: bytes) -> str | None:
    """The event (or exception) a message's headers name, as ``read_event_stream`` reads them; None
    for headers it would not read as one event's."""
    fields = read_headers(headers)
    if fields is None:
        return None
    kind = fields.get(":message-type")
    name = fields.get(":event-type") if kind == "event" else fields.get(":exception-type")
    return name if kind in ("event", "exception") and isinstance(name, str) and name else None


def _plain_event_stream(names: list[str], payloads: list[bytes]) -> FramedDump | None:
    if not payloads or not all(payloads) or any(not payload.strip() for payload in payloads):
        return None  # (an empty payload is read as {} by the careful reader)
    try:
        decoded = list(map(_DECODER.decode, payloads))
    except (msgspec.DecodeError, RecursionError):
        return None
    if _ENCODER.encode(decoded).count(b":") != sum(map(_count_colons, payloads)) or any(
        _MAY_ESCAPE_COLON in payload for payload in payloads
    ):
        return None
    # Each payload becomes the value of its event's one key: a level deeper than it is alone.
    brackets = map(add, map(_count_braces, payloads), map(_count_brackets, payloads))
    if any(
        _may_nest_too_deep(payload, MAX_DEPTH - 1)
        for payload, n in zip(payloads, brackets, strict=True)
        if n > MAX_DEPTH - 1
    ):
        return None
    values: list[Any] = [{name: value} for name, value in zip(names, decoded, strict=True)]
    return FramedDump("eventstream", values, depth_checked=True)


def _read_proven(raw: bytes) -> FramedDump | None:
    """The fast reading of the two layouts most dumps have: a stream as servers write it, or one JSON
    document. None when the dump is laid out otherwise, or anything in it needs the careful reader
    (which also says exactly what is wrong)."""
    start = raw[:4096].lstrip()[:1]  # (not the whole dump: that would copy it to read one byte)
    if start in (b"{", b"["):
        value, depth_checked = _proven_and_checked(raw)
        if value is _UNPROVEN:
            return None
        dump = _json_document(value)
        dump.depth_checked = depth_checked
        return dump
    if raw.startswith((b"data:", b"event:")):
        return _read_lined_sse(raw) or _read_simple_sse(raw)
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
    if _looks_like_sse(stripped):
        return _read_sse(text)
    if stripped[:1] in ("{", "["):
        return _read_json_or_jsonl(text)
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


def loads_strict(text: str | bytes) -> Any:
    """One JSON value, refusing what JSON does not allow and Python accepts (NaN, 1e400, duplicate keys)."""
    value = _proven_json(text)
    if value is not _UNPROVEN:
        return value
    return json.loads(
        text, parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_refuse_duplicate_keys
    )


_UNPROVEN = object()


def _proven_json(text: str | bytes) -> Any:
    """A fast C reading of ``text``, when it is provably the one ``json`` makes; else ``_UNPROVEN``.

    msgspec reads integers of any size exactly, refuses NaN, numbers too large for a float and half
    characters as ``json`` does here, and rounds floats as ``json`` does; but of two equal keys it
    keeps the last without a word. So its value is taken only when no key was dropped: written back,
    it holds as many colons as the bytes read (outside strings a colon only ever follows a key, and
    inside them each stands for itself, unless escaped as ``\\u003a``, which sends the text to
    ``json``). It proves any layout, compact, indented or spaced. Values nested deeper than
    ``MAX_DEPTH`` are read as before msgspec (``_orjson_proven``), so what is refused, and how, stays."""
    return _proven_and_checked(text)[0]


def _proven_and_checked(text: str | bytes) -> tuple[Any, bool]:
    """``_proven_json``'s value, and whether it is known to nest no deeper than ``MAX_DEPTH``."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    try:
        value = _DECODER.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return _UNPROVEN, False
    if _MAY_ESCAPE_COLON in data:
        return _UNPROVEN, False
    colons, too_deep = _written_proof(value)
    if colons != data.count(b":"):
        return _UNPROVEN, False
    if too_deep:
        return _orjson_proven(text), False
    return value, True


def _written_proof(value: Any, level: int = 1) -> tuple[int, bool]:
    """The colons of ``value`` written as JSON, and whether a value in it nests deeper than
    ``MAX_DEPTH`` (``value`` itself ``level`` levels deep). One indented write proves both (how far
    in its lines start tells the depth), made a piece at a time (``_proof_pieces``): written whole,
    a large dump's indented copy was more than its own size again, on top of its values."""
    colons, too_deep = 0, False
    for piece, piece_level in _proof_pieces(value, level):
        try:  # orjson's is the quicker
            written = orjson.dumps(piece, option=orjson.OPT_INDENT_2)
        except orjson.JSONEncodeError:  # an integer beyond 64 bits, or nesting beyond orjson's reach
            written = msgspec.json.format(_ENCODER.encode(piece), indent=2)
        colons += written.count(b":")
        # In JSON indented by two spaces, a value n levels below the piece starts 2n spaces in.
        too_deep = too_deep or b"\n" + b" " * (2 * (MAX_DEPTH - piece_level + 1)) in written
    return colons, too_deep


_PIECE_ITEMS = 1000  # a longer list is written this many items at a time; a dict this large is written whole
_SPLIT_LEVELS = 8  # containers less deep are written member by member (answers' long lists sit 2 to 7 deep)


def _proof_pieces(value: Any, level: int) -> Iterator[tuple[Any, int]]:
    """Pieces of ``value`` whose writings hold every colon and every line of its writing, each with
    the level it stands at: a dict's keys and plain values apart from its containers, a long list a
    slice at a time, each piece small unless a single string is large. A piece stands in for what it
    holds: its members lie as deep below it as they lie below the place it stands for."""
    if level >= _SPLIT_LEVELS or not isinstance(value, dict | list):
        yield value, level
        return
    if len(value) > _PIECE_ITEMS:
        if isinstance(value, dict):
            yield value, level
            return
        for start in range(0, len(value), _PIECE_ITEMS):
            yield value[start : start + _PIECE_ITEMS], level
        return
    members = value.values() if isinstance(value, dict) else value
    containers = [member for member in members if isinstance(member, dict | list)]
    if isinstance(value, dict):
        yield {key: None if isinstance(member, dict | list) else member for key, member in value.items()}, level
    elif len(containers) < len(value):
        yield [member for member in value if not isinstance(member, dict | list)], level
    for member in containers:
        yield from _proof_pieces(member, level + 1)


_DECODER = msgspec.json.Decoder()
_ENCODER = msgspec.json.Encoder()
_MAY_ESCAPE_COLON = b"\\u003"  # the start of the escapes \u0030 to \u003f, ":" (\u003a) among them
# In JSON indented by two spaces, a value nested n levels deep starts 2(n - 1) spaces in.
_DEEPER_THAN_ALLOWED = b"\n" + b" " * (2 * MAX_DEPTH)


def _may_nest_too_deep(data: bytes, depth: int = MAX_DEPTH) -> bool:
    """Whether a value in the JSON ``data`` may nest deeper than ``depth`` (found in C: no line of
    it indented by two spaces a level is indented that far). False only when none does."""
    deeper = _DEEPER_THAN_ALLOWED if depth == MAX_DEPTH else b"\n" + b" " * (2 * depth)
    return deeper in msgspec.json.format(data, indent=2)


def _orjson_proven(text: str | bytes) -> Any:
    """orjson's reading of ``text``, when it is provably the exact one; else ``_UNPROVEN``: orjson
    keeps the last of two equal keys and reads integers beyond 64 bits as floats, so its value is
    taken only when it writes back to the very bytes read (compact, or indented by two spaces)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return _UNPROVEN
    written = (text if isinstance(text, bytes) else text.encode("utf-8")).strip()
    try:
        if orjson.dumps(value) == written or orjson.dumps(value, option=orjson.OPT_INDENT_2) == written:
            return value
    except orjson.JSONEncodeError:  # nested too deeply for orjson to write: json reads it (and refuses it)
        pass
    return _UNPROVEN


def _finite_float(text: str) -> float:
    """A JSON number as a float; one too large for a float (1e400) is refused like NaN, since no
    provider writes one and it could not be stored as JSON again."""
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"the number {text[:20]} is too large")
    return number


def json_error(exc: Exception, text: str, where: Phrase | None = None) -> DumpError:
    """The error for JSON that did not decode. Python's own reason (``exc.msg``) is quoted as it is."""
    where = where or phrase("The JSON")
    if isinstance(exc, RecursionError):
        return DumpError("too_deep", phrase("{where} is nested too deeply to read (thousands of levels).", where=where))
    if isinstance(exc, json.JSONDecodeError):
        # A string never closed runs to the end of the input: that is a cut, not a typo.
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            return DumpError(
                "truncated_json",
                phrase(
                    "{where} ends too early (line {line}, column {column}): the dump looks cut off.",
                    where=where,
                    line=exc.lineno,
                    column=exc.colno,
                ),
            )
        return DumpError(
            "invalid_json",
            phrase(
                "{where} is not valid at line {line}, column {column}: {reason}.",
                where=where,
                line=exc.lineno,
                column=exc.colno,
                reason=exc.msg,
            ),
        )
    return DumpError("invalid_json", phrase("{where} is not valid: {reason}.", where=where, reason=str(exc)))


_count_braces = methodcaller("count", b"{")
_count_brackets = methodcaller("count", b"[")


def _refuse_deep(values: list[Any]) -> None:
    stack: list[tuple[Any, int]] = [(v, 1) for v in values]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DumpError(
                "too_deep",
                phrase("The JSON is nested more than {depth} levels deep; no provider response is.", depth=MAX_DEPTH),
            )
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values() if isinstance(item, (dict, list)))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value if isinstance(item, (dict, list)))


# Only an escape can put a NUL or a lone surrogate into valid JSON (a raw NUL or invalid UTF-8 is
# refused earlier), so a dump without one needs no walk through its strings.
_MAY_HOLD_UNSHOWABLE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def _repair_unshowable(values: list[Any]) -> int:
    """Replace what valid JSON can hold but text cannot (a lone surrogate, ``"\\udc00"``: a snippet
    cut between the halves of an emoji; a NUL, ``"\\u0000"``, which PostgreSQL cannot store) so the
    text can be shown and kept. Returns how many strings were repaired."""
    stack: list[Any] = list(values)
    repaired = 0
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key in [k for k in value if _UNSHOWABLE.search(k)]:
                value[_UNSHOWABLE.sub("\ufffd", key)] = value.pop(key)
                repaired += 1
            for key, item in value.items():
                if isinstance(item, str) and _UNSHOWABLE.search(item):
                    value[key] = _UNSHOWABLE.sub("\ufffd", item)
                    repaired += 1
                else:
                    stack.append(item)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str) and _UNSHOWABLE.search(item):
                    value[index] = _UNSHOWABLE.sub("\ufffd", item)
                    repaired += 1
                else:
                    stack.append(item)
    return repaired


_UNSHOWABLE = re.compile("[\x00\ud800-\udfff]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return obj


def _read_json_or_jsonl(text: str) -> FramedDump:
    try:
        value = loads_strict(text)
    except (ValueError, RecursionError) as exc:
        lines = [ln for ln in LINE_BREAK.split(text) if ln.strip()]
        if len(lines) > 1 and _parses_alone(lines[0]):
            return _read_jsonl(lines)
        raise json_error(exc, text) from None
    return _json_document(value)


def _json_document(value: Any) -> FramedDump:
    if isinstance(value, list):
        if not value:
            raise DumpError("unknown_provider", phrase("The JSON array is empty: there is no response in it."))
        if not all(isinstance(v, dict) for v in value):
            raise DumpError(
                "unknown_provider", phrase("The JSON array holds values that are not response objects or events.")
            )
        return FramedDump("json-array", value)
    return FramedDump("json", [value])


def _parses_alone(line: str) -> bool:
    try:
        return isinstance(loads_strict(line), dict)
    except (ValueError, RecursionError):
        return False


def _read_jsonl(lines: list[str]) -> FramedDump:
    values = []
    for number, line in enumerate(lines, 1):
        try:
            values.append(loads_strict(line))
        except (ValueError, RecursionError) as exc:
            if number == len(lines):  # only the last line may be broken: the stream was cut there
                return FramedDump("jsonl", values, cut_off=True)
            raise json_error(exc, line, phrase("Line {number} of the JSON Lines", number=number)) from None
    return FramedDump("jsonl", values)


def _each_line_alone(lines: list[str]) -> list[Any] | None:
    """Each line as a JSON object, or None unless every line is one."""
    if len(lines) < 2:
        return None
    values = []
    for line in lines:
        try:
            value = loads_strict(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(value, dict):
            return None
        values.append(value)
    return values


# One event per `data:` line, ended by a blank line, perhaps named by an `event:` line before it:
# streams as servers write them. Split on this, a whole stream is framed in C; a comment, an `id:`,
# data over several lines, CR line ends or a cut leave a gap between events for the careful reader.
_SIMPLE_SSE_EVENT = re.compile(rb"(?:event: ?([^\r\n]*)\r?\n)?data: ?([^\r\n]*)(?:(?:\r?\n){2,}|(?:\r?\n)?\Z)")


def _read_simple_sse(raw: bytes) -> FramedDump | None:
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
    brackets = map(add, map(_count_braces, payloads), map(_count_brackets, payloads))
    _refuse_deep([value for value, count in zip(values, brackets, strict=True) if count > MAX_DEPTH])
    return FramedDump("sse", values, event_names, done_marker=done_marker, depth_checked=True)


def _read_lined_sse(raw: bytes) -> FramedDump | None:
    """A stream as servers write it, read without a regular expression: every event one ``data: ``
    line, each perhaps after one ``event: `` line, each followed by a blank line, ``\\n`` line ends.
    The lines are split and each field told by its place in C; the events are read by
    ``_proven_json``'s reader and proven all at once. None when the stream is laid out otherwise or
    anything in it needs a slower reader."""
    if b"\r" in raw or _MAY_ESCAPE_COLON in raw or not raw.endswith(b"\n\n"):
        return None
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
    done_marker = payloads[-1].strip() == b"[DONE]"
    if done_marker:
        del payloads[-1], names[-1]
    large = _large_events(payloads)
    try:
        values = _decoded_letting_go(payloads)
    except (msgspec.DecodeError, RecursionError):
        return None
    # Each data line's colon is its field's; the others are the payloads'.
    if not values or not _events_proven(values, colons - count, large):
        return None
    return FramedDump("sse", values, names, done_marker=done_marker, depth_checked=True)


def _decoded_letting_go(payloads: list[Any]) -> list[Any]:
    """Each payload decoded, a batch at a time, each batch's bytes let go once decoded (its places
    in ``payloads`` emptied): a stream's bytes and their values are never all held together."""
    values: list[Any] = []
    for start in range(0, len(payloads), _PROOF_BATCH):
        batch = payloads[start : start + _PROOF_BATCH]
        payloads[start : start + len(batch)] = repeat(None, len(batch))
        values.extend(map(_DECODER.decode, batch))
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
            event_colons, event_too_deep = _written_proof(batch.pop(index - start))
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


_count_colons = methodcaller("count", b":")


_PROOF_BATCH = 1000  # events proven per call: few calls, and the copies made for it stay small
_LARGE_EVENT_BYTES = 64 * 1024  # an event this large is proven a piece at a time (_written_proof)


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


def _looks_like_sse(stripped: str) -> bool:
    first_line = LINE_BREAK.split(stripped, maxsplit=1)[0]
    return bool(SSE_FIELD_LINE.match(first_line))


def _read_sse(text: str) -> FramedDump:
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
            separate = _each_line_alone(lines_of_event)
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


def _preview(text: str, limit: int = 24) -> str:
    head = text[:limit]
    return repr(head + ("…" if len(text) > limit else ""))
