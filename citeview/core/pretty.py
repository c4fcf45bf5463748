"""The raw dump as a reader can follow it: JSON indented, streams as sent."""

from __future__ import annotations

import contextlib
import json

MAX_PRETTY_BYTES = 2 * 1024 * 1024  # beyond this the page shows the start; the download has it all


def pretty_dump_text(raw: bytes, framing: str) -> tuple[str, bool]:
    """The text to show for a stored dump, and whether it was shortened."""
    shortened = len(raw) > MAX_PRETTY_BYTES
    text = raw[:MAX_PRETTY_BYTES].decode("utf-8", errors="replace").removeprefix("\ufeff")
    if framing in ("json", "json-array") and not shortened:
        with contextlib.suppress(ValueError, RecursionError):  # otherwise shown as stored
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    return text, shortened
