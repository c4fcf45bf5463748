"""The raw dump as a reader can follow it: JSON indented, each event of a stream on its own."""

from __future__ import annotations

import json
from typing import Any

from citeview.core.framing import LINE_BREAK, loads_strict
from citeview.core.framing.eventstream import DamagedMessage, read_event_stream

MAX_PRETTY_BYTES = 2 * 1024 * 1024  # beyond this the page shows the start; the download has it all


def pretty_dump_text(raw: bytes, framing: str) -> tuple[str, bool]:
    """The text to show for a stored dump, and whether it was shortened."""
    if framing == "eventstream":
        return _event_stream_text(raw[:MAX_PRETTY_BYTES]), len(raw) > MAX_PRETTY_BYTES
    shortened = len(raw) > MAX_PRETTY_BYTES
    text = raw[:MAX_PRETTY_BYTES].decode("utf-8", errors="replace").removeprefix("\ufeff")
    if shortened:
        return text, True
    if framing in ("json", "json-array"):
        return _indented(text) or text, False
    if framing == "jsonl":
        return "\n\n".join(_indented(line) or line for line in LINE_BREAK.split(text) if line.strip()), False
    return "\n".join(_sse_line(line) for line in LINE_BREAK.split(text)), False


def _event_stream_text(raw: bytes) -> str:
    """AWS's binary event stream as its events, one indented JSON value each: its bytes are no text
    (lengths and checksums, NUL bytes a database text column refuses)."""
    events = []
    for value in read_event_stream(raw, loads_strict).values:
        if isinstance(value, DamagedMessage):
            events.append(f"(message {value.number} at byte {value.offset} could not be read)")
        else:
            events.append(json.dumps(value, indent=2, ensure_ascii=False))
    return "\n\n".join(events)


def _sse_line(line: str) -> str:
    """A ``data:`` line with its JSON indented under it; every other line as sent."""
    if not line.startswith("data:"):
        return line
    payload = _indented(line[5:])
    return f"data: {payload}" if payload else line


def _indented(text: str) -> str | None:
    try:
        value: Any = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict | list):
        return None
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return None
