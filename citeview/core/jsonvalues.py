"""Reading fields of untrusted JSON without trusting their types."""

from __future__ import annotations

from typing import Any, TypeGuard


def dicts_in(value: Any) -> list[dict[str, Any]]:
    """The objects in a JSON list; anything else is no objects."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def strings_in(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def is_int(value: Any) -> TypeGuard[int]:
    """Whether a JSON value is an integer: ``true`` is an int to Python, never to JSON."""
    return isinstance(value, int) and not isinstance(value, bool)


def int_or_zero(value: Any) -> int:
    return value if is_int(value) else 0


def int_or_none(value: Any) -> int | None:
    return value if is_int(value) else None


def number_or_none(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def dict_or_empty(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
