"""How a dump error is answered over HTTP."""

from __future__ import annotations

from citeview.core.errors import DumpError

_STATUS_BY_CODE = {
    "too_large": 413,
    "binary": 415,
    "html": 415,
    "not_utf8": 415,
    "unsupported_media_type": 415,
}


def status_for(error: DumpError) -> int:
    return _STATUS_BY_CODE.get(error.code, 400)
