"""Detecting provider and API from content, and keeping responses apart."""

from __future__ import annotations

import dataclasses
import json

import pytest

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import phrase_text
from citeview.core.detection import registry
from citeview.core.parsing.parse import parse_dump
from tests.builders import agent_created, agent_deltas, agent_object, sonar_object
from tests.conftest import own_fixture, sse


def test_two_responses_never_share_a_number_space():
    doc = parse_dump(own_fixture("agent-two-responses.jsonl")).to_json()
    first, second = doc["responses"]
    assert first["sources"][0]["url"] == "https://example.org/canberra"
    assert second["sources"][0]["url"] == "https://example.org/wellington"
    assert not any(d["code"] == "source_conflict" for r in doc["responses"] for d in r["diagnostics"])


def test_two_streams_in_one_dump_are_two_responses():
    raw = sse(agent_created(), *agent_deltas("One.")) + sse(agent_created(), *agent_deltas("Two."))
    assert [r["text"] for r in parse_dump(raw).to_json()["responses"]] == ["One.", "Two."]


def test_sonar_and_agent_are_told_apart_by_content():
    assert parse_dump(json.dumps(sonar_object("x", [])).encode()).responses[0].api == "perplexity.sonar"
    assert parse_dump(json.dumps(agent_object("x", [])).encode()).responses[0].api == "perplexity.agent"


def test_an_openai_responses_body_is_told_from_perplexity_by_content():
    body = {"id": "resp_68e6a1b2c3", "object": "response", "status": "completed", "model": "gpt-5", "output": []}
    assert parse_dump(json.dumps(body).encode()).responses[0].api == "openai.responses"


def test_an_api_recognised_but_without_a_parser_is_declined_clearly(monkeypatch):
    without_parser = dataclasses.replace(registry.api_format("openai.responses"), parser=None)
    monkeypatch.setitem(registry._registered, "openai.responses", without_parser)
    body = {"id": "resp_68e6a1b2c3", "object": "response", "status": "completed", "model": "gpt-5", "output": []}
    with pytest.raises(DumpError) as caught:
        parse_dump(json.dumps(body).encode())
    assert caught.value.code == "unsupported_provider" and "OpenAI Responses" in caught.value.message


def test_a_forced_provider_reads_the_shape_as_that_provider():
    body = {
        "id": "resp_68e6a1b2c3",
        "object": "response",
        "status": "completed",
        "output": [{"type": "message", "content": [{"type": "output_text", "text": "Hi"}]}],
    }
    assert parse_dump(json.dumps(body).encode(), provider="perplexity").responses[0].api == "perplexity.agent"
    with pytest.raises(DumpError) as caught:
        parse_dump(json.dumps(body).encode(), provider="gemini")
    assert caught.value.code == "unknown_provider"


def test_the_contract_json_has_exactly_the_documented_fields():
    doc = parse_dump(own_fixture("agent-seed-incomplete.sse")).to_json()
    assert set(doc) == {"citeview", "dump", "responses"} and doc["citeview"] == 1
    assert set(doc["dump"]) == {"sha256", "bytes", "framing"}
    response = doc["responses"][0]
    assert {
        "provider",
        "api",
        "streamed",
        "id",
        "model",
        "status",
        "status_detail",
        "text",
        "sources",
        "citations",
        "unresolved",
        "diagnostics",
    } <= set(response)
    assert set(response["sources"][0]) == {"key", "kind", "url", "title", "extra"}
    # Contract v1 allows additions; these are ours, everything documented is there.
    assert set(response["citations"][0]) - {"quote_check", "context"} == {
        "start",
        "end",
        "marker",
        "source_keys",
        "cited_text",
        "location",
        "confidence",
    }
    # "phrase" is ours: the message as a template and its values, so a page can translate it.
    assert set(response["diagnostics"][0]) - {"phrase"} == {"code", "severity", "message", "details"}
    assert response["diagnostics"][0]["message"] == phrase_text(response["diagnostics"][0]["phrase"])
    json.dumps(doc)  # serialisable as it is


def test_two_finished_completions_of_the_same_text_are_two_responses():
    """An evaluation run asks the same question twice and gets the same answer: two responses, never one."""
    first = sonar_object(
        "東京の人口は約1400万人です[1]。", ["https://www.metro.tokyo.lg.jp/"], id="6f1d2a3b-0000-4000-8000-000000000001"
    )
    second = {**first, "id": "6f1d2a3b-0000-4000-8000-000000000002"}
    raw = (json.dumps(first, ensure_ascii=False) + "\n" + json.dumps(second, ensure_ascii=False) + "\n").encode()
    responses = parse_dump(raw).to_json()["responses"]
    assert [r["id"] for r in responses] == [first["id"], second["id"]]
