"""Google Gemini: ``generateContent`` (``gemini.generate_content``) and the Interactions API
(``gemini.interactions``). Grounding marks answer spans by UTF-8 **byte** offsets
(``../shared/docs/provider-formats.md`` §3)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any

from citeview.core.common.links import is_grounding_redirect, is_safe_http_url
from citeview.core.common.model import Citation, Marker, Recitation, Response, SearchBatch
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection.registry import NEITHER, ApiFormat, Decision, Provider, Shape, ValueKind, register
from citeview.core.parsing.jsonvalues import (
    camel_or_snake,
    dict_or_empty,
    dicts_in,
    int_or_none,
    int_or_zero,
    is_int,
    number_or_none,
    own_float,
    str_or_none,
    strings_in,
)
from citeview.core.parsing.offsets import ByteOffsets
from citeview.core.parsing.placing import note_no_span, note_placement, note_unit, note_where, place_byte_span
from citeview.core.parsing.sources import SourceTable

# --- generateContent ------------------------------------------------------------------------------


@dataclass
class _Candidate:
    index: int
    parts: list[str] = field(default_factory=list)  # the non-thought text parts, in order
    finish_reason: str | None = None
    grounding: dict[str, Any] = field(default_factory=dict)  # the last non-empty groundingMetadata
    # Byte start, in the answer, of each part by its index in `content.parts` (thought and tool parts
    # count there); known only when one body carried all the parts, as partIndex means nothing in a stream.
    part_starts: dict[int, int] = field(default_factory=dict)
    cumulative: bool = False
    recitations: list[dict[str, Any]] = field(default_factory=list)  # the last non-empty citationMetadata's
    urls: list[dict[str, Any]] = field(default_factory=list)  # the last non-empty urlContextMetadata's entries
    function_calls: list[str] = field(default_factory=list)  # the names of the functions the model called


def parse_generate_content(values: Iterable[dict[str, Any]], streamed: bool) -> list[Response]:
    candidates: dict[int, _Candidate] = {}
    block_reason = None
    error: dict[str, Any] | None = None
    response_id = model = None
    chunks = iter(values)
    ahead = list(islice(chunks, 2))  # whether it is one body, not a stream's chunks
    one_body = len(ahead) == 1
    for chunk in chain(ahead, chunks):
        response_id = response_id or str_or_none(camel_or_snake(chunk, "responseId"))
        model = str_or_none(camel_or_snake(chunk, "modelVersion")) or model
        block_reason = (
            str_or_none(camel_or_snake(camel_or_snake(chunk, "promptFeedback"), "blockReason")) or block_reason
        )
        if isinstance(chunk.get("error"), dict):  # an error object in the middle of a stream
            error = chunk["error"]
        for raw in dicts_in(camel_or_snake(chunk, "candidates")):
            index = int_or_zero(camel_or_snake(raw, "index"))
            candidate = candidates.setdefault(index, _Candidate(index))
            _read_parts(candidate, dicts_in(camel_or_snake(camel_or_snake(raw, "content"), "parts")), one_body=one_body)
            candidate.finish_reason = str_or_none(camel_or_snake(raw, "finishReason")) or candidate.finish_reason
            grounding = camel_or_snake(raw, "groundingMetadata")
            if isinstance(grounding, dict) and any(v not in (None, [], {}) for v in grounding.values()):
                candidate.grounding = grounding  # `{}` on intermediate chunks never overwrites the metadata
            notices = _recitation_notices(camel_or_snake(raw, "citationMetadata"))
            if notices:  # like grounding: an empty citationMetadata never overwrites the last notices
                candidate.recitations = notices
            candidate.urls = _url_context(raw) or candidate.urls
    if not candidates:
        candidates[0] = _Candidate(0)
    responses = []
    for index in sorted(candidates):
        response = Response("gemini", "gemini.generate_content", streamed, id=response_id, model=model)
        response.candidate = index if len(candidates) > 1 else None
        _read_candidate(response, candidates[index])
        if candidates[index].cumulative:
            response.diagnose(
                "cumulative_stream",
                "info",
                phrase(
                    "The stream's chunks repeat the text so far instead of adding to it; the last full text is used."
                ),
            )
        if error is not None:
            response.mark_failed(error, detail=_error_detail(error))
        else:
            _set_status(response, candidates[index].finish_reason, block_reason)
        responses.append(response)
    return responses


def _error_detail(error: dict[str, Any]) -> Phrase | None:
    """Google's words for a failure: its status name and HTTP code beside its message, as it came."""
    if not _is_google_error(error):
        return None  # mark_failed shows the message alone
    return phrase(
        "{status} (HTTP {code}): {message}", status=error["status"], code=error["code"], message=error["message"]
    )


def _read_parts(candidate: _Candidate, parts: list[dict[str, Any]], *, one_body: bool) -> None:
    for raw_index, part in enumerate(parts):
        call = camel_or_snake(part, "functionCall")
        if isinstance(call, dict):
            candidate.function_calls.append(str_or_none(call.get("name")) or "?")
        text = str_or_none(camel_or_snake(part, "text"))
        if text is None or camel_or_snake(part, "thought") is True:
            continue
        so_far = "".join(candidate.parts)
        if so_far and len(text) > len(so_far) and text.startswith(so_far):
            candidate.parts = [text]  # some proxies resend the whole text in every chunk
            candidate.cumulative = True
            continue
        if one_body:
            candidate.part_starts[raw_index] = len(so_far.encode("utf-8", errors="surrogatepass"))
        candidate.parts.append(text)


def _read_candidate(response: Response, candidate: _Candidate) -> None:
    # The offsets refer to the answer: the non-thought text parts joined (partIndex is unreliable).
    response.text = "".join(candidate.parts)
    grounding = candidate.grounding
    table = SourceTable(response)
    chunks = [
        _add_chunk(response, table, i, chunk)
        for i, chunk in enumerate(dicts_in(camel_or_snake(grounding, "groundingChunks")))
    ]
    keys = [chunk.key for chunk in chunks]
    # Google Search's queries, or the retrieval's (Vertex RAG Engine, Vertex AI Search).
    queries = strings_in(camel_or_snake(grounding, "webSearchQueries")) + strings_in(
        camel_or_snake(grounding, "retrievalQueries")
    )
    if queries or keys:
        response.searches.append(SearchBatch(queries, keys))
    _read_url_context(response, table, candidate.urls)
    if not response.text and candidate.function_calls:
        response.diagnose(
            "function_call_answer",
            "info",
            phrase(
                "The model answered with a function call ({names}) instead of text; its arguments are in the raw dump.",
                names=", ".join(dict.fromkeys(candidate.function_calls)),
            ),
            functions=list(dict.fromkeys(candidate.function_calls)),
        )
    rendered = str_or_none(camel_or_snake(camel_or_snake(grounding, "searchEntryPoint"), "renderedContent"))
    if rendered:
        response.search_suggestions = rendered
    offsets = ByteOffsets(response.text)
    for number, support in enumerate(dicts_in(camel_or_snake(grounding, "groundingSupports"))):
        _place_support(response, offsets, candidate.part_starts, number, support, chunks)
    _read_recitations(response, offsets, candidate.recitations)


# --- URL context: the pages the prompt named, and whether each was retrieved ---------------------

_RETRIEVED = "URL_RETRIEVAL_STATUS_SUCCESS"


def _url_context(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    """``urlContextMetadata.urlMetadata`` (an older preview: ``urlRetrievalMetadata.urlRetrievalContexts``)."""
    metadata = camel_or_snake(candidate, "urlContextMetadata")
    if isinstance(metadata, dict):
        return dicts_in(camel_or_snake(metadata, "urlMetadata"))
    return dicts_in(camel_or_snake(camel_or_snake(candidate, "urlRetrievalMetadata"), "urlRetrievalContexts"))


def _read_url_context(response: Response, table: SourceTable, entries: list[dict[str, Any]]) -> None:
    """Each URL the prompt gave is a source with its retrieval status (a grounding chunk of the same
    page gets the status); the ones Gemini could not retrieve are marked and said, once."""
    failed: list[dict[str, str | None]] = []
    keys_by_url: dict[str, str] = {}  # the first source of each address: a chunk, or an entry listed before
    for source in response.sources:
        if source.url:
            keys_by_url.setdefault(source.url, source.key)
    for entry in entries:
        url = str_or_none(camel_or_snake(entry, "retrievedUrl"))
        status = str_or_none(camel_or_snake(entry, "urlRetrievalStatus")) or "URL_RETRIEVAL_STATUS_UNSPECIFIED"
        shown = status.removeprefix("URL_RETRIEVAL_STATUS_")
        if status != _RETRIEVED:
            failed.append({"url": url, "status": shown})
        if url is None:
            continue  # a failure without its address: counted in the note, no source to list
        extra: dict[str, Any] = {"url_retrieval_status": shown}
        if status != _RETRIEVED:
            extra["not_retrieved"] = True
        keys_by_url.setdefault(url, table.add(keys_by_url.get(url, url), kind="web", url=url, title=None, extra=extra))
    if failed:
        named = ", ".join(f"{f['url'] or '(no address given)'} ({f['status']})" for f in failed)
        response.diagnose(
            "url_not_retrieved",
            "warning",
            phrase(
                "Gemini could not retrieve {count} of the {total} URL(s) the prompt gave: {urls}. What the answer "
                "says of them rests on no page it read.",
                count=len(failed),
                total=len(entries),
                urls=named,
            ),
            urls=failed,
        )


# --- Grounding chunks -----------------------------------------------------------------------------

_CHUNK_KINDS = ("web", "retrievedContext", "maps", "image")


@dataclass(frozen=True)
class _Chunk:
    key: str  # the source's key
    pages: dict[str, Any] | None = None  # the location a citation of this chunk gets, when it names pages


def _add_chunk(response: Response, table: SourceTable, index: int, chunk: dict[str, Any]) -> _Chunk:
    """A grounding chunk as a source. Each chunk is one kind (a key naming it), any of whose fields
    may be missing (§3, grounding chunk kinds)."""
    key = str(index)
    kind = next((k for k in _CHUNK_KINDS if isinstance(camel_or_snake(chunk, k), dict)), None)
    value = dict_or_empty(camel_or_snake(chunk, kind)) if kind else {}
    if kind == "web":
        url = str_or_none(camel_or_snake(value, "uri"))
        extra = {"domain": str_or_none(camel_or_snake(value, "domain")), "redirect": is_grounding_redirect(url)}
        return _Chunk(
            table.add(key, kind="web", url=url, title=str_or_none(camel_or_snake(value, "title")), extra=extra)
        )
    if kind == "retrievedContext":
        return _retrieved_context(response, table, index, value)
    if kind == "maps":
        return _Chunk(_maps_place(table, key, value))
    if kind == "image":
        url = str_or_none(camel_or_snake(value, "sourceUri"))  # the page the image is on; the image itself is extra
        extra = {
            "image_uri": str_or_none(camel_or_snake(value, "imageUri")),
            "domain": str_or_none(camel_or_snake(value, "domain")),
            "redirect": is_grounding_redirect(url),
        }
        return _Chunk(
            table.add(key, kind="web", url=url, title=str_or_none(camel_or_snake(value, "title")), extra=extra)
        )
    return _Chunk(_unknown_chunk(response, table, index, chunk))


def _retrieved_context(response: Response, table: SourceTable, index: int, context: dict[str, Any]) -> _Chunk:
    """RAG Engine (``ragChunk``), File Search (``fileSearchStore``), Vertex AI Search
    (``documentName``): the passage retrieved is the evidence; a link only when it is http(s)."""
    rag = dict_or_empty(camel_or_snake(context, "ragChunk"))
    uri = str_or_none(camel_or_snake(context, "uri"))
    text, rag_text = str_or_none(camel_or_snake(context, "text")), str_or_none(camel_or_snake(rag, "text"))
    passage = rag_text or text
    span = dict_or_empty(camel_or_snake(rag, "pageSpan"))
    page_number = camel_or_snake(context, "pageNumber")
    extra = {
        "retrieval": _retrieval_kind(context, rag),
        "snippet": passage,
        "snippet_kind": "retrieved_passage" if passage else None,
        "context_text": text if rag_text and text and text != rag_text else None,  # kept when the two differ
        "uri": uri if uri and not is_safe_http_url(uri) else None,  # gs://…, a store path: shown, not linked
        "document_name": str_or_none(camel_or_snake(context, "documentName")),
        "file_search_store": str_or_none(camel_or_snake(context, "fileSearchStore")),
        "media_id": str_or_none(camel_or_snake(context, "mediaId")),
        "page_number": int_or_none(page_number),
        "first_page": int_or_none(camel_or_snake(span, "firstPage")),
        "last_page": int_or_none(camel_or_snake(span, "lastPage")),
        "chunk_id": str_or_none(camel_or_snake(rag, "chunkId")),
        "file_id": str_or_none(camel_or_snake(rag, "fileId")),
        "custom_metadata": _readable_metadata(camel_or_snake(context, "customMetadata")),
    }
    key = table.add(
        str(index),
        kind="document",
        url=uri if is_safe_http_url(uri) else None,
        title=str_or_none(camel_or_snake(context, "title")),
        extra=extra,
    )
    if isinstance(camel_or_snake(rag, "pageSpan"), dict):
        return _Chunk(key, _page_span(response, index, span))
    if page_number is not None:
        return _Chunk(key, _single_page(response, index, page_number))
    return _Chunk(key)


def _retrieval_kind(context: dict[str, Any], rag: dict[str, Any]) -> str | None:
    if rag:
        return "rag_engine"
    if camel_or_snake(context, "fileSearchStore") is not None:
        return "file_search"
    if camel_or_snake(context, "documentName") is not None:
        return "vertex_ai_search"
    return None


def _page_span(response: Response, index: int, span: dict[str, Any]) -> dict[str, Any] | None:
    """RAG Engine pages are 1-based and both ends inclusive; the location's end is exclusive."""
    first, last = int_or_none(camel_or_snake(span, "firstPage")), int_or_none(camel_or_snake(span, "lastPage"))
    if first is not None and last is not None and 1 <= first <= last:
        return {"type": "page", "start": first, "end": last + 1}
    if camel_or_snake(span, "firstPage") is None and camel_or_snake(span, "lastPage") is None:
        return None  # `{}`: proto3 writes a span of zeros (no pages known) so; nothing to show, nothing wrong
    response.diagnose(
        "invalid_page_span",
        "warning",
        phrase(
            "Grounding chunk {index} gives pages {first} to {last}, which are no pages of a document (pages count "
            "from 1, the last not before the first); its citations show no page.",
            index=index,
            first=_shown_page(camel_or_snake(span, "firstPage")),
            last=_shown_page(camel_or_snake(span, "lastPage")),
        ),
        chunk=index,
        first_page=camel_or_snake(span, "firstPage"),
        last_page=camel_or_snake(span, "lastPage"),
    )
    return None


def _single_page(response: Response, index: int, raw: Any) -> dict[str, Any] | None:
    """File Search's ``pageNumber``, assumed to count from 1 like the RAG Engine's pages."""
    page = int_or_none(raw)
    if page is not None and page >= 1:
        return {"type": "page", "start": page, "end": page + 1}
    response.diagnose(
        "invalid_page_span",
        "warning",
        phrase(
            "Grounding chunk {index} gives page {page}, which is no page of a document; its citations show no page.",
            index=index,
            page=_shown_page(raw),
        ),
        chunk=index,
        page_number=raw,
    )
    return None


def _shown_page(value: Any) -> str | Phrase:
    if value is None:
        return phrase("(none)")
    return json.dumps(value, ensure_ascii=False)[:20]


def _maps_place(table: SourceTable, key: str, place: dict[str, Any]) -> str:
    """A Google Maps place: its answer text is what the Maps tool returned, so it is evidence."""
    text = str_or_none(camel_or_snake(place, "text"))
    answer_sources = dict_or_empty(camel_or_snake(place, "placeAnswerSources"))
    route = dict_or_empty(camel_or_snake(place, "route"))
    url = str_or_none(camel_or_snake(place, "uri"))
    extra = {
        "place_id": str_or_none(camel_or_snake(place, "placeId")),
        "snippet": text,
        "snippet_kind": "retrieved_passage" if text else None,
        "reviews": _readable_reviews(camel_or_snake(answer_sources, "reviewSnippets")),
        "flag_content_uri": str_or_none(camel_or_snake(answer_sources, "flagContentUri")),
        "route_distance_meters": number_or_none(camel_or_snake(route, "distanceMeters")),
        "route_duration": str_or_none(camel_or_snake(route, "duration")),
        "redirect": is_grounding_redirect(url),
    }
    return table.add(key, kind="web", url=url, title=str_or_none(camel_or_snake(place, "title")), extra=extra)


def _unknown_chunk(response: Response, table: SourceTable, index: int, chunk: dict[str, Any]) -> str:
    """A chunk of a kind citeview does not know: listed, with a link only if it names an http(s) one."""
    names = sorted(k for k in chunk if isinstance(k, str))
    inner = next((v for v in chunk.values() if isinstance(v, dict)), {})
    uri = str_or_none(camel_or_snake(inner, "uri")) or str_or_none(camel_or_snake(inner, "sourceUri"))
    response.diagnose(
        "unknown_chunk_kind",
        "info",
        phrase(
            "Grounding chunk {index} is of a kind citeview does not know ({kind}); it is listed with what it names.",
            index=index,
            kind=", ".join(names)[:80] if names else phrase("an empty chunk"),
        ),
        chunk=index,
        kinds=names[:10],
    )
    extra = {
        "uri": uri if uri and not is_safe_http_url(uri) else None,
        "snippet": str_or_none(camel_or_snake(inner, "text")),
    }
    return table.add(
        str(index),
        kind="web",
        url=uri if is_safe_http_url(uri) else None,
        title=str_or_none(camel_or_snake(inner, "title")),
        extra=extra,
    )


def _readable_metadata(value: Any) -> str | None:
    """File Search ``customMetadata`` (``[{key, stringValue | numericValue | stringListValue}]``) or
    an Interactions ``custom_metadata`` object, one ``key: value`` a line: sources keep only text."""
    if isinstance(value, dict):
        pairs = [(str(k), v) for k, v in value.items()]
    else:
        pairs = []
        for item in dicts_in(value):
            found = next(
                (
                    camel_or_snake(item, name)
                    for name in ("stringValue", "numericValue", "stringListValue")
                    if camel_or_snake(item, name) is not None
                ),
                None,
            )
            if isinstance(found, dict):  # stringListValue: {values: [...]}
                found = strings_in(camel_or_snake(found, "values"))
            pairs.append((str_or_none(camel_or_snake(item, "key")) or "?", found))
    lines = [f"{name}: {_readable_value(v)}" for name, v in pairs]
    return "\n".join(lines) or None


def _readable_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value)
    return json.dumps(value, ensure_ascii=False)


def _readable_reviews(value: Any) -> str | None:
    """Maps review snippets, one a line: the review's title, its author and age, its link."""
    lines = []
    for review in dicts_in(value):
        author = dict_or_empty(camel_or_snake(review, "authorAttribution"))
        parts = [
            str_or_none(camel_or_snake(review, "title")),
            str_or_none(camel_or_snake(author, "displayName")),
            str_or_none(camel_or_snake(review, "relativePublishTimeDescription")),
            str_or_none(camel_or_snake(review, "googleMapsUri")) or str_or_none(camel_or_snake(review, "url")),
        ]
        line = " · ".join(p for p in parts if p)
        if line:
            lines.append(line)
    return "\n".join(lines) or None


def _place_support(
    response: Response,
    offsets: ByteOffsets,
    part_starts: dict[int, int],
    number: int,
    support: dict[str, Any],
    chunks: list[_Chunk],
) -> None:
    # ``get`` written out for the support and its segment (dicts): this runs for every support of
    # answers with a hundred thousand of them.
    segment = support.get("segment")
    if not isinstance(segment, dict):
        segment = {}
    start_value = segment.get("startIndex")
    start_value = start_value if start_value is not None else segment.get("start_index")
    end_value = segment.get("endIndex")
    end_value = end_value if end_value is not None else segment.get("end_index")
    start = start_value if type(start_value) is int else 0  # proto3 omits zeros
    end = end_value if type(end_value) is int else 0
    text = segment.get("text")
    text = text if isinstance(text, str) else None
    raw_indices = support.get("groundingChunkIndices")
    if raw_indices is None:
        raw_indices = support.get("grounding_chunk_indices")
    raw_scores = support.get("confidenceScores")
    if raw_scores is None:
        raw_scores = support.get("confidence_scores")
    # (A JSON value is an int or a bool: ``type(i) is int`` is an int that is no bool.)
    indices = [i for i in raw_indices if type(i) is int] if isinstance(raw_indices, list) else []
    # A score is a probability: a number outside 0..1 (or one too large for a float) is no score.
    scores = (
        [s if type(s) in (int, float) and 0 <= s <= 1 else None for s in raw_scores]
        if isinstance(raw_scores, list)
        else []
    )
    # A score belongs to its chunk: drop the pair together when the chunk does not exist.
    count = len(chunks)
    if len(scores) == len(indices):
        cited = [(chunks[i], score) for i, score in zip(indices, scores, strict=True) if 0 <= i < count]
    else:
        cited = [(chunks[i], None) for i in indices if 0 <= i < count]
    known = [(chunk.key, score) for chunk, score in cited]
    source_keys = [key for key, _ in known]
    missing = [i for i in indices if not 0 <= i < count]
    if missing:
        response.diagnose(
            "unknown_chunk",
            "warning",
            phrase(
                "Support {number} ({text}) points at grounding chunk(s) {missing}, which the response does not "
                "list (it lists {count}); where the claim stands, it is marked as pointing at no source.",
                number=number,
                text=_short(text),
                missing=", ".join(map(str, missing)),
                count=count,
            ),
            support=number,
            missing_chunks=missing,
        )
    if end_value is None:
        no_end = phrase("Support {number} ({text}) has no endIndex; not placed.", number=number, text=_short(text))
        note_no_span(response, no_end, support=number)
        return
    placement = None
    part_value = segment.get("partIndex")
    part_value = part_value if part_value is not None else segment.get("part_index")
    part = part_value if type(part_value) is int else 0
    if part > 0 and part in part_starts:  # only an explicit partIndex, and only if its slice holds the text
        candidate = place_byte_span(offsets, part_starts[part] + start, part_starts[part] + end, text)
        placement = candidate if candidate.problem is None else None
    placement = placement or place_byte_span(offsets, start, end, text)
    if placement.problem:  # (asked first: most of a hundred thousand supports fit)

        def say(detail: Phrase | None, where: Phrase) -> Phrase:
            shown = _short(text)
            return phrase(
                "Support {number} ({text}): {detail}; {where}.", number=number, text=shown, detail=detail, where=where
            )

        details = {"start_byte": start, "end_byte": end, "segment_text": text, "source_keys": source_keys}
        note_where(response, placement, say, support=number, **details)
    if placement.start is None or placement.end is None:
        return
    if missing:  # never a guessed page: the claim's end is marked as citing what the response does not list
        response.unresolved.append(Marker("", _chunks_named(missing), placement.end, placement.end))
    if not source_keys:
        return
    known_scores = [own_float(score) for _, score in known if score is not None]
    confidence = known_scores if known and len(known_scores) == len(known) else None
    # A location describes every source of the citation: given only when all its chunks name the same pages.
    pages = [chunk.pages for chunk, _ in cited]
    location = pages[0] if pages and pages[0] is not None and all(p == pages[0] for p in pages) else None
    response.citations.append(
        Citation(placement.start, placement.end, source_keys, confidence=confidence, location=location)
    )


MISSING_CHUNKS_NAMED = 3


def _chunks_named(indices: list[int]) -> str:
    """What an unresolved mark of missing chunks shows: ``chunk 1``, ``chunks 1, 2``, ``chunks 0, 1, 2 …``."""
    named = ", ".join(map(str, indices[:MISSING_CHUNKS_NAMED])) + (" …" if len(indices) > MISSING_CHUNKS_NAMED else "")
    return f"chunk {named}" if len(indices) == 1 else f"chunks {named}"


def _short(text: str | None) -> str | Phrase:
    if not text:
        return phrase("no segment text")
    return repr(text if len(text) <= 40 else text[:37] + "…")


# --- Recitation notices (citationMetadata) --------------------------------------------------------


def _recitation_notices(metadata: Any) -> list[dict[str, Any]]:
    """Gemini API ``citationSources``; Vertex AI and python-genai ``citations``."""
    return dicts_in(camel_or_snake(metadata, "citationSources")) or dicts_in(camel_or_snake(metadata, "citations"))


def _read_recitations(response: Response, offsets: ByteOffsets, notices: list[dict[str, Any]]) -> None:
    """Stretches the model reproduced from published works: notices, never sources or citations. Their
    offsets' unit is undocumented; they are read as UTF-8 bytes, the unit of Gemini's other offsets,
    and kept only where they fall on characters of the answer."""
    placed_any = False
    for number, notice in enumerate(notices):
        start, end = _recitation_span(response, offsets, number, notice)
        placed_any = placed_any or start is not None
        response.recitations.append(
            Recitation(
                start,
                end,
                # Vertex AI writes "" for a license it does not know: that says nothing.
                url=str_or_none(camel_or_snake(notice, "uri")) or None,
                title=str_or_none(camel_or_snake(notice, "title")) or None,
                license=str_or_none(camel_or_snake(notice, "license")) or None,
                publication_date=_publication_date(camel_or_snake(notice, "publicationDate")),
            )
        )
    if placed_any:
        message = phrase(
            "The places of recitation notices are read as UTF-8 bytes, the unit of Gemini's other offsets; "
            "the API does not document their unit."
        )
        note_unit(response, message, unit="utf8", assumed=True)


def _recitation_span(
    response: Response, offsets: ByteOffsets, number: int, notice: dict[str, Any]
) -> tuple[int | None, int | None]:
    raw_start, raw_end = camel_or_snake(notice, "startIndex"), camel_or_snake(notice, "endIndex")
    if raw_start is None and raw_end is None:
        return None, None  # a notice without a place
    start, end = (0 if raw_start is None else int_or_none(raw_start)), int_or_none(raw_end)  # proto3 drops 0
    if start is None or end is None:
        unusable = phrase(
            "Recitation notice {number} has no usable startIndex/endIndex; its place is not shown.", number=number
        )
        note_no_span(response, unusable, recitation=number)
        return None, None
    placement = place_byte_span(offsets, start, end, None)
    if placement.problem or placement.start is None or placement.end is None:
        message = phrase(
            "Recitation notice {number}: {detail}; its place is not shown.", number=number, detail=placement.detail
        )
        note_placement(response, placement, "warning", message, recitation=number, start_byte=start, end_byte=end)
        return None, None
    return placement.start, placement.end


def _publication_date(value: Any) -> str | None:
    """A ``google.type.Date`` as ISO 8601, as far as it is given (a year, a year and month, or
    ``--MM-DD`` for a day without a year); zeros mean "not given"."""
    if isinstance(value, str):
        return value or None
    date = dict_or_empty(value)
    year, month, day = (int_or_none(camel_or_snake(date, name)) or 0 for name in ("year", "month", "day"))
    if year and month and day:
        return f"{year:04d}-{month:02d}-{day:02d}"
    if year and month:
        return f"{year:04d}-{month:02d}"
    if year:
        return f"{year:04d}"
    if month and day:
        return f"--{month:02d}-{day:02d}"
    return None


def _set_status(response: Response, finish_reason: str | None, block_reason: str | None) -> None:
    if block_reason:
        blocked = phrase(
            "{field} {reason}: {explanation}",
            field="promptFeedback.blockReason",
            reason=block_reason,
            explanation=phrase("the prompt was blocked"),
        )
        response.mark_failed(detail=blocked)
    else:
        response.set_finish(finish_reason, field="finishReason", completed={"STOP"})


# --- Interactions API -----------------------------------------------------------------------------

_INTERACTION_DONE = {"interaction.completed", "interaction.complete"}


def parse_interactions(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("gemini", "gemini.interactions", streamed)
    if streamed:
        interaction, steps, status = _read_interaction_stream(values)
    else:
        interaction = next(iter(values))
        steps = _steps(interaction)
        status = str_or_none(interaction.get("status"))
    response.id = str_or_none(interaction.get("id"))
    response.model = str_or_none(interaction.get("model"))
    table = SourceTable(response)
    unknown: dict[str, list[dict[str, Any]]] = {}  # annotations of types citeview does not know, by type
    texts = []
    position = 0
    for step in steps:
        _read_search_step(response, step)
        if step.get("type") != "model_output":
            continue
        for content in dicts_in(step.get("content")):
            if content.get("type") not in (None, "text"):
                continue
            text = str_or_none(content.get("text")) or ""
            offsets = ByteOffsets(text)
            for number, annotation in enumerate(dicts_in(content.get("annotations"))):
                _place_annotation(response, table, offsets, position, number, annotation, unknown)
            texts.append(text)
            position += len(text)
    _note_unknown_annotations(response, unknown)
    response.text = "".join(texts)
    if status:  # without one, the stream reader has said what is missing
        response.set_status(status, interaction.get("error"))
    else:
        response.mark_incomplete(phrase("stream ended without {event}", event="interaction.completed"))
    return response


def _read_search_step(response: Response, step: dict[str, Any]) -> None:
    """Search calls carry the queries; search results carry only the Suggestions widget."""
    if step.get("type") == "google_search_call":
        arguments = dict_or_empty(step.get("arguments"))
        queries = strings_in(arguments.get("queries")) or [q for q in [str_or_none(arguments.get("query"))] if q]
        if queries:
            response.searches.append(SearchBatch(queries, []))
    elif step.get("type") == "google_search_result":
        for result in dicts_in(step.get("result")):
            snippet = str_or_none(result.get("search_suggestions"))
            if snippet:
                response.search_suggestions = snippet


def _steps(interaction: dict[str, Any]) -> list[dict[str, Any]]:
    steps = dicts_in(interaction.get("steps"))
    if steps:
        return steps
    return [{"type": "model_output", "content": [o]} for o in dicts_in(interaction.get("outputs"))]


def _read_interaction_stream(
    events: Iterable[dict[str, Any]],
) -> tuple[dict[str, Any], list[dict[str, Any]], str | None]:
    """Accumulate step deltas: the final event carries an interaction with empty outputs."""
    interaction: dict[str, Any] = {}
    steps: dict[int, dict[str, Any]] = {}
    # Each step's text deltas, joined once at the end: added to the text so far, each copied it whole.
    pieces: dict[int, list[str]] = {}
    status = None
    for event in events:
        kind = event.get("event_type") if isinstance(event.get("event_type"), str) else None
        inner = event.get("interaction")
        if isinstance(inner, dict):
            interaction = {**interaction, **{k: v for k, v in inner.items() if v is not None}}
            status = str_or_none(inner.get("status")) or status
        if kind in ("step.start", "content.start"):
            started = event.get("step") if isinstance(event.get("step"), dict) else event.get("content")
            steps[int_or_zero(event.get("index"))] = {
                **(started if isinstance(started, dict) else {}),
                "text": "",
                "annotations": [],
            }
            pieces.pop(int_or_zero(event.get("index")), None)
        elif kind in ("step.delta", "content.delta"):
            index = int_or_zero(event.get("index"))
            step = steps.setdefault(index, {"type": "model_output", "text": "", "annotations": []})
            delta = dict_or_empty(event.get("delta"))
            if delta.get("type") == "text":
                pieces.setdefault(index, []).append(str_or_none(delta.get("text")) or "")
            else:
                _apply_step_delta(step, delta)
        elif kind == "interaction.status_update":
            status = str_or_none(event.get("status")) or status
        elif kind == "error":
            interaction["error"] = event.get("error") or event
            status = "failed"
        if kind in _INTERACTION_DONE and status in (None, "in_progress", "queued"):
            status = "completed"
    for index, texts in pieces.items():
        steps[index]["text"] += "".join(texts)
    ordered = []
    for _, step in sorted(steps.items()):
        if step.get("type") in ("model_output", "text"):
            step = {
                **step,
                "type": "model_output",
                "content": [{"type": "text", "text": step["text"], "annotations": step["annotations"]}],
            }
        ordered.append(step)
    return interaction, ordered, status


def _apply_step_delta(step: dict[str, Any], delta: dict[str, Any]) -> None:
    kind = delta.get("type")
    if kind == "text":
        step["text"] += str_or_none(delta.get("text")) or ""
    elif kind in ("text_annotation_delta", "text_annotation"):
        step["annotations"] += dicts_in(delta.get("annotations"))
    elif kind == "google_search_result":
        step["result"] = dicts_in(step.get("result")) + dicts_in(delta.get("result"))
    elif kind == "google_search_call" and isinstance(delta.get("arguments"), dict):
        step["arguments"] = delta["arguments"]


_ANNOTATION_TYPES = {"url_citation", "file_citation", "place_citation", None}  # None: the legacy shape
_NOT_CITATIONS = {"word_info"}  # annotations that attribute nothing


def _place_annotation(
    response: Response,
    table: SourceTable,
    offsets: ByteOffsets,
    shift: int,
    number: int,
    annotation: dict[str, Any],
    unknown: dict[str, list[dict[str, Any]]],
) -> None:
    raw_kind = annotation.get("type")
    # A type that is a list or an object is named by its JSON (and so is one no set lookup chokes on).
    kind = raw_kind if raw_kind is None or isinstance(raw_kind, str) else json.dumps(raw_kind)[:40]
    if kind is not None and kind not in _ANNOTATION_TYPES:
        if kind not in _NOT_CITATIONS:
            unknown.setdefault(kind, []).append(annotation)
        return
    key, location = _annotation_source(table, kind, number, annotation)
    if annotation.get("start_index") is None and annotation.get("end_index") is None:
        if key not in response.cited_without_position:  # every index is optional: a citation of no place
            response.cited_without_position.append(key)
        return
    if annotation.get("end_index") is None:
        no_end = phrase("Annotation {number} for {source} has no end_index; not placed.", number=number, source=key)
        note_no_span(response, no_end)
        return
    # Bytes, per the SDK's docstrings; no text to check them against, only that they fall on characters.
    start, end = int_or_zero(annotation.get("start_index")), int_or_zero(annotation.get("end_index"))
    placement = place_byte_span(offsets, start, end, None)
    if placement.start is None or placement.end is None:
        message = phrase("Annotation {number}: {detail}; not placed.", number=number, detail=placement.detail)
        note_placement(response, placement, "warning", message)
        return
    response.citations.append(Citation(shift + placement.start, shift + placement.end, [key], location=location))


def _annotation_source(
    table: SourceTable, kind: Any, number: int, annotation: dict[str, Any]
) -> tuple[str, dict[str, Any] | None]:
    """The source an annotation names, under the most specific name it gives, and the page it cites."""
    if kind == "file_citation":
        return _file_citation(table, number, annotation)
    if kind == "place_citation":
        url = str_or_none(annotation.get("url"))
        name = str_or_none(annotation.get("name"))
        place_id = str_or_none(annotation.get("place_id"))
        extra = {
            "place_id": place_id,
            "reviews": _readable_reviews(annotation.get("review_snippets")),
            "redirect": is_grounding_redirect(url),
        }
        key = table.add(place_id or url or name or f"place-{number}", kind="web", url=url, title=name, extra=extra)
        return key, None
    legacy_source = str_or_none(annotation.get("source"))  # the legacy shape's only name for its source
    url = str_or_none(annotation.get("url")) or (legacy_source if is_safe_http_url(legacy_source) else None)
    title = str_or_none(annotation.get("title"))
    key = table.add(
        url or title or legacy_source or f"annotation-{number}",
        kind="web",
        url=url,
        title=title,
        extra={"redirect": is_grounding_redirect(url), "source": legacy_source if legacy_source != url else None},
    )
    return key, None


def _file_citation(table: SourceTable, number: int, annotation: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    uri = str_or_none(annotation.get("document_uri"))
    name = str_or_none(annotation.get("file_name"))
    source = str_or_none(annotation.get("source"))
    media_id = str_or_none(annotation.get("media_id"))
    page = int_or_none(annotation.get("page_number"))
    extra = {
        "document_uri": uri if uri and not is_safe_http_url(uri) else None,
        "file_name": name,
        "source": source,
        "media_id": media_id,
        "page_number": page,
        "custom_metadata": _readable_metadata(annotation.get("custom_metadata")),
    }
    key = table.add(
        uri or name or source or media_id or f"file-{number}",
        kind="file",
        url=uri if is_safe_http_url(uri) else None,
        title=name,
        extra=extra,
    )
    # A page number is assumed to count from 1, as a document's pages do; any other is no place.
    return key, ({"type": "page", "start": page, "end": page + 1} if page is not None and page >= 1 else None)


def _note_unknown_annotations(response: Response, unknown: dict[str, list[dict[str, Any]]]) -> None:
    """One note per annotation type citeview does not read, with the first such annotation as it came."""
    for kind, found in unknown.items():
        response.diagnose(
            "unknown_citation",
            "info",
            phrase(
                "{count} annotation(s) of a type citeview does not know ({type}) are kept here but not placed.",
                count=len(found),
                type=kind,
            ),
            type=kind,
            count=len(found),
            first=found[0],
        )


# --- Detection ------------------------------------------------------------------------------------


def _decide_generate_content(kind: str | None, keys: frozenset[str]) -> Decision | None:
    if "candidates" in keys or "usageMetadata" in keys or "usage_metadata" in keys:
        return "chunk"
    return None if "error" in keys else NEITHER  # an error body is told by its fields (_is_google_error)


def _decide_interactions(kind: str | None, keys: frozenset[str]) -> Decision | None:
    if "event_type" in keys:
        return None
    return "whole" if "steps" in keys or ("outputs" in keys and "status" in keys) else NEITHER


def _generate_content_value(value: dict[str, Any]) -> ValueKind | None:
    if "candidates" in value or "usageMetadata" in value or "usage_metadata" in value:
        return "chunk"
    return "chunk" if _is_google_error(value.get("error")) else None


def _is_google_error(error: Any) -> bool:
    """The object of Google's error body, ``{"error": {"code": 400, "message": "…", "status":
    "INVALID_ARGUMENT"}}``, what the API answered instead of a response (other providers' errors
    have no ``status`` name)."""
    return (
        isinstance(error, dict)
        and is_int(error.get("code"))
        and isinstance(error.get("status"), str)
        and isinstance(error.get("message"), str)
    )


def _candidates(value: dict[str, Any]) -> list[dict[str, Any]]:
    found = camel_or_snake(value, "candidates")
    return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else []


class _GenerateContentStream:
    """A new responseId starts a new response; without ids, text after a finished chunk does."""

    def __init__(self) -> None:
        self.finished = False  # a finish reason was seen
        self.response_ids: set[str] = set()

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        new_id = _response_id(value)
        if new_id and self.response_ids:
            return new_id not in self.response_ids
        has_text = any(
            p.get("text")
            for c in _candidates(value)
            for p in dicts_in(camel_or_snake(dict_or_empty(camel_or_snake(c, "content")), "parts"))
        )
        return self.finished and has_text

    def add(self, value: dict[str, Any]) -> None:
        if response_id := _response_id(value):
            self.response_ids.add(response_id)
        self.finished = self.finished or any(camel_or_snake(c, "finishReason") for c in _candidates(value))


def _response_id(value: dict[str, Any]) -> str | None:
    found = camel_or_snake(value, "responseId")
    return found if isinstance(found, str) else None


def _interactions_value(value: dict[str, Any]) -> ValueKind | None:
    event_type = value.get("event_type")
    if isinstance(event_type, str) and event_type.startswith(("interaction.", "content.")):
        return "event"
    if "steps" in value or ("outputs" in value and "status" in value):
        return "whole"
    return None


# --- The APIs -------------------------------------------------------------------------------------

GEMINI = Provider("gemini", "Gemini")

register(
    ApiFormat(
        name="gemini.generate_content",
        label="Gemini generateContent",
        provider=GEMINI,
        shape=Shape(
            name="gemini",
            priority=40,
            recognise=_generate_content_value,
            new_splitter=_GenerateContentStream,
            decide=_decide_generate_content,
        ),
        parser=parse_generate_content,
        citation_notation=phrase("groundingSupports: UTF-8 byte segments of the text pointing at groundingChunks"),
    )
)
register(
    ApiFormat(
        name="gemini.interactions",
        label="Gemini Interactions",
        provider=GEMINI,
        shape=Shape(name="interactions", priority=50, recognise=_interactions_value, decide=_decide_interactions),
        parser=parse_interactions,
        citation_notation=phrase("annotations: UTF-8 byte spans of the text pointing at search results"),
    )
)
