"""Property-based tests (Hypothesis) of the Gemini shapes issue 18 added: retrieval, Maps, image and
unknown grounding chunks with their page spans, recitation notices (``citationMetadata``), the
Interactions API's file and place citations, and Claude documents sent by Files API id.

Every dump keeps the contract (``check_dump``); beyond it, a recitation is never a source or a
citation and sits inside the answer or nowhere, and a location names real pages.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE, check_dump

# Recitation notices point here and nowhere else: a source with this host came from a notice.
RECITED = "https://recited.example/work"
PAGE_NUMBERS = st.one_of(st.integers(-1, 40), hs.offsets_junk())


# --- Strategies -----------------------------------------------------------------------------------


@st.composite
def page_span(draw: st.DrawFn) -> dict[str, Any]:
    """A RAG Engine page span: 1-based, both ends inclusive; or reversed, half, empty, junk."""
    first = draw(st.integers(1, 30))
    span = {"firstPage": first, "lastPage": draw(st.integers(first, first + 3))}
    return draw(
        hs.mostly(
            st.just(span),
            st.just({"firstPage": span["lastPage"] + 1, "lastPage": first}),
            st.just({"firstPage": first}),
            st.just({"lastPage": first}),
            st.just({}),
            st.fixed_dictionaries({"firstPage": PAGE_NUMBERS, "lastPage": PAGE_NUMBERS}),
        )
    )


@st.composite
def retrieved_context(draw: st.DrawFn) -> dict[str, Any]:
    """A RAG Engine, File Search or Vertex AI Search chunk, with any subset of its fields."""
    text = draw(hs.short_text())
    fields: dict[str, Any] = {
        "uri": draw(st.sampled_from(["gs://bucket/a.pdf", "fileSearchStores/s/documents/d", *hs.URLS[:4]])),
        "title": draw(hs.short_text()),
        "text": text,
        "ragChunk": {"text": text, "chunkId": "c1", "fileId": "f1", "pageSpan": draw(page_span())},
        "fileSearchStore": "fileSearchStores/store-1",
        "pageNumber": draw(PAGE_NUMBERS),
        "mediaId": "fileSearchStores/store-1/media/m1",
        "documentName": "projects/p/locations/global/collections/c/dataStores/d/branches/0/documents/x",
        "customMetadata": [
            {"key": "source_url", "stringValue": draw(hs.urls())},
            {
                "key": "year",
                "numericValue": draw(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False))),
            },
            {"key": "tags", "stringListValue": {"values": draw(st.lists(hs.short_text(), max_size=3))}},
            {"key": "odd", "boolValue": True},
        ],
    }
    every = st.just(set(fields) - {"pageNumber"})  # a RAG Engine chunk with its pages, usually
    keep = draw(hs.mostly(every, st.sets(st.sampled_from(sorted(fields))), odds=2))
    return {name: value for name, value in fields.items() if name in keep}


@st.composite
def grounding_chunk(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["web", "retrievedContext", "retrievedContext", "maps", "image", "unknown", "empty"]))
    if kind == "web":
        return {"web": {"uri": draw(hs.urls()), "title": draw(hs.short_text())}}
    if kind == "retrievedContext":
        return {"retrievedContext": draw(retrieved_context())}
    if kind == "maps":
        review = {
            "title": draw(hs.short_text()),
            "googleMapsUri": draw(hs.urls()),
            "relativePublishTimeDescription": "2か月前",
            "authorAttribution": {"displayName": draw(hs.short_text())},
        }
        place = {
            "uri": draw(hs.urls()),
            "title": draw(hs.short_text()),
            "text": draw(hs.short_text()),
            "placeId": "places/ChIJ0",
            "placeAnswerSources": {"reviewSnippets": [review, {}], "flagContentUri": draw(hs.urls())},
            "route": {"distanceMeters": draw(st.integers(0, 10**6)), "duration": "60s", "encodedPolyline": "??"},
        }
        return {"maps": place}
    if kind == "image":
        return {"image": {"sourceUri": draw(hs.urls()), "imageUri": draw(hs.urls()), "title": "t", "domain": "d"}}
    if kind == "unknown":
        return {draw(st.sampled_from(["catalog", "video", "x"])): {"uri": draw(hs.urls()), "title": "?"}}
    return {}


@st.composite
def recitation(draw: st.DrawFn, answer: str) -> dict[str, Any]:
    """A recitation notice: byte offsets on the answer (right, inside a character, past it) or junk."""
    data = answer.encode("utf-8", "surrogatepass")
    start_char = draw(st.integers(0, len(answer)))
    end_char = draw(st.integers(start_char, len(answer)))
    start = len(answer[:start_char].encode("utf-8", "surrogatepass"))
    end = start + len(answer[start_char:end_char].encode("utf-8", "surrogatepass"))
    notice: dict[str, Any] = draw(
        hs.mostly(
            st.just({"startIndex": start, "endIndex": end}),
            st.just({"endIndex": end}),
            st.just({}),
            st.fixed_dictionaries({"startIndex": hs.offset(len(data)), "endIndex": hs.offset(len(data))}),
        )
    )
    date = st.fixed_dictionaries(
        {}, optional={"year": st.integers(-1, 3000), "month": st.integers(0, 13), "day": st.integers(0, 32)}
    )
    notice.update(
        uri=RECITED,
        title=draw(hs.short_text()),
        license=draw(st.sampled_from(["", "mit", "CC-BY-4.0"])),
        publicationDate=draw(st.one_of(date, st.just("2020-01-01"), hs.offsets_junk())),
    )
    return notice


@st.composite
def gemini_chunks_dump(draw: st.DrawFn) -> bytes:
    """A generateContent answer grounded on chunks of every kind, with recitation notices, whole or streamed."""
    parts = draw(st.lists(hs.answer_text(max_pieces=6), min_size=1, max_size=3))
    answer = "".join(parts)
    chunks = draw(st.lists(grounding_chunk(), max_size=4))
    known = st.integers(0, len(chunks) - 1) if chunks else st.just(0)
    supports = [
        {
            "segment": draw(hs.byte_segment(answer)),
            "groundingChunkIndices": draw(st.lists(known, min_size=1, max_size=3)),
        }
        for _ in range(draw(st.integers(0, 4)))
    ]
    notices = draw(st.lists(recitation(answer), max_size=3))
    citation_metadata = {draw(st.sampled_from(["citationSources", "citations"])): notices}
    grounding = {"retrievalQueries": ["q"], "groundingChunks": chunks, "groundingSupports": supports}
    candidate = {"index": 0, "finishReason": draw(st.sampled_from(["STOP", "RECITATION", None]))}
    body: dict[str, Any] = {
        "candidates": [
            {
                **candidate,
                "content": {"role": "model", "parts": [{"text": p} for p in parts]},
                "groundingMetadata": grounding,
                "citationMetadata": citation_metadata,
            }
        ],
        "modelVersion": "gemini-2.5-flash",
        "responseId": "kYTD",
    }
    snake = draw(st.sampled_from([False, False, True]))
    if draw(st.booleans()):
        return draw(hs.framed([draw(hs.scrambled(hs.snake_case(body) if snake else body))], whole=True))
    values: list[Any] = []
    for number, part in enumerate(parts):
        last = number == len(parts) - 1
        piece: dict[str, Any] = {"index": 0, "content": {"role": "model", "parts": [{"text": part}]}}
        piece["groundingMetadata"] = grounding if last else {}
        # Notices now on an early chunk, now on the last; an empty one never wipes them.
        piece["citationMetadata"] = citation_metadata if last or draw(st.booleans()) else {}
        if last:
            piece["finishReason"] = candidate["finishReason"]
        chunk = {"candidates": [piece], "modelVersion": "gemini-2.5-flash", "responseId": "kYTD"}
        values.append(hs.snake_case(chunk) if snake else chunk)
    return draw(hs.framed(draw(hs.scrambled(values, events=True))))


@st.composite
def byte_span(draw: st.DrawFn, text: str) -> tuple[Any, Any]:
    """Byte offsets of a stretch of ``text``: exact (as the SDK documents them), or any others."""
    start_char = draw(st.integers(0, len(text)))
    end_char = draw(st.integers(start_char, len(text)))
    start = len(text[:start_char].encode("utf-8", "surrogatepass"))
    exact = (start, start + len(text[start_char:end_char].encode("utf-8", "surrogatepass")))
    size = len(text.encode("utf-8", "surrogatepass"))
    return draw(hs.mostly(st.just(exact), st.tuples(hs.offset(size), hs.offset(size))))


@st.composite
def interactions_annotation(draw: st.DrawFn, text: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(["file_citation", "file_citation", "place_citation", "url_citation", "word_info", "x"]))
    annotation: dict[str, Any] = {"type": kind}
    if kind == "file_citation":
        annotation.update(
            document_uri=draw(st.sampled_from(["fileSearchStores/s/documents/d", *hs.URLS[:3]])),
            file_name=draw(hs.short_text()),
            source=draw(hs.short_text()),
            page_number=draw(hs.mostly(st.integers(1, 40), PAGE_NUMBERS)),
            media_id="m1",
            custom_metadata=draw(st.one_of(st.just({"a": 1, "b": ["x"], "c": {"d": None}}), hs.json_values(3))),
        )
    elif kind == "place_citation":
        review = {"review_id": "r", "title": draw(hs.short_text()), "url": draw(hs.urls())}
        annotation.update(
            place_id="places/p", name=draw(hs.short_text()), url=draw(hs.urls()), review_snippets=[review]
        )
    else:
        annotation.update(url=draw(hs.urls()), title=draw(hs.short_text()))
    keep = draw(st.sampled_from(["both", "both", "both", "none", "end", "start"]))
    start, end = draw(byte_span(text))
    if keep in ("both", "start"):
        annotation["start_index"] = start
    if keep in ("both", "end"):
        annotation["end_index"] = end
    return draw(hs.scrambled(annotation, "light"))


@st.composite
def interactions_citations_dump(draw: st.DrawFn) -> bytes:
    texts = draw(st.lists(hs.answer_text(max_pieces=6), min_size=1, max_size=2))
    contents = []
    for text in texts:
        annotations = draw(st.lists(interactions_annotation(text), max_size=4))
        contents.append({"type": "text", "text": text, "annotations": annotations})
    interaction: dict[str, Any] = {"id": "v1_x", "model": "gemini-3-flash-preview", "status": "completed"}
    if draw(st.booleans()):
        steps = [{"type": "model_output", "content": [c]} for c in contents]
        return draw(hs.framed([draw(hs.scrambled({**interaction, "steps": steps}))], whole=True))
    events: list[Any] = [{"event_type": "interaction.created", "interaction": {**interaction, "status": "in_progress"}}]
    for index, content in enumerate(contents):
        events.append({"event_type": "step.start", "index": index, "step": {"type": "model_output"}})
        for piece in draw(hs.stream_pieces(content["text"])):
            events.append({"event_type": "step.delta", "index": index, "delta": {"type": "text", "text": piece}})
        delta = {"type": "text_annotation_delta", "annotations": content["annotations"]}
        events.append({"event_type": "step.delta", "index": index, "delta": delta})
        events.append({"event_type": "step.stop", "index": index})
    events.append({"event_type": "interaction.completed", "interaction": {"id": "v1_x", "status": "completed"}})
    return draw(hs.framed(draw(hs.scrambled(events, events=True))))


@st.composite
def claude_files_dump(draw: st.DrawFn) -> bytes:
    """Claude citations of documents sent by Files API id: a few indices, a few ids, nulls among them."""
    blocks = []
    for _ in range(draw(st.integers(1, 4))):
        citations = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["char_location", "page_location", "content_block_location"]))
            names = {
                "char_location": ("start_char_index", "end_char_index"),
                "page_location": ("start_page_number", "end_page_number"),
                "content_block_location": ("start_block_index", "end_block_index"),
            }[kind]
            start = draw(st.integers(0, 5))
            citation = {
                "type": kind,
                "cited_text": draw(hs.short_text()),
                "document_index": draw(st.one_of(st.integers(0, 2), hs.offsets_junk())),
                "document_title": draw(st.sampled_from([None, "T", "U"])),
                names[0]: start,
                names[1]: start + draw(st.integers(0, 3)),
                "file_id": draw(st.sampled_from([None, "file_A", "file_B", "file_C", "", 7])),
            }
            citations.append(draw(hs.scrambled(citation, "light")))
        blocks.append({"type": "text", "text": draw(hs.answer_text(max_pieces=4)), "citations": citations})
    message = {"id": "msg_01", "type": "message", "role": "assistant", "content": blocks, "stop_reason": "end_turn"}
    return draw(hs.framed([message], whole=True))


# --- Properties -----------------------------------------------------------------------------------


def check_places(result: dict[str, Any] | None) -> None:
    for response in result["responses"] if result else []:
        text = response["text"]
        for notice in response["recitations"]:
            start, end = notice["start"], notice["end"]
            assert (start is None) == (end is None), notice
            if start is not None:
                assert type(start) is int and type(end) is int and 0 <= start <= end <= len(text), notice
        assert all(RECITED not in (source["url"] or "") for source in response["sources"]), "a notice became a source"
        keys = {source["key"] for source in response["sources"]}
        assert set(response["cited_without_position"]) <= keys
        for citation in response["citations"]:
            location = citation["location"]
            if location is not None and location["type"] == "page":
                assert type(location["start"]) is int and 1 <= location["start"] < location["end"], location


@PROFILE
@given(gemini_chunks_dump())
@example(  # a page span whose pages are not numbers, and a notice inside a character
    '{"candidates":[{"content":{"parts":[{"text":"東京"}]},"groundingMetadata":{"groundingChunks":'
    '[{"retrievedContext":{"ragChunk":{"pageSpan":{"firstPage":[],"lastPage":"2"}}}}],"groundingSupports":'
    '[{"segment":{"endIndex":6},"groundingChunkIndices":[0]}]},"citationMetadata":{"citations":'
    '[{"startIndex":1,"endIndex":6}]}}]}'.encode()
)
def test_gemini_chunks_and_recitations(raw: bytes):
    check_places(check_dump(raw))


@PROFILE
@given(interactions_citations_dump())
@example(  # an annotation whose type is an object (unhashable: no set lookup may see it)
    b'{"id":"v1","status":"completed","steps":[{"type":"model_output","content":[{"type":"text","text":"x",'
    b'"annotations":[{"type":{"a":1},"start_index":0,"end_index":1}]}]}]}'
)
def test_gemini_interactions_file_and_place_citations(raw: bytes):
    check_places(check_dump(raw))


@PROFILE
@given(claude_files_dump())
def test_claude_documents_by_file_id(raw: bytes):
    result = check_dump(raw)
    for response in result["responses"] if result else []:
        sources = {source["key"]: source for source in response["sources"]}
        seen = set()
        for source in sources.values():
            file_id, index = source["extra"].get("file_id"), source["extra"].get("document_index")
            if file_id is not None:
                assert (index, file_id) not in seen, "one file under one index is one source"
                seen.add((index, file_id))
        for diagnostic in response["diagnostics"]:
            if diagnostic["code"] == "source_conflict":
                assert set(diagnostic["details"]["keys"]) <= set(sources)
        for citation in response["citations"]:
            file_id = (citation["location"] or {}).get("file_id")
            if file_id is not None:
                assert sources[citation["source_keys"][0]]["extra"]["file_id"] == file_id
