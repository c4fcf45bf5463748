"""OpenRouter: chat completions with its web plugin's url_citation annotations, at 0–0 and carrying
the page's text (provider-formats.md §12), and the JSON Lines of frames its SDK's recorder writes.
The real recordings are read in place from ../shared/fixtures/openrouter/; the Japanese answers and
the odd shapes are built here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.parsing.inline_tokens import written_links
from citeview.core.parsing.parse import parse_dump
from tests.conftest import fixture_ids, real_fixtures, sse

FIXTURES = real_fixtures("openrouter")
GITHUB = "https://github.com/pydantic/pydantic-ai"
TOKYO, STATS = "https://www.metro.tokyo.lg.jp/", "https://www.toukei.metro.tokyo.lg.jp/jinkou/"


def read(raw: bytes) -> dict[str, Any]:
    (response,) = parse_dump(raw).to_json()["responses"]
    return response


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def cited(response: dict[str, Any]) -> list[tuple[str, str]]:
    urls = {s["key"]: s["url"] for s in response["sources"]}
    return [(response["text"][c["start"] : c["end"]], urls[c["source_keys"][0]]) for c in response["citations"]]


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_every_recording_is_openrouter_and_each_annotated_page_is_a_source_with_its_text(path: Path):
    response = read(path.read_bytes())
    assert (response["provider"], response["api"], response["status"]) == (
        "openrouter",
        "openrouter.chat_completions",
        "completed",
    )
    assert not {"empty_span", "unused_source", "offset_out_of_range"} & set(codes(response))
    for source in response["sources"]:
        assert source["extra"]["snippet_kind"] == "search_snippet" and source["extra"]["snippet"]
        # Each page is cited where the answer writes its address, or listed as cited without a place.
        placed = any(url == source["url"] for _, url in cited(response))
        assert placed != (source["key"] in response["cited_without_position"])


def test_the_address_the_answer_writes_is_where_its_page_is_cited():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    for name in (
        "pydantic-ai-openrouter-web-plugin-2026-08-13.json",
        "pydantic-ai-openrouter-web-plugin-2026-08-13.sse",
    ):
        response = read((FIXTURES[0].parent / name).read_bytes())
        assert cited(response) == [(GITHUB, GITHUB)]
        assert len(response["cited_without_position"]) == 4 and codes(response) == ["no_positions"]


def test_the_recorders_frame_cut_short_is_said_and_the_rest_is_read():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    raw = (FIXTURES[0].parent / "openrouter-sdk-e2e-web-plugin-spacex-a.chunks.jsonl").read_bytes()
    result = parse_dump(raw).to_json()
    (response,) = result["responses"]
    assert (response["api"], response["status"], result["dump"]["framing"]) == (
        "openrouter.chat_completions",
        "completed",
        "jsonl",
    )
    assert response["text"].startswith("Based on the search results, here's what we know about SpaceX's latest launch:")
    (damaged,) = [d for d in response["diagnostics"] if d["code"] == "damaged_frame"]
    assert damaged["severity"] == "warning" and damaged["details"] == {"count": 1}


def annotation(url: str, title: str, content: str) -> dict[str, Any]:
    return {
        "type": "url_citation",
        "url_citation": {"url": url, "title": title, "content": content, "start_index": 0, "end_index": 0},
    }


ANNOTATIONS = [
    annotation(STATS, "東京都の人口（推計）", "令和6年1月1日現在の東京都の人口は14,086,000人。"),
    annotation(TOKYO, "東京都公式ホームページ", "都政の情報を掲載しています。"),
]
ANSWER = f"東京都の人口は約1,408万人です（[東京都の統計]({STATS})）。詳しくは{STATS}をご覧ください。"


def completion(content: str, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    message = {"role": "assistant", "content": content, "annotations": annotations}
    return {
        "id": "gen-1786680756-Fmq0SbiQ50hlHCCn30d5",
        "provider": "Google",
        "model": "google/gemini-2.5-flash",
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 20, "cost": 0.0001},
    }


def test_a_japanese_answer_cites_each_page_where_it_writes_the_address_linked_or_bare():
    response = read(json.dumps(completion(ANSWER, ANNOTATIONS), ensure_ascii=False).encode())
    assert cited(response) == [(f"[東京都の統計]({STATS})", STATS), (STATS, STATS)]
    assert response["cited_without_position"] == [TOKYO]  # its address is nowhere in the answer
    (note,) = [d for d in response["diagnostics"] if d["code"] == "no_positions"]
    assert note["details"] == {"count": 1}


def test_a_stream_with_the_annotations_in_its_first_delta_reads_the_same():
    first = completion("", ANNOTATIONS)
    first["object"] = "chat.completion.chunk"
    first["choices"] = [{"index": 0, "delta": {"role": "assistant", "content": "", "annotations": ANNOTATIONS}}]
    chunks = [first]
    for piece in (ANSWER[:20], ANSWER[20:]):
        chunk = {**first, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
        chunks.append(chunk)
    chunks.append({**first, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    raw = b": OPENROUTER PROCESSING\n\n" * 3 + sse(*chunks, named=False, done=True)
    response = read(raw)
    assert response["streamed"] and response["text"] == ANSWER
    assert cited(response) == [(f"[東京都の統計]({STATS})", STATS), (STATS, STATS)]


def test_an_answer_of_an_unmarked_gateway_is_openai_compatible():
    value = completion(ANSWER, ANNOTATIONS)
    del value["provider"], value["usage"]["cost"]
    assert read(json.dumps(value, ensure_ascii=False).encode())["api"] == "compatible.chat_completions"


def recorded(*frames: dict[str, Any]) -> bytes:
    return "".join(json.dumps(frame, ensure_ascii=False) + "\n" for frame in frames).encode()


def test_recorded_frames_join_their_text_pieces_and_skip_the_recorders_own():
    chunk = completion(ANSWER, ANNOTATIONS)
    text = json.dumps(chunk, ensure_ascii=False)
    raw = recorded(
        {"comment": ": OPENROUTER PROCESSING\n\n"},
        {"delay_ms": 1},
        {"text": text[:50]},
        {"delay_ms": 0},
        {"text": text[50:]},
        {"text": "[DONE]"},
    )
    response = read(raw)
    assert response["text"] == ANSWER and "damaged_frame" not in codes(response)


def test_a_recorded_frame_that_stops_mid_string_is_counted_and_the_next_is_read():
    whole = completion(ANSWER, ANNOTATIONS)
    cut = json.dumps(whole, ensure_ascii=False)[:80]
    response = read(recorded({"text": cut}, {"delay_ms": 0}, {"json": whole}))
    assert response["text"] == ANSWER
    assert [d["details"] for d in response["diagnostics"] if d["code"] == "damaged_frame"] == [{"count": 1}]


def test_a_recorded_payload_is_read_as_strictly_as_any_json():
    whole = json.dumps(completion("答え", []), ensure_ascii=False)
    doubled = whole.replace('"object"', '"model": "x", "object"', 1)  # a key given twice
    response = read(recorded({"text": doubled}, {"json": completion("答え", [])}))
    assert [d["details"] for d in response["diagnostics"] if d["code"] == "damaged_frame"] == [{"count": 1}]


@pytest.mark.parametrize(
    ("text", "links"),
    [
        (f"見てください {GITHUB}。以上", [(GITHUB, GITHUB)]),
        (
            "[W](https://en.wikipedia.org/wiki/X_(y)) と https://a.example/p?q=1.",
            [
                ("[W](https://en.wikipedia.org/wiki/X_(y))", "https://en.wikipedia.org/wiki/X_(y)"),
                ("https://a.example/p?q=1", "https://a.example/p?q=1"),
            ],
        ),
        ("[x](<https://a.example/b>)", [("[x](<https://a.example/b>)", "https://a.example/b")]),
        ("javascript:alert(1) と ftp://a.example/ はアドレスとして読まない", []),
    ],
)
def test_written_links_finds_markdown_links_and_bare_addresses(text: str, links: list[tuple[str, str]]):
    assert [(text[link.start : link.end], link.url) for link in written_links(text)] == links


def test_unclosed_brackets_before_an_address_leave_it_found():
    text = "[" * 20_000 + "](" * 20_000 + "https://a.example/" + "a" * 20_000
    assert [link.url for link in written_links(text)] == ["https://a.example/" + "a" * 20_000]
