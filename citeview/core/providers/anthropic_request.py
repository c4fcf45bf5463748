"""The request behind a Claude answer: its documents, and each quote checked against them.

``document_index`` counts document blocks in the request in order of appearance (user messages and
the tool results inside them); ``search_result_index`` counts ``search_result`` blocks separately.

The checking itself (:func:`check_documents`) reads only :class:`RequestDocument`, so an API whose
citations mirror Claude's (Bedrock Converse, ``bedrock_request.py``) reads its own request into
them and shares it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citeview.core.jsonvalues import dict_or_empty, dicts_in, str_or_none
from citeview.core.links import is_safe_http_url
from citeview.core.model import Citation, Response
from citeview.core.phrases import Phrase, phrase
from citeview.core.sources import SourceTable

CONTEXT_CHARS = 400  # how much of the paragraph around a quote the evidence view shows, each side


@dataclass
class RequestDocument:
    key: str
    title: str | None
    kind: str  # "text" | "content" | "pdf" | "file" | "search_result"
    text: str | None = None  # plain-text documents
    blocks: list[str | None] = field(default_factory=list)  # custom content and search results; None: not text
    origin: str | None = None  # a search result's `source`


def request_documents(request: dict[str, Any]) -> list[RequestDocument]:
    documents: list[RequestDocument] = []
    search_results: list[RequestDocument] = []
    for message in dicts_in(request.get("messages")):
        content = message.get("content")
        for block in dicts_in(content):
            _collect(block, documents, search_results)
            if block.get("type") == "tool_result":
                for inner in dicts_in(block.get("content")):
                    _collect(inner, documents, search_results)
    return documents + search_results


def _collect(block: dict[str, Any], documents: list[RequestDocument], search_results: list[RequestDocument]) -> None:
    kind = block.get("type")
    title = str_or_none(block.get("title"))
    if kind == "search_result":
        blocks = _text_blocks(block.get("content"))
        origin = str_or_none(block.get("source"))
        search_results.append(
            RequestDocument(
                f"search_result:{len(search_results)}", title, "search_result", blocks=blocks, origin=origin
            )
        )
        return
    if kind != "document":
        return
    source = dict_or_empty(block.get("source"))
    key = f"doc:{len(documents)}"
    source_type = source.get("type")
    if source_type == "text":
        documents.append(RequestDocument(key, title, "text", text=str_or_none(source.get("data")) or ""))
    elif source_type == "content":
        inner = source.get("content")
        blocks = [inner] if isinstance(inner, str) else _text_blocks(inner)
        documents.append(RequestDocument(key, title, "content", blocks=blocks))
    elif source_type in ("base64", "url"):
        documents.append(RequestDocument(key, title, "pdf"))
    else:
        documents.append(RequestDocument(key, title, "file"))


def _text_blocks(content: Any) -> list[str | None]:
    """Every block of a content list, in order; a block that is not text (an image) is None, so the
    block indices citations give still count it."""
    return [(str_or_none(b.get("text")) or "") if b.get("type") == "text" else None for b in dicts_in(content)]


def check_quotes(response: Response, request: dict[str, Any]) -> None:
    """Compare every quote with the document it cites, and list the request's documents as sources."""
    check_documents(response, request_documents(request))


def check_documents(response: Response, sent: list[RequestDocument]) -> None:
    """Compare every quote with the document it cites (keyed ``doc:N`` or ``search_result:N``, its
    location a char, page or block range), and list the documents as sources."""
    documents = {d.key: d for d in sent}
    table = SourceTable.of(response)
    _note_unknown_documents(response, documents)
    for document in documents.values():
        extra = {"document_kind": document.kind, "source": document.origin}
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
            source.title = source.title or document.title
            for name, value in extra.items():
                if value is not None:
                    source.extra.setdefault(name, value)
            continue
        url = document.origin if is_safe_http_url(document.origin) else None
        table.add(document.key, kind="document", url=url, title=document.title, extra=extra)
    for citation in response.citations:
        cited = documents.get(_request_key(citation.source_keys[0])) if citation.source_keys else None
        if cited is None or citation.cited_text is None or citation.location is None:
            continue
        if citation.location["type"] == "char" and cited.text is not None:
            _check_characters(response, citation, cited)
        elif citation.location["type"] == "block" and cited.kind in ("content", "search_result"):
            _check_blocks(response, citation, cited)
        elif citation.location["type"] != "page" or cited.kind != "pdf":
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
    return f"{document.key} ({document.title})" if document.title else document.key
