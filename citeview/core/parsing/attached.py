"""What a reviewer attaches beside a response: the files, as given."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AttachedFile:
    """One file attached beside a response, byte for byte: the request body, or a document the
    request sent (plain text or a PDF). ``name`` is the file's name as chosen, empty for a paste."""

    name: str
    data: bytes
