"""Google Gemini: ``generateContent`` (``gemini.generate_content``) and the Interactions API
(``gemini.interactions``). Grounding marks answer spans by UTF-8 **byte** offsets
(``../shared/docs/provider-formats.md`` §3)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from citeview.core.jsonvalues import dict_or_empty, dicts_in, str_or_none, strings_in
from citeview.core.model import Citation, Response, SearchBatch
from citeview.core.offsets import ByteOffsets, place_byte_span
from citeview.core.phrases import Phrase, phrase
from citeview.core.registry import ApiFormat, Provider, Shape, ValueKind, register
from citeview.core.sources import SourceTable

REDIRECT_PREFIX = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def get(obj: Any, camel: str) -> Any:
    """A field by its REST (camelCase) name or its python-genai (snake_case) name."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(camel)
    return value if value is not None else obj.get(_snake_case(camel))


@cache  # called for several fields of every chunk of a stream: the few names are converted once
def _snake_case(camel: str) -> str:
    return _CAMEL.sub("_", camel).lower()


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


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


def parse_generate_content(values: list[dict[str, Any]], streamed: bool) -> list[Response]:
    candidates: dict[int, _Candidate] = {}
    block_reason = None
    error: dict[str, Any] | None = None
    response_id = model = None
    for chunk in values:
        response_id = response_id or str_or_none(get(chunk, "responseId"))
        model = str_or_none(get(chunk, "modelVersion")) or model
        block_reason = str_or_none(get(get(chunk, "promptFeedback"), "blockReason")) or block_reason
        if isinstance(chunk.get("error"), dict):  # an error object in the middle of a stream
            error = chunk["error"]
        for raw in dicts_in(get(chunk, "candidates")):
            index = _int(get(raw, "index"))
            candidate = candidates.setdefault(index, _Candidate(index))
            _read_parts(candidate, dicts_in(get(get(raw, "content"), "parts")), one_body=len(values) == 1)
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
        if candidates[index].cumulative:
            response.diagnose(
                "cumulative_stream",
                "info",
                phrase(
                    "The stream's chunks repeat the text so far instead of adding to it; the last full text is used."
                ),
            )
        if error is not None:
            response.mark_failed(error)
        else:
            _set_status(response, candidates[index].finish_reason, block_reason)
        responses.append(response)
    return responses


def _read_parts(candidate: _Candidate, parts: list[dict[str, Any]], *, one_body: bool) -> None:
    for raw_index, part in enumerate(parts):
        text = str_or_none(get(part, "text"))
        if text is None or get(part, "thought") is True:
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
    keys = [_add_chunk(table, i, chunk) for i, chunk in enumerate(dicts_in(get(grounding, "groundingChunks")))]
    queries = strings_in(get(grounding, "webSearchQueries"))
    if queries or keys:
        response.searches.append(SearchBatch(queries, keys))
    rendered = str_or_none(get(get(grounding, "searchEntryPoint"), "renderedContent"))
    if rendered:
        response.search_suggestions = rendered
    offsets = ByteOffsets(response.text)
    for number, support in enumerate(dicts_in(get(grounding, "groundingSupports"))):
        _place_support(response, offsets, candidate.part_starts, number, support, keys)


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


def _place_support(
    response: Response,
    offsets: ByteOffsets,
    part_starts: dict[int, int],
    number: int,
    support: dict[str, Any],
    keys: list[str],
) -> None:
    segment = get(support, "segment") if isinstance(get(support, "segment"), dict) else {}
    start, end = _int(get(segment, "startIndex")), _int(get(segment, "endIndex"))  # proto3 omits zeros
    text = str_or_none(get(segment, "text"))
    raw_indices = get(support, "groundingChunkIndices")
    raw_scores = get(support, "confidenceScores")
    indices = (
        [i for i in raw_indices if isinstance(i, int) and not isinstance(i, bool)]
        if isinstance(raw_indices, list)
        else []
    )
    # A score is a probability: a number outside 0..1 (or one too large for a float) is no score.
    scores = (
        [s if isinstance(s, int | float) and not isinstance(s, bool) and 0 <= s <= 1 else None for s in raw_scores]
        if isinstance(raw_scores, list)
        else []
    )
    # A score belongs to its chunk: drop the pair together when the chunk does not exist.
    pairs = [(i, scores[n] if len(scores) == len(indices) else None) for n, i in enumerate(indices)]
    known = [(keys[i], score) for i, score in pairs if 0 <= i < len(keys)]
    source_keys = [key for key, _ in known]
    if len(known) < len(indices):
        response.diagnose(
            "unknown_chunk",
            "warning",
            phrase("Support {number} points at grounding chunks that do not exist.", number=number),
            support=number,
        )
    if get(segment, "endIndex") is None:
        response.diagnose(
            "offset_out_of_range",
            "warning",
            phrase("Support {number} ({text}) has no endIndex; not placed.", number=number, text=_short(text)),
            support=number,
        )
        return
    placement = None
    part = _int(get(segment, "partIndex"))
    if part > 0 and part in part_starts:  # only an explicit partIndex, and only if its slice holds the text
        candidate = place_byte_span(offsets, part_starts[part] + start, part_starts[part] + end, text)
        placement = candidate if candidate.problem is None else None
    placement = placement or place_byte_span(offsets, start, end, text)
    if placement.problem:
        where = phrase("placed where its text stands") if placement.start is not None else phrase("not placed")
        response.diagnose(
            placement.problem,
            "warning",
            phrase(
                "Support {number} ({text}): {detail}; {where}.",
                number=number,
                text=_short(text),
                detail=placement.detail,
                where=where,
            ),
            support=number,
            start_byte=start,
            end_byte=end,
            segment_text=text,
            source_keys=source_keys,
        )
    if placement.start is None or placement.end is None or not source_keys:
        return
    known_scores = [float(score) for _, score in known if score is not None]
    confidence = known_scores if known and len(known_scores) == len(known) else None
    response.citations.append(Citation(placement.start, placement.end, source_keys, confidence=confidence))


def _short(text: str | None) -> str | Phrase:
    if not text:
        return phrase("no segment text")
    return repr(text if len(text) <= 40 else text[:37] + "…")


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


def parse_interactions(values: list[dict[str, Any]], streamed: bool) -> Response:
    response = Response("gemini", "gemini.interactions", streamed)
    if streamed:
        interaction, steps, status = _read_interaction_stream(values)
    else:
        interaction, steps = values[0], _steps(values[0])
        status = str_or_none(interaction.get("status"))
    response.id = str_or_none(interaction.get("id"))
    response.model = str_or_none(interaction.get("model"))
    table = SourceTable(response)
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
                _place_annotation(response, table, offsets, position, number, annotation)
            texts.append(text)
            position += len(text)
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


def _read_interaction_stream(events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]], str | None]:
    """Accumulate step deltas: the final event carries an interaction with empty outputs."""
    interaction: dict[str, Any] = {}
    steps: dict[int, dict[str, Any]] = {}
    status = None
    for event in events:
        kind = event.get("event_type") if isinstance(event.get("event_type"), str) else None
        inner = event.get("interaction")
        if isinstance(inner, dict):
            interaction = {**interaction, **{k: v for k, v in inner.items() if v is not None}}
            status = str_or_none(inner.get("status")) or status
        if kind in ("step.start", "content.start"):
            started = event.get("step") if isinstance(event.get("step"), dict) else event.get("content")
            steps[_int(event.get("index"))] = {
                **(started if isinstance(started, dict) else {}),
                "text": "",
                "annotations": [],
            }
        elif kind in ("step.delta", "content.delta"):
            step = steps.setdefault(_int(event.get("index")), {"type": "model_output", "text": "", "annotations": []})
            _apply_step_delta(step, dict_or_empty(event.get("delta")))
        elif kind == "interaction.status_update":
            status = str_or_none(event.get("status")) or status
        elif kind == "error":
            interaction["error"] = event.get("error") or event
            status = "failed"
        if kind in _INTERACTION_DONE and status in (None, "in_progress", "queued"):
            status = "completed"
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


def _place_annotation(
    response: Response, table: SourceTable, offsets: ByteOffsets, shift: int, number: int, annotation: dict[str, Any]
) -> None:
    kind = annotation.get("type")
    if kind not in ("url_citation", "file_citation", "place_citation", None):
        return
    legacy_source = str_or_none(annotation.get("source"))
    url = str_or_none(annotation.get("url")) or str_or_none(annotation.get("document_uri"))
    url = url or (legacy_source if legacy_source and legacy_source.startswith(("http://", "https://")) else None)
    title = (
        str_or_none(annotation.get("title"))
        or str_or_none(annotation.get("file_name"))
        or str_or_none(annotation.get("name"))
    )
    source_name = url or title or legacy_source or f"annotation-{number}"
    redirect = bool(url and url.startswith(REDIRECT_PREFIX))
    key = table.add(
        source_name,
        kind="file" if kind == "file_citation" else "web",
        url=url,
        title=title,
        extra={"redirect": redirect},
    )
    if annotation.get("end_index") is None:
        response.diagnose(
            "offset_out_of_range",
            "warning",
            phrase("Annotation {number} for {source} has no end_index; not placed.", number=number, source=source_name),
        )
        return
    start, end = _int(annotation.get("start_index")), _int(annotation.get("end_index"))
    placement = place_byte_span(offsets, start, end, None)
    if placement.start is None or placement.end is None:
        response.diagnose(
            placement.problem or "offset_out_of_range",
            "warning",
            phrase("Annotation {number}: {detail}; not placed.", number=number, detail=placement.detail),
        )
        return
    response.citations.append(Citation(shift + placement.start, shift + placement.end, [key]))


# --- Detection ------------------------------------------------------------------------------------


def _generate_content_value(value: dict[str, Any]) -> ValueKind | None:
    if "candidates" in value or "usageMetadata" in value or "usage_metadata" in value:
        return "chunk"
    return None


def _candidates(value: dict[str, Any]) -> list[dict[str, Any]]:
    found = get(value, "candidates")
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
            isinstance(p, dict) and p.get("text")
            for c in _candidates(value)
            for p in (get(get(c, "content") or {}, "parts") or [])
        )
        return self.finished and has_text

    def add(self, value: dict[str, Any]) -> None:
        if response_id := _response_id(value):
            self.response_ids.add(response_id)
        self.finished = self.finished or any(get(c, "finishReason") for c in _candidates(value))


def _response_id(value: dict[str, Any]) -> str | None:
    found = get(value, "responseId")
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
        shape=Shape(name="gemini", priority=40, recognise=_generate_content_value, new_splitter=_GenerateContentStream),
        parser=parse_generate_content,
        citation_notation="groundingSupports: UTF-8 byte segments of the text pointing at groundingChunks",
    )
)
register(
    ApiFormat(
        name="gemini.interactions",
        label="Gemini Interactions",
        provider=GEMINI,
        shape=Shape(name="interactions", priority=50, recognise=_interactions_value),
        parser=parse_interactions,
        citation_notation="annotations: UTF-8 byte spans of the text pointing at search results",
    )
)
