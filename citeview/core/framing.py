"""Reading a dump's bytes into JSON values: one object, a JSON array, JSON Lines, or SSE text.

Every way a dump can be unreadable ends here in one :class:`DumpError` that names what is wrong.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from citeview.core.errors import DumpError
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

    framing: str  # "json" | "json-array" | "jsonl" | "sse"
    values: list[Any]
    event_names: list[str | None] = field(default_factory=list)  # SSE `event:` names, parallel to values
    done_marker: bool = False  # an SSE `data: [DONE]` line was seen
    cut_off: bool = False  # the last event was cut off mid-way and dropped
    repaired_strings: int = 0  # strings whose lone surrogates were replaced by U+FFFD


MAX_DEPTH = 64  # provider responses nest a dozen levels; far deeper is an attack or a mistake


def read_dump(raw: bytes) -> FramedDump:
    text, cut_in_character = decode_dump_text(raw)
    dump = _read_text(text)
    if cut_in_character and dump.framing in ("json", "json-array"):
        raise DumpError("truncated_json", phrase("The dump ends in the middle of a character: it looks cut off."))
    dump.cut_off = dump.cut_off or cut_in_character
    dump.repaired_strings = _check_values(dump.values)
    return dump


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


def decode_dump_text(raw: bytes) -> tuple[str, bool]:
    """The dump as text, and whether its last character was cut off (a stream saved mid-character)."""
    if not raw.strip():
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


def loads_strict(text: str) -> Any:
    """``json.loads`` that refuses what JSON does not allow and Python accepts (NaN, duplicate keys)."""
    return json.loads(
        text, parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_refuse_duplicate_keys
    )


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


def _check_values(values: list[Any]) -> int:
    """Refuse nesting deeper than :data:`MAX_DEPTH`, and replace what valid JSON can hold but text
    cannot (a lone surrogate, ``"\\udc00"``: a snippet cut between the halves of an emoji; a NUL,
    ``"\\u0000"``, which PostgreSQL cannot store) so the text can be shown and kept. Returns how many
    strings were repaired."""
    stack: list[tuple[Any, int]] = [(v, 1) for v in values]
    repaired = 0
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DumpError(
                "too_deep",
                phrase("The JSON is nested more than {depth} levels deep; no provider response is.", depth=MAX_DEPTH),
            )
        if isinstance(value, dict):
            for key in [k for k in value if _UNSHOWABLE.search(k)]:
                value[_UNSHOWABLE.sub("\ufffd", key)] = value.pop(key)
                repaired += 1
            for key, item in value.items():
                if isinstance(item, str) and _UNSHOWABLE.search(item):
                    value[key] = _UNSHOWABLE.sub("\ufffd", item)
                    repaired += 1
                else:
                    stack.append((item, depth + 1))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str) and _UNSHOWABLE.search(item):
                    value[index] = _UNSHOWABLE.sub("\ufffd", item)
                    repaired += 1
                else:
                    stack.append((item, depth + 1))
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
