"""Groq's compound systems: chat completions whose ``executed_tools`` hold the searches and visits
the system ran (provider-formats.md §12). The three real recordings are read in place from
../shared/fixtures/groq/; the stream (every chunk with an id of its own, as Groq sends it) and the
odd shapes are built here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.parsing.parse import parse_dump
from tests.conftest import fixture_ids, real_fixtures, sse

FIXTURES = real_fixtures("groq")
TOKYO, METRO = "https://www.metro.tokyo.lg.jp/", "https://www.toukei.metro.tokyo.lg.jp/jinkou/"


def read(raw: bytes) -> dict[str, Any]:
    (response,) = parse_dump(raw).to_json()["responses"]
    return response


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def search_results(value: Any) -> list[dict[str, Any]]:
    """Every search result with a URL anywhere in a recording, read independently of the parser."""
    if isinstance(value, list):
        return [r for v in value for r in search_results(v)]
    if not isinstance(value, dict):
        return []
    found = []
    results = value.get("search_results")
    if isinstance(results, dict) and isinstance(results.get("results"), list):
        found = [r for r in results["results"] if isinstance(r, dict) and r.get("url")]
    return found + [r for v in value.values() for r in search_results(v)]


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_every_recording_is_groq_and_each_search_result_is_a_source_with_its_text(path: Path):
    raw = path.read_bytes()
    response = read(raw)
    assert (response["provider"], response["api"], response["status"]) == ("groq", "groq.chat_completions", "completed")
    assert response["text"] and response["citations"] == [] and response["unresolved"] == []
    sources = {s["url"]: s for s in response["sources"]}
    for result in search_results(json.loads(raw)):
        extra = sources[result["url"]]["extra"]
        excerpt = extra["snippet"] if extra["snippet_kind"] == "search_snippet" else extra["search_snippet"]
        assert excerpt == result["content"]
    # Every query the system searched for is listed, in order.
    queries = [json.loads(t["arguments"])["query"] for t in _tools(json.loads(raw)) if t["type"] == "search"]
    assert [q for s in response["searches"] for q in s["queries"]] == queries
    # The answer marks no citations: said once, not as one "never cited" note per page.
    assert "unused_source" not in codes(response)
    assert codes(response).count("no_positions") == (1 if response["sources"] else 0)


def _tools(value: dict[str, Any]) -> list[dict[str, Any]]:
    return value["choices"][0]["message"].get("executed_tools") or []


def test_a_visited_page_is_a_source_with_what_the_system_read_of_it():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    path = next(p for p in FIXTURES if "domain-filters" in p.name)
    response = read(path.read_bytes())
    (visited,) = [s for s in response["sources"] if s["url"] == "https://www.python.org/downloads/"]
    assert visited["extra"]["snippet_kind"] == "tool_output"
    assert visited["extra"]["snippet"].startswith("Title: www.python.org\nURL: https://www.python.org/downloads/")
    assert {"queries": [], "source_keys": [visited["key"]]} in response["searches"]


def chunk(number: int, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number:08d}-0000-4000-8000-000000000000",  # a new id on every chunk, as Groq sends them
        "object": "chat.completion.chunk",
        "created": 1758144046,
        "model": "groq/compound",
        "system_fingerprint": None,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }


def search_tool(results: list[dict[str, Any]], output: str | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "index": 0,
        "type": "search",
        "arguments": json.dumps({"query": "東京都の人口 2024年"}, ensure_ascii=False),
        "search_results": {"results": results},
    }
    if output is not None:
        tool["output"] = output
    return tool


RESULTS = [
    {"title": "東京都の統計", "url": METRO, "content": "2024年1月1日現在の東京都の人口は1,408万人。", "score": 0.93},
    {"title": "東京都公式", "url": TOKYO, "content": "都政の情報を掲載しています。", "score": 0.71},
    {"title": "URL のない結果", "content": "出典にはならない", "score": 0.1},
]


def compound_stream() -> bytes:
    answer = ["東京都の人口は", "2024年1月時点で", "約1,408万人です。"]
    chunks = [chunk(1, {"reasoning": "<tool>search(東京都の人口)</tool>"})]
    chunks.append(chunk(2, {"executed_tools": [search_tool([])]}))  # the call, before its results
    chunks.append(chunk(3, {"executed_tools": [search_tool(RESULTS, output="Title: 東京都の統計 …")]}))
    chunks += [chunk(4 + n, {"content": piece}) for n, piece in enumerate(answer)]
    last = chunk(9, {}, "stop", x_groq={"usage": {"total_tokens": 5362}})
    last["id"] = "stub"
    return sse(*chunks, last, named=False, done=True)


def test_a_compound_stream_with_an_id_on_every_chunk_is_one_response_with_its_sources():
    response = read(compound_stream())
    assert (response["api"], response["status"], response["streamed"]) == ("groq.chat_completions", "completed", True)
    assert response["text"] == "東京都の人口は2024年1月時点で約1,408万人です。"
    assert [(s["url"], s["extra"]["snippet"]) for s in response["sources"]] == [
        (METRO, "2024年1月1日現在の東京都の人口は1,408万人。"),
        (TOKYO, "都政の情報を掲載しています。"),
    ]  # the result without a URL is no source
    assert response["searches"] == [{"queries": ["東京都の人口 2024年"], "source_keys": [METRO, TOKYO]}]
    assert response["cited_without_position"] == [METRO, TOKYO]


def test_two_finished_streams_with_an_id_on_every_chunk_stay_two_responses():
    first, second = compound_stream(), compound_stream().replace("約1,408万人".encode(), "約1,400万人".encode())
    result = parse_dump(first.removesuffix(b"data: [DONE]\n\n") + second).to_json()
    assert [r["text"] for r in result["responses"]] == [
        "東京都の人口は2024年1月時点で約1,408万人です。",
        "東京都の人口は2024年1月時点で約1,400万人です。",
    ]


@pytest.mark.parametrize("visit_first", [False, True])
def test_a_page_found_and_visited_shows_what_the_visit_read_and_keeps_the_search_excerpt(visit_first):
    search = search_tool(RESULTS[:1])
    visit = {"index": 1, "type": "visit", "arguments": json.dumps({"url": METRO}), "output": "総数 14,086,000人"}
    tools = [visit, search] if visit_first else [search, visit]
    value = {
        "id": "stub",
        "object": "chat.completion",
        "model": "groq/compound",
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"content": "約1,408万人です。", "executed_tools": tools}}
        ],
    }
    (source,) = read(json.dumps(value, ensure_ascii=False).encode())["sources"]
    assert (source["extra"]["snippet"], source["extra"]["snippet_kind"]) == ("総数 14,086,000人", "tool_output")
    assert source["extra"]["search_snippet"] == RESULTS[0]["content"] and source["title"] == RESULTS[0]["title"]


def test_arguments_that_are_not_json_and_a_tool_without_results_claim_nothing():
    value = {
        "id": "stub",
        "object": "chat.completion",
        "model": "compound-beta",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": "今日は火曜日です。",
                    "executed_tools": [
                        {"index": "0", "type": "search", "arguments": "{not json", "output": "Title: …"},
                        {"index": "1", "type": "visit", "arguments": "{}", "output": "…"},
                    ],
                },
            }
        ],
        "x_groq": {"id": "stub"},
    }
    response = read(json.dumps(value, ensure_ascii=False).encode())
    assert (response["api"], response["status"], response["text"]) == (
        "groq.chat_completions",
        "completed",
        "今日は火曜日です。",
    )
    assert response["sources"] == [] and response["searches"] == [{"queries": [], "source_keys": []}]
    assert response["diagnostics"] == []


def test_a_groq_completion_of_an_ordinary_model_is_groqs_and_an_unmarked_one_is_openai_compatible():
    value = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "llama-3.3-70b-versatile",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "こんにちは"}}],
    }
    assert read(json.dumps(value).encode())["api"] == "compatible.chat_completions"
    assert read(json.dumps({**value, "x_groq": {"id": "req_1"}}).encode())["api"] == "groq.chat_completions"


def test_what_text_cannot_hold_in_a_tools_arguments_is_shown_as_a_replacement_character():
    # The arguments are JSON inside a string: the dump's own repair never sees their escapes.
    visit = {"index": 0, "type": "visit", "arguments": '{"url": "https://a.example/\\u0000\\ud83d"}', "output": "…"}
    value = {
        "id": "stub",
        "object": "chat.completion",
        "model": "groq/compound",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"content": "答え", "executed_tools": [visit]}}],
    }
    response = read(json.dumps(value).encode())
    assert [s["url"] for s in response["sources"]] == ["https://a.example/\ufffd\ufffd"]
    assert "\\u0000" not in json.dumps(response)  # PostgreSQL's jsonb cannot store a NUL
