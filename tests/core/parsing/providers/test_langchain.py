"""LangChain AIMessages with v1 standard content blocks: citations whose offsets are whatever the
provider's translator copied (Gemini: UTF-8 bytes of the whole answer; Anthropic: none).

No real recording exists (../shared/docs/provider-formats.md §9B): every dump here is built from
that section and langchain-ai/langchain's ``messages/content.py`` and ``block_translators/
google_genai.py`` / ``anthropic.py``, not recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES

SAMPLE = Path(__file__).resolve().parents[4] / "citeview/dumps/samples/19-langchain-gemini-ja.json"
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ"
FIRST = "東京の桜は3月20日に開花しました🌸。"
SECOND = "見ごろは3月末です。"


def parse_all(obj: Any) -> list[dict[str, Any]]:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj, ensure_ascii=False).encode()
    return parse_dump(raw).to_json()["responses"]


def parse(obj: Any) -> dict[str, Any]:
    (response,) = parse_all(obj)
    return response


def spans(response: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(response["text"][c["start"] : c["end"]], c["source_keys"]) for c in response["citations"]]


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def ai_message(content: Any, **metadata: Any) -> dict[str, Any]:
    """``AIMessage.model_dump()`` with v1 output, as LangChain writes it."""
    return {
        "content": content,
        "additional_kwargs": {},
        "response_metadata": {"finish_reason": "STOP", "model_name": "gemini-2.5-flash", **metadata},
        "type": "ai",
        "name": None,
        "id": "lc_run--5e1d2c3b-4a59-4f6e-8d7c-1b2a3c4d5e6f-0",
        "tool_calls": [],
        "invalid_tool_calls": [],
        "usage_metadata": {"input_tokens": 9, "output_tokens": 30, "total_tokens": 39},
    }


def gemini_citation(text: str, answer: str, chunk: int, *, start: Any = "auto", end: Any = "auto") -> dict[str, Any]:
    """As google_genai.py's translate_grounding_metadata_to_citations writes one: the support's
    UTF-8 byte offsets, copied; a start of 0 omitted, as Gemini omits it."""
    data = answer.encode("utf-8")
    byte_start = data.index(text.encode("utf-8"))
    citation: dict[str, Any] = {
        "type": "citation",
        "id": f"lc_{chunk}",
        "url": f"{REDIRECT}{chunk}",
        "title": f"site{chunk}.jp",
    }
    if start == "auto" and byte_start:
        citation["start_index"] = byte_start
    elif start != "auto":
        citation["start_index"] = start
    citation["end_index"] = byte_start + len(text.encode("utf-8")) if end == "auto" else end
    citation["cited_text"] = text
    citation["extras"] = {
        "google_ai_metadata": {
            "web_search_queries": ["東京 桜 開花"],
            "grounding_chunk_index": chunk,
            "confidence_scores": [],
        }
    }
    return citation


# --- Gemini's translator: UTF-8 bytes of the whole answer, all on the first block -----------------------


def test_gemini_byte_offsets_are_converted_and_may_reach_past_the_first_block():
    answer = FIRST + SECOND
    annotations = [
        gemini_citation(FIRST, answer, 0),
        gemini_citation(SECOND, answer, 1),
        gemini_citation(SECOND, answer, 0),
    ]
    response = parse(
        ai_message([{"type": "text", "text": FIRST, "annotations": annotations}, {"type": "text", "text": SECOND}])
    )
    assert response["api"] == "langchain.messages" and response["status"] == "completed"
    assert response["text"] == answer and response["model"] == "gemini-2.5-flash"
    assert spans(response) == [(FIRST, ["0"]), (SECOND, ["1", "0"])]
    assert all(c["cited_text"] is None for c in response["citations"])  # the answer's words, no quote
    (unit,) = [d for d in response["diagnostics"] if d["code"] == "offset_unit"]
    assert unit["severity"] == "info" and "UTF-8 bytes" in unit["message"]
    assert response["searches"] == [{"queries": ["東京 桜 開花"], "source_keys": ["0", "1"]}]
    assert response["sources"][0]["url"] == f"{REDIRECT}0" and response["sources"][0]["extra"]["redirect"] is True


def test_the_gemini_sample_places_every_citation_on_its_japanese_text():
    response = parse(SAMPLE.read_bytes())
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    cited = {a["cited_text"] for a in sample["content"][1]["annotations"]}
    assert {response["text"][c["start"] : c["end"]] for c in response["citations"]} == cited
    assert response["reasoning"][0]["kind"] == "thinking" and len(response["citations"]) == 4
    assert not [d for d in response["diagnostics"] if d["severity"] != "info"]


def test_a_gemini_offset_that_does_not_hold_its_text_is_reported_not_guessed():
    answer = FIRST + SECOND
    shifted = gemini_citation(FIRST, answer, 0, start=3, end=len(FIRST.encode()) + 3)  # one character on
    cut = {**gemini_citation(SECOND, answer, 1, start=0, end=5), "cited_text": "どこにもない文"}  # mid-character
    past = {**gemini_citation(SECOND, answer, 2, start=9000, end=9010), "cited_text": "どこにもない文"}
    response = parse(ai_message([{"type": "text", "text": answer, "annotations": [shifted, cut, past]}]))
    assert spans(response) == [(FIRST, ["0"])]  # placed where its text stands, near where the bytes point
    assert {"segment_text_mismatch", "offset_inside_character", "offset_out_of_range"} <= set(codes(response))
    assert response["cited_without_position"] == ["1", "2"]


# --- Anthropic's translator: no offsets, the whole block --------------------------------------------------


def test_anthropic_citations_cover_their_text_block_and_keep_the_quote():
    blocks = json.loads((OWN_FIXTURES / "langchain" / "anthropic-translator-built.json").read_text(encoding="utf-8"))
    response = parse(blocks)
    assert response["status"] == "completed" and response["model"] == "claude-sonnet-4-6"
    assert response["text"] == "みどり野市の待機児童は12人に減りました。うち9人が1歳児です。"
    assert spans(response) == [
        ("みどり野市の待機児童は12人に減りました。", ["document-0"]),
        ("うち9人が1歳児です。", ["https://www.city.midorino.lg.jp/kodomo/taiki.html"]),
    ]
    assert [c["cited_text"] for c in response["citations"]] == [
        "待機児童数は前年同期の４７人から１２人に減少し",
        "待機児童12人のうち9人が1歳児です。",
    ]
    document = response["sources"][0]
    assert document["kind"] == "document" and document["title"] == "令和７年度 待機児童の状況"
    assert document["extra"]["start_char_index"] == 41 and "encrypted_index" not in document["extra"]


def test_a_citation_without_text_or_positions_is_cited_without_a_place():
    block = {
        "type": "text",
        "text": "",
        "annotations": [{"type": "citation", "url": "https://example.com/a", "cited_text": "x"}],
    }
    response = parse([block])
    assert response["citations"] == [] and response["cited_without_position"] == ["https://example.com/a"]


# --- Offsets of other translators: characters, checked -----------------------------------------------------


def test_character_offsets_are_placed_and_utf16_ones_found_when_only_they_fit():
    text = f"{FIRST}{SECOND}"
    by_characters = {"type": "citation", "url": "https://a.example", "start_index": len(FIRST), "end_index": len(text)}
    utf16_start = len(FIRST.encode("utf-16-le")) // 2
    by_units = {
        "type": "citation",
        "url": "https://b.example",
        "start_index": utf16_start,
        "end_index": utf16_start + len(SECOND),
        "cited_text": SECOND,
    }
    response = parse(
        ai_message([{"type": "text", "text": text, "annotations": [by_characters, by_units]}], finish_reason="stop")
    )
    assert spans(response) == [(SECOND, ["https://a.example", "https://b.example"])]
    (unit,) = [d for d in response["diagnostics"] if d["code"] == "offset_unit"]
    assert "UTF-16" in unit["message"]


def test_a_cited_text_that_is_not_the_span_is_kept_as_the_sources_quote():
    citation = {"type": "citation", "title": "白書", "start_index": 0, "end_index": 5, "cited_text": "原文の一節"}
    response = parse([{"type": "text", "text": "東京の桜は早い。", "annotations": [citation]}])
    assert spans(response) == [("東京の桜は", ["白書"])] and response["citations"][0]["cited_text"] == "原文の一節"
    (note,) = [d for d in response["diagnostics"] if d["code"] == "segment_text_mismatch"]
    assert note["severity"] == "info"


@pytest.mark.parametrize(
    ("start", "end", "code"),
    [
        (3, 99, "offset_out_of_range"),
        (2, 2, "empty_span"),
        ("0", 4, "offset_out_of_range"),
        (None, 4, "offset_out_of_range"),
    ],
)
def test_offsets_that_do_not_fit_are_listed_not_placed(start: Any, end: Any, code: str):
    citation = {"type": "citation", "url": "https://a.example", "start_index": start, "end_index": end}
    response = parse([{"type": "text", "text": "短い文。", "annotations": [citation]}])
    assert response["citations"] == [] and code in codes(response)
    assert response["cited_without_position"] == ["https://a.example"]


def test_non_standard_annotations_and_blocks_are_noted_and_kept():
    blocks = [
        {
            "type": "text",
            "text": "答え。",
            "annotations": [{"type": "non_standard_annotation", "value": {"type": "file_path"}}],
        },
        {"type": "non_standard", "value": {"type": "executable_code", "executable_code": "print(1)"}},
    ]
    response = parse(blocks)
    assert response["text"] == "答え。"
    assert {"unknown_citation", "non_standard_content"} <= set(codes(response))


# --- The forms a message is saved in ------------------------------------------------------------------------------


def test_the_lc_constructor_form_and_content_blocks_alone_are_read():
    blocks = [{"type": "text", "text": FIRST, "annotations": [gemini_citation(FIRST, FIRST, 0)]}]
    constructor = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "AIMessage"],
        "kwargs": {"content": blocks, "response_metadata": {"finish_reason": "STOP"}, "type": "ai", "id": "run-1"},
    }
    for dump in (constructor, {"content_blocks": blocks}):
        response = parse(dump)
        assert response["api"] == "langchain.messages" and spans(response) == [(FIRST, ["0"])]
    assert parse(constructor)["id"] == "run-1"


def test_in_a_conversation_only_the_ai_messages_are_answers():
    conversation = [
        {"type": "human", "content": "桜は？", "id": "h1"},
        ai_message([{"type": "text", "text": FIRST, "annotations": []}]),
        {"type": "human", "content": "見ごろは？", "id": "h2"},
        {**ai_message(SECOND), "id": "lc_run--2"},
    ]
    assert [r["text"] for r in parse_all(conversation)] == [FIRST, SECOND]
    assert parse([{"type": "human", "content": "桜は？"}])["status"] == "incomplete"


def test_streamed_chunks_merge_by_block_index_and_end_with_the_last_chunk():
    def chunk(blocks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {"type": "AIMessageChunk", "content": blocks, "id": "lc_run--9", "response_metadata": {}, **extra}

    answer = FIRST + SECOND
    chunks = [
        chunk([{"type": "reasoning", "reasoning": "調べる", "index": 0}]),
        chunk([{"type": "text", "text": FIRST, "index": 1}]),
        chunk([{"type": "text", "text": SECOND, "index": 1}]),
        chunk(
            [{"type": "text", "text": "", "index": 1, "annotations": [gemini_citation(SECOND, answer, 0)]}],
            response_metadata={"finish_reason": "STOP", "model_name": "gemini-2.5-flash"},
            chunk_position="last",
        ),
    ]
    response = parse(chunks)
    assert response["streamed"] and response["status"] == "completed" and response["text"] == answer
    assert spans(response) == [(SECOND, ["0"])] and response["reasoning"][0]["text"] == "調べる"
    cut = parse(chunks[:3])
    assert cut["status"] == "incomplete" and "finish_reason" in cut["status_detail"]


def test_a_finish_reason_of_a_cut_answer_is_incomplete():
    assert parse(ai_message("途中", finish_reason="MAX_TOKENS"))["status"] == "incomplete"


def test_claudes_own_citations_are_read_as_langchains_translator_reads_them():
    native = [
        {"type": "thinking", "thinking": "資料を確かめる", "signature": "EqQB"},
        {
            "type": "text",
            "text": "待機児童は12人です。",
            "citations": [
                {
                    "type": "char_location",
                    "cited_text": "待機児童数は１２人",
                    "document_index": 0,
                    "document_title": "報告",
                    "start_char_index": 3,
                    "end_char_index": 12,
                },
                {
                    "type": "web_search_result_location",
                    "cited_text": "12人に減少",
                    "url": "https://a.example/",
                    "title": "市",
                    "encrypted_index": "Ep",
                },
            ],
        },
    ]
    response = parse(ai_message(native, model_provider="anthropic", finish_reason=None, stop_reason="end_turn"))
    assert spans(response) == [
        ("待機児童は12人です。", ["document-0"]),
        ("待機児童は12人です。", ["https://a.example/"]),
    ]
    assert [c["cited_text"] for c in response["citations"]] == ["待機児童数は１２人", "12人に減少"]
    assert response["reasoning"][0]["text"] == "資料を確かめる" and response["status"] == "completed"
    (note,) = [d for d in response["diagnostics"] if d["code"] == "provider_native_content"]
    assert note["details"]["provider"] == "Anthropic"


def test_geminis_own_grounding_metadata_is_read_as_langchains_translator_reads_it():
    answer = FIRST + SECOND
    start = len(FIRST.encode())
    grounding = {
        "web_search_queries": ["東京 桜"],
        "grounding_chunks": [
            {"web": {"uri": f"{REDIRECT}0", "title": "a.jp"}},
            {"web": {"uri": f"{REDIRECT}1", "title": "b.jp"}},
        ],
        "grounding_supports": [
            {"segment": {"end_index": start, "text": FIRST}, "grounding_chunk_indices": [0]},
            {
                "segment": {"start_index": start, "end_index": len(answer.encode()), "text": SECOND},
                "grounding_chunk_indices": [1, 5],
            },
        ],
    }
    response = parse(ai_message(answer, grounding_metadata=grounding))
    assert spans(response) == [(FIRST, ["0"]), (SECOND, ["1"])]
    assert {"provider_native_content", "offset_unit"} <= set(codes(response))


def test_openais_own_url_citations_are_read_as_citations():
    text = "東京の桜は早い。([a.example](https://a.example/))"
    annotation = {
        "type": "url_citation",
        "url": "https://a.example/",
        "title": "A",
        "start_index": 8,
        "end_index": len(text),
    }
    response = parse(ai_message([{"type": "text", "text": text, "annotations": [annotation]}], finish_reason="stop"))
    assert spans(response) == [("([a.example](https://a.example/))", ["https://a.example/"])]


def test_an_ai_message_with_usage_metadata_is_langchains_not_geminis():
    assert parse(ai_message("こんにちは"))["api"] == "langchain.messages"


@pytest.mark.parametrize(
    "mangled",
    [
        {
            "type": "ai",
            "content": [{"type": "text", "text": 5, "annotations": [1, {"type": "citation", "extras": []}]}],
        },
        {"type": "ai", "content": {"text": "a dict"}, "response_metadata": []},
        {"lc": 1, "type": "constructor", "id": "AIMessage", "kwargs": {"content": [None, "文字列"]}},
        [{"type": "text", "text": "x", "annotations": [{"type": "citation", "extras": {"google_ai_metadata": {}}}]}],
        [
            {"type": "AIMessageChunk", "content": [{"type": "text", "index": [], "text": "a"}]},
            {"type": "AIMessageChunk", "content": 3},
        ],
    ],
)
def test_damaged_messages_are_read_or_noted_never_a_crash(mangled: Any):
    for response in parse_all(mangled):
        assert response["provider"] == "langchain"
