"""Attribution from evidence: an answer in OpenAI's shapes names a provider only where the dump says
so (a field, a model name, an id's documented shape); otherwise it is named by its shape and its
model, "OpenAI-compatible Responses · deepseek-v4-flash". One test per shape holds the rule: Responses
whole and streamed, Chat Completions whole and streamed.

The DeepSeek answers are real (tests/fixtures/recordings/deepseek/, see PROVENANCE.md there); the
web-search one is made for the test (tests/fixtures/compatible/README.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.detection import registry
from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES, fixture_ids, real_fixtures, sse

DEEPSEEK = OWN_FIXTURES / "recordings" / "deepseek"
WHOLE = DEEPSEEK / "pydantic-ai-deepseek-responses-text.json"
STREAM = DEEPSEEK / "pydantic-ai-deepseek-responses-text-stream.sse"
WEB_SEARCH = OWN_FIXTURES / "compatible" / "deepseek-responses-web-search-built.json"


def read(raw: bytes) -> dict[str, Any]:
    (response,) = parse_dump(raw).to_json()["responses"]
    return response


def named(response: dict[str, Any]) -> tuple[str, str, str | None]:
    """What the provider line says: who (the API's label, from the registry) and the model."""
    api = registry.api_format(response["api"])
    assert api is not None
    return api.provider.label, api.label, response["model"]


def with_model(raw: bytes, model: str) -> bytes:
    """The recording with another model name, as a server citeview knows nothing of would answer."""
    return raw.replace(b'"model":"deepseek-v4-flash"', f'"model":"{model}"'.encode()).replace(
        b'"model": "deepseek-v4-flash"', f'"model": "{model}"'.encode()
    )


def chat(model: str, completion_id: str, text: str = "The capital of France is Paris.") -> dict[str, Any]:
    return {
        "id": completion_id,
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
    }


def chat_chunks(model: str, completion_id: str, text: str) -> bytes:
    first = {"id": completion_id, "object": "chat.completion.chunk", "model": model}
    chunks = [{**first, "choices": [{"index": 0, "delta": {"content": piece}}]} for piece in (text[:9], text[9:])]
    chunks.append({**first, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return sse(*chunks, named=False, done=True)


# --- Responses, whole and streamed ----------------------------------------------------------------


@pytest.mark.parametrize("path", [WHOLE, STREAM], ids=["whole", "streamed"])
def test_a_deepseek_responses_answer_is_named_deepseek_by_its_model_not_xai(path: Path):
    response = read(path.read_bytes())
    assert named(response) == ("DeepSeek", "DeepSeek Responses", "deepseek-v4-flash")
    assert (response["provider"], response["status"]) == ("deepseek", "completed")
    # Its reasoning is not the answer, whole or streamed.
    assert response["text"] == "The capital of France is Paris."
    assert response["streamed"] == (path == STREAM)


@pytest.mark.parametrize("path", [WHOLE, STREAM], ids=["whole", "streamed"])
@pytest.mark.parametrize("model", ["my-model", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "deepseek-ai/DeepSeek-V3"])
def test_a_responses_answer_nothing_names_is_named_by_its_shape_and_model(path: Path, model: str):
    # Its UUID id is DeepSeek's shape and xAI's alike: it names no one. A host's catalogue path
    # (Together's, vLLM's) names the model's maker, not who answered.
    response = read(with_model(path.read_bytes(), model))
    assert named(response) == ("OpenAI-compatible", "OpenAI-compatible Responses", model)
    assert response["provider"] == "compatible" and response["text"] == "The capital of France is Paris."


# --- Chat Completions, whole and streamed ---------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    ("model", "completion_id", "provider"),
    [
        ("deepseek-chat", "930c60df-bf64-41c9-a88e-3ec75f81e00e", "DeepSeek"),  # a UUID: not Perplexity's alone
        ("qwen-plus", "chatcmpl-0f4b1e0c-5a6b-9c8d-7e6f-5a4b3c2d1e0f", "Qwen"),  # DashScope's compatible mode
        ("kimi-k2-0905-preview", "chatcmpl-68b2a9c2e1f3d4a5b6c7d8e9", "Kimi"),
        ("accounts/fireworks/models/deepseek-v3p1", "6c1b0a9e-2f3d-4c5b-8a7e-9d0c1b2a3f4e", "Fireworks"),
        ("Qwen/Qwen3-8B", "chatcmpl-9f8e7d6c5b4a39281706f5e4d3c2b1a0", "OpenAI-compatible"),  # vLLM, Together
        ("gpt-oss-120b", "chatcmpl-abc123", "OpenAI-compatible"),  # open weights, served by anyone
        ("llama-3.3-70b", "3f2e1d0c-9b8a-4766-8554-4433221100ff", "OpenAI-compatible"),
        # Open weights under their makers' names, served by SambaNova, Ollama, Cerebras and others.
        ("DeepSeek-R1", "chatcmpl-sambanova1", "OpenAI-compatible"),
        ("deepseek-r1:7b", "chatcmpl-ollama1", "OpenAI-compatible"),
        ("qwen2.5-coder:7b", "chatcmpl-ollama2", "OpenAI-compatible"),
        ("qwen-3-32b", "chatcmpl-cerebras1", "OpenAI-compatible"),
        ("kimi-k2-instruct", "chatcmpl-host1", "OpenAI-compatible"),
        ("qwen3-max-2025-09-23", "chatcmpl-dashscope1", "Qwen"),
        ("kimi-k2.6", "chatcmpl-moonshot1", "Kimi"),
        ("moonshot-v1-8k", "chatcmpl-moonshot2", "Kimi"),
        ("deepseek-reasoner", "2c0a9b8e-7d6f-4e5d-8c4b-3a2f1e0d9c8b", "DeepSeek"),
    ],
)
def test_a_chat_completion_is_named_by_its_model_or_by_its_shape(
    streamed: bool, model: str, completion_id: str, provider: str
):
    text = "The capital of France is Paris."
    raw = chat_chunks(model, completion_id, text) if streamed else json.dumps(chat(model, completion_id)).encode()
    response = read(raw)
    assert named(response) == (provider, f"{provider} Chat Completions", model)
    assert response["text"] == text and response["streamed"] == streamed


# --- Providers the dump proves keep their names ---------------------------------------------------


@pytest.mark.parametrize(
    ("body", "api"),
    [
        ({"id": "resp_68e6a1b2c3d4", "model": "gpt-5-2025-08-07"}, "openai.responses"),
        ({"id": "resp_68e6a1b2c3d4", "model": "o3-mini"}, "openai.responses"),
        # OpenAI's id shape, written by a compatible server: not proof alone.
        ({"id": "resp_68e6a1b2c3d4"}, "compatible.responses"),
        ({"id": "resp_68e6a1b2c3d4", "model": "openai/gpt-5"}, "compatible.responses"),
        ({"id": "0f4b1e0c-5a6b-4c8d-9e6f-5a4b3c2d1e0f", "model": "grok-4"}, "xai.responses"),
        ({"id": "0f4b1e0c-5a6b-4c8d-9e6f-5a4b3c2d1e0f", "usage": {"num_sources_used": 3}}, "xai.responses"),
    ],
)
def test_openai_and_xai_are_named_where_the_dump_proves_them(body: dict[str, Any], api: str):
    value = {"object": "response", "status": "completed", "output": [], **body}
    assert read(json.dumps(value).encode())["api"] == api


NAMED = [
    (folder, path)
    for folder in ("openai", "xai", "groq", "openrouter", "azure", "perplexity", "mistral")
    for path in real_fixtures(folder)
]
PROVIDER_OF_FOLDER = {"azure": "azure", "groq": "groq", "openrouter": "openrouter", "xai": "xai"}


@pytest.mark.parametrize(("folder", "path"), NAMED, ids=fixture_ids([p for _, p in NAMED]))
def test_every_real_recording_of_a_named_provider_keeps_its_name(folder: str, path: Path):
    for response in parse_dump(path.read_bytes()).to_json()["responses"]:
        assert response["provider"] == PROVIDER_OF_FOLDER.get(folder, folder)


# --- Sources of an answer without annotations -----------------------------------------------------


def test_an_answer_without_annotations_lists_what_its_searches_consulted_and_its_text_names_without_a_place():
    response = read(WEB_SEARCH.read_bytes())
    assert named(response) == ("DeepSeek", "DeepSeek Responses", "deepseek-v4-flash")
    consulted = [
        "https://www.metro.tokyo.lg.jp/english/about/population",
        "https://www.stat.go.jp/english/data/jinsui/",
    ]
    opened = "https://www.toukei.metro.tokyo.lg.jp/jsuikei/js-index.htm"  # open_page, and written in the text
    written = "https://en.wikipedia.org/wiki/Tokyo"
    assert response["cited_without_position"] == [*consulted, opened, written]
    assert [s["url"] for s in response["sources"]] == [*consulted, opened, written]
    assert response["citations"] == [] and response["unresolved"] == []
    assert [q for s in response["searches"] for q in s["queries"]] == ["Tokyo population 2026"]
    # Said once, as Groq's compound answers say it, not as one "never cited" note per page.
    codes = [d["code"] for d in response["diagnostics"]]
    assert codes == ["no_positions"]
    assert response["diagnostics"][0]["details"]["count"] == 4


def test_a_chat_completion_without_annotations_lists_the_addresses_its_text_writes():
    text = "Paris ([INSEE](https://www.insee.fr/fr/statistiques)). See also https://fr.wikipedia.org/wiki/Paris."
    response = read(json.dumps(chat("qwen-plus", "chatcmpl-1", text)).encode())
    assert response["cited_without_position"] == [
        "https://www.insee.fr/fr/statistiques",
        "https://fr.wikipedia.org/wiki/Paris",
    ]


def test_an_answer_whose_annotations_cite_lists_nothing_more():
    text = "Paris is the capital ([insee.fr](https://www.insee.fr/)). Also https://fr.wikipedia.org/wiki/Paris"
    annotation = {
        "type": "url_citation",
        "url_citation": {"start_index": 21, "end_index": 56, "url": "https://www.insee.fr/"},
    }
    value = chat("deepseek-chat", "930c60df-bf64-41c9-a88e-3ec75f81e00e", text)
    value["choices"][0]["message"]["annotations"] = [annotation]
    response = read(json.dumps(value).encode())
    assert [s["url"] for s in response["sources"]] == ["https://www.insee.fr/"]
    assert response["cited_without_position"] == [] and len(response["citations"]) == 1
