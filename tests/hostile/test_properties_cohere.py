"""Property tests of the Cohere parsers (Chat v2 and v1), streamed and not, valid-looking and scrambled.

Whatever the dump, the result keeps the contract (``check_dump``), and what the contract does not
cover holds too: plan and thinking citations lie inside their text and point at sources the response
lists, and the sources said to be cited without a position are sources it lists. A citation whose
offsets are right, in code points or in UTF-16 units, is placed exactly on its cited text.
Every dump here is built from ../shared/docs/provider-formats.md §5, not recorded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES, PROJECT_DIR
from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE, check_dump

_REPAIRED = re.compile("[\x00\ud800-\udfff]")
V2_ID = "4c3b2a19-0817-4e6d-9c5b-4a3928170605"
V1_ID = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
V2_FINISH = ["COMPLETE", "COMPLETE", "STOP_SEQUENCE", "TOOL_CALL", "MAX_TOKENS", "ERROR", "TIMEOUT", None, 7]
V1_FINISH = ["COMPLETE", "COMPLETE", "MAX_TOKENS", "ERROR", "ERROR_TOXIC", "ERROR_LIMIT", None]


def utf16_units(text: str, position: int) -> int:
    return len(text[:position].encode("utf-16-le", "surrogatepass")) // 2


@st.composite
def span_in(draw: st.DrawFn, text: str) -> dict[str, Any]:
    """A citation's start, end and text on ``text``: right in code points or UTF-16 units, shifted,
    cited with other text, or junk."""
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, len(text)))
    cited = text[start:end]
    how = draw(st.sampled_from(["code_points", "code_points", "utf16", "shifted", "other_text", "junk"]))
    if how == "utf16":
        start, end = utf16_units(text, start), utf16_units(text, end)
    elif how == "shifted":
        shift = draw(st.integers(-5, 5))
        start, end = start + shift, end + shift
    elif how == "other_text":
        cited = draw(st.sampled_from([cited + "x", cited[1:], draw(hs.short_text())]))
    elif how == "junk":
        start, end = draw(hs.offset(len(text))), draw(hs.offset(len(text)))
    return {"start": start, "end": end, "text": cited}


@st.composite
def v2_sources(draw: st.DrawFn) -> list[dict[str, Any]]:
    def document(number: int) -> dict[str, Any]:
        fields = {"id": f"doc:{number}", "title": draw(hs.short_text()), "text": draw(hs.short_text())}
        if draw(st.booleans()):
            fields["url"] = draw(hs.urls())
        return {"type": "document", "id": f"doc:{number}", "document": fields}

    def tool(number: int) -> dict[str, Any]:
        return {
            "type": "tool",
            "id": f"lookup_k{number}m9p2x7q1z4:0",
            "tool_output": draw(hs.json_values(max_leaves=4)),
        }

    makers = [document, document, tool, lambda n: {"type": "mystery", "id": f"m{n}"}, lambda n: {"document": {}}]
    return [draw(st.sampled_from(makers))(draw(st.integers(0, 3))) for _ in range(draw(st.integers(0, 3)))]


@st.composite
def v2_message(draw: st.DrawFn) -> dict[str, Any]:
    blocks = [draw(hs.answer_text(max_pieces=10)) for _ in range(draw(st.integers(1, 2)))]
    thinking = draw(st.one_of(st.none(), hs.answer_text(max_pieces=6)))
    plan = draw(st.one_of(st.none(), hs.answer_text(max_pieces=6)))
    content: list[dict[str, Any]] = [{"type": "text", "text": b} for b in blocks]
    if thinking is not None:
        content.insert(draw(st.integers(0, len(content))), {"type": "thinking", "thinking": thinking})
    citations = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["TEXT_CONTENT", "TEXT_CONTENT", "THINKING_CONTENT", "PLAN", "NEW_KIND", None]))
        index = draw(st.integers(0, len(content) - 1))
        if kind == "PLAN":
            target = plan or ""
        elif kind == "THINKING_CONTENT":
            target = thinking or ""
        else:
            per_block = draw(st.booleans()) and content[index]["type"] == "text"
            target = content[index]["text"] if per_block else "".join(blocks)
        citation = {**draw(span_in(target)), "sources": draw(v2_sources()), "type": kind}
        if draw(st.booleans()):
            citation["content_index"] = draw(st.one_of(st.just(index), hs.offsets_junk()))
        citations.append(citation)
    message: dict[str, Any] = {"role": "assistant", "content": content, "citations": citations}
    if plan is not None:
        message["tool_plan"] = plan
        message["tool_calls"] = [{"id": "lookup_k1m9p2x7q1z4", "type": "function", "function": {"name": "lookup"}}]
    return message


def v2_stream(draw: st.DrawFn, body: dict[str, Any]) -> list[dict[str, Any]]:
    message = body["message"]
    events: list[dict[str, Any]] = [
        {"id": V2_ID, "type": "message-start", "delta": {"message": {"role": "assistant", "citations": []}}}
    ]
    for piece in draw(hs.stream_pieces(message.get("tool_plan") or "")):
        events.append({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": piece}}})
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        events.append(
            {"type": "content-start", "index": index, "delta": {"message": {"content": {"type": kind, kind: ""}}}}
        )
        for piece in draw(hs.stream_pieces(block[kind])):
            events.append({"type": "content-delta", "index": index, "delta": {"message": {"content": {kind: piece}}}})
        events.append({"type": "content-end", "index": index})
    for number, citation in enumerate(message["citations"]):
        one_or_list = citation if draw(st.sampled_from([True, True, True, False])) else [citation]
        events.append({"type": "citation-start", "index": number, "delta": {"message": {"citations": one_or_list}}})
        events.append({"type": "citation-end", "index": number})
    extra = [{"type": "debug", "prompt": "p"}, {"type": "surprise"}, {"type": "error", "message": "boom"}, {"x": 1}]
    events += draw(st.lists(st.sampled_from(extra), max_size=2))
    if draw(st.sampled_from([True, True, True, False])):
        delta: dict[str, Any] = {"finish_reason": body.get("finish_reason"), "usage": body["usage"]}
        if draw(st.sampled_from([False, False, False, True])):
            delta["error"] = draw(st.one_of(hs.short_text(), hs.json_values(max_leaves=2)))
        events.append({"type": "message-end", "delta": delta})
    if draw(st.sampled_from([False, False, True])):  # the final message saved beside its stream
        events.append(body)
    return events


@st.composite
def cohere_v2_dump(draw: st.DrawFn) -> bytes:
    body = {
        "id": V2_ID,
        "message": draw(v2_message()),
        "finish_reason": draw(st.sampled_from(V2_FINISH)),
        "usage": {"billed_units": {"input_tokens": 10, "output_tokens": 5}},
    }
    if draw(st.sampled_from([True, False, False])):
        return draw(hs.framed([draw(hs.scrambled(body))], whole=True))
    events = v2_stream(draw, body)
    if draw(st.sampled_from([False] * 5 + [True])):
        events = draw(st.permutations(events))
    return draw(hs.framed(draw(hs.scrambled(events, events=True))))


@st.composite
def cohere_v1_dump(draw: st.DrawFn) -> bytes:
    text = draw(hs.answer_text(max_pieces=12))
    documents = [
        {"id": f"doc_{n}", "title": draw(hs.short_text()), "snippet": draw(hs.short_text()), "url": draw(hs.urls())}
        for n in range(draw(st.integers(0, 3)))
    ]
    if draw(st.booleans()):
        documents.append({"title": "no id"})
    ids = st.one_of(st.sampled_from([f"doc_{n}" for n in range(5)]), hs.json_scalars())
    citations = [
        {
            **draw(span_in(text)),
            "document_ids": draw(st.one_of(st.lists(ids, max_size=3), hs.json_scalars())),
            "type": draw(st.sampled_from(["TEXT_CONTENT", "PLAN", None])),
        }
        for _ in range(draw(st.integers(0, 5)))
    ]
    search = {"search_query": {"text": draw(hs.short_text())}, "document_ids": [d.get("id") for d in documents]}
    if draw(st.booleans()):
        search["error_message"] = "timeout"
    body = {
        "response_id": "1a2b3c4d-0000-4000-8000-000000000002",
        "text": text,
        "generation_id": V1_ID,
        "finish_reason": draw(st.sampled_from(V1_FINISH)),
        "citations": citations,
        "documents": documents,
        "search_results": [search],
    }
    if draw(st.sampled_from([True, False, False])):
        return draw(hs.framed([draw(hs.scrambled(body))], whole=True))
    streamed_text = draw(st.sampled_from([text, text, draw(hs.answer_text(max_pieces=6))]))
    events: list[dict[str, Any]] = [{"event_type": "stream-start", "generation_id": V1_ID, "is_finished": False}]
    events.append({"event_type": "search-results", "search_results": [search], "documents": documents})
    events += [{"event_type": "text-generation", "text": p} for p in draw(hs.stream_pieces(streamed_text))]
    if citations:
        events.append({"event_type": "citation-generation", "citations": citations})
    if draw(st.booleans()):
        events.append({"event_type": "tool-calls-generation", "text": draw(hs.short_text()), "tool_calls": []})
    events += draw(st.lists(st.sampled_from([{"event_type": "debug"}, {"event_type": "surprise"}, {}]), max_size=2))
    if draw(st.sampled_from([True, True, False])):
        response = body if draw(st.booleans()) else {k: v for k, v in body.items() if k != "citations"}
        events.append({"event_type": "stream-end", "finish_reason": body["finish_reason"], "response": response})
    return draw(hs.framed(draw(hs.scrambled(events, events=True))))


def check_cohere(raw: bytes, **options: Any) -> None:
    """The contract, and what it leaves to the Cohere parsers: reasoning citations and unplaced sources."""
    result = check_dump(raw, **options)
    for response in result["responses"] if result else []:
        keys = {source["key"] for source in response["sources"]}
        assert set(response["cited_without_position"]) <= keys
        for reasoning in response["reasoning"]:
            assert reasoning["kind"] in ("thinking", "plan") and isinstance(reasoning["text"], str)
            for citation in reasoning["citations"]:
                assert 0 <= citation["start"] <= citation["end"] <= len(reasoning["text"])
                assert citation["source_keys"] and set(citation["source_keys"]) <= keys


@PROFILE
@given(cohere_v2_dump(), st.sampled_from([None, None, "cohere", "cohere.chat_v2"]))
@example(  # a citation-start whose citations are a string, and an index that is an object
    raw=b'{"type":"message-start","id":"x"}\n{"type":"content-delta","index":{},"delta":{"message":'
    b'{"content":{"text":"ab"}}}}\n{"type":"citation-start","delta":{"message":{"citations":"c"}}}\n',
    provider=None,
)
@example(  # an astral character and offsets in no unit
    raw='{"id":"x","message":{"content":[{"type":"text","text":"😀ab"}],"citations":[{"start":2,"end":1,'
    '"text":"ab","sources":[{"type":"tool","id":"t:0","tool_output":1e400}]}]},"finish_reason":"COMPLETE"}'.encode(),
    provider=None,
)
@example(  # reversed UTF-16 offsets around an empty cited text
    raw='{"id":"x","message":{"content":[{"type":"text","text":"😀abcd"}],"citations":[{"start":3,"end":2,'
    '"text":"","sources":[{"type":"tool","id":"t:0"}]}]},"finish_reason":"COMPLETE"}'.encode(),
    provider=None,
)
def test_cohere_chat_v2(raw: bytes, provider: str | None):
    check_cohere(raw, provider=provider)


@PROFILE
@given(cohere_v1_dump(), st.sampled_from([None, None, "cohere", "cohere.chat_v1"]))
@example(  # document ids that are not a list, and a search result whose ids are a number
    raw=b'{"text":"ab","generation_id":"g","citations":[{"start":0,"end":1,"text":"a","document_ids":5}],'
    b'"search_results":[{"document_ids":7}],"documents":[{"id":1}]}',
    provider=None,
)
def test_cohere_chat_v1(raw: bytes, provider: str | None):
    check_cohere(raw, provider=provider)


@st.composite
def well_formed_v2(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    """A v2 body whose every citation has right offsets, in code points or UTF-16 units, and a source."""
    # Without what the reader repairs (a lone surrogate, a NUL): the text stays as written.
    text = draw(hs.answer_text(max_pieces=10).filter(lambda t: not _REPAIRED.search(t)))
    citations, cited = [], []
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, len(text)))
        piece = text[start:end]
        if draw(st.booleans()):
            start, end = utf16_units(text, start), utf16_units(text, end)
        source = {"type": "document", "id": "doc:0", "document": {"id": "doc:0", "text": "t"}}
        citations.append({"start": start, "end": end, "text": piece, "sources": [source]})
        cited.append(piece)
    body = {
        "id": V2_ID,
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "citations": citations},
        "finish_reason": "COMPLETE",
    }
    return body, cited


@PROFILE
@given(well_formed_v2())
def test_a_citation_with_right_offsets_in_either_unit_is_placed_on_its_text(case: tuple[dict[str, Any], list[str]]):
    body, cited = case
    (response,) = parse_dump(hs.encode(body).encode("utf-8")).to_json()["responses"]
    placed = sorted(response["text"][c["start"] : c["end"]] for c in response["citations"])
    assert placed == sorted(cited)
    assert not [d for d in response["diagnostics"] if d["code"] in ("offset_out_of_range", "segment_text_mismatch")]


BUILT_AND_SAMPLES = sorted((OWN_FIXTURES / "cohere").iterdir()) + sorted(
    (PROJECT_DIR / "citeview" / "dumps" / "samples").glob("1[01]-cohere-*")
)


@pytest.mark.parametrize("path", BUILT_AND_SAMPLES, ids=[p.name for p in BUILT_AND_SAMPLES])
def test_every_built_dump_and_sample_keeps_the_contract_and_renders(path: Path):
    check_cohere(path.read_bytes())


@PROFILE
@given(st.one_of(cohere_v2_dump(), cohere_v1_dump()), st.data())
def test_a_cohere_dump_cut_at_any_byte_or_with_a_byte_changed(raw: bytes, data: st.DataObject):
    check_cohere(raw[: data.draw(st.integers(0, len(raw)), label="cut")])
    if raw:
        position = data.draw(st.integers(0, len(raw) - 1), label="position")
        byte = data.draw(st.integers(0, 255), label="byte")
        check_cohere(raw[:position] + bytes([byte]) + raw[position + 1 :])


SMALL_COHERE_STREAMS = [
    [
        {"id": V2_ID, "type": "message-start", "delta": {"message": {"role": "assistant"}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "東京です。"}}}},
        {
            "type": "citation-start",
            "index": 0,
            "delta": {
                "message": {
                    "citations": {"start": 0, "end": 2, "text": "東京", "sources": [{"type": "tool", "id": "t:0"}]}
                }
            },
        },
        {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}},
    ],
    [
        {"event_type": "stream-start", "generation_id": V1_ID},
        {"event_type": "text-generation", "text": "東京です。"},
        {
            "event_type": "citation-generation",
            "citations": [{"start": 0, "end": 2, "text": "東京", "document_ids": ["d"]}],
        },
        {
            "event_type": "stream-end",
            "finish_reason": "COMPLETE",
            "response": {"text": "東京です。", "documents": [{"id": "d"}]},
        },
    ],
]


@PROFILE
@given(st.lists(st.sampled_from(SMALL_COHERE_STREAMS), min_size=1, max_size=2), st.data())
def test_cohere_streams_with_values_that_are_not_objects_or_odd_types(streams: list[Any], data: st.DataObject):
    events = [dict(event) for stream in streams for event in stream]
    if data.draw(st.booleans(), label="odd type"):
        event = events[data.draw(st.integers(0, len(events) - 1), label="which")]
        event["type" if "type" in event else "event_type"] = data.draw(hs.json_values(max_leaves=3), label="type")
    check_cohere(data.draw(hs.framed(data.draw(hs.with_stray_values(events), label="stray")), label="raw"))
