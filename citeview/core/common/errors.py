"""The one error a dump that cannot be read at all produces."""

from __future__ import annotations

from citeview.core.common.phrases import Phrase, phrase
from citeview.core.common.sizes import mebibytes


class DumpError(Exception):
    """A dump that yields no response. ``code`` is stable and machine-readable; ``message`` is for
    people, in English, and ``phrase`` lets a page write it in its own language.

    Codes: ``empty``, ``too_large``, ``binary``, ``not_utf8``, ``html``, ``invalid_json``,
    ``truncated_json``, ``too_deep``, ``invalid_sse``, ``unknown_provider``, ``unsupported_provider``,
    ``unsupported_media_type``, ``invalid_request``, ``unexpected_shape``; and for an entry of a bulk
    import (``citeview.core.framing.import_entries``): ``invalid_zip``, ``encrypted``, ``unsupported_compression``, ``not_jsonl``,
    ``too_many_entries``, ``unreadable``, ``internal_error``.
    """

    def __init__(self, code: str, message: Phrase) -> None:
        super().__init__(str(message))
        self.code = code
        self.phrase = message
        self.message = str(message)

    def to_json(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


def too_large_error(size: int, limit: int) -> DumpError:
    return DumpError(
        "too_large",
        phrase(
            "The dump is {size} ({bytes:,} bytes); the limit is {limit}.",
            size=mebibytes(size),
            bytes=size,
            limit=mebibytes(limit),
        ),
    )
