"""Quotes of a Bedrock Converse answer checked against the documents of its request, exactly as a
Claude answer's are: the real recordings with the request built around the real request document
(``.source-document.txt``), and requests built from provider-formats.md §6A (not recorded)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES, PROJECT_DIR, SHARED_FIXTURES
from tests.documents import pdf_of

FOLDER = SHARED_FIXTURES / "bedrock"
needs_recordings = pytest.mark.skipif(not FOLDER.is_dir(), reason="../shared/fixtures is not beside the project")
SAMPLE = PROJECT_DIR / "citeview" / "dumps" / "samples" / "12-bedrock-ja-documents-exchange.json"


def source_document() -> str:
    return (FOLDER / "bedrock-converse-document-char-sonnet45.source-document.txt").read_text(encoding="utf-8")


def request_with(*documents: dict[str, Any]) -> dict[str, Any]:
    """A Converse request whose user turn sends ``documents`` (as the recordings' request did: the
    question, then 'Document 1' with citations enabled)."""
    question = {
        "text": "According to the document, what is the return window? Answer in one sentence and cite the document."
    }
    return {"messages": [{"role": "user", "content": [question, *({"document": d} for d in documents)]}]}


def text_document(text: str, name: str = "Document 1") -> dict[str, Any]:
    return {"format": "txt", "name": name, "source": {"text": text}, "citations": {"enabled": True}}


def parsed(raw: bytes, request: dict[str, Any] | None = None) -> dict[str, Any]:
    attached = json.dumps(request, ensure_ascii=False).encode() if request is not None else None
    (response,) = parse_dump(raw, request=attached).to_json()["responses"]
    return response


def exchange(request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    raw = json.dumps({"request": request, "response": response}, ensure_ascii=False).encode()
    (parsed_response,) = parse_dump(raw).to_json()["responses"]
    return parsed_response


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


# --- The recordings, with the recorded request document -------------------------------------------------


@needs_recordings
@pytest.mark.parametrize(
    "name",
    [
        "bedrock-converse-document-char-sonnet45.json",
        "bedrock-converse-document-char-sonnet45-stream.chunks.json",
        "bedrock-converse-document-char-sonnet45-stream.eventstream",
    ],
)
def test_the_recorded_quote_matches_the_recorded_request_document_in_code_points(name: str):
    response = parsed((FOLDER / name).read_bytes(), request_with(text_document(source_document())))
    (citation,) = response["citations"]
    assert citation["quote_check"] == {"result": "match", "unit": "code_points"}
    assert citation["context"] == {"before": "", "quote": source_document(), "after": ""}
    assert response["sources"][0]["extra"]["document_kind"] == "text"
    assert [d for d in response["diagnostics"] if d["severity"] != "info"] == []


@needs_recordings
def test_a_document_sent_as_base64_bytes_of_text_is_checked_as_text():
    encoded = base64.b64encode(source_document().encode()).decode()
    document = {"format": "txt", "name": "Document 1", "source": {"bytes": encoded}, "citations": {"enabled": True}}
    response = parsed((FOLDER / "bedrock-converse-document-char-sonnet45.json").read_bytes(), request_with(document))
    assert response["citations"][0]["quote_check"] == {"result": "match", "unit": "code_points"}


@needs_recordings
def test_a_quote_that_is_not_in_the_recorded_document_is_a_mismatch():
    response = parsed(
        (FOLDER / "bedrock-converse-document-char-sonnet45.json").read_bytes(),
        request_with(text_document(source_document().replace("thirty", "ninety"))),
    )
    assert response["citations"][0]["quote_check"] == {"result": "mismatch", "unit": None}
    (warning,) = [d for d in response["diagnostics"] if d["code"] == "cited_text_mismatch"]
    assert "'thirty" in warning["message"] and "'ninety" in warning["message"]


def pdf_document(data: bytes) -> dict[str, Any]:
    encoded = base64.b64encode(data).decode()
    return {"format": "pdf", "name": "Document 1", "source": {"bytes": encoded}, "citations": {"enabled": True}}


@needs_recordings
def test_the_recorded_page_citation_matches_a_pdf_of_that_text_so_pages_count_from_1_with_the_end_exclusive():
    # The recording cites {"start": 1, "end": 2} of a one-page PDF that says "Dummy PDF file".
    response = parsed(
        (FOLDER / "bedrock-converse-pdf-page-sonnet45.json").read_bytes(),
        request_with(pdf_document(pdf_of("Dummy PDF file"))),
    )
    assert response["citations"][0]["quote_check"] == {"result": "match", "unit": None}
    assert response["citations"][0]["context"]["quote"] == "Dummy PDF file"
    assert "location_unverifiable" not in codes(response)
    assert response["sources"][0]["extra"]["document_kind"] == "pdf"
    assert response["sources"][0]["extra"]["page_count"] == 1


@needs_recordings
def test_the_recorded_page_citation_of_another_pdf_is_a_mismatch():
    response = parsed(
        (FOLDER / "bedrock-converse-pdf-page-sonnet45.json").read_bytes(),
        request_with(pdf_document(pdf_of("An entirely different text"))),
    )
    assert response["citations"][0]["quote_check"] == {"result": "mismatch", "unit": None}
    (warning,) = [d for d in response["diagnostics"] if d["code"] == "cited_text_mismatch"]
    assert "is on none of its pages, though it cites page(s) 1" in warning["message"]


@needs_recordings
def test_a_pdf_that_cannot_be_read_says_so_and_its_quote_is_not_compared():
    broken = pdf_document(b"%PDF-1.4\n")
    response = parsed((FOLDER / "bedrock-converse-pdf-page-sonnet45.json").read_bytes(), request_with(broken))
    assert response["citations"][0]["quote_check"] == {"result": "unchecked", "unit": None}
    (warning,) = [d for d in response["diagnostics"] if d["code"] == "location_unverifiable"]
    assert warning["severity"] == "warning" and "is a PDF that citeview cannot read" in warning["message"]


@needs_recordings
def test_a_document_index_past_the_request_documents_is_said():
    response = parsed((FOLDER / "bedrock-converse-document-char-sonnet45.json").read_bytes(), request_with())
    assert "unknown_document" in codes(response)


@needs_recordings
def test_a_cited_title_that_is_not_the_request_documents_name_is_said():
    response = parsed(
        (FOLDER / "bedrock-converse-document-char-sonnet45.json").read_bytes(),
        request_with(text_document(source_document(), name="Returns policy")),
    )
    assert "document_title_mismatch" in codes(response)


# --- Built requests -------------------------------------------------------------------------------------


def test_the_japanese_sample_checks_each_quote_and_finds_the_changed_month():
    (response,) = parse_dump(SAMPLE.read_bytes()).to_json()["responses"]
    assert [c["quote_check"] for c in response["citations"]] == [
        {"result": "match", "unit": "code_points"},  # after an emoji and an astral kanji: code points, not UTF-16
        {"result": "match", "unit": "code_points"},
        {"result": "mismatch", "unit": None},
    ]
    (warning,) = [d for d in response["diagnostics"] if d["severity"] != "info"]
    assert warning["code"] == "cited_text_mismatch" and "'4月" in warning["message"] and "'7月" in warning["message"]
    assert response["sources"][1]["extra"]["document_kind"] == "text"  # sent as base64 bytes


def test_search_results_inside_a_tool_result_are_counted_apart_and_checked_by_block():
    response = parse_dump((OWN_FIXTURES / "bedrock" / "converse-search-result-built.json").read_bytes()).to_json()
    (response,) = response["responses"]
    assert [c["quote_check"]["result"] for c in response["citations"]] == ["match", "mismatch"]
    assert "'60 days" in next(d["message"] for d in response["diagnostics"] if d["code"] == "cited_text_mismatch")


def test_document_chunks_are_checked_against_the_content_blocks_sent():
    (response,) = parse_dump((OWN_FIXTURES / "bedrock" / "converse-document-chunk-built.json").read_bytes()).to_json()[
        "responses"
    ]
    assert [c["quote_check"] for c in response["citations"]] == [{"result": "match", "unit": None}] * 2
    assert response["citations"][1]["context"]["blocks"][1] == "第3条 機密書類は持ち出さない。"


def test_offsets_in_utf16_units_match_and_the_diagnostic_names_the_unit():
    document = "🗾 日本の首都は東京です。人口は約1400万人。"
    quote = "人口は約1400万人。"
    start = len(document[: document.index(quote)].encode("utf-16-le")) // 2
    citation = {
        "title": "T",
        "sourceContent": [{"text": quote}],
        "location": {"documentChar": {"documentIndex": 0, "start": start, "end": start + len(quote)}},
    }
    response = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [{"citationsContent": {"content": [{"text": "約1400万人です。"}], "citations": [citation]}}],
            }
        },
        "stopReason": "end_turn",
    }
    parsed_response = exchange(
        {"messages": [{"role": "user", "content": [{"document": text_document(document, "T")}]}]}, response
    )
    assert parsed_response["citations"][0]["quote_check"] == {"result": "match", "unit": "utf16"}
    assert any(d["code"] == "cited_text_mismatch" and d["severity"] == "info" for d in parsed_response["diagnostics"])


def test_a_document_in_s3_cannot_be_checked_and_says_so():
    s3 = {"format": "txt", "name": "Document 1", "source": {"s3Location": {"uri": "s3://bucket/returns.txt"}}}
    citation = {
        "title": "Document 1",
        "sourceContent": [{"text": "Thirty days."}],
        "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 12}},
    }
    body = {
        "output": {
            "message": {"content": [{"citationsContent": {"content": [{"text": "x"}], "citations": [citation]}}]}
        },
        "stopReason": "end_turn",
    }
    response = exchange({"messages": [{"role": "user", "content": [{"document": s3}]}]}, body)
    assert "location_unverifiable" in codes(response) and response["citations"][0]["quote_check"] is None


def test_an_attached_request_is_not_claimed_to_be_checked_for_knowledge_bases():
    body = {"sessionId": "s", "output": {"text": "Thirty days."}, "citations": []}
    response = exchange({"input": {"text": "What is the return window?"}}, body)
    assert "request_not_used" in codes(response)
