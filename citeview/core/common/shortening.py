"""Text from a dump held to a length where it is repeated: a card per footnote, a passage per citation."""

from __future__ import annotations


def shortened(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 1`` characters and an ellipsis when it is longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
