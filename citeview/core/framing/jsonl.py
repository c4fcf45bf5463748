"""One JSON document (an object, or an array of events), or JSON Lines: one value per line, the
last perhaps cut off."""

from __future__ import annotations

from typing import Any

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import phrase
from citeview.core.framing.framed import LINE_BREAK, FramedDump
from citeview.core.framing.strict_json import json_error, loads_strict


def read_json_or_jsonl(text: str) -> FramedDump:
    try:
        value = loads_strict(text)
    except (ValueError, RecursionError) as exc:
        lines = [ln for ln in LINE_BREAK.split(text) if ln.strip()]
        if len(lines) > 1 and _parses_alone(lines[0]):
            return _read_jsonl(lines)
        raise json_error(exc, text) from None
    return json_document(value)


def json_document(value: Any) -> FramedDump:
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


def each_line_alone(lines: list[str]) -> list[Any] | None:
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
