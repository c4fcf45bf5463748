"""AWS Bedrock: Converse and ConverseStream (citationsContent blocks as spans, document, search-result
and web locations, reasoning apart, stop reasons and exceptions) and Knowledge Bases
RetrieveAndGenerate (spans checked in every reading, passages as evidence).

The real recordings are read in place from ../shared/fixtures/bedrock; every shape without one is a
dump built from provider-formats.md §6 (tests/fixtures/bedrock/*-built.*, or built here), not recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.checking.side_by_side import evidence_rows
from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import source_labels
from tests.conftest import OWN_FIXTURES, SHARED_FIXTURES, fixture_ids, real_fixtures

FIXTURES = real_fixtures("bedrock")
BUILT = sorted((OWN_FIXTURES / "bedrock").glob("*-built.*"))


def parse(value: Any, **options: Any) -> dict[str, Any]:
    raw = value if isinstance(value, bytes) else json.dumps(value, ensure_ascii=False).encode()
    (response,) = parse_dump(raw, **options).to_json()["responses"]
    return response


def built(name: str) -> dict[str, Any]:
    return parse((OWN_FIXTURES / "bedrock" / name).read_bytes())


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def cited(response: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Which text each citation covers, and its sources."""
    return [(response["text"][c["start"] : c["end"]], c["source_keys"]) for c in response["citations"]]


def converse(*blocks: dict[str, Any], stop_reason: str | None = "end_turn", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"output": {"message": {"role": "assistant", "content": list(blocks)}}, **extra}
    if stop_reason is not None:
        body["stopReason"] = stop_reason
    body.setdefault("usage", {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15})
    return body


def cited_block(text: str | None, *citations: dict[str, Any]) -> dict[str, Any]:
    content = {"citations": list(citations)}
    if text is not None:
        content["content"] = [{"text": text}]
    return {"citationsContent": content}


def document_char(index: int, start: int, end: int, quote: str, title: str = "Document 1") -> dict[str, Any]:
    return {
        "title": title,
        "sourceContent": [{"text": quote}],
        "location": {"documentChar": {"documentIndex": index, "start": start, "end": end}},
    }


# --- The recordings --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_every_recording_is_detected_and_every_citation_covers_its_block_with_its_quote(path: Path):
    events = json.loads(path.read_text(encoding="utf-8"))
    response = parse(path.read_bytes())
    assert response["api"] == "bedrock.converse" and response["status"] == "completed"
    assert response["streamed"] == isinstance(events, list)
    assert response["citations"] and all(c["cited_text"] for c in response["citations"])
    assert all(c["location"]["type"] in ("char", "page") for c in response["citations"])
    assert [d for d in response["diagnostics"] if d["severity"] != "info"] == []


def test_the_recorded_pdf_answer_is_its_cited_block_and_the_plain_block_after_it():
    response = parse((SHARED_FIXTURES / "bedrock" / "bedrock-converse-pdf-page-sonnet45.json").read_bytes())
    assert response["text"] == 'The PDF contains the text "Dummy PDF file".'
    (citation,) = response["citations"]
    assert response["text"][citation["start"] : citation["end"]] == 'The PDF contains the text "Dummy PDF file"'
    assert citation["cited_text"] == "Dummy PDF file"
    assert citation["location"] == {"type": "page", "start": 1, "end": 2, "provider_type": "documentPage"}
    assert response["sources"][0]["title"] == "Document 1"


def test_the_recorded_pdf_stream_places_six_page_citations_on_their_blocks_only():
    path = SHARED_FIXTURES / "bedrock" / "bedrock-converse-pdf-page-sonnet4-vercel-stream.chunks.json"
    response = parse(path.read_bytes())
    assert len(response["text"]) == 922 and response["text"].startswith("Based on the supplied document, ")
    assert len(response["citations"]) == 6 and {c["source_keys"][0] for c in response["citations"]} == {"doc:0"}
    first = response["citations"][0]
    assert response["text"][first["start"] : first["end"]].startswith("generative artificial intelligence refers")
    assert first["cited_text"].startswith(
        "AI 1\r\nAI\r\nGenerative artificial intelligence"
    )  # as PDF extraction gave it
    assert "citation" not in response["text"] and "abcdefgh" not in response["text"]  # the `p` padding is no text


# --- Converse, built -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", BUILT, ids=fixture_ids(BUILT))
def test_every_built_dump_is_detected_without_being_told_the_provider(path: Path):
    (response,) = parse_dump(path.read_bytes()).to_json()["responses"]
    assert response["provider"] == "bedrock"
    assert response["api"] == ("bedrock.retrieve_and_generate" if path.name.startswith("kb-") else "bedrock.converse")


def test_nova_web_citations_are_web_sources_and_a_block_without_content_cites_the_text_before_it():
    response = built("converse-nova-web-built.json")
    louvre, wikipedia = "https://www.louvre.fr/en/visit/hours-admission", "https://en.wikipedia.org/wiki/Louvre"
    assert response["id"] == "5f0c6b7e-2f3a-4d1b-9c8e-0a1b2c3d4e5f"  # boto3's RequestId
    assert cited(response) == [
        ("from 9 am to 6 pm every day except Tuesday", [louvre]),
        (", with late opening until 9:45 pm on Fridays", [louvre]),
        (", with late opening until 9:45 pm on Fridays", [wikipedia]),
    ]
    assert [(s["kind"], s["url"], s["title"]) for s in response["sources"]] == [
        ("web", louvre, "louvre.fr"),
        ("web", wikipedia, "en.wikipedia.org"),
    ]
    assert "citation_without_content" in codes(response)
    # Reasoning is not the answer.
    assert response["reasoning"][0]["kind"] == "thinking" and "official site" in response["reasoning"][0]["text"]
    assert "official site" not in response["text"]


def test_a_block_without_content_and_no_text_before_it_is_cited_without_a_place():
    web = {"location": {"web": {"url": "https://example.com/a", "domain": "example.com"}}}
    response = parse(converse(cited_block(None, web), {"text": "Answer."}))
    assert response["citations"] == [] and response["cited_without_position"] == ["https://example.com/a"]
    assert "citation_without_content" in codes(response) and "unused_source" not in codes(response)


def test_search_result_citations_cite_their_result_with_its_source_as_link_only_when_it_is_one():
    response = built("converse-search-result-built.json")
    assert cited(response) == [
        ("flights under six hours are booked in economy", ["search_result:0"]),
        ("receipts are due within 30 days", ["search_result:1"]),
    ]
    first, second = response["sources"]
    assert first["url"] == "https://intranet.example.com/policies/travel"
    assert second["url"] is None and second["extra"]["source"] == "kb://handbook/expenses"
    assert response["citations"][0]["location"]["type"] == "block"


def test_document_chunks_are_block_locations_that_keep_their_bedrock_name():
    response = built("converse-document-chunk-built.json")
    assert [c["location"] for c in response["citations"]] == [
        {"type": "block", "start": 0, "end": 1, "provider_type": "documentChunk"},
        {"type": "block", "start": 1, "end": 3, "provider_type": "documentChunk"},
    ]
    assert response["sources"][0]["extra"]["location_kind"] == "documentChunk"


def test_an_empty_web_location_on_a_document_citation_keeps_the_quote_and_says_where_is_unknown():
    response = built("converse-stream-empty-web-location-built.json")
    (citation,) = response["citations"]
    assert response["text"][citation["start"] : citation["end"]] == 'The PDF says "Dummy PDF file"'
    assert citation["cited_text"] == "Dummy PDF file" and citation["location"] is None
    (source,) = response["sources"]
    assert source["kind"] == "document" and source["url"] is None and source["title"] == "document"
    (note,) = [d for d in response["diagnostics"] if d["code"] == "location_unverifiable"]
    assert note["severity"] == "warning" and "empty web location" in note["message"]


def test_a_location_of_an_unknown_kind_keeps_the_citation_without_it():
    citation = {"title": "Doc", "sourceContent": [{"text": "q"}], "location": {"documentRegion": {"documentIndex": 0}}}
    response = parse(converse(cited_block("claim", citation)))
    assert cited(response) == [("claim", ["unlocated:Doc"])] and response["citations"][0]["cited_text"] == "q"
    assert "unknown_citation" in codes(response)


def test_japanese_document_citations_span_their_blocks_in_code_points():
    quote = "東京都の人口は約1400万人です。"
    response = parse(
        converse(
            {"text": "🗾 資料によると、"},
            cited_block("人口は約1400万人", document_char(0, 0, len(quote), quote, "東京都 統計")),
            {"text": "です。"},
        )
    )
    assert response["text"] == "🗾 資料によると、人口は約1400万人です。"
    assert cited(response) == [("人口は約1400万人", ["doc:0"])]
    assert response["sources"][0]["title"] == "東京都 統計"


@pytest.mark.parametrize(
    ("stop_reason", "status", "words"),
    [
        ("end_turn", "completed", None),
        ("tool_use", "completed", None),
        ("max_tokens", "incomplete", "token limit"),
        ("guardrail_intervened", "incomplete", "guardrail"),
        ("content_filtered", "incomplete", "filtered"),
        ("malformed_model_output", "incomplete", "malformed"),
        ("model_context_window_exceeded", "incomplete", "context window"),
        ("something_new", "incomplete", "something_new"),
        (None, "incomplete", "no stopReason"),
    ],
)
def test_the_stop_reason_gives_the_status(stop_reason: str | None, status: str, words: str | None):
    response = parse(converse({"text": "x"}, stop_reason=stop_reason))
    assert response["status"] == status
    if words:
        assert words in response["status_detail"]


# --- ConverseStream, built -------------------------------------------------------------------------------


def test_a_stream_of_nova_web_citations_places_each_on_its_block():
    response = built("converse-stream-nova-web-built.jsonl")
    assert response["streamed"] and response["status"] == "completed"
    assert response["text"] == "The Louvre is open from 9 am to 6 pm, closed on Tuesdays."
    assert cited(response) == [
        ("The Louvre is open from 9 am to 6 pm", ["https://www.louvre.fr/en/visit/hours-admission"]),
        (", closed on Tuesdays", ["https://en.wikipedia.org/wiki/Louvre"]),
    ]
    assert response["reasoning"][0]["text"] == "Search for the hours."


def test_a_citation_after_its_text_in_the_stream_still_covers_the_block():
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Thirty days."}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"citation": document_char(0, 0, 5, "Thirty")}}},
        {"messageStop": {"stopReason": "end_turn"}},
    ]
    response = parse(events)
    assert cited(response) == [("Thirty days.", ["doc:0"])] and response["citations"][0]["cited_text"] == "Thirty"


def test_a_stream_without_message_stop_is_incomplete():
    events = [{"messageStart": {"role": "assistant"}}, {"contentBlockDelta": {"delta": {"text": "Half"}}}]
    response = parse(events)
    assert response["text"] == "Half" and response["status"] == "incomplete"
    assert "messageStop" in response["status_detail"]


def test_an_exception_member_fails_the_stream_with_its_message():
    response = built("converse-stream-exception-built.jsonl")
    assert response["status"] == "failed" and response["text"] == "The return window"
    assert response["status_detail"] == "throttlingException: Too many tokens, please wait before trying again."


def test_unknown_stream_events_are_named_not_read():
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "ok"}}},
        {"messageStop": {"stopReason": "end_turn"}, "extra": 1},
        {"messageStop": {"stopReason": "end_turn"}},
    ]
    response = parse(events)
    assert response["status"] == "completed" and "unknown_event" in codes(response)


def test_two_streams_in_one_dump_are_two_responses():
    one = [{"messageStart": {"role": "assistant"}}, {"contentBlockDelta": {"delta": {"text": "A"}}}]
    one.append({"messageStop": {"stopReason": "end_turn"}})
    two = [{"messageStart": {"role": "assistant"}}, {"contentBlockDelta": {"delta": {"text": "B"}}}]
    responses = parse_dump(json.dumps(one + two).encode()).to_json()["responses"]
    assert [(r["text"], r["status"]) for r in responses] == [("A", "completed"), ("B", "incomplete")]


# --- Knowledge Bases --------------------------------------------------------------------------------------


def test_a_knowledge_base_answer_places_each_passage_on_its_span_as_evidence():
    response = built("kb-retrieve-and-generate-built.json")
    assert response["api"] == "bedrock.retrieve_and_generate" and response["status"] == "completed"
    assert response["id"] == "c3b1e0a2-6f4d-4e8a-9b7c-1d2e3f4a5b6c"
    assert cited(response) == [
        ("在宅勤務は週3日まで認められています。", ["kb:1"]),
        ("在宅勤務は週3日まで認められています。", ["kb:2"]),
        ("申請は前日までに上長へ提出します。", ["kb:3"]),
        ("申請は前日までに上長へ提出します。", ["kb:4"]),
    ]
    s3, web, s3_page3, confluence = response["sources"]
    assert s3["url"] is None and s3["extra"]["uri"] == "s3://example-hr-docs/policies/remote-work.pdf"
    assert s3["title"] == "remote-work.pdf" and s3["extra"]["snippet_kind"] == "retrieved_passage"
    assert s3["extra"]["metadata:x-amz-bedrock-kb-document-page-number"] == 2.0
    assert s3_page3["key"] != s3["key"]  # another passage of the same file is another piece of evidence
    assert web["kind"] == "web" and web["url"] == "https://intranet.example.com/hr/remote-work"
    assert confluence["url"] == "https://example.atlassian.net/wiki/spaces/HR/pages/42"
    (unit,) = [d for d in response["diagnostics"] if d["code"] == "offset_unit"]
    assert unit["details"]["unit"] == "code_points" and unit["details"]["end"] == "exclusive"
    evidence = evidence_rows(response, source_labels(response))
    assert evidence and "従業員は" in json.dumps(evidence, ensure_ascii=False)


ANSWER = "規程では🗾在宅勤務は週3日まで。📅申請は前日まで。"


def kb_body(*parts: tuple[str, int, int]) -> dict[str, Any]:
    reference = {"content": {"text": "passage"}, "location": {"type": "S3", "s3Location": {"uri": "s3://b/k.txt"}}}
    return {
        "sessionId": "session-1",
        "output": {"text": ANSWER},
        "citations": [
            {
                "generatedResponsePart": {"textResponsePart": {"text": t, "span": {"start": s, "end": e}}},
                "retrievedReferences": [reference],
            }
            for t, s, e in parts
        ],
    }


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize(
    ("reading", "span_of"),
    [
        (("code_points", "exclusive"), lambda before, text: (len(before), len(before) + len(text))),
        (("code_points", "inclusive"), lambda before, text: (len(before), len(before) + len(text) - 1)),
        (("utf16", "exclusive"), lambda before, text: (utf16(before), utf16(before) + utf16(text))),
        (("utf16", "inclusive"), lambda before, text: (utf16(before), utf16(before) + utf16(text) - 1)),
    ],
)
def test_a_knowledge_base_span_is_read_in_the_unit_and_end_that_hold_its_text(reading, span_of):
    text = "申請は前日まで。"
    before = ANSWER[: ANSWER.index(text)]
    response = parse(kb_body((text, *span_of(before, text))))
    assert cited(response) == [(text, ["kb:1"])]
    (unit,) = [d for d in response["diagnostics"] if d["code"] == "offset_unit"]
    assert (unit["details"]["unit"], unit["details"]["end"]) == reading


def test_a_knowledge_base_span_that_holds_its_text_in_no_reading_is_placed_where_the_text_stands_and_said():
    text = "申請は前日まで。"
    response = parse(kb_body((text, 0, 5)))
    assert cited(response) == [(text, ["kb:1"])]
    (note,) = [d for d in response["diagnostics"] if d["code"] == "segment_text_mismatch"]
    assert note["severity"] == "warning" and "placed where its text stands" in note["message"]


def test_a_knowledge_base_citation_whose_text_is_nowhere_is_listed_not_placed():
    response = parse(kb_body(("この文はありません。", 0, 5)))
    assert response["citations"] == [] and response["cited_without_position"] == ["kb:1"]
    assert "not placed" in next(d["message"] for d in response["diagnostics"] if d["code"] == "segment_text_mismatch")


def test_a_knowledge_base_span_past_the_answer_without_text_is_not_placed():
    body = kb_body(("x", 0, 1))
    del body["citations"][0]["generatedResponsePart"]["textResponsePart"]["text"]
    body["citations"][0]["generatedResponsePart"]["textResponsePart"]["span"] = {"start": 5, "end": 900}
    response = parse(body)
    assert response["citations"] == [] and "offset_out_of_range" in codes(response)


def test_a_knowledge_base_guardrail_intervention_is_incomplete():
    body = kb_body()
    body["guardrailAction"] = "INTERVENED"
    response = parse(body)
    assert response["status"] == "incomplete" and "guardrail" in response["status_detail"]


def test_a_knowledge_base_stream_joins_its_output_and_places_its_citations():
    response = built("kb-retrieve-and-generate-stream-built.jsonl")
    assert response["streamed"] and response["status"] == "completed"
    assert cited(response) == [
        ("Employees may work remotely up to three days a week.", ["kb:1"]),
        ("Requests go to the manager a day ahead.", ["kb:2"]),
    ]
    assert "stream_end_unmarked" in codes(response)


def test_a_knowledge_base_stream_exception_fails_it():
    events = [
        {"output": {"text": "Employees may"}},
        {"throttlingException": {"message": "Rate exceeded"}},
    ]
    response = parse(events)
    assert response["api"] == "bedrock.retrieve_and_generate"
    assert response["status"] == "failed" and response["status_detail"] == "throttlingException: Rate exceeded"


def test_the_deprecated_nested_citation_of_a_stream_event_is_read():
    events = [
        {"output": {"text": "Thirty days."}},
        {
            "citation": {
                "citation": {
                    "generatedResponsePart": {
                        "textResponsePart": {"text": "Thirty days.", "span": {"start": 0, "end": 12}}
                    },
                    "retrievedReferences": [
                        {
                            "content": {"text": "30 days"},
                            "location": {"type": "CUSTOM", "customDocumentLocation": {"id": "doc-7"}},
                        }
                    ],
                }
            }
        },
    ]
    response = parse(events)
    assert cited(response) == [("Thirty days.", ["kb:1"])] and response["sources"][0]["extra"]["uri"] == "doc-7"


# --- Bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        converse({"citationsContent": {"content": "text", "citations": {"a": 1}}}),
        converse({"citationsContent": {"content": [{"text": 5}], "citations": [{"location": []}]}}),
        converse(cited_block("x", {"location": {"documentChar": {"documentIndex": "0", "start": None}}})),
        converse(cited_block("x", {"sourceContent": "q", "location": {"searchResultLocation": {}}})),
        converse({"reasoningContent": {"reasoningText": []}}, {}, {"text": None}),
        {"output": {"message": {"content": {"text": "x"}}}, "stopReason": 3},
        {"sessionId": "s", "output": {"text": 5}, "citations": [{"retrievedReferences": [{"location": 3}]}]},
        {"sessionId": "s", "output": {}, "citations": [{"generatedResponsePart": 1, "retrievedReferences": [{}]}]},
    ],
)
def test_scrambled_bodies_give_a_response_not_a_crash(body: dict[str, Any]):
    response = parse(body)
    assert response["provider"] == "bedrock"
    for citation in response["citations"]:
        assert 0 <= citation["start"] <= citation["end"] <= len(response["text"])


SAMPLES = Path(__file__).resolve().parents[4] / "citeview" / "dumps" / "samples"


@pytest.mark.parametrize("name", ["12-bedrock-ja-documents-exchange.json", "13-bedrock-stream-en-kb.jsonl"])
def test_the_samples_are_read_as_bedrock_with_no_warning_but_the_one_they_show(name: str):
    (response,) = parse_dump((SAMPLES / name).read_bytes()).to_json()["responses"]
    assert response["provider"] == "bedrock" and response["status"] == "completed" and response["citations"]
    warnings = [d["code"] for d in response["diagnostics"] if d["severity"] != "info"]
    assert warnings == (["cited_text_mismatch"] if name.startswith("12-") else [])
