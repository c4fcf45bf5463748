"""Bedrock Agents: InvokeAgent and InvokeInlineAgent streams (the answer's bytes out of the traces,
citations placed on their spans, retrieved passages as sources, the knowledge base's queries as the
search, a guardrail's intervention said), and the RetrieveAndGenerateStream recorded beside them.

The recordings are real (tests/fixtures/recordings/bedrock-agents/PROVENANCE.md), read as the server
sent them; the few small streams built here test what no recording shows.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.checking.side_by_side import evidence_rows
from citeview.core.common.errors import DumpError
from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import source_labels
from tests.conftest import OWN_FIXTURES, PROJECT_DIR

RECORDINGS = OWN_FIXTURES / "recordings" / "bedrock-agents"
SAMPLE = PROJECT_DIR / "citeview" / "dumps" / "samples" / "26-bedrock-agent-en-kb-traces.jsonl"
KB_AGENT = RECORDINGS / "invoke-agent-kb-custom-py.0.eventstream"
KB_AGENT_EVENTS = RECORDINGS / "invoke-agent-kb-custom-py.0.events.jsonl"
KB_AGENT_JS = RECORDINGS / "invoke-agent-kb-custom-js.0.eventstream"
INLINE_AGENT = RECORDINGS / "invoke-inline-agent-no-attribution-py.0.eventstream"
GUARDRAIL = RECORDINGS / "invoke-agent-guardrail-intervened-py.0.eventstream"
STREAMED_FINAL = RECORDINGS / "invoke-agent-stream-final-response-py.0.eventstream"
RAG_STREAM = RECORDINGS / "retrieve-and-generate-stream-s3-py.0.eventstream"


def read(source: Path | bytes) -> dict[str, Any]:
    raw = source if isinstance(source, bytes) else source.read_bytes()
    (response,) = parse_dump(raw).to_json()["responses"]
    return response


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def jsonl(values: list[dict[str, Any]]) -> bytes:
    return "\n".join(json.dumps(v, ensure_ascii=False) for v in values).encode()


def chunk(text: str, **extra: Any) -> dict[str, Any]:
    return {"chunk": {"bytes": base64.b64encode(text.encode()).decode(), **extra}}


def trace(step: dict[str, Any]) -> dict[str, Any]:
    return {"trace": {"agentId": "AGENT1", "agentAliasId": "ALIAS1", "sessionId": "s-1", "trace": step}}


# --- InvokeAgent, recorded ----------------------------------------------------------------------------


def test_an_invoke_agent_stream_is_read_as_bedrock_agents_with_only_the_chunk_as_the_answer():
    response = read(KB_AGENT)
    assert (response["provider"], response["api"]) == ("bedrock", "bedrock.invoke_agent")
    assert response["status"] == "completed" and response["id"] == "default_session_id"
    assert response["text"].startswith("Task decomposition is a technique used to break down complex tasks")
    assert len(response["text"]) == 1598 and response["text"].endswith("problem-solving process.")
    # The traces (the prompt the agent sent, the model's raw answer with its <answer> tags) stay out.
    assert "question answering agent" not in response["text"] and "<answer" not in response["text"]


def test_the_agent_citation_span_is_read_end_inclusive_and_covers_the_whole_answer():
    response = read(KB_AGENT)
    (citation,) = response["citations"]
    assert (citation["start"], citation["end"]) == (0, 1598)  # the recording says 0..1597
    (unit,) = [d for d in response["diagnostics"] if d["code"] == "offset_unit"]
    assert unit["details"] == {"unit": "code_points", "end": "inclusive", "count": 1}


def test_each_retrieved_passage_is_a_source_with_its_text_and_location():
    response = read(KB_AGENT)
    (citation,) = response["citations"]
    (key,) = citation["source_keys"]
    source = next(s for s in response["sources"] if s["key"] == key)
    assert source["kind"] == "document" and source["url"] is None
    assert source["extra"]["location_type"] == "CUSTOM" and source["extra"]["uri"] == "2222"
    assert source["extra"]["snippet"].startswith("Fig. 1. Overview of a LLM-powered autonomous agent system.")
    assert source["extra"]["metadata:x-amz-bedrock-kb-data-source-id"] == "VYV3J5D9O6"
    rows = evidence_rows(response, source_labels(response))
    assert rows and "Task Decomposition Chain of thought" in json.dumps(rows)


def test_the_knowledge_base_query_is_listed_as_the_search_with_the_passages_it_returned():
    response = read(KB_AGENT)
    (search,) = response["searches"]
    assert search["queries"] == ["What is task decomposition?"]
    assert len(search["source_keys"]) == 5 == len(response["sources"])
    # The lookup returned the cited passage again: one source, not two.
    assert response["citations"][0]["source_keys"][0] in search["source_keys"]


def test_the_javascript_sdk_recording_reads_the_same_way():
    response = read(KB_AGENT_JS)
    assert response["api"] == "bedrock.invoke_agent" and response["status"] == "completed"
    assert [(c["start"], c["end"]) for c in response["citations"]] == [(0, 1469)]
    assert response["searches"][0]["queries"] == ["What is Task decomposition?"]


def test_the_decoded_events_read_as_the_binary_stream_does():
    assert (
        parse_dump(KB_AGENT_EVENTS.read_bytes()).to_json()["responses"]
        == (parse_dump(KB_AGENT.read_bytes()).to_json()["responses"])
    )


def uint8_array(encoded: str) -> dict[str, int]:
    """What JSON.stringify makes of the Uint8Array the JavaScript SDK gives as a chunk's bytes."""
    return {str(i): b for i, b in enumerate(base64.b64decode(encoded))}


@pytest.mark.parametrize(
    "as_dumped",
    [
        uint8_array,
        lambda encoded: list(base64.b64decode(encoded)),
        lambda encoded: base64.b64decode(encoded).decode("utf-8"),
    ],
    ids=["uint8array-object", "byte-list", "decoded-text"],
)
def test_a_chunk_whose_bytes_were_dumped_by_an_sdk_gives_the_same_answer(as_dumped):
    values = events(KB_AGENT_EVENTS)
    for value in values:
        if "chunk" in value:
            value["chunk"]["bytes"] = as_dumped(value["chunk"]["bytes"])
    response = read(jsonl(values))
    assert response["text"] == read(KB_AGENT)["text"]
    assert [(c["start"], c["end"]) for c in response["citations"]] == [(0, 1598)]


# --- InvokeInlineAgent, a guardrail, a streamed final answer ----------------------------------------------


def test_an_inline_agent_stream_is_named_as_such_with_its_model_and_its_plan_apart():
    response = read(INLINE_AGENT)
    assert response["api"] == "bedrock.invoke_inline_agent" and response["status"] == "completed"
    assert response["model"] == "anthropic.claude-3-5-sonnet-20240620-v1:0"
    assert response["text"] == "The President of the United States in 2001 was George W. Bush."
    assert not response["citations"] and not response["searches"]
    (plan,) = response["reasoning"]
    assert plan["kind"] == "plan" and plan["text"].startswith("To answer this question")


def test_an_inline_agent_is_named_by_a_trace_that_comes_after_its_answer():
    # Detection takes the stream for InvokeAgent at its first chunk; the inline agent's alias shows
    # only in the trace after it, and the stream is read again under its own name.
    inline_trace = {
        "trace": {
            "sessionId": "s-1",
            "callerChain": [{"agentAliasArn": "arn:aws:bedrock:us-east-1:123456789012:agent-alias/INLINE_AGENT/x1"}],
            "trace": {"orchestrationTrace": {"rationale": {"text": "答えは既に出ている。"}}},
        }
    }
    response = read(jsonl([chunk("東京は日本の首都です。"), inline_trace]))
    assert response["api"] == "bedrock.invoke_inline_agent"
    assert response["text"] == "東京は日本の首都です。"


def test_a_guardrail_intervention_is_said_and_leaves_the_answer_incomplete():
    response = read(GUARDRAIL)
    assert response["text"] == "Sorry, the model cannot answer this question."
    assert response["status"] == "incomplete" and "guardrailTrace INTERVENED" in response["status_detail"]
    (said,) = [d for d in response["diagnostics"] if d["code"] == "guardrail_intervened"]
    assert said["severity"] == "warning" and "PROMPT_ATTACK (BLOCKED)" in said["message"]
    assert said["details"] == {"on": "input"}


def test_a_streamed_final_answer_joins_its_chunks_and_a_guardrail_that_let_it_pass_is_not_said():
    response = read(STREAMED_FINAL)
    assert response["api"] == "bedrock.invoke_agent" and response["status"] == "completed"
    assert response["text"] == "The sum of 1, 2, 3, 4, 5, 6, 7, 8, 9, and 10 is 55.\n"
    assert response["model"] == "amazon.nova-pro-v1:0"
    assert "guardrail_intervened" not in codes(response) and "stream_end_unmarked" not in codes(response)


# --- RetrieveAndGenerateStream, recorded ----------------------------------------------------------------


def test_the_recorded_retrieve_and_generate_stream_counts_each_citation_once_end_exclusive():
    response = read(RAG_STREAM)
    assert response["api"] == "bedrock.retrieve_and_generate" and len(response["text"]) == 1140
    # Each citation event carries its data twice (in `citation` and beside it): 3 spans, 3 passages each.
    spans = [(c["start"], c["end"]) for c in response["citations"]]
    assert spans == [(0, 401)] * 3 + [(402, 752)] * 3 + [(753, 1139)] * 3
    assert response["text"][0:401].startswith("\nTelos is a knowledge representation language")
    (unit,) = [d for d in response["diagnostics"] if d["code"] == "offset_unit"]
    assert unit["details"] == {"unit": "code_points", "end": "exclusive", "count": 3}
    assert {s["extra"]["uri"] for s in response["sources"]} == {"s3://bedrock-az-kb/knowledge_bases/VLDBJ96.pdf"}


# --- What no recording shows ------------------------------------------------------------------------------


def test_a_web_reference_is_a_linked_source_and_a_lookup_without_an_id_pairs_with_its_query():
    reference = {
        "content": {"text": "Opening hours: 9 am to 5 pm."},
        "location": {"type": "WEB", "webLocation": {"url": "https://museum.example/visit"}},
    }
    part = {"textResponsePart": {"text": "It opens at 9 am.", "span": {"start": 0, "end": 16}}}
    values = [
        trace({"orchestrationTrace": {"invocationInput": {"knowledgeBaseLookupInput": {"text": "museum hours"}}}}),
        trace(
            {"orchestrationTrace": {"observation": {"knowledgeBaseLookupOutput": {"retrievedReferences": [reference]}}}}
        ),
        chunk(
            "It opens at 9 am.",
            attribution={"citations": [{"generatedResponsePart": part, "retrievedReferences": [reference]}]},
        ),
    ]
    response = read(jsonl(values))
    (source,) = response["sources"]
    assert source["kind"] == "web" and source["url"] == "https://museum.example/visit"
    assert response["searches"] == [{"queries": ["museum hours"], "source_keys": [source["key"]]}]
    assert [(c["start"], c["end"], c["source_keys"]) for c in response["citations"]] == [(0, 17, [source["key"]])]


@pytest.mark.parametrize(
    ("last", "status", "words"),
    [
        ({"returnControl": {"invocationId": "i-1", "invocationInputs": []}}, "incomplete", "returnControl"),
        ({"throttlingException": {"message": "Rate exceeded"}}, "failed", "Rate exceeded"),
    ],
)
def test_an_agent_that_hands_back_control_or_fails_is_not_complete(last, status, words):
    response = read(jsonl([chunk("Partial."), last]))
    assert response["api"] == "bedrock.invoke_agent"
    assert response["status"] == status and words in response["status_detail"]


def test_an_agent_stream_without_a_chunk_is_incomplete():
    response = read(jsonl([trace({"orchestrationTrace": {"rationale": {"text": "Looking it up."}}})]))
    assert response["status"] == "incomplete" and response["text"] == ""
    assert "chunk" in response["status_detail"]


@pytest.mark.parametrize("value", [{"chunk": {"data": "x"}}, {"trace": {"text": "x"}}])
def test_an_event_named_chunk_or_trace_without_an_agent_event_s_members_is_not_an_agent(value):
    with pytest.raises(DumpError):
        parse_dump(json.dumps(value).encode())


def test_the_sample_is_the_recording_s_events_read_as_an_agent_with_no_warning():
    assert SAMPLE.read_bytes() == KB_AGENT_EVENTS.read_bytes()
    response = read(SAMPLE)
    assert response["api"] == "bedrock.invoke_agent" and response["status"] == "completed"
    assert response["citations"] and response["searches"]
    assert [d["code"] for d in response["diagnostics"] if d["severity"] != "info"] == []


def test_a_character_cut_between_two_chunks_reads_whole():
    raw = "東京は日本の首都です。".encode()
    halves = [raw[:4], raw[4:]]  # 東 is three bytes: the cut falls inside 京
    chunks = [{"chunk": {"bytes": base64.b64encode(half).decode()}} for half in halves]
    response = read(jsonl(chunks))
    assert response["text"] == "東京は日本の首都です。"
    assert "chunk_not_base64" not in codes(response)


def test_a_chunk_whose_bytes_citeview_cannot_read_is_said_not_dropped():
    response = read(jsonl([chunk("The answer."), {"chunk": {"bytes": [300, 1]}}]))
    assert response["text"] == "The answer."
    (said,) = [d for d in response["diagnostics"] if d["code"] == "chunk_unreadable"]
    assert said["severity"] == "warning" and said["details"] == {"count": 1}
