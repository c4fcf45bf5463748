"""The text of a saved source page: what an editor compares a claim with.

A snapshot's HTML is never rendered; only the text extracted here is shown. HTML gives its main text
(trafilatura), or its whole text when no main content is found; a PDF gives the text of each page
(pypdf), numbered from 1 as a reader counts them; plain text is taken as it is. A saved page is
untrusted like a dump: its size is bounded before anything parses it, a tree too large or too deep for
the main-text heuristics (whose cost grows with every element) is read for its whole text instead, a
PDF's pages are bounded, and the text of any page, whatever its type, is cut at ``max_chars``. What is
left out is said in ``notes``, never dropped silently; a file that cannot be read at all is an
:class:`ExtractionError` with a code and a sentence, whatever the parsers raised.

These limits are checked between the parsers' steps, not inside them (one PDF page can hold a
runaway), so :func:`extract_text` runs the parsers in a child process with a hard limit of time and
memory (``citeview.core.common.limited``); only plain text, whose decoding cannot run away, is read in the
process. The parsers themselves are private: nothing reaches them but the child.
"""

from __future__ import annotations

import codecs
import io
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import pypdf
import trafilatura
from lxml import etree  # type: ignore[import-untyped]
from lxml import html as lxml_html
from pypdf.errors import DependencyError, FileNotDecryptedError

from citeview.core.common.limited import Stopped, run_limited
from citeview.core.common.markup_text import CELLS, closing_text, markup_stripped, opening_text, tidied
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.evidence.pdf_pages import Page, page_at

# A saved page larger than this is refused before it is parsed (a fetch is capped at 10 MB too).
MAX_SNAPSHOT_BYTES = 10 * 1024 * 1024
# trafilatura's cost grows faster than a tree's elements (a page of empty <div>s takes seconds), so a
# tree with more elements than this is read for its whole text, which costs in proportion to its size.
MAX_MAIN_TEXT_ELEMENTS = 30_000
MAX_PDF_PAGES = 2_000
# The extracted text of any page is held to this many characters: a small PDF can inflate to much more
# text, and a text file of 10 MB is 10 million characters to search for every claim.
MAX_TEXT_CHARS = 5_000_000
# What one extraction may take, in its child: measured on 2 shared cores, a 7 MB PDF of 2,000 text pages
# takes 3–7 s and 110 MB, one of 20 pages of dense charts 18 s and 140 MB, a 10 MB HTML page 1 s and 285 MB.
EXTRACT_SECONDS = 20.0
EXTRACT_MEGABYTES = 512
# A PDF is cut between its pages (keeping those read, with a note) once this share of the time is
# spent, so that only a page that runs away by itself meets the hard limit.
PDF_SHARE_OF_TIME = 0.75
# Only the default of the in-process readers, for their own tests: every read of the app goes through
# extract_text, whose child is given EXTRACT_SECONDS × PDF_SHARE_OF_TIME between pages instead.
PDF_TIME_BUDGET_SECONDS = 30.0
PAGE_SEPARATOR = "\n\n"

SourceType = Literal["html", "pdf", "text"]
Method = Literal["main_text", "whole_text", "markup_stripped", "pages", "as_is"]

_HTML_TYPES = {"text/html", "application/xhtml+xml"}
_PDF_TYPES = {"application/pdf", "application/x-pdf"}
_TEXT_TYPES = {"text/plain"}
_UNTYPED = {"", "application/octet-stream", "binary/octet-stream"}
_META_CHARSET = re.compile(rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]{1,40})""", re.I)
# Names pages use for the encodings Python knows under another name, as browsers read them (WHATWG):
# "Shift_JIS" pages are written in Microsoft's superset of it, "ISO-8859-1" ones in windows-1252.
_CHARSET_ALIASES = {
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "csshiftjis": "cp932",
    "windows-31j": "cp932",
    "x-euc-jp": "euc_jp",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "gb2312": "gb18030",
    "gbk": "gb18030",
}
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))

# Elements whose content is no text a reader sees.
_UNSEEN = {"script", "style", "noscript", "template", "svg", "math", "head", "iframe", "object", "title"}


class ExtractionError(Exception):
    """A saved page that yields no text. Codes: ``empty``, ``too_large``, ``unsupported_type``,
    ``unknown_charset``, ``undecodable``, ``not_pdf``, ``encrypted``, ``damaged_pdf``, ``unreadable``
    (a parser failed in a way no other code names); and, from the limits of the child that reads it,
    ``too_slow`` and ``too_much_memory``."""

    def __init__(self, code: str, message: Phrase) -> None:
        super().__init__(str(message))
        self.code = code
        self.phrase = message
        self.message = str(message)


@dataclass(frozen=True)
class Extraction:
    text: str
    source_type: SourceType  # what the text was extracted from
    method: Method
    extractor: str  # the library that read it ("trafilatura", "lxml", "pypdf"), or "citeview"
    extractor_version: str
    charset: str | None = None  # the encoding the bytes were read with (HTML and text)
    pages: tuple[Page, ...] = ()  # a PDF's pages, in order; their texts are joined by PAGE_SEPARATOR
    notes: tuple[Phrase, ...] = field(default=())  # what was left out, and why

    def page_at(self, offset: int) -> int | None:
        return page_at(self.pages, offset)

    def page_text(self, number: int) -> str:
        page = self.pages[number - 1]
        return self.text[page.start : page.end]

    def to_json(self) -> dict[str, Any]:
        return {
            "source_type": self.source_type,
            "method": self.method,
            "extractor": self.extractor,
            "extractor_version": self.extractor_version,
            "charset": self.charset,
            "pages": [{"number": p.number, "start": p.start, "end": p.end} for p in self.pages],
            "notes": [note.to_json() for note in self.notes],
            "chars": len(self.text),
        }


def extract_text(
    content: bytes,
    content_type: str | None,
    max_bytes: int = MAX_SNAPSHOT_BYTES,
    max_chars: int = MAX_TEXT_CHARS,
    *,
    seconds: float | None = None,
    megabytes: int | None = None,
) -> Extraction:
    """The text of a saved page, read as its ``content_type`` says (``text/html; charset=…``,
    ``application/pdf``, ``text/plain``; an untyped file is recognised by its first bytes), at most
    ``max_chars`` characters of it. HTML and PDF are read in a child process held to ``seconds`` (wall
    clock and CPU; ``EXTRACT_SECONDS`` by default) and ``megabytes`` of address space
    (``EXTRACT_MEGABYTES``); past either the page is refused (``too_slow``, ``too_much_memory``).
    Raises :class:`ExtractionError` and nothing else."""
    if checked_source_type(content, content_type, max_bytes) == "text":
        return _read_in_process(content, content_type, max_bytes, max_chars)
    seconds = EXTRACT_SECONDS if seconds is None else seconds
    megabytes = EXTRACT_MEGABYTES if megabytes is None else megabytes
    try:
        answer = run_limited(
            _read_in_child,
            (content, content_type, max_bytes, max_chars, seconds * PDF_SHARE_OF_TIME),
            seconds=seconds,
            megabytes=megabytes,
        )
    except Stopped as stopped:
        raise _refusal(stopped, seconds, megabytes) from None
    return _result(answer)


def _result(answer: Any) -> Extraction:
    match answer:
        case ("extraction", Extraction() as extraction):
            return extraction
        case ("refusal", str() as code, Phrase() as reason):
            raise ExtractionError(code, reason)
    raise _unreadable(phrase("the process reading it gave no answer"))


def _refusal(stopped: Stopped, seconds: float, megabytes: int) -> ExtractionError:
    if stopped.code == "too_slow":
        return ExtractionError(
            "too_slow",
            phrase(
                "Reading the saved page took longer than {seconds:g} seconds, the most citeview allows: "
                "it was stopped.",
                seconds=seconds,
            ),
        )
    if stopped.code == "too_much_memory":
        return ExtractionError(
            "too_much_memory",
            phrase(
                "Reading the saved page needed more than {megabytes:,} MB of memory, the most citeview allows: "
                "it was stopped.",
                megabytes=megabytes,
            ),
        )
    return _unreadable(stopped.how)


def _unreadable(how: Any) -> ExtractionError:
    return ExtractionError("unreadable", phrase("The saved page cannot be read ({reason}).", reason=how))


def _read_in_child(
    content: bytes, content_type: str | None, max_bytes: int, max_chars: int, pdf_time_budget: float
) -> tuple[Any, ...]:
    """In the limited child: the extraction, or the refusal as a code and a sentence (an exception
    with arguments of its own does not cross the pipe whole)."""
    try:
        return ("extraction", _read_in_process(content, content_type, max_bytes, max_chars, pdf_time_budget))
    except ExtractionError as error:
        return ("refusal", error.code, error.phrase)


def _read_in_process(
    content: bytes,
    content_type: str | None,
    max_bytes: int = MAX_SNAPSHOT_BYTES,
    max_chars: int = MAX_TEXT_CHARS,
    pdf_time_budget: float = PDF_TIME_BUDGET_SECONDS,
) -> Extraction:
    """``extract_text`` without the child: bounded for plain text only (an HTML tree or one PDF page can
    run away inside one parser call), so reached from nowhere but the child and the plain-text path.
    Raises :class:`ExtractionError` and nothing else (but ``MemoryError``, which the child's limit is for)."""
    kind = checked_source_type(content, content_type, max_bytes)
    try:
        if kind == "pdf":
            return _extract_pdf(content, max_chars=max_chars, time_budget=pdf_time_budget)
        if kind == "html":
            return _capped(_extract_html(content, parse_content_type(content_type)[1]), max_chars)
        charset = _bom_charset(content) or parse_content_type(content_type)[1] or "utf-8"
        text = _decoded(content, charset)
        return _capped(Extraction(text, "text", "as_is", "citeview", "1", charset=_codec_name(charset)), max_chars)
    except (ExtractionError, MemoryError):
        raise
    except Exception as error:  # a parser's own failure on a hostile file, whatever its kind: a refusal
        raise _unreadable(type(error).__name__) from None


def checked_source_type(content: bytes, content_type: str | None, max_bytes: int = MAX_SNAPSHOT_BYTES) -> SourceType:
    """What ``extract_text`` will read ``content`` as, once it is known to be neither empty nor too
    large; the reason otherwise. Cheap: nothing is parsed."""
    if not content.strip():
        raise ExtractionError("empty", phrase("The saved page is empty: there is no text to compare with."))
    if len(content) > max_bytes:
        raise ExtractionError(
            "too_large",
            phrase(
                "The saved page is {size:,} bytes; the limit is {limit:,} bytes.", size=len(content), limit=max_bytes
            ),
        )
    media_type, _ = parse_content_type(content_type)
    return _source_type(media_type, content)


def _capped(extraction: Extraction, max_chars: int) -> Extraction:
    """The extraction cut at ``max_chars`` characters, with a note saying so (a PDF is cut between
    its pages by ``_extract_pdf`` itself)."""
    if len(extraction.text) <= max_chars:
        return extraction
    note = phrase("The text stops after {limit:,} characters, the most citeview keeps of a page.", limit=max_chars)
    return replace(extraction, text=extraction.text[:max_chars], notes=(*extraction.notes, note))


def parse_content_type(content_type: str | None) -> tuple[str, str | None]:
    """``text/html; charset="Shift_JIS"`` → ``("text/html", "Shift_JIS")``."""
    if not content_type:
        return "", None
    media_type, *parameters = content_type.split(";")
    charset = None
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip("\"'"):
            charset = value.strip().strip("\"'")
    return media_type.strip().lower(), charset


def _source_type(media_type: str, content: bytes) -> SourceType:
    if media_type in _PDF_TYPES:
        return "pdf"
    if media_type in _HTML_TYPES:
        return "html"
    if media_type in _TEXT_TYPES:
        return "text"
    if media_type in _UNTYPED:
        head = content[:1024].lstrip().lower()
        if head.startswith(b"%pdf-"):
            return "pdf"
        if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body", b"<meta")):
            return "html"
        return "text"
    raise ExtractionError(
        "unsupported_type",
        phrase(
            "A saved page of type {content_type} cannot be read: upload HTML, PDF or plain text.",
            content_type=media_type,
        ),
    )


# --- HTML -------------------------------------------------------------------------------------


def _extract_html(content: bytes, declared_charset: str | None = None) -> Extraction:
    """Main text by trafilatura, keeping one paragraph a line; the whole text where it finds none or
    the tree is too large for it; the text between the tags where the tree is too deep to build."""
    charset = _bom_charset(content) or declared_charset or _meta_charset(content) or "utf-8"
    document = _decoded(content, charset)
    codec = _codec_name(charset)
    parser = lxml_html.HTMLParser(recover=True, no_network=True, remove_comments=True, remove_pis=True)
    try:
        tree = lxml_html.document_fromstring(document, parser=parser)
    except (etree.LxmlError, ValueError):  # no element at all ("document is empty")
        tree = None
    if any(error.type == etree.ErrorTypes.ERR_NO_MEMORY for error in parser.error_log):
        raise MemoryError("libxml2 ran out of memory")  # said as a syntax error, never as too deep
    if tree is None or any(error.level_name == "FATAL" for error in parser.error_log):
        # libxml2 stops at a depth of 256 and drops the rest: read the text between the tags instead.
        text = markup_stripped(document)
        note = phrase("The page is nested too deeply to be read as a tree: its text is read between the tags.")
        return Extraction(text, "html", "markup_stripped", "citeview", "1", charset=codec, notes=(note,))
    whole_text_version = ".".join(map(str, etree.LXML_VERSION))
    elements = sum(1 for _ in tree.iter())
    if elements > MAX_MAIN_TEXT_ELEMENTS:
        note = phrase(
            "The page has {elements:,} elements, more than the {limit:,} its main text is looked for in: "
            "its whole text is shown.",
            elements=elements,
            limit=MAX_MAIN_TEXT_ELEMENTS,
        )
        return Extraction(_whole_text(tree), "html", "whole_text", "lxml", whole_text_version, codec, notes=(note,))
    try:
        main = trafilatura.extract(
            document, output_format="txt", include_comments=False, include_tables=True, deduplicate=False
        )
    except MemoryError:
        raise
    except Exception:  # its heuristics failing on a hostile tree: the whole text is still there
        main = None
    if main and main.strip():
        return Extraction(main.strip(), "html", "main_text", "trafilatura", trafilatura.__version__, codec)
    note = phrase("No main content was found on the page: its whole text is shown.")
    return Extraction(_whole_text(tree), "html", "whole_text", "lxml", whole_text_version, codec, notes=(note,))


def _whole_text(tree: Any) -> str:
    """Every text a reader sees, one block a line, in one walk over the tree."""
    pieces: list[str] = []
    cells = 0  # how many cells the walk is in: a block inside a cell stays on the row's line
    walk = etree.iterwalk(tree, events=("start", "end"))
    for event, element in walk:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if event == "start":
            if tag in _UNSEEN:
                walk.skip_subtree()  # its end still comes, with its tail
                continue
            pieces.append(opening_text(tag, cells))
            cells += tag in CELLS
            if element.text:
                pieces.append(element.text)
        else:
            cells -= tag in CELLS
            pieces.append(closing_text(tag, cells))
            if element.tail and element is not tree:
                pieces.append(element.tail)
    return tidied("".join(pieces))


def _meta_charset(content: bytes) -> str | None:
    match = _META_CHARSET.search(content[:4096])
    return match.group(1).decode("ascii") if match else None


# --- charsets ---------------------------------------------------------------------------------


def _bom_charset(content: bytes) -> str | None:
    return next((name for bom, name in _BOMS if content.startswith(bom)), None)


def _codec_name(charset: str) -> str:
    name = _CHARSET_ALIASES.get(charset.strip().lower(), charset.strip().lower())
    try:
        info = codecs.lookup(name)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True):  # base64, zlib, rot13 are no charsets
        raise ExtractionError(
            "unknown_charset",
            phrase("The page says it is written in {charset!r}, which is not a character set citeview knows.",
                   charset=charset),
        )  # fmt: skip
    return info.name


def _decoded(content: bytes, charset: str) -> str:
    codec = _codec_name(charset)
    try:
        text = content.decode(codec)
    except UnicodeDecodeError as error:
        raise ExtractionError(
            "undecodable",
            phrase(
                "The page is not valid {charset} (byte {offset:,} cannot be read): save it again as UTF-8, "
                "or give its character set.",
                charset=codec,
                offset=error.start,
            ),
        ) from None
    return text.removeprefix("\ufeff")


# --- PDF --------------------------------------------------------------------------------------


def _extract_pdf(
    content: bytes,
    max_pages: int = MAX_PDF_PAGES,
    max_chars: int = MAX_TEXT_CHARS,
    time_budget: float = PDF_TIME_BUDGET_SECONDS,
) -> Extraction:
    """Each page's text with its number. A PDF that opens only with a password, or cannot be read,
    is an error; one with more pages, text or time than allowed keeps what came before, with a note.
    A page whose text cannot be read is noted, unless no page can be: then the PDF is an error too."""
    if not content[:1024].lstrip().startswith(b"%PDF-"):
        raise ExtractionError("not_pdf", phrase("The file is not a PDF: it does not begin with %PDF-."))
    try:
        reader = pypdf.PdfReader(io.BytesIO(content))
        _open_encrypted(reader)
        count = len(reader.pages)
    except (ExtractionError, MemoryError):
        raise
    except Exception as error:  # pypdf raises many kinds on a hostile file (NotImplementedError for an
        raise _damaged(error) from None  # unknown filter, DeprecationError for /Fl, PdfReadError, …)
    texts: list[str] = []
    pages: list[Page] = []
    notes: list[Phrase] = []
    failures: list[str] = []  # the kind of error of each page that could not be read
    position, deadline = 0, time.monotonic() + time_budget
    for index in range(min(count, max_pages)):
        try:
            text = tidied(reader.pages[index].extract_text() or "")
        except MemoryError:
            raise
        except Exception as error:  # whatever pypdf raises, as on opening: the other pages are still read
            text = ""
            failures.append(type(error).__name__)
            notes.append(phrase("The text of page {page} could not be read.", page=index + 1))
        if position + len(text) > max_chars:
            notes.append(phrase("The text stops before page {page}: the limit is {limit:,} characters.",
                                page=index + 1, limit=max_chars))  # fmt: skip
            break
        if pages:
            texts.append(PAGE_SEPARATOR)
            position += len(PAGE_SEPARATOR)
        texts.append(text)
        pages.append(Page(index + 1, position, position + len(text)))
        position += len(text)
        if time.monotonic() > deadline and index + 1 < min(count, max_pages):
            notes.append(phrase("The text stops after page {page}: reading took longer than {seconds} seconds.",
                                page=index + 1, seconds=round(time_budget)))  # fmt: skip
            break
    if failures and len(failures) == len(pages):  # not one page read: nothing to keep
        raise _damaged(failures[0])
    if count > max_pages and len(pages) == max_pages:
        notes.append(phrase("Only the first {limit:,} of the {count:,} pages are read.", limit=max_pages, count=count))
    return Extraction(
        "".join(texts), "pdf", "pages", "pypdf", pypdf.__version__, pages=tuple(pages), notes=tuple(notes)
    )


def _open_encrypted(reader: pypdf.PdfReader) -> None:
    """A PDF encrypted with an owner password only opens with the empty user password, as in any
    viewer; one that needs a password to open cannot be read here."""
    if not reader.is_encrypted:
        return
    try:
        opened = reader.decrypt("")
    except DependencyError:  # AES: pypdf needs the cryptography package for it
        raise ExtractionError(
            "encrypted",
            phrase("The PDF is encrypted with AES, which this installation cannot open: upload an unencrypted copy."),
        ) from None
    except (FileNotDecryptedError, NotImplementedError):
        opened = None
    if not opened:
        raise ExtractionError(
            "encrypted", phrase("The PDF is encrypted and needs a password to open: upload a copy without one.")
        )


def _damaged(error: Exception | str) -> ExtractionError:
    reason = error if isinstance(error, str) else type(error).__name__
    return ExtractionError(
        "damaged_pdf", phrase("The PDF cannot be read ({reason}): it may be damaged or incomplete.", reason=reason)
    )
