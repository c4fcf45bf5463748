"""The one error a dump that cannot be read at all produces."""

from __future__ import annotations


class DumpError(Exception):
    """A dump that yields no response. ``code`` is stable and machine-readable; ``message`` is for people.

    Codes: ``empty``, ``too_large``, ``binary``, ``not_utf8``, ``html``, ``invalid_json``,
    ``truncated_json``, ``too_deep``, ``invalid_sse``, ``unknown_provider``, ``unsupported_provider``,
    ``unsupported_media_type``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


def too_large_error(size: int, limit: int) -> DumpError:
    return DumpError(
        "too_large", f"The dump is {size:,} bytes; the limit is {limit:,} bytes ({limit // (1024 * 1024)} MiB)."
    )
