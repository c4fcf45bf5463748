"""Reading fields of untrusted JSON without trusting their types."""

from __future__ import annotations

from typing import Any


def dicts_in(value: Any) -> list[dict[str, Any]]:
    """The objects in a JSON list; anything else is no objects."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def strings_in(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def int_or_zero(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def dict_or_empty(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
