"""Google Gemini: ``generateContent`` (``gemini.generate_content``) and the Interactions API
(``gemini.interactions``). Grounding marks answer spans by UTF-8 **byte** offsets
(``../shared/docs/provider-formats.md`` §3)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from citeview.core.jsonvalues import dicts_in, str_or_none, strings_in
from citeview.core.model import Citation, Response, SearchBatch
from citeview.core.offsets import ByteOffsets, place_byte_span
from citeview.core.sources import SourceTable

REDIRECT_PREFIX = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def get(obj: Any, camel: str) -> Any:
    """A field by its REST (camelCase) name or its python-genai (snake_case) name."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(camel)
    return value if value is not None else obj.get(_CAMEL.sub("_", camel).lower())


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# --- generateContent ------------------------------------------------------------------------------


@dataclass
class _Candidate:
    index: int
    parts: list[str] = field(default_factory=list)  # the non-thought text parts, in order
    finish_reason: str | None = None
    grounding: dict[str, Any] = field(default_factory=dict)  # the last non-empty groundingMetadata


def parse_generate_content(values: list[dict[str, Any]], streamed: bool) -> list[Response]:
    candidates: dict[int, _Candidate] = {}
    block_reason = None
    response_id = model = None
    for chunk in values:
        response_id = response_id or str_or_none(get(chunk, "responseId"))
        model = str_or_none(get(chunk, "modelVersion")) or model
        block_reason = str_or_none(get(get(chunk, "promptFeedback"), "blockReason")) or block_reason
        for raw in dicts_in(get(chunk, "candidates")):
            index = _int(get(raw, "index"))
            candidate = candidates.setdefault(index, _Candidate(index))
            for part in dicts_in(get(get(raw, "content"), "parts")):
                text = str_or_none(get(part, "text"))
                if text is not None and get(part, "thought") is not True:
                    candidate.parts.append(text)
            candidate.finish_reason = str_or_none(get(raw, "finishReason")) or candidate.finish_reason
            grounding = get(raw, "groundingMetadata")
            if isinstance(grounding, dict) and any(v not in (None, [], {}) for v in grounding.values()):
                candidate.grounding = grounding  # `{}` on intermediate chunks never overwrites the metadata
    if not candidates:
        candidates[0] = _Candidate(0)
    responses = []
    for index in sorted(candidates):
        response = Response("gemini", "gemini.generate_content", streamed, id=response_id, model=model)
        response.candidate = index if len(candidates) > 1 else None
        _read_candidate(response, candidates[index])
        _set_status(response, candidates[index].finish_reason, block_reason)
        responses.append(response)
    return responses


def _read_candidate(response: Response, candidate: _Candidate) -> None:
    # The offsets refer to the answer: the non-thought text parts joined (partIndex is unreliable).
    response.text = "".join(candidate.parts)
    grounding = candidate.grounding
    table = SourceTable(response)
    keys = [_add_chunk(table, i, chunk) for i, chunk in enumerate(dicts_in(get(grounding, "groundingChunks")))]
    queries = strings_in(get(grounding, "webSearchQueries"))
    if queries or keys:
        response.searches.append(SearchBatch(queries, keys))
    rendered = str_or_none(get(get(grounding, "searchEntryPoint"), "renderedContent"))
    if rendered:
        response.search_suggestions = rendered
    offsets = ByteOffsets(response.text)
    part_starts = _part_byte_starts(candidate.parts)
    for number, support in enumerate(dicts_in(get(grounding, "groundingSupports"))):
        _place_support(response, offsets, part_starts, number, support, keys)


def _add_chunk(table: SourceTable, index: int, chunk: dict[str, Any]) -> str:
    key = str(index)
    web, context, maps = get(chunk, "web"), get(chunk, "retrievedContext"), get(chunk, "maps")
    if isinstance(web, dict):
        url = str_or_none(get(web, "uri"))
        extra = {"domain": str_or_none(get(web, "domain")), "redirect": bool(url and url.startswith(REDIRECT_PREFIX))}
        return table.add(key, kind="web", url=url, title=str_or_none(get(web, "title")), extra=extra)
    if isinstance(context, dict):
        extra = {
            "snippet": str_or_none(get(context, "text")),
            "document_name": str_or_none(get(context, "documentName")),
            "file_search_store": str_or_none(get(context, "fileSearchStore")),
        }
        return table.add(
            key,
            kind="document",
            url=str_or_none(get(context, "uri")),
            title=str_or_none(get(context, "title")),
            extra=extra,
        )
    if isinstance(maps, dict):
        extra = {"place_id": str_or_none(get(maps, "placeId")), "snippet": str_or_none(get(maps, "text"))}
        return table.add(
            key, kind="web", url=str_or_none(get(maps, "uri")), title=str_or_none(get(maps, "title")), extra=extra
        )
    return table.add(key, kind="web", url=None, title=None)


def _part_byte_starts(parts: list[str]) -> list[int]:
    starts, position = [], 0
    for part in parts:
        starts.append(position)
        position += len(part.encode("utf-8", errors="surrogatepass"))
    return starts


def _place_support(
    response: Response,
    offsets: ByteOffsets,
    part_starts: list[int],
    number: int,
    support: dict[str, Any],
    keys: list[str],
) -> None:
    segment = get(support, "segment") if isinstance(get(support, "segment"), dict) else {}
    start, end = _int(get(segment, "startIndex")), _int(get(segment, "endIndex"))  # proto3 omits zeros
    text = str_or_none(get(segment, "text"))
    indices = [i for i in get(support, "groundingChunkIndices") or [] if isinstance(i, int) and not isinstance(i, bool)]
    source_keys = [keys[i] for i in indices if 0 <= i < len(keys)]
    if len(source_keys) < len(indices):
        response.diagnose(
            "unknown_chunk",
            "warning",
            f"Support {number} points at grounding chunks that do not exist.",
            support=number,
        )
    scores = [s for s in get(support, "confidenceScores") or [] if isinstance(s, int | float)]
    placement = None
    part = _int(get(segment, "partIndex"))
    if 0 < part < len(part_starts):  # only an explicit partIndex, and only if its slice holds the text
        candidate = place_byte_span(offsets, part_starts[part] + start, part_starts[part] + end, text)
        placement = candidate if candidate.problem is None else None
    placement = placement or place_byte_span(offsets, start, end, text)
    if placement.problem:
        where = "placed where its text stands" if placement.start is not None else "not placed"
        response.diagnose(
            placement.problem,
            "warning",
            f"Support {number} ({_short(text)}): {placement.detail}; {where}.",
            support=number,
            start_byte=start,
            end_byte=end,
            segment_text=text,
            source_keys=source_keys,
        )
    if placement.start is None or placement.end is None or not source_keys:
        return
    confidence = [float(s) for s in scores] if len(scores) == len(indices) and scores else None
    response.citations.append(Citation(placement.start, placement.end, source_keys, confidence=confidence))


def _short(text: str | None) -> str:
    if not text:
        return "no segment text"
    return repr(text if len(text) <= 40 else text[:37] + "…")


def _set_status(response: Response, finish_reason: str | None, block_reason: str | None) -> None:
    if block_reason:
        response.mark_failed({"message": f"promptFeedback.blockReason {block_reason}: the prompt was blocked"})
    elif finish_reason == "STOP":
        response.status = "completed"
    elif finish_reason:
        response.mark_incomplete(f"finishReason {finish_reason}")
    elif response.streamed:
        response.mark_incomplete("stream ended without a finishReason")
    else:
        response.mark_incomplete("the response has no finishReason")


# --- Interactions API -----------------------------------------------------------------------------

_INTERACTION_DONE = {"interaction.completed", "interaction.complete"}


def parse_interactions(values: list[dict[str, Any]], streamed: bool) -> Response:
    response = Response("gemini", "gemini.interactions", streamed)
    if streamed:
        interaction, contents, status = _read_interaction_stream(values)
    else:
        interaction = values[0]
        contents = [
            c
            for step in _steps(interaction)
            if step.get("type") == "model_output"
            for c in dicts_in(step.get("content"))
        ]
        status = str_or_none(interaction.get("status"))
    response.id = str_or_none(interaction.get("id"))
    response.model = str_or_none(interaction.get("model"))
    table = SourceTable(response)
    texts = []
    position = 0
    for content in contents:
        if content.get("type") not in (None, "text"):
            continue
        text = str_or_none(content.get("text")) or ""
        offsets = ByteOffsets(text)
        for number, annotation in enumerate(dicts_in(content.get("annotations"))):
            _place_annotation(response, table, offsets, position, number, annotation)
        texts.append(text)
        position += len(text)
    response.text = "".join(texts)
    if status == "completed":
        response.status = "completed"
    elif status == "failed":
        response.mark_failed(interaction.get("error") or {"message": "status failed"})
    else:
        response.mark_incomplete(f"status {status}" if status else "stream ended without interaction.completed")
    return response


def _steps(interaction: dict[str, Any]) -> list[dict[str, Any]]:
    steps = dicts_in(interaction.get("steps"))
    if steps:
        return steps
    return [{"type": "model_output", "content": [o]} for o in dicts_in(interaction.get("outputs"))]


def _read_interaction_stream(events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]], str | None]:
    """Accumulate step deltas: the final event carries an interaction with empty outputs."""
    interaction: dict[str, Any] = {}
    steps: dict[int, dict[str, Any]] = {}
    status = None
    for event in events:
        kind = event.get("event_type")
        inner = event.get("interaction")
        if isinstance(inner, dict):
            interaction = {**interaction, **{k: v for k, v in inner.items() if v is not None}}
            status = str_or_none(inner.get("status")) or status
        if kind in ("step.start", "content.start"):
            step = event.get("step") if isinstance(event.get("step"), dict) else event.get("content")
            steps[_int(event.get("index"))] = {"type": (step or {}).get("type"), "text": "", "annotations": []}
        elif kind in ("step.delta", "content.delta"):
            step = steps.setdefault(_int(event.get("index")), {"type": "model_output", "text": "", "annotations": []})
            delta = event.get("delta") if isinstance(event.get("delta"), dict) else {}
            if delta.get("type") == "text":
                step["text"] += str_or_none(delta.get("text")) or ""
            elif delta.get("type") in ("text_annotation_delta", "text_annotation"):
                step["annotations"] += dicts_in(delta.get("annotations"))
        elif kind == "interaction.status_update":
            status = str_or_none(event.get("status")) or status
        elif kind == "error":
            interaction["error"] = event.get("error") or event
            status = "failed"
        if kind in _INTERACTION_DONE:
            status = status or "completed"
    contents = [
        {"type": "text", "text": s["text"], "annotations": s["annotations"]}
        for _, s in sorted(steps.items())
        if s["type"] in ("model_output", "text")
    ]
    return interaction, contents, status


def _place_annotation(
    response: Response, table: SourceTable, offsets: ByteOffsets, shift: int, number: int, annotation: dict[str, Any]
) -> None:
    kind = annotation.get("type")
    if kind not in ("url_citation", "file_citation", "place_citation", None):
        return
    url = str_or_none(annotation.get("url")) or str_or_none(annotation.get("document_uri"))
    title = (
        str_or_none(annotation.get("title"))
        or str_or_none(annotation.get("file_name"))
        or str_or_none(annotation.get("name"))
    )
    source_name = url or title or str_or_none(annotation.get("source")) or f"annotation-{number}"
    redirect = bool(url and url.startswith(REDIRECT_PREFIX))
    key = table.add(
        source_name,
        kind="web" if kind != "file_citation" else "file",
        url=url,
        title=title,
        extra={"redirect": redirect},
    )
    start, end = _int(annotation.get("start_index")), _int(annotation.get("end_index"))
    placement = place_byte_span(offsets, start, end, None)
    if placement.start is None or placement.end is None:
        response.diagnose(
            placement.problem or "offset_out_of_range",
            "warning",
            f"Annotation {number}: {placement.detail}; not placed.",
        )
        return
    response.citations.append(Citation(shift + placement.start, shift + placement.end, [key]))
