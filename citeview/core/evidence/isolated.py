"""The name the app has long read a saved page by: :func:`extract_text_bounded` is
:func:`citeview.core.evidence.extract.extract_text`, which now holds its own limits (a child process
with a hard limit of time and memory, ``citeview.core.limited``), so that no caller can forget them."""

from __future__ import annotations

from citeview.core.evidence.extract import (
    EXTRACT_MEGABYTES,
    EXTRACT_SECONDS,
    MAX_SNAPSHOT_BYTES,
    MAX_TEXT_CHARS,
    PDF_SHARE_OF_TIME,
    Extraction,
    extract_text,
)

__all__ = ["EXTRACT_MEGABYTES", "EXTRACT_SECONDS", "PDF_SHARE_OF_TIME", "extract_text_bounded"]


def extract_text_bounded(
    content: bytes,
    content_type: str | None,
    *,
    max_bytes: int = MAX_SNAPSHOT_BYTES,
    max_chars: int = MAX_TEXT_CHARS,
    seconds: float = EXTRACT_SECONDS,
    megabytes: int = EXTRACT_MEGABYTES,
) -> Extraction:
    """``extract_text``, its HTML or PDF read in a child process held to ``seconds`` (wall clock and
    CPU) and ``megabytes`` of address space. Raises :class:`ExtractionError` and nothing else."""
    return extract_text(content, content_type, max_bytes, max_chars, seconds=seconds, megabytes=megabytes)
