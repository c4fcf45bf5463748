"""The text of a PDF's pages, so that a quote citing pages (Claude's ``page_location``, Bedrock's
``documentPage``) can be compared with them.

The PDF comes from the caller (a document sent with the request, or attached on its own), so it is
as untrusted as a dump: pypdf reads it with its own limits on decompression and object sizes, and
any failure of it is one :class:`PdfUnreadable` with the reason, never a crash.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass

from pypdf import PdfReader

# Pages read of one PDF. Claude reads at most a few hundred pages of a PDF; a file of many thousand
# small pages would otherwise cost minutes.
MAX_PAGES = 1000

# pypdf says each oddity of a file it reads past in a log warning; the file is the caller's, not ours.
logging.getLogger("pypdf").setLevel(logging.ERROR)


class PdfUnreadable(Exception):
    """A PDF whose pages pypdf cannot read; ``reason`` says why, in English (pypdf's words)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class PdfText:
    pages: list[str]  # the text of each page read, page 1 first
    page_count: int  # all the pages the PDF has, read or not (more than MAX_PAGES)


def is_pdf(data: bytes) -> bool:
    """Whether the bytes say they are a PDF (its header may follow a little junk, as readers allow)."""
    return b"%PDF-" in data[:1024]


def pdf_text(data: bytes) -> PdfText:
    """Each page's text as pypdf extracts it. Raises :class:`PdfUnreadable`."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            reader.decrypt("")  # a file with only an owner password opens without one
        count = len(reader.pages)
        pages = [reader.pages[number].extract_text() for number in range(min(count, MAX_PAGES))]
    except Exception as error:  # a malformed file can fail anywhere in the library
        raise PdfUnreadable(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__) from None
    return PdfText(pages, count)
