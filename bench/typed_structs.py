"""Would decoding each provider's events into typed msgspec structs bring parsing to 2.0× a bare
orjson decode (issue 20)? A measurement, not part of ``make bench``:

    python -m bench.typed_structs [PROVIDER ...] [--size MB] [--repeat N]

For each provider, on the benchmark's own input (``bench.inputs.GENERATORS``), the processor time
(median of ``--repeat`` runs, taken in turn so a busy moment slows each alike) of:

a. the bare orjson decode (``bench.run.bare_decode``): the target's denominator;
b. msgspec decoding the same payloads into generic values (dicts and lists);
p. today's ``framing.read_dump``: (b) and the proof that nothing was lost (no duplicate key dropped,
   no integer changed, no value nested too deep);
c. msgspec decoding the same payloads into typed ``msgspec.Struct``\\ s that hold only the fields
   the provider's parser reads (every other field is skipped in C, never built);
d. today's whole ``parse_dump``;
e. (c) and the least per-citation work any parser must do on top of it: the answer's text joined,
   its sources listed, and each support, annotation or marker made a ``Citation`` with its offsets
   placed and checked as the provider's parser places and checks them (``citeview.core.offsets``,
   ``markers`` and ``model``, as the parsers use them), nothing else: no diagnostics, no detection,
   no unit checks, no statuses (Vercel's SDK gives no positions: its sources and quotes only);
f. what an integrated typed parser would do at the least while keeping the reader's promise:
   (p), because a typed decode keeps the last of two equal keys without a word (shown at the start
   of the run), then (e), then the SHA-256 of the dump that ``parse_dump`` records;
g. (Gemini, Claude, xAI, OpenAI) the same without typed structs: (p), then (e)'s loop on the
   generic values (p) already made (``dict.get`` for each field), then the SHA-256;
h. (e) and the SHA-256 alone: what a typed parser would cost if its decoder refused duplicate keys
   itself (msgspec does not), i.e. the floor of a reader whose proof is free.

For the streams and LangChain's document, where a proof of typed values turned out cheap (not for
Gemini: (h) is over 2.0× already, and (q) decodes more than (c)):

q. msgspec decoding the payloads (in one call, as one JSON array) into closed structs (every field
   the bench's input sends, any other refused, each UNSET unless present), proven as ``framing``
   proves generic values: written back, they hold a colon for every key of the payloads (so no
   duplicate key was dropped), and no escaped colon; no field is typed Any, so the types bound
   the depth;
r. (q)'s proof made of generic values instead (and their depth checked as ``framing`` does);
i. (q), each citation placed as in (e), and the SHA-256: the least an integrated typed parser
   keeping the promise would do, given a closed schema.

And for every provider:

k. today's detection (``detect.split_responses``) of (p)'s values, which any reader must still do
   (no typed detection exists to measure; it would have to tell the same providers apart);
l. what the provider's parser reads of every answer's text besides its citations (its inline
   citation tokens; for xAI also its ``[[N]](url)`` links), on (e)'s text.

Each is printed in seconds and as a ratio to (a); then the memory (tracemalloc peak, and the rise
of the resident peak measured in a fresh process) of (b) against (c).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from bench.figures import medians_side_by_side
from bench.inputs import GENERATORS
from bench.run import bare_decode
from citeview.core.detect import split_responses
from citeview.core.framing import MAX_DEPTH, _may_nest_too_deep, read_dump
from citeview.core.inline_tokens import inline_tokens, numbered_links
from citeview.core.markers import read_markers
from citeview.core.model import Citation, Response, Source
from citeview.core.offsets import ByteOffsets, place_byte_span
from citeview.core.parse import parse_dump
from citeview.core.sources import SourceTable

MB = 1_000_000


# --- Framing, as bare_decode frames (so (a), (b) and (c) read the very same payloads) ----------------


def sse_payloads(raw: bytes) -> list[bytes]:
    return [line[5:] for line in raw.splitlines() if line.startswith(b"data:") and line != b"data: [DONE]"]


GENERIC = msgspec.json.Decoder()


# --- Gemini generateContent: the fields parse_generate_content and _place_support read ------------


class GeminiSegment(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    start_index: int | None = None
    end_index: int | None = None
    part_index: int | None = None
    text: str | None = None


class GeminiSupport(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    segment: GeminiSegment | None = None
    grounding_chunk_indices: list[int] = []
    confidence_scores: list[float] = []


class GeminiWeb(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    uri: str | None = None
    title: str | None = None
    domain: str | None = None


class GeminiChunk(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    web: GeminiWeb | None = None


class GeminiGrounding(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    web_search_queries: list[str] = []
    grounding_chunks: list[GeminiChunk] = []
    grounding_supports: list[GeminiSupport] = []


class GeminiPart(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    text: str | None = None
    thought: bool | None = None


class GeminiContent(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    parts: list[GeminiPart] = []


class GeminiCandidate(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    index: int | None = None
    content: GeminiContent | None = None
    finish_reason: str | None = None
    grounding_metadata: GeminiGrounding | None = None


class GeminiAnswer(msgspec.Struct, rename="camel", gc=False, omit_defaults=True):
    candidates: list[GeminiCandidate] = []
    model_version: str | None = None
    response_id: str | None = None


GEMINI = msgspec.json.Decoder(GeminiAnswer)


def gemini_generic(raw: bytes) -> object:
    return GENERIC.decode(raw)


def gemini_typed(raw: bytes) -> GeminiAnswer:
    return GEMINI.decode(raw)


def gemini_floor(raw: bytes) -> Response:
    answer = gemini_typed(raw)
    response = Response("gemini", "gemini.generate_content", False, id=answer.response_id, model=answer.model_version)
    candidate = answer.candidates[0]
    parts = candidate.content.parts if candidate.content is not None else []
    response.text = "".join(part.text for part in parts if part.text is not None and not part.thought)
    grounding = candidate.grounding_metadata or GeminiGrounding()
    table = SourceTable(response)
    keys = [
        table.add(str(index), kind="web", url=chunk.web.uri, title=chunk.web.title)
        for index, chunk in enumerate(grounding.grounding_chunks)
        if chunk.web is not None
    ]
    count = len(keys)
    offsets = ByteOffsets(response.text)
    citations = response.citations
    for support in grounding.grounding_supports:
        segment = support.segment
        if segment is None or segment.end_index is None:
            continue
        placement = place_byte_span(offsets, segment.start_index or 0, segment.end_index, segment.text)
        if placement.start is None or placement.end is None:
            continue
        cited = [keys[i] for i in support.grounding_chunk_indices if 0 <= i < count]
        if cited:
            citations.append(Citation(placement.start, placement.end, cited, confidence=support.confidence_scores))
    return response


def gemini_floor_on_dicts(values: list[Any]) -> Response:
    """``gemini_floor``'s work on the generic values (``read_dump``'s), ``dict.get`` for each field."""
    (answer,) = values
    response = Response(
        "gemini", "gemini.generate_content", False, id=answer.get("responseId"), model=answer.get("modelVersion")
    )
    candidate = answer["candidates"][0]
    parts = (candidate.get("content") or {}).get("parts") or []
    response.text = "".join(part["text"] for part in parts if part.get("text") is not None and not part.get("thought"))
    grounding = candidate.get("groundingMetadata") or {}
    table = SourceTable(response)
    keys = [
        table.add(str(index), kind="web", url=chunk["web"].get("uri"), title=chunk["web"].get("title"))
        for index, chunk in enumerate(grounding.get("groundingChunks") or [])
        if chunk.get("web") is not None
    ]
    count = len(keys)
    offsets = ByteOffsets(response.text)
    citations = response.citations
    for support in grounding.get("groundingSupports") or []:
        segment = support.get("segment")
        end = segment.get("endIndex") if segment is not None else None
        if end is None:
            continue
        placement = place_byte_span(offsets, segment.get("startIndex") or 0, end, segment.get("text"))
        if placement.start is None or placement.end is None:
            continue
        cited = [keys[i] for i in support.get("groundingChunkIndices") or [] if 0 <= i < count]
        if cited:
            confidence = support.get("confidenceScores") or []
            citations.append(Citation(placement.start, placement.end, cited, confidence=confidence))
    return response


# --- OpenAI and xAI Responses streams: the fields _read_stream and _annotate read -----------------


class Annotation(msgspec.Struct, gc=False, omit_defaults=True):
    type: str | None = None
    url: str | None = None
    title: str | None = None
    start_index: int | None = None
    end_index: int | None = None


class OutputContent(msgspec.Struct, gc=False, omit_defaults=True):
    type: str | None = None
    text: str | None = None
    annotations: list[Annotation] = []


class OutputItem(msgspec.Struct, gc=False, omit_defaults=True):
    id: str | None = None
    type: str | None = None
    status: str | None = None
    content: list[OutputContent] = []


class ResponseBody(msgspec.Struct, gc=False, omit_defaults=True):
    id: str | None = None
    model: str | None = None
    status: str | None = None
    output: list[OutputItem] = []


class ResponsesEvent(msgspec.Struct, gc=False, omit_defaults=True):
    type: str | None = None
    item_id: str | None = None
    output_index: int | None = None
    content_index: int | None = None
    delta: str | None = None
    text: str | None = None
    annotation_index: int | None = None
    annotation: Annotation | None = None
    item: OutputItem | None = None
    response: ResponseBody | None = None


RESPONSES_EVENT = msgspec.json.Decoder(ResponsesEvent)


def responses_generic(raw: bytes) -> list[Any]:
    return list(map(GENERIC.decode, sse_payloads(raw)))


def responses_typed(raw: bytes) -> list[ResponsesEvent]:
    return list(map(RESPONSES_EVENT.decode, sse_payloads(raw)))


def responses_floor(
    provider: str, decode: Callable[[bytes], list[Any]] = responses_typed
) -> Callable[[bytes], Response]:
    """(c) and the least per-annotation work; with ``closed_proven`` as ``decode``, (i). (Absent
    fields are None in the open structs, UNSET in the closed ones: both are falsy.)"""

    def floor(raw: bytes) -> Response:
        deltas: list[str] = []
        annotations: list[Any] = []
        final = None
        for event in decode(raw):
            kind = event.type
            if kind == "response.output_text.delta":
                deltas.append(event.delta or "")
            elif kind == "response.output_text.annotation.added" and event.annotation:
                annotations.append(event.annotation)
            elif kind == "response.completed":
                final = event.response
        response = Response(provider, f"{provider}.responses", True)
        if final:
            response.id, response.model = final.id or None, final.model or None
        text = response.text = "".join(deltas)
        size = len(text)
        keys: dict[str, str] = {}
        citations = response.citations
        for annotation in annotations:  # code-point offsets: a span is placed when it holds its link
            url, start, end = annotation.url, annotation.start_index, annotation.end_index
            if not url or type(start) is not int or type(end) is not int or not 0 <= start <= end <= size:
                continue
            key = keys.get(url)
            if key is None:
                key = keys[url] = url
                response.sources.append(Source(url, "web", url, annotation.title or None))
            if url in text[start:end] or start == end:
                citations.append(Citation(start, end, [key]))
        return response

    return floor


def responses_floor_on_dicts(provider: str) -> Callable[[list[Any]], Response]:
    """``responses_floor``'s work on the generic values (``read_dump``'s), ``dict.get`` for each field."""

    def floor(events: list[Any]) -> Response:
        deltas: list[str] = []
        annotations: list[dict[str, Any]] = []
        final = None
        for event in events:
            kind = event.get("type")
            if kind == "response.output_text.delta":
                deltas.append(event.get("delta") or "")
            elif kind == "response.output_text.annotation.added" and event.get("annotation"):
                annotations.append(event["annotation"])
            elif kind == "response.completed":
                final = event.get("response")
        response = Response(provider, f"{provider}.responses", True)
        if final:
            response.id, response.model = final.get("id"), final.get("model")
        text = response.text = "".join(deltas)
        size = len(text)
        keys: dict[str, str] = {}
        citations = response.citations
        for annotation in annotations:
            url, start, end = annotation.get("url"), annotation.get("start_index"), annotation.get("end_index")
            if not url or type(start) is not int or type(end) is not int or not 0 <= start <= end <= size:
                continue
            key = keys.get(url)
            if key is None:
                key = keys[url] = url
                response.sources.append(Source(url, "web", url, annotation.get("title")))
            if url in text[start:end] or start == end:
                citations.append(Citation(start, end, [key]))
        return response

    return floor


# Closed structs: every field the bench's Responses streams send, each UNSET unless present, and
# any other field refused (a ValidationError, on which an integrated reader would fall back to the
# generic path). Nothing is skipped, so a write of the value holds a colon for every key read: the
# proof ``framing._proven_json`` makes of generic values holds for them too, and an encoder writes
# structs quicker than dicts. No field is typed Any, so no value nests deeper than its types (seven
# levels): the depth needs no proof. A field no parser reads is typed as the bench sends it (real
# streams send more: logprobs' alternatives, usage details, reasoning items), so what else comes
# falls back.

Unset = msgspec.UnsetType
UNSET: Any = msgspec.UNSET


class ClosedAnnotation(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    url: str | Unset = UNSET
    title: str | None | Unset = UNSET
    start_index: int | Unset = UNSET
    end_index: int | Unset = UNSET


class ClosedLogprob(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    token: str | Unset = UNSET
    logprob: float | Unset = UNSET
    bytes: list[int] | Unset = UNSET


class ClosedContent(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    text: str | Unset = UNSET
    logprobs: list[ClosedLogprob] | Unset = UNSET
    annotations: list[ClosedAnnotation] | Unset = UNSET


class ClosedItem(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: str | Unset = UNSET
    type: str | Unset = UNSET
    status: str | Unset = UNSET
    role: str | Unset = UNSET
    arguments: str | Unset = UNSET  # (xAI's web_search_call)
    call_id: str | Unset = UNSET
    name: str | Unset = UNSET
    action: dict[str, str] | Unset = UNSET
    content: list[ClosedContent] | Unset = UNSET


class ClosedBody(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: str | Unset = UNSET
    object: str | Unset = UNSET
    created_at: int | Unset = UNSET
    model: str | Unset = UNSET
    status: str | Unset = UNSET
    output: list[ClosedItem] | Unset = UNSET
    usage: dict[str, int] | Unset = UNSET


class ClosedEvent(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    sequence_number: int | Unset = UNSET
    item_id: str | Unset = UNSET
    output_index: int | Unset = UNSET
    content_index: int | Unset = UNSET
    delta: str | Unset = UNSET
    logprobs: list[ClosedLogprob] | Unset = UNSET
    text: str | Unset = UNSET
    annotation_index: int | Unset = UNSET
    annotation: ClosedAnnotation | Unset = UNSET
    item: ClosedItem | Unset = UNSET
    response: ClosedBody | Unset = UNSET


ENCODER = msgspec.json.Encoder()


def _brackets(payload: bytes) -> int:
    return payload.count(b"{") + payload.count(b"[")


def _count_colons(payload: bytes) -> int:
    return payload.count(b":")


def closed_proven(
    event: type, payloads_of: Callable[[bytes], list[bytes]] = sse_payloads
) -> Callable[[bytes], list[Any]]:
    """(q): each payload decoded into the closed struct ``event``, proven as ``framing`` proves
    generic values (every key's colon written back, no escaped colon; the types bound the depth);
    a failed proof is the generic path's turn (here: an error, as the bench's streams always pass).
    The payloads are decoded in one call, as one JSON array: a call per event costs more."""
    decoder = msgspec.json.Decoder(list[event])  # type: ignore[valid-type]

    def decode(raw: bytes) -> list[Any]:
        payloads = payloads_of(raw)
        values: list[Any] = decoder.decode(b"[" + b",".join(payloads) + b"]")
        if b"\\u003" in raw or ENCODER.encode(values).count(b":") != sum(map(_count_colons, payloads)):
            raise ValueError("not proven: the generic path would read this stream")
        return values

    return decode


def generic_proven(payloads_of: Callable[[bytes], list[bytes]] = sse_payloads) -> Callable[[bytes], list[Any]]:
    """(r): (q)'s proof made of generic values instead (msgspec's compact write, not orjson's indented)."""

    def decode(raw: bytes) -> list[Any]:
        payloads = payloads_of(raw)
        values: list[Any] = GENERIC.decode(b"[" + b",".join(payloads) + b"]")
        if (
            b"\\u003" in raw
            or any(_may_nest_too_deep(payload) for payload in payloads if _brackets(payload) > MAX_DEPTH)
            or ENCODER.encode(values).count(b":") != sum(map(_count_colons, payloads))
        ):
            raise ValueError("not proven")
        return values

    return decode


# --- Anthropic Messages streams: the fields anthropic._read_stream and _cite read -----------------


class ClaudeCitation(msgspec.Struct, gc=False):
    type: str | None = None
    cited_text: str | None = None
    url: str | None = None
    title: str | None = None


class ClaudeDelta(msgspec.Struct, gc=False):
    type: str | None = None
    text: str | None = None
    partial_json: str | None = None
    citation: ClaudeCitation | None = None
    stop_reason: str | None = None


class ClaudeBlock(msgspec.Struct, gc=False):
    type: str | None = None
    text: str | None = None
    citations: list[ClaudeCitation] = []


class ClaudeMessage(msgspec.Struct, gc=False):
    id: str | None = None
    model: str | None = None


class ClaudeEvent(msgspec.Struct, gc=False):
    type: str | None = None
    index: int | None = None
    message: ClaudeMessage | None = None
    content_block: ClaudeBlock | None = None
    delta: ClaudeDelta | None = None


CLAUDE_EVENT = msgspec.json.Decoder(ClaudeEvent)


def claude_typed(raw: bytes) -> list[ClaudeEvent]:
    return list(map(CLAUDE_EVENT.decode, sse_payloads(raw)))


class ClosedClaudeCitation(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    cited_text: str | Unset = UNSET
    url: str | Unset = UNSET
    title: str | None | Unset = UNSET
    encrypted_index: str | Unset = UNSET


class ClosedClaudeDelta(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    text: str | Unset = UNSET
    partial_json: str | Unset = UNSET
    citation: ClosedClaudeCitation | Unset = UNSET
    stop_reason: str | None | Unset = UNSET
    stop_sequence: str | None | Unset = UNSET


class ClosedClaudeResult(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    encrypted_content: str | Unset = UNSET
    page_age: str | None | Unset = UNSET
    url: str | Unset = UNSET
    title: str | None | Unset = UNSET


class ClosedClaudeBlock(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    text: str | Unset = UNSET
    citations: list[ClosedClaudeCitation] | Unset = UNSET
    id: str | Unset = UNSET
    name: str | Unset = UNSET
    input: dict[str, str] | Unset = UNSET
    tool_use_id: str | Unset = UNSET
    content: list[ClosedClaudeResult] | Unset = UNSET


class ClosedClaudeMessage(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: str | Unset = UNSET
    type: str | Unset = UNSET
    role: str | Unset = UNSET
    model: str | Unset = UNSET
    content: list[ClosedClaudeBlock] | Unset = UNSET
    stop_reason: str | None | Unset = UNSET
    usage: dict[str, int] | Unset = UNSET


class ClosedClaudeEvent(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    index: int | Unset = UNSET
    message: ClosedClaudeMessage | Unset = UNSET
    content_block: ClosedClaudeBlock | Unset = UNSET
    delta: ClosedClaudeDelta | Unset = UNSET
    usage: dict[str, int] | Unset = UNSET


def claude_floor(decode: Callable[[bytes], list[Any]] = claude_typed) -> Callable[[bytes], Response]:
    """Each text block's deltas joined; each of its citations a Citation over the whole block, its
    source found by URL (web search results, the bench's kind), its cited text kept."""

    def floor(raw: bytes) -> Response:
        texts: dict[int, list[str]] = {}
        cites: dict[int, list[Any]] = {}
        message = None
        for event in decode(raw):
            kind = event.type
            if kind == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta":
                    texts[event.index].append(delta.text or "")
                elif delta.type == "citations_delta" and delta.citation:
                    cites[event.index].append(delta.citation)
            elif kind == "content_block_start":
                if event.content_block and event.content_block.type == "text":
                    texts[event.index] = [event.content_block.text or ""]
                    cites[event.index] = list(event.content_block.citations or ())
            elif kind == "message_start":
                message = event.message
        response = Response("anthropic", "anthropic.messages", True)
        if message:
            response.id, response.model = message.id or None, message.model or None
        keys: dict[str, str] = {}
        citations = response.citations
        parts: list[str] = []
        position = 0
        for index in sorted(texts):
            text = "".join(texts[index])
            parts.append(text)
            end = position + len(text)
            for citation in cites[index]:
                url = citation.url
                if not url:
                    continue
                key = keys.get(url)
                if key is None:
                    key = keys[url] = url
                    response.sources.append(Source(url, "web", url, citation.title or None))
                citations.append(Citation(position, end, [key], cited_text=citation.cited_text or None))
            position = end
        response.text = "".join(parts)
        return response

    return floor


def claude_floor_on_dicts(events: list[Any]) -> Response:
    """``claude_floor``'s work on the generic values (``read_dump``'s), ``dict.get`` for each field."""
    texts: dict[int, list[str]] = {}
    cites: dict[int, list[Any]] = {}
    message = None
    for event in events:
        kind = event.get("type")
        if kind == "content_block_delta":
            delta = event["delta"]
            delta_kind = delta.get("type")
            if delta_kind == "text_delta":
                texts[event["index"]].append(delta.get("text") or "")
            elif delta_kind == "citations_delta" and delta.get("citation"):
                cites[event["index"]].append(delta["citation"])
        elif kind == "content_block_start":
            block = event.get("content_block") or {}
            if block.get("type") == "text":
                texts[event["index"]] = [block.get("text") or ""]
                cites[event["index"]] = list(block.get("citations") or ())
        elif kind == "message_start":
            message = event.get("message")
    response = Response("anthropic", "anthropic.messages", True)
    if message:
        response.id, response.model = message.get("id"), message.get("model")
    keys: dict[str, str] = {}
    citations = response.citations
    parts: list[str] = []
    position = 0
    for index in sorted(texts):
        text = "".join(texts[index])
        parts.append(text)
        end = position + len(text)
        for citation in cites[index]:
            url = citation.get("url")
            if not url:
                continue
            key = keys.get(url)
            if key is None:
                key = keys[url] = url
                response.sources.append(Source(url, "web", url, citation.get("title")))
            citations.append(Citation(position, end, [key], cited_text=citation.get("cited_text")))
        position = end
    response.text = "".join(parts)
    return response


# --- Perplexity Agent streams: text deltas and search results; the citations are the text's [N] ---


class PerplexityResult(msgspec.Struct, gc=False):
    id: int | None = None
    url: str | None = None
    title: str | None = None
    snippet: str | None = None


class PerplexityEvent(msgspec.Struct, gc=False):
    type: str | None = None
    delta: str | None = None
    results: list[PerplexityResult] = []


class ClosedPerplexityResult(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: int | Unset = UNSET
    url: str | Unset = UNSET
    title: str | Unset = UNSET
    snippet: str | Unset = UNSET
    source: str | Unset = UNSET


class ClosedPerplexityContent(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    text: str | Unset = UNSET
    annotations: list[ClosedAnnotation] | Unset = UNSET


class ClosedPerplexityItem(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    id: str | Unset = UNSET
    role: str | Unset = UNSET
    status: str | Unset = UNSET
    queries: list[str] | Unset = UNSET
    results: list[ClosedPerplexityResult] | Unset = UNSET
    content: list[ClosedPerplexityContent] | Unset = UNSET


class ClosedPerplexityCost(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    currency: str | Unset = UNSET
    total_cost: float | Unset = UNSET


class ClosedPerplexityUsage(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    input_tokens: int | Unset = UNSET
    output_tokens: int | Unset = UNSET
    total_tokens: int | Unset = UNSET
    cost: ClosedPerplexityCost | Unset = UNSET


class ClosedPerplexityBody(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: str | Unset = UNSET
    object: str | Unset = UNSET
    status: str | Unset = UNSET
    model: str | Unset = UNSET
    output: list[ClosedPerplexityItem] | Unset = UNSET
    usage: ClosedPerplexityUsage | Unset = UNSET


class ClosedPerplexityEvent(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    sequence_number: int | Unset = UNSET
    item_id: str | Unset = UNSET
    output_index: int | Unset = UNSET
    content_index: int | Unset = UNSET
    delta: str | Unset = UNSET
    call_id: str | Unset = UNSET
    queries: list[str] | Unset = UNSET
    results: list[ClosedPerplexityResult] | Unset = UNSET
    response: ClosedPerplexityBody | Unset = UNSET


PERPLEXITY_EVENT = msgspec.json.Decoder(PerplexityEvent)


def perplexity_typed(raw: bytes) -> list[PerplexityEvent]:
    return list(map(PERPLEXITY_EVENT.decode, sse_payloads(raw)))


def perplexity_floor(decode: Callable[[bytes], list[Any]] = perplexity_typed) -> Callable[[bytes], Response]:
    """The text joined, the search results listed, and each ``[N]`` marker that Markdown shows as
    text (``markers.read_markers``, which any reader of markers must ask) a Citation of result N."""

    def floor(raw: bytes) -> Response:
        deltas: list[str] = []
        results: list[Any] = []
        for event in decode(raw):
            kind = event.type
            if kind == "response.output_text.delta":
                deltas.append(event.delta or "")
            elif kind == "response.reasoning.search_results":
                results.extend(event.results or ())
        response = Response("perplexity", "perplexity.agent", True)
        text = response.text = "".join(deltas)
        keys: dict[str, str] = {}
        for result in results:
            key = keys[str(result.id)] = str(result.id)
            response.sources.append(Source(key, "web", result.url or None, result.title or None))
        citations = response.citations
        for marker in read_markers(text).markers:
            key = keys.get(marker.ref)
            if key is not None:
                citations.append(Citation(marker.start, marker.end, [key], marker=marker.text))
        return response

    return floor


# --- Cohere Chat v2 streams: content deltas, then a citation-start per cited span (code points) ---


class CohereDocument(msgspec.Struct, gc=False):
    id: str | None = None
    title: str | None = None
    snippet: str | None = None


class CohereSource(msgspec.Struct, gc=False):
    id: str | None = None
    type: str | None = None
    document: CohereDocument | None = None


class CohereCitation(msgspec.Struct, gc=False):
    start: int | None = None
    end: int | None = None
    text: str | None = None
    sources: list[CohereSource] = []


class CohereContent(msgspec.Struct, gc=False):
    type: str | None = None
    text: str | None = None


class CohereMessage(msgspec.Struct, gc=False):
    content: CohereContent | list[CohereContent] | None = None
    citations: CohereCitation | list[CohereCitation] | None = None


class CohereDelta(msgspec.Struct, gc=False):
    message: CohereMessage | None = None
    finish_reason: str | None = None


class CohereEvent(msgspec.Struct, gc=False):
    type: str | None = None
    index: int | None = None
    delta: CohereDelta | None = None


class ClosedCohereDocument(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: str | Unset = UNSET
    title: str | Unset = UNSET
    snippet: str | Unset = UNSET


class ClosedCohereSource(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: str | Unset = UNSET
    type: str | Unset = UNSET
    document: ClosedCohereDocument | Unset = UNSET


class ClosedCohereCitation(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    start: int | Unset = UNSET
    end: int | Unset = UNSET
    text: str | Unset = UNSET
    type: str | Unset = UNSET
    sources: list[ClosedCohereSource] | Unset = UNSET


class ClosedCohereContent(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    text: str | Unset = UNSET


class ClosedCohereMessage(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    role: str | Unset = UNSET
    tool_plan: str | Unset = UNSET
    tool_calls: list[str] | Unset = UNSET
    content: ClosedCohereContent | list[ClosedCohereContent] | Unset = UNSET
    citations: ClosedCohereCitation | list[ClosedCohereCitation] | Unset = UNSET


class ClosedCohereUsage(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    billed_units: dict[str, int] | Unset = UNSET


class ClosedCohereDelta(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    message: ClosedCohereMessage | Unset = UNSET
    finish_reason: str | Unset = UNSET
    usage: ClosedCohereUsage | Unset = UNSET


class ClosedCohereEvent(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    id: str | Unset = UNSET
    type: str | Unset = UNSET
    index: int | Unset = UNSET
    delta: ClosedCohereDelta | Unset = UNSET


COHERE_EVENT = msgspec.json.Decoder(CohereEvent)


def cohere_typed(raw: bytes) -> list[CohereEvent]:
    return list(map(COHERE_EVENT.decode, sse_payloads(raw)))


def cohere_floor(decode: Callable[[bytes], list[Any]] = cohere_typed) -> Callable[[bytes], Response]:
    """The text joined; each citation placed where its code-point span holds its text, its
    documents as sources."""

    def floor(raw: bytes) -> Response:
        deltas: list[str] = []
        cited: list[Any] = []
        for event in decode(raw):
            kind = event.type
            if kind == "content-delta":
                content = event.delta.message.content
                deltas.append(content.text or "")
            elif kind == "citation-start":
                cited.append(event.delta.message.citations)
        response = Response("cohere", "cohere.chat_v2", True)
        text = response.text = "".join(deltas)
        size = len(text)
        keys: dict[str, str] = {}
        citations = response.citations
        for citation in cited:
            start, end = citation.start, citation.end
            if type(start) is not int or type(end) is not int or not 0 <= start <= end <= size:
                continue
            if text[start:end] != citation.text:
                continue
            cited_keys = []
            for source in citation.sources or ():
                key = keys.get(source.id)
                if key is None:
                    key = keys[source.id] = source.id
                    document = source.document
                    response.sources.append(Source(key, "document", None, document.title if document else None))
                cited_keys.append(key)
            citations.append(Citation(start, end, cited_keys, cited_text=citation.text))
        return response

    return floor


# --- Mistral Conversations streams: text deltas, a tool_reference after each cited sentence --------


class MistralReference(msgspec.Struct, gc=False):
    type: str | None = None
    tool: str | None = None
    title: str | None = None
    url: str | None = None
    description: str | None = None


class MistralEvent(msgspec.Struct, gc=False):
    type: str | None = None
    content: str | MistralReference | None = None
    output_index: int | None = None


class ClosedMistralReference(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    tool: str | Unset = UNSET
    title: str | Unset = UNSET
    url: str | Unset = UNSET
    favicon: str | None | Unset = UNSET
    description: str | Unset = UNSET


class ClosedMistralEvent(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    created_at: str | Unset = UNSET
    conversation_id: str | Unset = UNSET
    output_index: int | Unset = UNSET
    id: str | Unset = UNSET
    name: str | Unset = UNSET
    arguments: str | Unset = UNSET
    content_index: int | Unset = UNSET
    model: str | Unset = UNSET
    agent_id: str | None | Unset = UNSET
    role: str | Unset = UNSET
    content: str | ClosedMistralReference | Unset = UNSET
    usage: dict[str, int] | Unset = UNSET


MISTRAL_EVENT = msgspec.json.Decoder(MistralEvent)


def mistral_typed(raw: bytes) -> list[MistralEvent]:
    return list(map(MISTRAL_EVENT.decode, sse_payloads(raw)))


def mistral_floor(decode: Callable[[bytes], list[Any]] = mistral_typed) -> Callable[[bytes], Response]:
    """The text joined; each tool_reference a Citation over the text since the reference before it."""

    def floor(raw: bytes) -> Response:
        response = Response("mistral", "mistral.conversations", True)
        pieces: list[str] = []
        length = claim_start = 0
        after_citation = False
        keys: dict[str, str] = {}
        citations = response.citations
        for event in decode(raw):
            if event.type != "message.output.delta":
                continue
            content = event.content
            if type(content) is str:
                if content:
                    if after_citation:
                        claim_start, after_citation = length, False
                    pieces.append(content)
                    length += len(content)
            elif content and content.type == "tool_reference":
                url = content.url or content.title or "tool_reference"
                key = keys.get(url)
                if key is None:
                    key = keys[url] = url
                    response.sources.append(Source(key, "web", content.url or None, content.title or None))
                citations.append(Citation(claim_start, length, [key]))
                after_citation = True
        response.text = "".join(pieces)
        return response

    return floor


# --- Vercel AI SDK UI message streams: text deltas, sources apart from the text (no positions) -----


class VercelMetadata(msgspec.Struct, gc=False):
    cited_text: str | None = None


class VercelEvent(msgspec.Struct, gc=False, rename={"source_id": "sourceId", "provider_metadata": "providerMetadata"}):
    type: str | None = None
    id: str | None = None
    delta: str | None = None
    source_id: str | None = None
    url: str | None = None
    title: str | None = None
    provider_metadata: dict[str, VercelMetadata] = {}


class ClosedVercelMetadata(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    cited_text: str | Unset = UNSET
    url: str | Unset = UNSET
    title: str | Unset = UNSET
    encrypted_index: str | Unset = UNSET


class ClosedVercelEvent(
    msgspec.Struct,
    gc=False,
    forbid_unknown_fields=True,
    rename={
        "message_id": "messageId",
        "source_id": "sourceId",
        "provider_metadata": "providerMetadata",
        "finish_reason": "finishReason",
    },
):
    type: str | Unset = UNSET
    id: str | Unset = UNSET
    message_id: str | Unset = UNSET
    delta: str | Unset = UNSET
    source_id: str | Unset = UNSET
    url: str | Unset = UNSET
    title: str | Unset = UNSET
    provider_metadata: dict[str, ClosedVercelMetadata] | Unset = UNSET
    finish_reason: str | Unset = UNSET


VERCEL_EVENT = msgspec.json.Decoder(VercelEvent)


def vercel_payloads(raw: bytes) -> list[bytes]:
    return [payload for payload in sse_payloads(raw) if payload.strip() != b"[DONE]"]


def vercel_typed(raw: bytes) -> list[VercelEvent]:
    return list(map(VERCEL_EVENT.decode, vercel_payloads(raw)))


def vercel_floor(decode: Callable[[bytes], list[Any]] = vercel_typed) -> Callable[[bytes], Response]:
    """The text joined by part; each source-url a source, its quotes kept (the SDK gives no positions)."""

    def floor(raw: bytes) -> Response:
        texts: dict[str, list[str]] = {}
        quotes: dict[str, dict[str, None]] = {}
        response = Response("vercel", "vercel.ui_message_stream", True)
        keys: dict[str, Source] = {}
        for event in decode(raw):
            kind = event.type
            if kind == "text-delta":
                texts[event.id].append(event.delta or "")
            elif kind == "text-start":
                texts[event.id] = []
            elif kind == "source-url":
                key = event.source_id or event.url
                source = keys.get(key)
                if source is None:
                    source = keys[key] = Source(key, "web", event.url or None, event.title or None)
                    response.sources.append(source)
                for metadata in (event.provider_metadata or {}).values():
                    if metadata.cited_text:
                        quotes.setdefault(key, {})[metadata.cited_text] = None
        for key, quoted in quotes.items():
            keys[key].extra["cited_text"] = keys[key].extra["snippet"] = "\n\n".join(quoted)
        response.cited_without_position = list(keys)
        response.text = "".join("".join(deltas) for deltas in texts.values())
        return response

    return floor


# --- Bedrock ConverseStream (AWS event stream): text deltas, citation deltas over the whole block ---


class BedrockWeb(msgspec.Struct, gc=False):
    url: str | None = None
    domain: str | None = None


class BedrockLocation(msgspec.Struct, gc=False):
    web: BedrockWeb | None = None


class BedrockText(msgspec.Struct, gc=False):
    text: str | None = None


class BedrockCitation(msgspec.Struct, gc=False, rename="camel"):
    title: str | None = None
    source_content: list[BedrockText] = []
    location: BedrockLocation | None = None


class BedrockDelta(msgspec.Struct, gc=False):
    text: str | None = None
    citation: BedrockCitation | None = None


class BedrockEvent(msgspec.Struct, gc=False, rename="camel"):
    content_block_index: int | None = None
    delta: BedrockDelta | None = None
    stop_reason: str | None = None


class ClosedBedrockWeb(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    url: str | Unset = UNSET
    domain: str | Unset = UNSET


class ClosedBedrockLocation(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    web: ClosedBedrockWeb | Unset = UNSET


class ClosedBedrockText(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    text: str | Unset = UNSET


class ClosedBedrockCitation(msgspec.Struct, gc=False, forbid_unknown_fields=True, rename="camel"):
    title: str | Unset = UNSET
    source_content: list[ClosedBedrockText] | Unset = UNSET
    location: ClosedBedrockLocation | Unset = UNSET


class ClosedBedrockDelta(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    text: str | Unset = UNSET
    citation: ClosedBedrockCitation | Unset = UNSET


class ClosedBedrockEvent(msgspec.Struct, gc=False, forbid_unknown_fields=True, rename="camel"):
    content_block_index: int | Unset = UNSET
    delta: ClosedBedrockDelta | Unset = UNSET
    p: str | Unset = UNSET
    role: str | Unset = UNSET
    stop_reason: str | Unset = UNSET
    usage: dict[str, int] | Unset = UNSET
    metrics: dict[str, int] | Unset = UNSET


BEDROCK_EVENT = msgspec.json.Decoder(BedrockEvent)


def eventstream_payloads(raw: bytes) -> list[bytes]:
    """Each message's payload, found by its two lengths, as ``bare_decode`` finds it (no checksum
    read, no header: one struct holds every event's fields, so its name is not needed)."""
    payloads, at = [], 0
    while at < len(raw):
        total, headers = int.from_bytes(raw[at : at + 4]), int.from_bytes(raw[at + 4 : at + 8])
        payloads.append(raw[at + 12 + headers : at + total - 4])
        at += total
    return payloads


def bedrock_generic(raw: bytes) -> list[Any]:
    return list(map(GENERIC.decode, eventstream_payloads(raw)))


def bedrock_typed(raw: bytes) -> list[BedrockEvent]:
    return list(map(BEDROCK_EVENT.decode, eventstream_payloads(raw)))


def bedrock_floor(decode: Callable[[bytes], list[Any]] = bedrock_typed) -> Callable[[bytes], Response]:
    """The text joined by block; each citation of a block a Citation over the block's whole text,
    its quote the source content joined, its source by URL."""

    def floor(raw: bytes) -> Response:
        texts: dict[int, list[str]] = {}
        cites: dict[int, list[Any]] = {}
        for event in decode(raw):
            delta = event.delta
            if not delta:
                continue
            index = event.content_block_index or 0
            if delta.text:
                texts.setdefault(index, []).append(delta.text)
            elif delta.citation:
                cites.setdefault(index, []).append(delta.citation)
        response = Response("bedrock", "bedrock.converse", True)
        keys: dict[str, str] = {}
        citations = response.citations
        parts: list[str] = []
        position = 0
        for index in sorted(texts.keys() | cites.keys()):
            text = "".join(texts.get(index, ()))
            parts.append(text)
            end = position + len(text)
            for citation in cites.get(index, ()):
                web = citation.location.web if citation.location else None
                url = web.url if web else None
                if not url:
                    continue
                key = keys.get(url)
                if key is None:
                    key = keys[url] = url
                    response.sources.append(Source(url, "web", url, citation.title or None))
                quote = "".join(part.text or "" for part in citation.source_content or ())
                citations.append(Citation(position, end, [key], cited_text=quote or None))
            position = end
        response.text = "".join(parts)
        return response

    return floor


# --- LangChain AIMessage (one JSON document): annotations with UTF-8 byte offsets ----------------


class LangchainAnnotation(msgspec.Struct, gc=False):
    type: str | None = None
    url: str | None = None
    title: str | None = None
    start_index: int | None = None
    end_index: int | None = None
    cited_text: str | None = None


class LangchainBlock(msgspec.Struct, gc=False):
    type: str | None = None
    text: str | None = None
    annotations: list[LangchainAnnotation] = []


class LangchainMessage(msgspec.Struct, gc=False):
    type: str | None = None
    id: str | None = None
    content: list[LangchainBlock] | str = []


LANGCHAIN = msgspec.json.Decoder(LangchainMessage)


def langchain_typed(raw: bytes) -> LangchainMessage:
    return LANGCHAIN.decode(raw)


class ClosedGoogleMetadata(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    web_search_queries: list[str] | Unset = UNSET
    grounding_chunk_index: int | Unset = UNSET


class ClosedLangchainExtras(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    google_ai_metadata: ClosedGoogleMetadata | Unset = UNSET


class ClosedLangchainAnnotation(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    id: str | Unset = UNSET
    url: str | Unset = UNSET
    title: str | Unset = UNSET
    start_index: int | Unset = UNSET
    end_index: int | Unset = UNSET
    cited_text: str | Unset = UNSET
    extras: ClosedLangchainExtras | Unset = UNSET


class ClosedLangchainBlock(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    type: str | Unset = UNSET
    text: str | Unset = UNSET
    annotations: list[ClosedLangchainAnnotation] | Unset = UNSET


class ClosedLangchainMessage(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    content: list[ClosedLangchainBlock] | str | Unset = UNSET
    additional_kwargs: dict[str, str] | Unset = UNSET
    response_metadata: dict[str, str] | Unset = UNSET
    type: str | Unset = UNSET
    name: str | None | Unset = UNSET
    id: str | Unset = UNSET
    usage_metadata: dict[str, int] | Unset = UNSET


CLOSED_LANGCHAIN = msgspec.json.Decoder(ClosedLangchainMessage)


def langchain_closed(raw: bytes) -> ClosedLangchainMessage:
    """(q) of one JSON document: the same proof, the whole document written back at once."""
    message = CLOSED_LANGCHAIN.decode(raw)
    if b"\\u003" in raw or ENCODER.encode(message).count(b":") != raw.count(b":"):
        raise ValueError("not proven: the generic path would read this document")
    return message


def langchain_generic_proven(raw: bytes) -> object:
    value = GENERIC.decode(raw)
    if b"\\u003" in raw or _may_nest_too_deep(raw) or ENCODER.encode(value).count(b":") != raw.count(b":"):
        raise ValueError("not proven")
    return value


def langchain_floor(decode: Callable[[bytes], Any] = langchain_typed) -> Callable[[bytes], Response]:
    return lambda raw: _langchain_floor(decode(raw))


def _langchain_floor(message: Any) -> Response:
    """The text blocks joined; each citation placed by its UTF-8 span, checked against its cited text."""
    response = Response("langchain", "langchain.message", False, id=message.id or None)
    blocks = [block for block in message.content if block.type == "text"] if isinstance(message.content, list) else []
    text = response.text = "".join(block.text or "" for block in blocks)
    offsets = ByteOffsets(text)
    keys: dict[str, str] = {}
    citations = response.citations
    for block in blocks:
        for annotation in block.annotations or ():
            url = annotation.url
            if annotation.type != "citation" or not url or type(annotation.end_index) is not int:
                continue
            quote = annotation.cited_text or None
            placement = place_byte_span(offsets, annotation.start_index or 0, annotation.end_index, quote)
            if placement.start is None or placement.end is None:
                continue
            key = keys.get(url)
            if key is None:
                key = keys[url] = url
                response.sources.append(Source(url, "web", url, annotation.title or None))
            citations.append(Citation(placement.start, placement.end, [key], cited_text=quote))
    return response


# --- The cases --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    generic: Callable[[bytes], object]  # (b)
    typed: Callable[[bytes], object]  # (c)
    floor: Callable[[bytes], Response]  # (e): (c) and the per-citation work
    floor_on_dicts: Callable[[list[Any]], Response] | None  # (e)'s work on read_dump's generic values
    closed: Callable[[bytes], object] | None = None  # (q)
    generic_proven: Callable[[bytes], object] | None = None  # (r)
    closed_floor: Callable[[bytes], Response] | None = None  # (q) and (e)'s per-citation work
    text_scans: Callable[[str], object] | None = None  # (l), given (e)'s text


def _xai_text_scans(text: str) -> object:
    """What xai.py reads of every answer's text besides its annotations: its ``[[N]](url)`` links
    and the inline citation tokens (``openai._finish_citations``)."""
    return numbered_links(text), inline_tokens(text)


def _responses_case(provider: str) -> Case:
    return Case(
        responses_generic,
        responses_typed,
        responses_floor(provider),
        responses_floor_on_dicts(provider),
        closed_proven(ClosedEvent),
        generic_proven(),
        responses_floor(provider, closed_proven(ClosedEvent)),
        _xai_text_scans if provider == "xai" else inline_tokens,
    )


CASES = {
    "gemini": Case(gemini_generic, gemini_typed, gemini_floor, gemini_floor_on_dicts),
    "anthropic": Case(
        responses_generic,
        claude_typed,
        claude_floor(),
        claude_floor_on_dicts,
        closed_proven(ClosedClaudeEvent),
        generic_proven(),
        claude_floor(closed_proven(ClosedClaudeEvent)),
        inline_tokens,
    ),
    "perplexity": Case(
        responses_generic,
        perplexity_typed,
        perplexity_floor(),
        None,
        closed_proven(ClosedPerplexityEvent),
        generic_proven(),
        perplexity_floor(closed_proven(ClosedPerplexityEvent)),
        inline_tokens,
    ),
    "xai": _responses_case("xai"),
    "openai": _responses_case("openai"),
    "cohere": Case(
        responses_generic,
        cohere_typed,
        cohere_floor(),
        None,
        closed_proven(ClosedCohereEvent),
        generic_proven(),
        cohere_floor(closed_proven(ClosedCohereEvent)),
        inline_tokens,
    ),
    "bedrock": Case(
        bedrock_generic,
        bedrock_typed,
        bedrock_floor(),
        None,
        closed_proven(ClosedBedrockEvent, eventstream_payloads),
        generic_proven(eventstream_payloads),
        bedrock_floor(closed_proven(ClosedBedrockEvent, eventstream_payloads)),
        inline_tokens,
    ),
    "mistral": Case(
        responses_generic,
        mistral_typed,
        mistral_floor(),
        None,
        closed_proven(ClosedMistralEvent),
        generic_proven(),
        mistral_floor(closed_proven(ClosedMistralEvent)),
        inline_tokens,
    ),
    "vercel": Case(
        lambda raw: list(map(GENERIC.decode, vercel_payloads(raw))),
        vercel_typed,
        vercel_floor(),
        None,
        closed_proven(ClosedVercelEvent, vercel_payloads),
        generic_proven(vercel_payloads),
        vercel_floor(closed_proven(ClosedVercelEvent, vercel_payloads)),
        inline_tokens,
    ),
    "langchain": Case(
        gemini_generic,
        langchain_typed,
        langchain_floor(),
        None,
        langchain_closed,
        langchain_generic_proven,
        langchain_floor(langchain_closed),
        inline_tokens,
    ),
}

ROWS = (
    ("a", "bare orjson decode"),
    ("b", "msgspec, generic values"),
    ("p", "today's read_dump: (b) and its proof"),
    ("c", "msgspec, typed structs of the fields read"),
    ("d", "today's parse_dump"),
    ("e", "(c) and each citation placed"),
    ("f", "(p), (e) and the SHA-256"),
    ("g", "(p), (e)'s loop on (p)'s dicts, SHA-256"),
    ("h", "(e) and the SHA-256 (no proof)"),
    ("q", "closed typed structs, proven"),
    ("r", "generic values, (q)'s proof"),
    ("i", "(q), each citation placed, SHA-256"),
    ("k", "today's detection (split_responses)"),
    ("l", "the answer's own markers read (its text)"),
)


def runs_of(case: Case, raw: bytes) -> dict[str, Callable[[], object]]:
    def sha() -> None:
        hashlib.sha256(raw).hexdigest()

    def integrated() -> None:
        read_dump(raw)
        case.floor(raw)
        sha()

    def on_dicts() -> None:
        assert case.floor_on_dicts is not None
        case.floor_on_dicts(read_dump(raw).values)
        sha()

    def unproven() -> None:
        case.floor(raw)
        sha()

    framed = read_dump(raw)
    runs: dict[str, Callable[[], object]] = {
        "a": lambda: bare_decode(raw),
        "b": lambda: case.generic(raw),
        "p": lambda: read_dump(raw),
        "c": lambda: case.typed(raw),
        "d": lambda: parse_dump(raw, max_bytes=len(raw)),
        "e": lambda: case.floor(raw),
        "f": integrated,
        "h": unproven,
        "k": lambda: split_responses(framed),
    }
    if case.floor_on_dicts is not None:
        runs["g"] = on_dicts
    if case.closed is not None and case.generic_proven is not None and case.closed_floor is not None:
        closed, proven, closed_floor = case.closed, case.generic_proven, case.closed_floor

        def closed_integrated() -> None:
            closed_floor(raw)
            sha()

        runs["q"] = lambda: closed(raw)
        runs["r"] = lambda: proven(raw)
        runs["i"] = closed_integrated
    if case.text_scans is not None:
        scans, text = case.text_scans, case.floor(raw).text
        runs["l"] = lambda: scans(text)
    return runs


def check_floor(raw: bytes, floor: Response) -> str:
    """How far the floor's answer and citations agree with today's parser's (same places, same sources)."""
    (parsed,) = parse_dump(raw, max_bytes=len(raw)).responses
    theirs = {(c.start, c.end) for c in parsed.citations}
    same = sum((c.start, c.end) in theirs for c in floor.citations)
    text = (
        "the same text as the parser's"
        if floor.text == parsed.text
        else f"text of {len(floor.text)} characters (the parser's: {len(parsed.text)})"
    )
    placed = (
        f"{len(floor.citations)} citations ({same} where the parser places one; the parser: {len(parsed.citations)})"
    )
    return f"{text}, {placed}"


def duplicate_keys_demo() -> str:
    """What a typed decode does with two equal keys, read or skipped: keeps the last, says nothing."""
    read = msgspec.json.decode(b'{"startIndex": 1, "startIndex": 2}', type=GeminiSegment)
    skipped = msgspec.json.decode(b'{"startIndex": 1, "role": "x", "role": "y"}', type=GeminiSegment)
    return f"typed decode of duplicate keys: read field -> {read}, skipped field -> {skipped} (no error)"


def time_provider(provider: str, size: int, repeat: int) -> dict[str, Any]:
    case = CASES[provider]
    raw = GENERATORS[provider](size)
    was_enabled = gc.isenabled()
    gc.disable()  # as parse_dump runs: the decoders' millions of objects hold no cycles
    try:
        runs = runs_of(case, raw)
        for run in runs.values():  # once each first, so every timed run starts warm
            run()
        note = check_floor(raw, case.floor(raw))
        if case.closed_floor is not None:
            note += "; closed: " + check_floor(raw, case.closed_floor(raw))
        seconds = medians_side_by_side(list(runs.values()), repeat, clock=time.process_time)
    finally:
        if was_enabled:
            gc.enable()
    return {"provider": provider, "bytes": len(raw), "seconds": dict(zip(runs, seconds, strict=True)), "note": note}


def traced_peak(run: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        kept = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del kept
    return peak


def resident_peak_rise(provider: str, size: int, which: str) -> int:
    """The rise of the resident peak (``VmHWM``) while decoding, in a fresh process."""
    command = [sys.executable, "-m", "bench.typed_structs", "--rss", provider, which, "--size", str(size / MB)]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)["rise"]


def _resident(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def _rss_child(provider: str, which: str, size: int) -> None:
    raw = GENERATORS[provider](size)
    decode = CASES[provider].generic if which == "generic" else CASES[provider].typed
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # the peak from here on
    before = _resident("VmRSS")
    kept = decode(raw)
    print(json.dumps({"rise": _resident("VmHWM") - before}))
    del kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("providers", nargs="*", help=f"of {', '.join(CASES)} (default: all)")
    parser.add_argument("--size", type=float, default=10.0, help="MB (default 10)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rss", nargs=2, metavar=("PROVIDER", "WHICH"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    size = int(options.size * MB)
    unknown = [p for p in options.providers if p not in CASES]
    if unknown:
        parser.error(f"no case for {', '.join(unknown)}; choose from {', '.join(CASES)}")
    if options.rss:
        _rss_child(options.rss[0], options.rss[1], size)
        return 0
    print(duplicate_keys_demo())
    print(f"processor time, median of {options.repeat} taken in turn; ratios to (a)")
    for provider in options.providers or CASES:
        measured = time_provider(provider, size, options.repeat)
        seconds = measured["seconds"]
        print(f"\n{provider} ({measured['bytes'] / MB:.1f} MB); at 2.0x the budget is {2 * seconds['a']:.3f} s")
        for key, label in ROWS:
            if key in seconds:
                print(f"  ({key}) {label:<42} {seconds[key]:7.3f} s {seconds[key] / seconds['a']:6.2f}x")
        print(f"  floor: {measured['note']}")
        case, raw = CASES[provider], GENERATORS[provider](size)
        generic_peak = traced_peak(lambda case=case, raw=raw: case.generic(raw))
        typed_peak = traced_peak(lambda case=case, raw=raw: case.typed(raw))
        generic_rss = resident_peak_rise(provider, size, "generic")
        typed_rss = resident_peak_rise(provider, size, "typed")
        print(
            f"  memory, (b) generic / (c) typed: tracemalloc peak {generic_peak / MB:.0f} / {typed_peak / MB:.0f} MB,"
            f" resident peak rise {generic_rss / MB:.0f} / {typed_rss / MB:.0f} MB",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
