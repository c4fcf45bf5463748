"""Documents attached on their own, without the request that sent them: plain text and PDFs, in the
order given, standing for the request's documents 0, 1, … of a Claude or Bedrock Converse answer; and
what an attachment is when it is a request, a document, or neither."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from citeview.core.common.errors import DumpError
from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.parse import parse_dump, read_attachment
from tests.conftest import own_fixture
from tests.documents import POLICY, REPORT_PAGES, char_citation, claude_answer, page_citation, pdf_of


def documents() -> list[AttachedFile]:
    return [AttachedFile("policy.txt", POLICY.encode()), AttachedFile("heat-report.pdf", pdf_of(*REPORT_PAGES))]


def read(raw: bytes, attached: Any) -> dict[str, Any]:
    (response,) = parse_dump(raw, request=attached).to_json()["responses"]
    return response


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


# --- Checking quotes against them -------------------------------------------------------------------


def test_a_text_document_and_a_pdf_are_documents_0_and_1_in_the_order_given():
    raw = claude_answer(
        char_citation("Returns are accepted within thirty days.", POLICY),
        page_citation("The WBGT alert level is 33.", 2, 3),
    )
    response = read(raw, documents())
    assert [c["quote_check"] for c in response["citations"]] == [
        {"result": "match", "unit": "code_points"},
        {"result": "match", "unit": None},
    ]
    assert response["citations"][1]["context"] == {
        "before": "",
        "quote": "The WBGT alert level is 33.",
        "after": "\nIt was reached 12 times.\n",
    }
    sources = {s["key"]: s for s in response["sources"]}
    assert sources["doc:0"]["title"] == "policy.txt" and sources["doc:0"]["extra"]["document_kind"] == "text"
    assert sources["doc:1"]["title"] == "heat-report.pdf" and sources["doc:1"]["extra"]["page_count"] == 2
    assert [d for d in response["diagnostics"] if d["severity"] != "info"] == []


def test_documents_given_in_the_other_order_check_each_quote_against_the_wrong_one():
    raw = claude_answer(char_citation("Returns are accepted within thirty days.", POLICY))
    response = read(raw, list(reversed(documents())))
    assert response["citations"][0]["quote_check"] is None
    (note,) = [d for d in response["diagnostics"] if d["code"] == "location_unverifiable"]
    assert "cannot be checked against doc:0 (heat-report.pdf), a pdf document" in note["message"]
    assert response["sources"][0]["extra"]["file_name"] == "heat-report.pdf"


def test_a_quote_is_compared_with_its_pages_without_spaces_and_line_breaks_and_may_run_onto_the_next_page():
    quote = "Alerts rose in July. The WBGT alert level is 33."
    response = read(claude_answer(page_citation(quote.replace(" ", "  "), 1, 3)), documents())
    assert response["citations"][0]["quote_check"] == {"result": "match", "unit": None}


def test_a_quote_on_another_page_than_it_cites_names_the_page_it_stands_on():
    response = read(claude_answer(page_citation("The WBGT alert level is 33.", 1, 2)), documents())
    assert response["citations"][0]["quote_check"] == {"result": "mismatch", "unit": None}
    (warning,) = [d for d in response["diagnostics"] if d["code"] == "cited_text_mismatch"]
    assert "is not on page(s) 1 but on page 2" in warning["message"]
    assert warning["details"]["pages_holding_quote"] == [2]


def test_a_quote_on_no_page_is_a_mismatch_and_pages_past_the_end_are_said():
    changed = read(claude_answer(page_citation("The WBGT alert level is 31.", 2, 3)), documents())
    assert changed["citations"][0]["quote_check"]["result"] == "mismatch"
    assert "is on none of its pages, though it cites page(s) 2" in changed["diagnostics"][0]["message"]
    past = read(claude_answer(page_citation("The WBGT alert level is 33.", 2, 5)), documents())
    assert past["citations"][0]["quote_check"]["result"] == "mismatch"
    assert any("cites page(s) 2–4, but it has 2 page(s)" in d["message"] for d in past["diagnostics"])


def test_a_page_without_text_is_not_compared_and_says_why():
    scanned = [AttachedFile("a.txt", b"x"), AttachedFile("scan.pdf", pdf_of("", "Some text"))]
    response = read(claude_answer(page_citation("Anything", 1, 2)), scanned)
    assert response["citations"][0]["quote_check"] == {"result": "unchecked", "unit": None}
    assert any("hold no text citeview can read" in d["message"] for d in response["diagnostics"])


def test_a_char_location_cannot_be_checked_against_a_pdf():
    response = read(claude_answer(char_citation("Heat", "Heat report", index=1)), documents())
    assert response["citations"][0]["quote_check"] is None
    assert "location_unverifiable" in codes(response)


def test_a_byte_order_mark_is_no_part_of_a_text_document():
    attached = [AttachedFile("policy.txt", b"\xef\xbb\xbf" + POLICY.encode())]
    response = read(claude_answer(char_citation("Returns are accepted within thirty days.", POLICY)), attached)
    assert response["citations"][0]["quote_check"]["result"] == "match"


def test_a_document_that_is_neither_text_nor_a_pdf_is_an_error_naming_it():
    with pytest.raises(DumpError) as caught:
        parse_dump(claude_answer(), request=[AttachedFile("report.docx", b"PK\x03\x04\xff\xfe")])
    assert caught.value.code == "invalid_request"
    assert "Document 0 (report.docx) is neither UTF-8 text nor a PDF" in caught.value.message


def test_a_pdf_sent_inside_a_claude_request_is_read_by_its_pages():
    encoded = base64.b64encode(pdf_of(*REPORT_PAGES)).decode()
    pdf = {"type": "base64", "media_type": "application/pdf", "data": encoded}
    request = {"messages": [{"role": "user", "content": [{"type": "document", "title": "Heat report", "source": pdf}]}]}
    citation = page_citation("It was reached 12 times.", 2, 3, index=0) | {"document_title": "Heat report"}
    response = read(claude_answer(citation), json.dumps(request).encode())
    assert response["citations"][0]["quote_check"] == {"result": "match", "unit": None}
    assert response["sources"][0]["extra"]["page_count"] == 2


def test_documents_stand_for_a_bedrock_converse_requests_documents():
    quote = "Refunds go to the original card."
    start = POLICY.index(quote)
    citation = {
        "title": "policy",
        "sourceContent": [{"text": quote}],
        "location": {"documentChar": {"documentIndex": 0, "start": start, "end": start + len(quote)}},
    }
    body = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [{"citationsContent": {"content": [{"text": "Refunds."}], "citations": [citation]}}],
            }
        },
        "stopReason": "end_turn",
    }
    response = read(json.dumps(body).encode(), documents())
    assert response["citations"][0]["quote_check"] == {"result": "match", "unit": "code_points"}
    assert response["sources"][0]["extra"]["file_name"] == "policy.txt"


def test_documents_attached_to_an_answer_that_cites_no_documents_are_said_to_be_unused():
    response = read(own_fixture("agent-two-responses.jsonl").split(b"\n")[0], documents())
    (note,) = [d for d in response["diagnostics"] if d["code"] == "request_not_used"]
    assert "Anthropic Messages, Bedrock Converse" in note["message"]


# --- What an attachment is ----------------------------------------------------------------------------


def test_a_json_object_is_the_request_and_stays_its_bytes():
    body = own_fixture("claude-content-blocks-search-results.request.json")
    assert read_attachment([AttachedFile("request.json", body)]) == body
    assert read_attachment([AttachedFile("", b"  " + body)]) == b"  " + body  # a paste


def test_plain_text_and_pdfs_are_documents_in_the_order_given():
    files = documents()
    assert read_attachment(files) == files
    assert read_attachment([AttachedFile("", "本文です。".encode())]) == [AttachedFile("", "本文です。".encode())]
    assert read_attachment([]) is None


def test_a_text_document_may_start_with_a_brace():
    note = AttachedFile("notes.txt", b"{draft} The policy changed in May.")
    assert read_attachment([note]) == [note]


def test_a_request_that_cannot_be_read_says_what_a_request_looks_like():
    with pytest.raises(DumpError) as caught:
        read_attachment([AttachedFile("request.json", b'{"messages": [')])
    message = caught.value.message
    assert caught.value.code == "invalid_request" and message.startswith("The attached request cannot be read:")
    assert '"citations": {"enabled": true}' in message and "as plain text (.txt) or a PDF" in message
    assert "its JSON ends too early (line 1, column 15): it looks cut off." in message and "dump" not in message


def test_a_request_given_with_documents_is_refused():
    files = [AttachedFile("request.json", b'{"messages": []}'), *documents()]
    with pytest.raises(DumpError) as caught:
        read_attachment(files)
    assert "not both: request.json is a request" in caught.value.message


def test_an_empty_file_is_refused_rather_than_counted():
    with pytest.raises(DumpError) as caught:
        read_attachment([AttachedFile("a.txt", b"x"), AttachedFile("empty.txt", b"")])
    assert "Attached file 1 (empty.txt) is empty." in caught.value.message


def test_a_json_array_is_no_request_and_the_error_shows_one():
    with pytest.raises(DumpError) as caught:
        parse_dump(claude_answer(), request=b'[{"messages": []}]')
    assert "must be one JSON object (the request body), such as {" in caught.value.message


def test_a_pdf_the_request_gives_by_url_is_said_once_not_to_be_at_hand():
    pdf = {"type": "url", "url": "https://example.org/report.pdf"}
    request = {"messages": [{"role": "user", "content": [{"type": "document", "source": pdf}]}]}
    citations = [page_citation("The WBGT alert level is 33.", 2, 3, index=0)] * 3
    response = read(claude_answer(*citations), json.dumps(request).encode())
    assert [c["quote_check"] for c in response["citations"]] == [{"result": "unchecked", "unit": None}] * 3
    (note,) = [d for d in response["diagnostics"] if d["code"] == "location_unverifiable"]
    assert "gives by URL or file id, so its pages are not at hand" in note["message"]


def test_a_json_file_is_read_as_a_request_whatever_it_holds():
    with pytest.raises(DumpError) as caught:
        read_attachment([AttachedFile("request.json", b'[{"messages": []}]')])
    assert "must be one JSON object" in caught.value.message
