"""Documents a request sent, and each quote of an answer checked against the document it cites.

A provider whose citations name a request's documents by their place (Claude's ``document_index``,
Bedrock Converse's ``documentIndex``) reads its own request into :class:`RequestDocument` and calls
:func:`check_documents`; so do documents attached on their own, without their request
(:func:`attached_documents`: document 0, 1, … in the order given). Documents are keyed ``doc:N`` in
the order of the request's document blocks and ``search_result:N`` for search results apart.

A PDF's pages are read with pypdf, in a child process held to a limit of time and memory
(``citeview/core/parsing/pdf.py``). A quote citing pages is compared with the text of those pages ignoring
spaces and line breaks, and with Unicode's compatibility forms folded (NFKC: a ligature is its
letters), since no two tools lay a PDF's text out alike.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from citeview.core.common.errors import DumpError
from citeview.core.common.links import is_safe_http_url
from citeview.core.common.model import Citation, Response
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.jsonvalues import dicts_in
from citeview.core.parsing.pdf import PdfUnreadable, is_pdf, pdf_text
from citeview.core.parsing.sources import SourceTable

CONTEXT_CHARS = 400  # how much of the paragraph around a quote the evidence view shows, each side
# A quote not on the pages it cites is looked for on every page, to say where it stands; that costs a
# pass over the whole document, so a response gets this many such searches (a dump may hold thousands
# of citations of one long PDF).
WHOLE_DOCUMENT_SEARCHES = 200


@dataclass
class RequestDocument:
    key: str
    title: str | None
    kind: str  # "text" | "content" | "pdf" | "file" | "search_result"
    text: str | None = None  # plain-text documents
    blocks: list[str | None] = field(default_factory=list)  # custom content and search results; None: not text
    origin: str | None = None  # a search result's `source`
    # A PDF whose bytes are at hand: the text of each page read (page 1 first), and how many it has.
    # None for a PDF given by URL or file id, or one pypdf could not read (``unreadable`` says why).
    pages: list[str] | None = None
    page_count: int | None = None
    unreadable: str | Phrase | None = None
    filename: str | None = None  # a document attached on its own: the file's name (it has no title)
    _comparable_pages: list[str] | None = field(default=None, init=False, repr=False, compare=False)

    def comparable_pages(self) -> list[str]:
        """Each page's text as quotes are compared with it, made once per document."""
        if self._comparable_pages is None:
            self._comparable_pages = [_comparable(page) for page in self.pages or []]
        return self._comparable_pages


# A document found in a request, made once its key is known: whether it is a search result, and its maker.
FoundDocument = tuple[bool, Callable[[str], RequestDocument]]


def request_blocks(
    request: dict[str, Any], tool_result_content: Callable[[dict[str, Any]], Any]
) -> Iterator[dict[str, Any]]:
    """Every content block of a request's messages in order, each followed by the blocks of the tool
    result it is, if it is one (``tool_result_content`` reads them, as each API nests them)."""
    for message in dicts_in(request.get("messages")):
        for block in dicts_in(message.get("content")):
            yield block
            yield from dicts_in(tool_result_content(block))


def indexed_documents(found: Iterable[FoundDocument | None]) -> list[RequestDocument]:
    """The documents found, keyed as citations index them: the documents ``doc:0``, ``doc:1``… in the
    request's order, then the search results, counted apart, ``search_result:0``…"""
    documents: list[RequestDocument] = []
    search_results: list[RequestDocument] = []
    for is_search_result, make in filter(None, found):
        if is_search_result:
            search_results.append(make(f"search_result:{len(search_results)}"))
        else:
            documents.append(make(f"doc:{len(documents)}"))
    return documents + search_results


def pdf_document(key: str, title: str | None, data: bytes, filename: str | None = None) -> RequestDocument:
    """A PDF the request sent (or attached on its own), with its pages' text when pypdf can read them."""
    try:
        text = pdf_text(data)
    except PdfUnreadable as error:
        return RequestDocument(key, title, "pdf", unreadable=error.reason, filename=filename)
    return RequestDocument(key, title, "pdf", pages=text.pages, page_count=text.page_count, filename=filename)


def attached_documents(files: Sequence[AttachedFile]) -> list[RequestDocument]:
    """Documents attached on their own, without their request: ``doc:0``, ``doc:1``, … in the order
    given, as if the request had sent them so. A PDF is read by its pages, anything else as UTF-8 text.
    Raises :class:`DumpError` for a file that is neither."""
    documents = []
    for index, attached in enumerate(files):
        key, name = f"doc:{index}", attached.name or None
        if is_pdf(attached.data):
            documents.append(pdf_document(key, None, attached.data, filename=name))
            continue
        documents.append(RequestDocument(key, None, "text", text=_document_text(index, attached), filename=name))
    return documents


def check_attached_documents(files: Sequence[AttachedFile]) -> None:
    """Raise the :class:`DumpError` that :func:`attached_documents` would for these files, without
    reading their PDFs: so a reading left to a worker is refused now, where the reviewer sees why."""
    for index, attached in enumerate(files):
        if not is_pdf(attached.data):
            _document_text(index, attached)


def _document_text(index: int, attached: AttachedFile) -> str:
    try:
        return attached.data.decode("utf-8-sig")  # an editor's BOM is no part of what was sent
    except UnicodeDecodeError:
        raise DumpError(
            "invalid_request",
            phrase(
                "Document {number} ({name}) is neither UTF-8 text nor a PDF. Attach a document as plain text "
                "(.txt, UTF-8) or as a PDF, or attach the whole request as JSON.",
                number=index,
                name=attached.name or "—",
            ),
        ) from None


def decoded_base64(encoded: str) -> bytes | None:
    """The bytes of a base64 field, or None when it is not base64."""
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None


def check_documents(response: Response, sent: list[RequestDocument]) -> None:
    """Compare every quote with the document it cites (keyed ``doc:N`` or ``search_result:N``, its
    location a char, page or block range), and list the documents as sources."""
    documents = {d.key: d for d in sent}
    table = SourceTable.of(response)
    _note_unknown_documents(response, documents)
    for document in documents.values():
        extra = {
            "document_kind": document.kind,
            "source": document.origin,
            "file_name": document.filename,
            "page_count": document.page_count,
        }
        if document.unreadable is not None:
            _note_unreadable_pdf(response, document)
        existing = table.keys_for(document.key)
        if existing:  # cited already: the request only adds what the citation lacked
            source = table.get(existing[0])
            if source.title and document.title and source.title != document.title:
                response.diagnose(
                    "document_title_mismatch",
                    "warning",
                    phrase(
                        "{key} is cited with the title {cited_title!r} but the request's document there is "
                        "{request_title!r}: the documents may be counted differently, so its quotes may be checked "
                        "against the wrong document.",
                        key=document.key,
                        cited_title=source.title,
                        request_title=document.title,
                    ),
                    key=document.key,
                )
            source.title = source.title or document.title or document.filename
            for name, value in extra.items():
                if value is not None:
                    source.extra.setdefault(name, value)
            continue
        url = document.origin if is_safe_http_url(document.origin) else None
        extra = {name: value for name, value in extra.items() if value is not None or name == "source"}
        table.add(document.key, kind="document", url=url, title=document.title or document.filename, extra=extra)
    searches_left = WHOLE_DOCUMENT_SEARCHES
    pages_missing: set[str] = set()
    for citation in response.citations:
        cited = documents.get(_request_key(citation.source_keys[0])) if citation.source_keys else None
        if cited is None or citation.cited_text is None or citation.location is None:
            continue
        if citation.location["type"] == "char" and cited.text is not None:
            _check_characters(response, citation, cited)
        elif citation.location["type"] == "block" and cited.kind in ("content", "search_result"):
            _check_blocks(response, citation, cited)
        elif citation.location["type"] == "page" and cited.kind == "pdf":
            if cited.pages is not None:
                searches_left -= _check_pages(response, citation, cited, searches_left > 0)
                continue
            citation.quote_check = {"result": "unchecked", "unit": None}
            if cited.unreadable is None and cited.key not in pages_missing:  # said once per document
                pages_missing.add(cited.key)
                response.diagnose(
                    "location_unverifiable",
                    "info",
                    phrase(
                        "{document} is a PDF the request gives by URL or file id, so its pages are not at hand; "
                        "quotes citing its pages are not compared.",
                        document=_name(cited),
                    ),
                    key=cited.key,
                )
        else:
            response.diagnose(
                "location_unverifiable",
                "info",
                phrase(
                    "A {unit} location cannot be checked against {document}, a {kind} document.",
                    unit=citation.location["type"],
                    document=_name(cited),
                    kind=cited.kind,
                ),
                key=cited.key,
            )


def _request_key(key: str) -> str:
    """The request's document a cited source stands for: ``doc:0#2`` (a second file the answer names
    at index 0, kept as a conflict) is still the request's ``doc:0``."""
    return key.partition("#")[0]


def _note_unknown_documents(response: Response, documents: dict[str, RequestDocument]) -> None:
    cited = {
        _request_key(k) for c in response.citations for k in c.source_keys if k.startswith(("doc:", "search_result:"))
    }
    for key in sorted(cited - set(documents)):
        count = sum(1 for k in documents if k.split(":")[0] == key.split(":")[0])
        response.diagnose(
            "unknown_document",
            "warning",
            phrase(
                "Citations point at {key}, but the attached request has {count} such item(s), counted in order of "
                "appearance; their quotes cannot be checked.",
                key=key,
                count=count,
            ),
            key=key,
        )


def _check_characters(response: Response, citation: Citation, document: RequestDocument) -> None:
    """Code points first, as the formats note assumes; then UTF-16 units and UTF-8 bytes, said so."""
    assert citation.location is not None and document.text is not None and citation.cited_text is not None
    start, end = citation.location["start"], citation.location["end"]
    for unit in ("code_points", "utf16", "utf8"):
        span = _span_in(document.text, start, end, unit)
        if span is not None and document.text[span[0] : span[1]] == citation.cited_text:
            citation.quote_check = {"result": "match", "unit": unit}
            citation.context = _context(document.text, *span)
            if unit != "code_points":
                response.diagnose(
                    "cited_text_mismatch",
                    "info",
                    phrase(
                        "The quote from {document} matches its document only when chars {start}–{end} are read as "
                        "{unit}, not as characters (code points).",
                        document=_name(document),
                        start=start,
                        end=end,
                        unit=_UNIT_WORDS[unit],
                    ),
                    key=document.key,
                    start=start,
                    end=end,
                    unit=unit,
                )
            return
    if not 0 <= start <= end <= len(document.text):
        _mismatch(
            response,
            citation,
            document,
            phrase(
                "The quote from {document} cites chars {start}–{end}, which is no range of a document of "
                "{length} characters.",
                document=_name(document),
                start=start,
                end=end,
                length=len(document.text),
            ),
        )
        return
    found = document.text[start:end]
    citation.context = _context(document.text, start, end)
    message = phrase(
        "The quote from {document} at chars {start}–{end} differs from the document: {difference}",
        document=_name(document),
        start=start,
        end=end,
        difference=_difference(citation.cited_text, found),
    )
    _mismatch(response, citation, document, message, document_text=found, cited_text=citation.cited_text)


def _note_unreadable_pdf(response: Response, document: RequestDocument) -> None:
    response.diagnose(
        "location_unverifiable",
        "warning",
        phrase(
            "{document} is a PDF that citeview cannot read ({reason}); quotes from it are not compared.",
            document=_name(document),
            reason=document.unreadable,
        ),
        key=document.key,
    )


def _check_pages(response: Response, citation: Citation, document: RequestDocument, may_search: bool) -> int:
    """Compare a quote with the pages it cites (1-based, the end exclusive). Returns how many searches
    of the whole document it made (0 or 1)."""
    assert citation.location is not None and citation.cited_text is not None and document.pages is not None
    start, end = citation.location["start"], citation.location["end"]
    count = document.page_count or len(document.pages)
    if not 1 <= start < end <= count + 1:
        _mismatch(
            response,
            citation,
            document,
            phrase(
                "The quote from {document} cites page(s) {pages}, but it has {count} page(s).",
                document=_name(document),
                pages=_page_range(start, end) if start < end else f"{start}–{end - 1}",
                count=count,
            ),
        )
        return 0
    if end - 1 > len(document.pages):
        citation.quote_check = {"result": "unchecked", "unit": None}
        response.diagnose(
            "location_unverifiable",
            "info",
            phrase(
                "The quote from {document} cites page(s) {pages}, past the first {read} pages citeview reads of a "
                "PDF; it is not compared.",
                document=_name(document),
                pages=_page_range(start, end),
                read=len(document.pages),
            ),
            key=document.key,
        )
        return 0
    comparable = document.comparable_pages()
    cited = "".join(comparable[start - 1 : end - 1])
    quote = _comparable(citation.cited_text)
    if not cited:
        citation.quote_check = {"result": "unchecked", "unit": None}
        response.diagnose(
            "location_unverifiable",
            "info",
            phrase(
                "Page(s) {pages} of {document} hold no text citeview can read (a scanned page has only an image); "
                "the quote cannot be compared.",
                document=_name(document),
                pages=_page_range(start, end),
            ),
            key=document.key,
        )
        return 0
    if quote in cited:
        citation.quote_check = {"result": "match", "unit": None}
        citation.context = _page_context(document.pages[start - 1 : end - 1], citation.cited_text)
        return 0
    cited_pages = _page_range(start, end)
    elsewhere = _pages_holding(comparable, quote) if may_search else []
    if elsewhere:
        message = phrase(
            "The quote from {document} is not on page(s) {pages} but on page {found} (compared without spaces "
            "and line breaks).",
            document=_name(document),
            pages=cited_pages,
            found=", ".join(str(number) for number in elsewhere),
        )
    elif may_search:
        message = phrase(
            "The quote from {document} is on none of its pages, though it cites page(s) {pages} (compared "
            "without spaces and line breaks).",
            document=_name(document),
            pages=cited_pages,
        )
    else:
        message = phrase(
            "The quote from {document} is not on page(s) {pages} (compared without spaces and line breaks).",
            document=_name(document),
            pages=cited_pages,
        )
    _mismatch(response, citation, document, message, pages_holding_quote=elsewhere)
    return 1 if may_search else 0


def _page_range(start: int, end: int) -> str:
    return str(start) if end - 1 <= start else f"{start}–{end - 1}"


_SPACING = re.compile(r"\s+")


def _comparable(text: str) -> str:
    """A text as quotes are compared with pages: compatibility forms folded, no spaces or line breaks."""
    return _SPACING.sub("", unicodedata.normalize("NFKC", text))


def _pages_holding(pages: list[str], quote: str) -> list[int]:
    """The pages (1-based, at most five) the quote stands on, or starts on when it runs on to the next."""
    if not quote:
        return []
    starts, offset = [], 0
    for page in pages:
        starts.append(offset)
        offset += len(page)
    whole = "".join(pages)
    found: list[int] = []
    position = whole.find(quote)
    while position >= 0 and len(found) < 5:
        number = bisect.bisect_right(starts, position)  # the last page starting at or before it
        found.append(number)
        position = whole.find(quote, starts[number]) if number < len(starts) else -1  # on from the next page
    return found


def _page_context(pages: list[str], quote: str) -> dict[str, str] | None:
    """The quote inside its paragraph of the cited pages, as :func:`_context` gives it for a text
    document: found again character by character, so that it points into the pages' own text."""
    text = "\n\n".join(pages)
    kept, where = [], []
    for index, character in enumerate(text):
        for folded in unicodedata.normalize("NFKC", character):
            if not folded.isspace():
                kept.append(folded)
                where.append(index)
    wanted = _comparable(quote)
    position = "".join(kept).find(wanted) if wanted else -1
    if position < 0:
        return None  # folded differently one character at a time (a combining mark): no context
    return _context(text, where[position], where[position + len(wanted) - 1] + 1)


def _check_blocks(response: Response, citation: Citation, document: RequestDocument) -> None:
    assert citation.location is not None and citation.cited_text is not None
    start, end = citation.location["start"], citation.location["end"]
    if not 0 <= start < end <= len(document.blocks):
        _mismatch(
            response,
            citation,
            document,
            phrase(
                "The quote from {document} cites blocks {start}–{last}, but it has {count} block(s).",
                document=_name(document),
                start=start,
                last=end - 1,
                count=len(document.blocks),
            ),
        )
        return
    cited = document.blocks[start:end]
    cited_blocks = [b for b in cited if b is not None]
    citation.context = {"blocks": cited_blocks}
    if len(cited_blocks) < len(cited):
        citation.quote_check = {"result": "unchecked", "unit": None}
        response.diagnose(
            "location_unverifiable",
            "info",
            phrase(
                "The quote from {document} spans a block that is not text (an image); it cannot be compared.",
                document=_name(document),
            ),
            key=document.key,
        )
        return
    if "".join(cited_blocks) == citation.cited_text:
        citation.quote_check = {"result": "match", "unit": None}
        return
    message = phrase(
        "The quote from {document} at blocks {start}–{last} differs from those blocks: {difference}",
        document=_name(document),
        start=start,
        last=end - 1,
        difference=_difference(citation.cited_text, "".join(cited_blocks)),
    )
    _mismatch(response, citation, document, message)


def _mismatch(
    response: Response, citation: Citation, document: RequestDocument, message: Phrase, **details: Any
) -> None:
    """A quote that does not stand in its document: marked on the citation and said in a diagnostic."""
    assert citation.location is not None
    citation.quote_check = {"result": "mismatch", "unit": None}
    response.diagnose(
        "cited_text_mismatch",
        "warning",
        message,
        key=document.key,
        start=citation.location["start"],
        end=citation.location["end"],
        **details,
    )


_UNIT_WORDS = {
    "code_points": phrase("characters"),
    "utf16": phrase("UTF-16 code units"),
    "utf8": phrase("UTF-8 bytes"),
}


def _span_in(text: str, start: int, end: int, unit: str) -> tuple[int, int] | None:
    """The code-point span of ``text`` that ``start``..``end`` in ``unit`` denotes, if it is whole characters."""
    if unit == "code_points":
        return (start, end) if 0 <= start <= end <= len(text) else None
    encoding, width = ("utf-16-le", 2) if unit == "utf16" else ("utf-8", 1)
    data = text.encode(encoding, errors="surrogatepass")
    if not 0 <= start <= end <= len(data) // width:
        return None
    try:
        before = data[: start * width].decode(encoding)
        inside = data[start * width : end * width].decode(encoding)
    except UnicodeDecodeError:
        return None  # the offsets cut a character in two
    return len(before), len(before) + len(inside)


def _context(text: str, start: int, end: int) -> dict[str, str]:
    """The quote inside its paragraph (blank lines bound it), at most CONTEXT_CHARS each side."""
    paragraph_start = text.rfind("\n\n", 0, start)
    paragraph_start = 0 if paragraph_start < 0 else paragraph_start + 2
    paragraph_end = text.find("\n\n", end)
    paragraph_end = len(text) if paragraph_end < 0 else paragraph_end
    before_start = max(paragraph_start, start - CONTEXT_CHARS)
    after_end = min(paragraph_end, end + CONTEXT_CHARS)
    return {
        "before": ("…" if before_start > paragraph_start else "") + text[before_start:start],
        "quote": text[start:end],
        "after": text[end:after_end] + ("…" if after_end < paragraph_end else ""),
    }


def _difference(quote: str, found: str) -> Phrase:
    """Where two texts part, in words a reviewer can check: the first differing stretch of each."""
    position = next(
        (i for i, (a, b) in enumerate(zip(quote, found, strict=False)) if a != b), min(len(quote), len(found))
    )
    return phrase(
        "from character {position} the quote has {quote!r} where the document has {found!r}.",
        position=position,
        quote=quote[position : position + 30],
        found=found[position : position + 30],
    )


def _name(document: RequestDocument) -> str:
    label = document.title or document.filename
    return f"{document.key} ({label})" if label else document.key
