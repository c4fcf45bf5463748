"""The provider registry: an API registered in one place is detected, parsed and named everywhere."""

from __future__ import annotations

import dataclasses
import json

import pytest

from citeview.core.checking.report import handover_report
from citeview.core.common.errors import DumpError
from citeview.core.common.model import Response
from citeview.core.detection import registry
from citeview.core.detection.registry import ApiFormat, Provider
from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.parse import parse_dump
from citeview.core.parsing.providers._openai_shapes import CHAT_SHAPE
from tests.builders import sonar_object
from tests.toy_provider import TOY_ANSWERS, TOY_NOTATION, toy_answer, toy_registered

TOKYO = toy_answer("Tokyo has 14 million people [1].", "https://example.org/tokyo")


def raw(*values: dict) -> bytes:
    return b"\n".join(json.dumps(v).encode() for v in values)


@pytest.fixture
def toy():
    with toy_registered() as api:
        yield api


def test_a_registered_api_is_detected_and_parsed(toy):
    response = parse_dump(raw(TOKYO)).to_json()["responses"][0]
    assert (response["provider"], response["api"], response["streamed"]) == ("toy", "toy.answers", False)
    assert response["sources"][0]["url"] == "https://example.org/tokyo"
    assert response["citations"][0]["source_keys"] == ["1"] and not response["unresolved"]


def test_its_streams_split_into_responses_by_its_own_rule(toy):
    lines = raw(toy_answer("Tok"), toy_answer("Tokyo"), toy_answer("Osa"), toy_answer("Osaka"))
    responses = parse_dump(lines).to_json()["responses"]
    assert [(r["text"], r["streamed"]) for r in responses] == [("Tokyo", True), ("Osaka", True)]


def test_it_can_be_chosen_by_its_provider_or_api_name(toy):
    assert parse_dump(raw(TOKYO), provider="toy").responses[0].api == "toy.answers"
    assert parse_dump(raw(TOKYO), provider="toy.answers").responses[0].api == "toy.answers"
    with pytest.raises(DumpError) as caught:
        parse_dump(json.dumps(sonar_object("x", [])).encode(), provider="toy")
    assert caught.value.code == "unknown_provider" and "any toy response" in caught.value.message


def test_its_names_are_among_the_names_a_reader_may_choose(toy):
    with pytest.raises(DumpError) as caught:
        parse_dump(raw(TOKYO), provider="nobody")
    assert "toy, " in caught.value.message and "toy.answers" in caught.value.message


def test_the_unknown_shape_error_names_every_registered_provider(toy):
    with pytest.raises(DumpError) as caught:
        parse_dump(b'{"hello": "world"}')
    assert (
        "(Claude, Azure OpenAI, AWS Bedrock, Cohere, OpenAI-compatible, DeepSeek, Fireworks, Gemini, Groq, Kimi, LangChain, "
        "Mistral, OpenAI, OpenRouter, Perplexity, Qwen, Toy, Vercel AI SDK, xAI)" in caught.value.message
    )


def test_the_handover_report_gives_its_label_and_notation(toy):
    result = parse_dump(raw(TOKYO)).to_json()
    report = handover_report({"id": 1, "title": "", "sha256": "", "stored_at": ""}, result, [], [])
    response = report["responses"][0]
    assert (response["api_name"], response["citation_notation"]) == ("Toy Answers", TOY_NOTATION)


def test_its_request_check_is_used_and_named_where_a_request_is_not_checked():
    checked = []
    toy = dataclasses.replace(TOY_ANSWERS, request_check=lambda response, request: checked.append(request))
    with toy_registered(toy):
        parse_dump(raw(TOKYO), request=b'{"model": "toy-1"}')
        sonar = parse_dump(json.dumps(sonar_object("x", [])).encode(), request=b"{}").responses[0]
    assert checked == [{"model": "toy-1"}]
    note = next(d for d in sonar.diagnostics if d.code == "request_not_used")
    assert str(note.message).endswith(
        "only for Anthropic Messages, Bedrock Converse, Mistral Chat Completions, Mistral Conversations, Toy Answers."
    )


def test_documents_attached_on_their_own_are_checked_for_an_api_that_cites_them_by_index():
    toy = dataclasses.replace(TOY_ANSWERS, cites_documents_by_index=True)
    document = [AttachedFile("policy.txt", "東京都の人口は1400万人です。".encode())]
    with toy_registered(toy):
        checked = parse_dump(raw(TOKYO), request=document).responses[0]
        sonar = parse_dump(json.dumps(sonar_object("x", [])).encode(), request=document).responses[0]
    assert not any(d.code == "request_not_used" for d in checked.diagnostics)
    note = next(d for d in sonar.diagnostics if d.code == "request_not_used")
    assert str(note.message).endswith(
        "only against the citations of Anthropic Messages, Bedrock Converse, Toy Answers."
    )


def test_an_api_can_share_a_shape_and_be_told_apart_by_its_marks():
    toy_chat = ApiFormat(
        name="toy.chat",
        label="Toy Chat",
        provider=Provider("toy", "Toy"),
        shape=CHAT_SHAPE,
        parser=lambda values, streamed: Response("toy", "toy.chat", streamed),
        citation_notation=TOY_NOTATION,
        marks=lambda value: str(value.get("model", "")).startswith("toy-"),
        priority=50,
    )
    completion = {"id": "chatcmpl-1", "object": "chat.completion", "model": "toy-1", "choices": []}
    with toy_registered(toy_chat):
        assert parse_dump(json.dumps({**completion, **TOKYO}).encode()).responses[0].api == "toy.chat"
        assert parse_dump(json.dumps({**completion, "model": "gpt-5"}).encode()).responses[0].api == (
            "openai.chat_completions"
        )
        assert parse_dump(json.dumps(sonar_object("x", [])).encode()).responses[0].api == "perplexity.sonar"


def test_once_unregistered_it_is_known_nowhere():
    with toy_registered():
        assert "toy" in registry.provider_names()
    assert "toy" not in registry.provider_names() and "toy.answers" not in registry.api_names()
    with pytest.raises(DumpError) as caught:
        parse_dump(raw(TOKYO))
    assert caught.value.code == "unknown_provider"


def test_an_api_named_for_another_provider_is_refused():
    with pytest.raises(ValueError, match=r"must be named toy\.<api>"):
        registry.register(dataclasses.replace(TOY_ANSWERS, name="openai.toy"))
    assert "openai.toy" not in registry.api_names()


def test_an_api_registered_twice_is_refused(toy):
    with pytest.raises(ValueError, match="already registered"):
        registry.register(TOY_ANSWERS)


def test_two_shapes_of_one_name_are_refused(toy):
    other_shape = dataclasses.replace(TOY_ANSWERS.shape, priority=1)
    with pytest.raises(ValueError, match="different shapes"):
        registry.register(dataclasses.replace(TOY_ANSWERS, name="toy.other", shape=other_shape))


def test_every_provider_module_declares_its_apis():
    assert registry.provider_names() == [
        "anthropic",
        "azure",
        "bedrock",
        "cohere",
        "compatible",
        "deepseek",
        "fireworks",
        "gemini",
        "groq",
        "kimi",
        "langchain",
        "mistral",
        "openai",
        "openrouter",
        "perplexity",
        "qwen",
        "vercel",
        "xai",
    ]
    assert registry.api_names() == [
        "anthropic.messages",
        "azure.on_your_data",
        "bedrock.converse",
        "bedrock.invoke_agent",
        "bedrock.invoke_inline_agent",
        "bedrock.retrieve_and_generate",
        "cohere.chat_v1",
        "cohere.chat_v2",
        "compatible.chat_completions",
        "compatible.responses",
        "deepseek.chat_completions",
        "deepseek.responses",
        "fireworks.chat_completions",
        "fireworks.responses",
        "gemini.generate_content",
        "gemini.interactions",
        "groq.chat_completions",
        "kimi.chat_completions",
        "kimi.responses",
        "langchain.messages",
        "mistral.chat_completions",
        "mistral.conversations",
        "openai.chat_completions",
        "openai.responses",
        "openrouter.chat_completions",
        "perplexity.agent",
        "perplexity.sonar",
        "qwen.chat_completions",
        "qwen.responses",
        "vercel.ui_message_stream",
        "vercel.ui_messages",
        "xai.chat_completions",
        "xai.responses",
    ]
    assert all(api.parser and api.citation_notation for api in registry.api_formats())
