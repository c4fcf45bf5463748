"""A dump holding responses of several providers splits into them, each with its own sources and numbers."""

from __future__ import annotations

import json

from citeview.core.parsing.parse import parse_dump
from tests.conftest import PROJECT_DIR

SAMPLES = PROJECT_DIR / "citeview" / "dumps" / "samples"
# Whole responses of eight APIs, one JSON object each (an exchange's response without its request).
WHOLE = [
    ("10-cohere-ja-documents.json", "cohere.chat_v2"),
    ("14-xai-ja-responses-websearch.json", "xai.responses"),
    ("20-gemini-ja-rag-recitation.json", "gemini.generate_content"),
    ("09-openai-responses-ja-visitors.json", "openai.responses"),
    ("03-sonar-en-heat-pumps.json", "perplexity.sonar"),
    ("19-langchain-gemini-ja.json", "langchain.messages"),
    ("12-bedrock-ja-documents-exchange.json", "bedrock.converse"),
    ("16-mistral-ja-chat-references-exchange.json", "mistral.chat_completions"),
]


def response_of(name: str) -> dict:
    value = json.loads((SAMPLES / name).read_text(encoding="utf-8"))
    return value["response"] if "request" in value else value


def test_json_lines_of_eight_apis_are_eight_responses_each_with_its_own_numbers():
    lines = [json.dumps(response_of(name), ensure_ascii=False) for name, _ in WHOLE]
    mixed = parse_dump("\n".join(lines).encode()).to_json()
    assert mixed["dump"]["framing"] == "jsonl"
    assert [r["api"] for r in mixed["responses"]] == [api for _, api in WHOLE]
    for (name, _), response in zip(WHOLE, mixed["responses"], strict=True):
        alone = parse_dump(json.dumps(response_of(name)).encode()).to_json()["responses"][0]
        # Read in the mix, each answer is what it is alone: its text, sources and citations.
        assert response["text"] == alone["text"], name
        assert response["sources"] == alone["sources"], name
        assert [(c["start"], c["end"], c["source_keys"]) for c in response["citations"]] == [
            (c["start"], c["end"], c["source_keys"]) for c in alone["citations"]
        ], name


def test_a_stream_of_one_provider_between_whole_responses_of_others_stays_one_response():
    stream = (SAMPLES / "11-cohere-stream-en-tool-plan.sse").read_text(encoding="utf-8")
    events = [json.loads(line[5:]) for line in stream.splitlines() if line.startswith("data: {")]
    values = [response_of("14-xai-ja-responses-websearch.json"), *events, response_of("03-sonar-en-heat-pumps.json")]
    mixed = parse_dump(json.dumps(values).encode()).to_json()
    apis = [(r["api"], r["streamed"]) for r in mixed["responses"]]
    assert apis == [
        ("xai.responses", False),
        ("cohere.chat_v2", True),
        ("cohere.chat_v2", True),
        ("perplexity.sonar", False),
    ]
    # The Sonar answer's [1] is its own first citation, not the xAI answer's first source.
    sonar = mixed["responses"][-1]
    first = next(c for c in sonar["citations"] if c["marker"] == "[1]")
    assert first["source_keys"] == ["1"] and sonar["sources"][0]["key"] == "1"
