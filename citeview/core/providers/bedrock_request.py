"""The request behind a Bedrock Converse answer: its documents and search results, each quote checked
against them as Claude's are (``anthropic_request.check_documents``; Claude on Bedrock cites the same
way, its locations renamed).

A Converse request's ``messages[].content[]`` holds ``{"document": {format, name, source, citations}}``
blocks, whose ``source`` is ``bytes`` (base64 in JSON), ``text``, ``content[]`` of ``{text}`` or an
``s3Location``, and ``{"searchResult": {source, title, content[]}}`` blocks; both may also stand in a
``toolResult``'s content. ``documentIndex`` is taken to count document blocks in order of
appearance and ``searchResultIndex`` search results apart, as Claude's do (unconfirmed for Bedrock:
``../shared/docs/provider-formats.md`` §11 item 14). A PDF's ``documentPage`` location is read as
Claude's page location is: 1-based, the end exclusive; a quote not on the cited pages is looked for
on the others, and the page it stands on is said, so a miscount shows.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from citeview.core.jsonvalues import dict_or_empty, dicts_in, str_or_none
from citeview.core.model import Response
from citeview.core.providers.anthropic_request import RequestDocument, check_documents, pdf_document

# Document formats whose bytes are text, so character locations can be checked against them.
TEXT_FORMATS = {"txt", "md", "html", "csv"}


def check_converse_request(response: Response, request: dict[str, Any]) -> None:
    """Compare every quote with the request's document it cites, and list the documents as sources."""
    check_documents(response, converse_documents(request))


def converse_documents(request: dict[str, Any]) -> list[RequestDocument]:
    documents: list[RequestDocument] = []
    search_results: list[RequestDocument] = []
    for message in dicts_in(request.get("messages")):
        for block in dicts_in(message.get("content")):
            _collect(block, documents, search_results)
            for inner in dicts_in(dict_or_empty(block.get("toolResult")).get("content")):
                _collect(inner, documents, search_results)
    return documents + search_results


def _collect(block: dict[str, Any], documents: list[RequestDocument], search_results: list[RequestDocument]) -> None:
    result = block.get("searchResult")
    if isinstance(result, dict):
        search_results.append(
            RequestDocument(
                f"search_result:{len(search_results)}",
                str_or_none(result.get("title")),
                "search_result",
                blocks=_text_blocks(result.get("content")),
                origin=str_or_none(result.get("source")),
            )
        )
        return
    document = block.get("document")
    if isinstance(document, dict):
        documents.append(_document(f"doc:{len(documents)}", document))


def _document(key: str, document: dict[str, Any]) -> RequestDocument:
    title = str_or_none(document.get("name"))
    source = dict_or_empty(document.get("source"))
    if isinstance(source.get("text"), str):
        return RequestDocument(key, title, "text", text=source["text"])
    if isinstance(source.get("content"), list):
        return RequestDocument(key, title, "content", blocks=_text_blocks(source["content"]))
    encoded = source.get("bytes")
    document_format = str_or_none(document.get("format"))
    if isinstance(encoded, str) and document_format == "pdf":
        data = _decoded(encoded)
        return pdf_document(key, title, data) if data else RequestDocument(key, title, "pdf")
    if isinstance(encoded, str) and document_format in TEXT_FORMATS:
        text = _decoded_text(encoded)
        if text is not None:
            return RequestDocument(key, title, "text", text=text)
    return RequestDocument(key, title, "file")  # an s3Location, a Word file, bytes that are not UTF-8 text


def _decoded(encoded: str) -> bytes | None:
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _decoded_text(encoded: str) -> str | None:
    data = _decoded(encoded)
    try:
        return data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None


def _text_blocks(content: Any) -> list[str | None]:
    """Every block of a content list, in order; one that is not text is None, so the block indices
    the citations give still count it."""
    return [b["text"] if isinstance(b.get("text"), str) else None for b in dicts_in(content)]
