"""Quotes checked against the documents of the request that produced the answer."""

from __future__ import annotations

import json

import pytest

from citeview.core.common.errors import DumpError
from citeview.core.parsing.parse import parse_dump
from tests.conftest import own_fixture


def exchange() -> dict:
    return parse_dump(own_fixture("claude-ja-documents-exchange.json")).to_json()["responses"][0]


def test_japanese_quotes_after_astral_characters_match_in_code_points():
    response = exchange()
    first, second, _third = response["citations"]
    assert first["quote_check"] == {"result": "match", "unit": "code_points"}
    assert first["context"]["quote"] == first["cited_text"]
    assert first["context"]["before"] == "" and first["context"]["after"].startswith("前年は48%")
    assert second["quote_check"]["result"] == "match"


def test_a_quote_that_differs_from_its_document_says_what_differs():
    response = exchange()
    assert response["citations"][2]["quote_check"] == {"result": "mismatch", "unit": None}
    (warning,) = [d for d in response["diagnostics"] if d["code"] == "cited_text_mismatch"]
    assert warning["severity"] == "warning"
    assert (
        "'520万人" in warning["message"]
        and "'250万人" in warning["message"]
        and "大阪府 観光統計" in warning["message"]
    )


def test_offsets_in_utf16_units_match_and_the_diagnostic_names_the_unit():
    document = "🗾 日本の首都は東京です。人口は約1400万人。"
    quote = "人口は約1400万人。"
    start16 = len(document[: document.index(quote)].encode("utf-16-le")) // 2
    request = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {"type": "text", "media_type": "text/plain", "data": document},
                        "title": "T",
                    }
                ],
            }
        ]
    }
    response = {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "stop_reason": "end_turn",
        "content": [
            {
                "type": "text",
                "text": "約1400万人です。",
                "citations": [
                    {
                        "type": "char_location",
                        "cited_text": quote,
                        "document_index": 0,
                        "document_title": "T",
                        "start_char_index": start16,
                        "end_char_index": start16 + len(quote),
                    }
                ],
            }
        ],
    }
    parsed = parse_dump(json.dumps({"request": request, "response": response}).encode()).to_json()["responses"][0]
    assert parsed["citations"][0]["quote_check"] == {"result": "match", "unit": "utf16"}
    note = next(d for d in parsed["diagnostics"] if d["code"] == "cited_text_mismatch")
    assert note["severity"] == "info" and "UTF-16 code units" in note["message"]


def test_content_blocks_and_search_results_are_checked_by_their_blocks():
    raw = own_fixture("claude-content-blocks-search-results.json")
    request = own_fixture("claude-content-blocks-search-results.request.json")
    response = parse_dump(raw, request=request).to_json()["responses"][0]
    assert [c["quote_check"]["result"] for c in response["citations"]] == ["match", "match", "match"]
    assert response["citations"][0]["context"] == {
        "blocks": ["バックアップは毎日3時に取得する。", "保存期間は30日間とする。"]
    }
    assert not any(d["code"] in ("cited_text_mismatch", "source_conflict") for d in response["diagnostics"])
    assert [s["key"] for s in response["sources"]] == ["doc:0", "search_result:0", "search_result:1"]


def test_a_changed_block_quote_is_a_mismatch():
    request = json.loads(own_fixture("claude-content-blocks-search-results.request.json"))
    request["messages"][0]["content"][0]["source"]["content"][1]["text"] = "保存期間は90日間とする。"
    response = parse_dump(
        own_fixture("claude-content-blocks-search-results.json"), request=json.dumps(request).encode()
    ).to_json()["responses"][0]
    assert response["citations"][0]["quote_check"]["result"] == "mismatch"


def test_request_documents_never_cited_are_listed_as_sources():
    request = json.loads(own_fixture("claude-content-blocks-search-results.request.json"))
    request["messages"].append(
        {
            "role": "user",
            "content": [
                {
                    "type": "document",
                    "title": "Unused",
                    "source": {"type": "text", "media_type": "text/plain", "data": "x"},
                }
            ],
        }
    )
    response = parse_dump(
        own_fixture("claude-content-blocks-search-results.json"), request=json.dumps(request).encode()
    ).to_json()["responses"][0]
    unused = next(s for s in response["sources"] if s["title"] == "Unused")
    assert unused["key"] == "doc:1" and unused["kind"] == "document"
    assert any(d["code"] == "unused_source" and d["details"]["key"] == "doc:1" for d in response["diagnostics"])


def test_an_unreadable_request_is_an_error_about_the_request():
    with pytest.raises(DumpError) as caught:
        parse_dump(own_fixture("claude-content-blocks-search-results.json"), request=b"[1, 2]")
    assert caught.value.code == "invalid_request" and "request" in caught.value.message


def test_a_request_for_a_provider_without_quote_checks_is_noted():
    raw = own_fixture("agent-two-responses.jsonl")
    response = parse_dump(raw, request=b'{"messages": []}').to_json()["responses"][0]
    assert any(d["code"] == "request_not_used" for d in response["diagnostics"])


def test_a_citation_of_a_document_the_request_does_not_have_is_reported():
    request = json.loads(own_fixture("claude-content-blocks-search-results.request.json"))
    request["messages"][0]["content"] = [b for b in request["messages"][0]["content"] if b["type"] != "document"]
    response = parse_dump(
        own_fixture("claude-content-blocks-search-results.json"), request=json.dumps(request).encode()
    ).to_json()["responses"][0]
    (note,) = [d for d in response["diagnostics"] if d["code"] == "unknown_document"]
    assert note["details"]["key"] == "doc:0" and "0 such item" in note["message"]


def test_a_title_that_differs_from_the_requests_document_warns_of_miscounting():
    request = json.loads(own_fixture("claude-content-blocks-search-results.request.json"))
    request["messages"][0]["content"][0]["title"] = "別の資料"
    response = parse_dump(
        own_fixture("claude-content-blocks-search-results.json"), request=json.dumps(request).encode()
    ).to_json()["responses"][0]
    assert any(d["code"] == "document_title_mismatch" for d in response["diagnostics"])


def test_an_image_block_counts_in_the_indices_and_makes_its_quote_uncheckable():
    request = json.loads(own_fixture("claude-content-blocks-search-results.request.json"))
    blocks = request["messages"][0]["content"][0]["source"]["content"]
    blocks.insert(1, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}})
    response = parse_dump(
        own_fixture("claude-content-blocks-search-results.json"), request=json.dumps(request).encode()
    ).to_json()["responses"][0]
    assert response["citations"][0]["quote_check"] == {"result": "unchecked", "unit": None}
    assert any(d["code"] == "location_unverifiable" for d in response["diagnostics"])


def test_a_second_file_named_at_one_index_is_still_checked_against_the_requests_document():
    # Built from provider-formats.md §2, not recorded: two Files API ids under document_index 0.
    document = "就業規則2026。第5条 賞与は年2回支給する。"
    quote = "第5条 賞与は年2回支給する。"
    start = document.index(quote)

    def cited(file_id: str) -> dict:
        return {
            "type": "char_location",
            "cited_text": quote,
            "document_index": 0,
            "document_title": "就業規則2026",
            "start_char_index": start,
            "end_char_index": start + len(quote),
            "file_id": file_id,
        }

    message = {
        "type": "message",
        "role": "assistant",
        "stop_reason": "end_turn",
        "content": [
            {"type": "text", "text": "賞与は年2回です。", "citations": [cited("file_A")]},
            {"type": "text", "text": "賞与は年2回です。", "citations": [cited("file_B")]},
        ],
    }
    request = {
        "messages": [{"role": "user", "content": [{"type": "document", "source": {"type": "text", "data": document}}]}]
    }
    (response,) = parse_dump(json.dumps({"request": request, "response": message}).encode()).to_json()["responses"]
    assert [c["source_keys"] for c in response["citations"]] == [["doc:0"], ["doc:0#2"]]
    assert [c["quote_check"]["result"] for c in response["citations"]] == ["match", "match"]
    assert "unknown_document" not in [d["code"] for d in response["diagnostics"]]
