"""The text of a PDF's pages, so that a quote citing pages (Claude's ``page_location``, Bedrock's
``documentPage``) can be compared with them.

The PDF comes from the caller (a document sent with the request, or attached on its own), so it is
as untrusted as a dump: pypdf reads it with its own limits on decompression and object sizes, and
any failure of it is one :class:`PdfUnreadable` with the reason, never a crash. One pypdf page call
can still run for minutes (a page that draws a compressed form thousands of times), so pypdf runs in
a child process with a hard limit of time and memory (``citeview.core.common.limited``), and a dump's PDFs
share one budget of time between them (:func:`pdf_budget`): a request of a thousand such pages costs
that budget, not a thousand times the limit.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from pypdf import PdfReader

from citeview.core.common.limited import Stopped, run_limited
from citeview.core.common.phrases import Phrase, phrase

# Pages read of one PDF. Claude reads at most a few hundred pages of a PDF; a file of many thousand
# small pages would otherwise cost minutes.
MAX_PAGES = 1000
# What reading one PDF may take, in its child. pypdf takes about 1.5 ms for a simple page, so the
# 1,000 pages read take about 1.5 s; a dense page tens of milliseconds.
READ_SECONDS = 10.0
READ_MEGABYTES = 512
# What all the PDFs read for one dump may take together (its request's documents, and the PDFs its
# answer fetched): past it, the PDFs left are not read, and said so.
BUDGET_SECONDS = 20.0

# pypdf says each oddity of a file it reads past in a log warning; the file is the caller's, not ours.
logging.getLogger("pypdf").setLevel(logging.ERROR)


class PdfUnreadable(Exception):
    """A PDF whose pages cannot be read; ``reason`` says why: pypdf's words (English), or a sentence of
    ours when a limit stopped the reading."""

    def __init__(self, reason: str | Phrase) -> None:
        super().__init__(str(reason))
        self.reason = reason


@dataclass(frozen=True)
class PdfText:
    pages: list[str]  # the text of each page read, page 1 first
    page_count: int  # all the pages the PDF has, read or not (more than MAX_PAGES)


def is_pdf(data: bytes) -> bool:
    """Whether the bytes say they are a PDF (its header may follow a little junk, as readers allow)."""
    return b"%PDF-" in data[:1024]


# What every base64 text of "%PDF-" holds, whichever of the three places in a 3-byte group the header
# starts at ("JVBERi0" when it starts the bytes). None holds "/" or "+", so JSON's "\/" cannot split them.
_BASE64_PDF_HEADERS = (b"JVBERi", b"VQREYt", b"lUERGL")
# A JSON escape of an ASCII letter ("\u0041" for "A"), which all the header's spellings are made of: a
# writer may spell base64 so, hiding the header. (Encoders that escape "<", ">", "&" or "=" do not count.)
_ESCAPED_LETTER = re.compile(rb"\\u00(?:4[1-9a-fA-F]|5[0-9aA]|6[1-9a-fA-F]|7[0-9aA])")


def may_hold_base64_pdf(text: bytes) -> bool:
    """Whether JSON text may hold, in a string, the base64 of bytes that :func:`is_pdf` takes for a PDF:
    it holds one of the header's base64 spellings, or a letter spelled as a JSON escape.
    Linear in the bytes, and nothing is decoded; a "yes" may be wrong, a "no" never is for a string
    written whole (a string a stream joins from pieces can split the header: see :func:`pdf_reads_refused`)."""
    return any(header in text for header in _BASE64_PDF_HEADERS) or _ESCAPED_LETTER.search(text) is not None


class PdfReadRefused(Exception):
    """:func:`pdf_text` was asked to read a PDF within :func:`pdf_reads_refused`: the caller reads the
    dump elsewhere (a web request gives it to a worker). Not a :class:`PdfUnreadable`, so no reader
    takes it for an answer about the PDF."""


_refused: ContextVar[bool] = ContextVar("citeview_pdf_reads_refused", default=False)


@contextmanager
def pdf_reads_refused() -> Iterator[None]:
    """Within it, :func:`pdf_text` raises :class:`PdfReadRefused` rather than start a PDF's reading: how
    a web request reads a small dump, sure that no PDF holds it up (a PDF is read by a worker)."""
    token = _refused.set(True)
    try:
        yield
    finally:
        _refused.reset(token)


@dataclass
class _Budget:
    """The PDFs read for one dump: the time left between them, and what each gave (by its SHA-256), so
    that the same PDF sent again (a batch's every response checks the same request) is read once."""

    deadline: float
    seconds: float
    read: dict[str, PdfText | PdfUnreadable] = field(default_factory=dict)

    def outcome(self, data: bytes, limit: float, megabytes: int) -> PdfText | PdfUnreadable:
        """What reading ``data`` gives, read the first time it is asked for."""
        digest = hashlib.sha256(data).hexdigest()
        if digest not in self.read:
            self.read[digest] = self._read(data, limit, megabytes)
        return self.read[digest]

    def _read(self, data: bytes, limit: float, megabytes: int) -> PdfText | PdfUnreadable:
        left = self.deadline - time.monotonic()
        if left <= 0:
            return _budget_spent(self.seconds)
        # A read cut short by what is left of the budget is said as the budget spent, not as a limit of
        # a fraction of a second.
        too_slow = _too_slow(limit) if limit <= left else _budget_spent(self.seconds)
        try:
            return _read_limited(data, min(limit, left), megabytes, too_slow)
        except PdfUnreadable as error:
            return error


_budget: ContextVar[_Budget | None] = ContextVar("citeview_pdf_budget", default=None)


@contextmanager
def pdf_budget(seconds: float | None = None) -> Iterator[None]:
    """Within it, :func:`pdf_text` calls share ``seconds`` (``BUDGET_SECONDS`` by default) of reading
    between them, and a PDF read once is not read again. A budget already running (an outer one) is kept."""
    if _budget.get() is not None:
        yield
        return
    total = BUDGET_SECONDS if seconds is None else seconds
    token = _budget.set(_Budget(time.monotonic() + total, total))
    try:
        yield
    finally:
        _budget.reset(token)


def pdf_text(data: bytes, *, seconds: float | None = None, megabytes: int | None = None) -> PdfText:
    """Each page's text as pypdf extracts it, read in a child process held to ``seconds`` (at most
    what is left of a :func:`pdf_budget`; ``READ_SECONDS`` by default) and ``megabytes`` of memory
    (``READ_MEGABYTES``). Raises :class:`PdfUnreadable`, and :class:`PdfReadRefused` within
    :func:`pdf_reads_refused`. Bytes that do not say they are a PDF (:func:`is_pdf`) are not read:
    what is not a PDF is never given to pypdf, and a web request can tell from the bytes alone
    (:func:`may_hold_base64_pdf`) whether a dump has a PDF to read."""
    if not is_pdf(data):
        raise PdfUnreadable(phrase("it is not a PDF: its first 1,024 bytes hold no PDF header (%PDF-)"))
    if _refused.get():
        raise PdfReadRefused
    limit = READ_SECONDS if seconds is None else seconds
    memory = READ_MEGABYTES if megabytes is None else megabytes
    budget = _budget.get()
    if budget is None:
        return _read_limited(data, limit, memory, _too_slow(limit))
    outcome = budget.outcome(data, limit, memory)
    if isinstance(outcome, PdfUnreadable):
        raise PdfUnreadable(outcome.reason)  # a new one each time it is said
    return outcome


def _read_limited(data: bytes, seconds: float, megabytes: int, too_slow: PdfUnreadable) -> PdfText:
    try:
        answer = run_limited(_read_in_child, (data,), seconds=seconds, megabytes=megabytes)
    except Stopped as stopped:
        if stopped.code == "too_slow":
            raise too_slow from None
        if stopped.code == "too_much_memory":
            raise PdfUnreadable(
                phrase(
                    "reading it needed more than {megabytes:,} MB of memory, the most citeview allows",
                    megabytes=megabytes,
                )
            ) from None
        raise PdfUnreadable(stopped.how or phrase("the process reading it gave no answer")) from None
    match answer:
        case ("pages", list() as pages, int() as count):
            return PdfText(pages, count)
        case ("unreadable", str() as reason):
            raise PdfUnreadable(reason)
    raise PdfUnreadable(phrase("the process reading it gave no answer"))


def _too_slow(seconds: float) -> PdfUnreadable:
    return PdfUnreadable(
        phrase("reading it took longer than {seconds:g} seconds, the most citeview allows", seconds=seconds)
    )


def _budget_spent(seconds: float) -> PdfUnreadable:
    return PdfUnreadable(
        phrase(
            "it was not read: reading this dump's PDFs took {seconds:g} seconds, the most citeview allows",
            seconds=seconds,
        )
    )


# --- in the child -------------------------------------------------------------------------------


def _read_in_child(data: bytes) -> tuple[str, ...] | tuple[str, list[str], int]:
    """In the limited child: each page's text and the page count, or why the PDF cannot be read."""
    try:
        text = _read_in_process(data)
    except PdfUnreadable as error:
        return ("unreadable", str(error.reason))
    return ("pages", text.pages, text.page_count)


def _read_in_process(data: bytes) -> PdfText:
    """``pdf_text`` without the child: unbounded (one page can run for minutes), so reached from
    nowhere but the child."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            reader.decrypt("")  # a file with only an owner password opens without one
        count = len(reader.pages)
        pages = [reader.pages[number].extract_text() for number in range(min(count, MAX_PAGES))]
    except MemoryError:
        raise  # the child's limit: said as too much memory
    except Exception as error:  # a malformed file can fail anywhere in the library
        raise PdfUnreadable(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__) from None
    return PdfText(pages, count)
