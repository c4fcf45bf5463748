"""Cohere Chat v2 and v1: spans checked against their cited text, documents and tool outputs as
evidence, plan and thinking citations apart from the answer, streamed text against the final text.

The real recordings are read in place from ../shared/fixtures/cohere (all Chat v2, ASCII before every
citation). Every dump in tests/fixtures/cohere/ is built from provider-formats.md §5, not recorded
(``*-built.*``); so are the small dumps built in the tests below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.checking.side_by_side import evidence_rows
from citeview.core.common.errors import DumpError
from citeview.core.detection import registry
from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES, PROJECT_DIR, SHARED_FIXTURES, fixture_ids, fixture_params, real_fixtures, sse

FIXTURES = real_fixtures("cohere")
BUILT = OWN_FIXTURES / "cohere"
SAMPLES = PROJECT_DIR / "citeview" / "dumps" / "samples"
DOC = {
    "type": "document",
    "id": "doc:0",
    "document": {"id": "doc:0", "title": "tokyo.txt", "text": "東京の人口は約1400万人。"},
}
TOOL = {"type": "tool", "id": "get_population_x1y2z3:0", "tool_output": {"population": "14 million", "city": "Tokyo"}}


def parse(raw: bytes | dict[str, Any], **options: Any) -> list[dict[str, Any]]:
    data = raw if isinstance(raw, bytes) else json.dumps(raw, ensure_ascii=False).encode()
    return parse_dump(data, **options).to_json()["responses"]


def one(raw: bytes | dict[str, Any], **options: Any) -> dict[str, Any]:
    (response,) = parse(raw, **options)
    return response


def built(name: str) -> dict[str, Any]:
    return one((BUILT / name).read_bytes())


def spans(response: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(response["text"][c["start"] : c["end"]], c["source_keys"]) for c in response["citations"]]


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def diagnostics(response: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [d for d in response["diagnostics"] if d["code"] == code]


def v2_body(text: str, citations: list[dict[str, Any]], finish_reason: str | None = "COMPLETE", **message: Any) -> dict:
    body: dict[str, Any] = {
        "id": "2f1e0d9c-8b7a-4654-9321-0fedcba98765",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "citations": citations,
            **message,
        },
        "usage": {"billed_units": {"input_tokens": 10, "output_tokens": 5}},
    }
    if finish_reason is not None:
        body["finish_reason"] = finish_reason
    return body


def cite(text: str, piece: str, *sources: dict[str, Any], kind: str = "TEXT_CONTENT") -> dict[str, Any]:
    start = text.index(piece)
    return {"start": start, "end": start + len(piece), "text": piece, "sources": list(sources), "type": kind}


def v2_events(text_pieces: list[str], citations: list[dict[str, Any]], *, end: dict | None = None) -> list[dict]:
    events: list[dict[str, Any]] = [
        {
            "id": "7c6b5a49-3827-4160-9f8e-7d6c5b4a3928",
            "type": "message-start",
            "delta": {"message": {"role": "assistant"}},
        },
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
    ]
    events += [
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": p}}}} for p in text_pieces
    ]
    for number, citation in enumerate(citations):
        events += [
            {"type": "citation-start", "index": number, "delta": {"message": {"citations": citation}}},
            {"type": "citation-end", "index": number},
        ]
    events.append({"type": "content-end", "index": 0})
    if end is not None:
        events.append({"type": "message-end", "delta": end})
    return events


# --- The real recordings ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_every_recorded_citation_is_placed_on_its_cited_text_with_every_source(path: Path):
    response = one(path.read_bytes())
    assert (response["provider"], response["api"], response["status"]) == ("cohere", "cohere.chat_v2", "completed")
    raw = path.read_text(encoding="utf-8")
    recorded = [c for c in _recorded_citations(raw)]
    assert len(response["citations"]) == len(recorded) > 0
    for citation, (cited, ids) in zip(response["citations"], recorded, strict=True):
        assert response["text"][citation["start"] : citation["end"]] == cited
        assert citation["source_keys"] == ids
    assert not [d for d in response["diagnostics"] if d["severity"] != "info"]
    assert not response["cited_without_position"] and not response["reasoning"]


def _recorded_citations(raw: str) -> list[tuple[str, list[str]]]:
    """(text, source ids) of each recorded citation, read straight from the recording."""
    if raw.startswith("event:"):
        values = [json.loads(line[5:]) for line in raw.splitlines() if line.startswith("data: {")]
        found = [v["delta"]["message"]["citations"] for v in values if v["type"] == "citation-start"]
    else:
        found = json.loads(raw)["message"]["citations"]
    return [(c["text"], [s["id"] for s in c["sources"]]) for c in found]


def real(name: str) -> dict[str, Any]:
    path = SHARED_FIXTURES / "cohere" / name
    if not path.exists():
        pytest.skip("../shared/fixtures is not beside the project")
    return one(path.read_bytes())


def test_a_recorded_document_source_keeps_its_id_title_and_text_as_evidence():
    response = real("cohere-chat-v2-documents-vercel.json")
    (source,) = response["sources"]
    assert (source["key"], source["kind"], source["title"]) == ("doc:0", "document", "benefits.txt")
    assert source["extra"]["snippet"].startswith("AI provides: 1. Automation of tasks")
    assert source["extra"]["snippet_kind"] == "document_text"
    rows = evidence_rows(response, {"doc:0": "1"})
    assert [r["passages"][0]["title"] for r in rows] == ["benefits.txt"] * 3
    assert "Automation of tasks" in rows[0]["passages"][0]["quote_html"]


def test_a_recorded_document_without_a_title_is_listed_by_its_id():
    response = real("cohere-chat-v2-multi-documents-command-r.json")
    assert spans(response) == [("Barack Obama.", ["doc-2"])]
    assert response["sources"][0]["title"] is None
    assert response["sources"][0]["extra"]["snippet"] == "Barack Obama is the founder of Cohere!"


def test_recorded_tool_sources_keep_the_tool_output_as_compact_json_evidence():
    response = real("cohere-chat-v2-tool-source-command-r7b.json")
    assert spans(response) == [("sunny", ["get_weather_9gpb31r7h7mj:0"]), ("22C.", ["get_weather_9gpb31r7h7mj:0"])]
    (source,) = response["sources"]
    assert source["kind"] == "tool"
    assert source["extra"] == {
        "snippet": '{"content":"Sunny, 22C in Paris"}',
        "snippet_kind": "tool_output",
        "tool_call_id": "get_weather_9gpb31r7h7mj",
    }
    (row, _) = evidence_rows(response, {source["key"]: "1"})
    assert "Sunny, " in row["passages"][0]["quote_html"] and "C in Paris" in row["passages"][0]["quote_html"]


def test_the_recorded_stream_reads_one_citation_object_per_citation_start():
    response = real("cohere-chat-v2-tool-sources-command-r-plus-stream.sse")
    assert response["streamed"] and response["id"] == "a7008feb-bcd7-43df-9043-be0bebcc66c9"
    assert response["text"].startswith("The movie with the highest average rating is The Shawshank Redemption")
    assert spans(response) == [
        ("The Shawshank Redemption", ["python_interpreter_v4ka7rt46kn6:0"]),
        ("7.25.", ["python_interpreter_v4ka7rt46kn6:0"]),
    ]


def test_spans_that_start_inside_markdown_are_kept_as_the_provider_marked_them():
    response = real("cohere-chat-v2-tool-sources-markdown-command-r-plus.json")
    assert spans(response) == [
        ("(60", ["web_search_8vbrjjef3q48:0"]),
        ("7.75", ["python_interpeter_temp_a4xgwrqvzg2t:0"]),
    ]
    assert [s["extra"]["snippet"] for s in response["sources"]] == ['{"output":"60"}', '{"output":"7.75"}']


# --- Offsets: the unit, the content block, re-anchoring -------------------------------------------------


def test_japanese_with_an_emoji_before_a_citation_is_placed_by_utf16_units_and_says_so():
    response = built("v2-ja-emoji-utf16-built.json")
    assert spans(response) == [("28度", ["get_weather_k3m9p2x7q1z4:0"]), ("60%の予報", ["get_weather_k3m9p2x7q1z4:0"])]
    (note,) = diagnostics(response, "offset_unit")
    assert note["details"] == {"unit": "utf16", "count": 2} and note["severity"] == "info"


def test_code_point_offsets_after_an_emoji_are_placed_and_the_unit_they_prove_is_said():
    text = "今日は晴れ☀️🌡️最高気温は28度です。"
    response = one(v2_body(text, [cite(text, "28度", TOOL)]))
    assert spans(response) == [("28度", [TOOL["id"]])]
    (note,) = diagnostics(response, "offset_unit")
    assert note["details"]["unit"] == "code_points"


def test_offsets_that_fit_in_either_unit_after_an_emoji_prove_no_unit():
    response = one(v2_body("😀aaa", [{"start": 2, "end": 3, "text": "a", "sources": [TOOL]}]))
    assert spans(response) == [("a", [TOOL["id"]])] and "offset_unit" not in codes(response)


def test_ascii_offsets_where_both_units_agree_say_nothing_about_the_unit():
    text = "Tokyo has 14 million people."
    response = one(v2_body(text, [cite(text, "14 million people", TOOL)]))
    assert spans(response) == [("14 million people", [TOOL["id"]])] and "offset_unit" not in codes(response)


def test_offsets_within_their_own_content_block_and_within_the_whole_answer_are_both_placed():
    response = built("v2-two-text-blocks-built.json")
    assert response["text"] == "Nara's Tōdai-ji houses a bronze Buddha. The hall was rebuilt in 1709 and is 57 m wide."
    assert spans(response) == [("rebuilt in 1709", ["doc:0"]), ("57 m wide", ["doc:0"])]
    (note,) = diagnostics(response, "offset_unit")
    assert note["details"] == {"base": "content_block", "count": 1}


def test_bad_offsets_are_reanchored_only_where_the_text_stands_once_nearby():
    response = built("v2-bad-offsets-built.json")
    assert spans(response) == [("Osaka", ["doc:0"]), ("the castle dates from 1583", ["doc:0"])]
    by_citation = {d["details"].get("citation"): d for d in response["diagnostics"]}
    moved = by_citation[1]
    assert moved["code"] == "segment_text_mismatch" and "placed where its text stands nearby" in moved["message"]
    assert (moved["details"]["placed_start"], moved["details"]["placed_end"]) == (83, 109)
    assert by_citation[2]["code"] == "offset_out_of_range" and "not placed" in by_citation[2]["message"]
    assert by_citation[3]["code"] == "segment_text_mismatch" and "not placed" in by_citation[3]["message"]
    assert by_citation[4]["code"] == "offset_out_of_range" and "no start and end" in by_citation[4]["message"]
    # doc:0 is placed by other citations, so it is not also listed as cited without a position.
    assert response["cited_without_position"] == []


def test_a_citation_that_fits_nowhere_lists_its_source_as_cited_without_a_position():
    text = "Tokyo has 14 million people."
    citation = {**cite(text, "14 million", TOOL), "start": 90, "end": 100}
    response = one(v2_body(text, [citation]))
    assert response["citations"] == [] and response["cited_without_position"] == [TOOL["id"]]
    assert "unused_source" not in codes(response)


def test_a_short_cited_text_is_not_reanchored_by_chance():
    text = "A 7 and a 7."
    citation = {"start": 0, "end": 1, "text": "7", "sources": [TOOL]}
    response = one(v2_body(text, [citation]))
    assert response["citations"] == [] and "segment_text_mismatch" in codes(response)


@pytest.mark.parametrize("start,end", [(-1, 3), (5, 2), (10**30, 10**30 + 1), ("3", 5), (True, 4), (None, None)])
def test_offsets_of_any_kind_give_a_diagnostic_never_an_exception(start: Any, end: Any):
    citation = {"start": start, "end": end, "text": "Tokyo", "sources": [TOOL]}
    response = one(v2_body("Tokyo.", [citation]))
    assert all(response["text"][c["start"] : c["end"]] == "Tokyo" for c in response["citations"])
    assert {"offset_out_of_range", "segment_text_mismatch"} & set(codes(response))


# --- Thinking and plan citations ------------------------------------------------------------------------


def test_thinking_is_no_part_of_the_answer_and_its_citation_goes_with_the_thinking():
    response = built("v2-thinking-built.json")
    assert response["text"] == "The Tokyo Skytree is 634 m tall, the tallest tower in Japan."
    assert spans(response) == [("634 m tall", ["doc:0"]), ("the tallest tower in Japan", ["doc:0"])]
    (thinking,) = response["reasoning"]
    assert thinking["kind"] == "thinking" and thinking["text"].startswith("The user asks for the tower's height.")
    (citation,) = thinking["citations"]
    assert thinking["text"][citation["start"] : citation["end"]] == "634 m tall"


def test_a_plan_citation_is_placed_in_the_plan_of_a_tool_call_stream():
    responses = parse((SAMPLES / "11-cohere-stream-en-tool-plan.sse").read_bytes())
    plan_response, answer = responses
    assert plan_response["text"] == "" and plan_response["status"] == "completed"  # TOOL_CALL: the turn is complete
    (plan,) = plan_response["reasoning"]
    assert plan["kind"] == "plan" and plan["text"].startswith("I found that the N700S Shinkansen")
    (citation,) = plan["citations"]
    assert plan["text"][citation["start"] : citation["end"]] == "the N700S Shinkansen has a top speed of 285 km/h"
    assert citation["source_keys"] == ["web_search_h7k2m9q4x1c8:0"]
    assert "unused_source" not in codes(plan_response)
    assert spans(answer) == [
        ("top operating speed of 285 km/h", ["web_search_h7k2m9q4x1c8:0"]),
        ("about 177 mph.", ["calculator_p3n8v5r2t6w1:0"]),
    ]


def test_a_streamed_thinking_block_and_plan_are_read_from_their_deltas():
    thinking = "The document gives 14 million."
    events = [
        {"id": "a1b2c3d4-0000-4000-8000-000000000001", "type": "message-start", "delta": {"message": {}}},
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"thinking": thinking}}}},
        {"type": "content-end", "index": 0},
        {"type": "content-start", "index": 1, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
        {"type": "content-delta", "index": 1, "delta": {"message": {"content": {"text": "About 14 million."}}}},
        {
            "type": "citation-start",
            "index": 0,
            "delta": {"message": {"citations": {**cite(thinking, "14 million", DOC), "type": "THINKING_CONTENT"}}},
        },
        {
            "type": "citation-start",
            "index": 1,
            "delta": {"message": {"citations": cite("About 14 million.", "14 million", DOC)}},
        },
        {"type": "debug", "prompt": "…"},
        {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}},
    ]
    response = one(sse(*events, done=True))
    assert response["text"] == "About 14 million." and spans(response) == [("14 million", ["doc:0"])]
    assert [(r["kind"], r["text"], len(r["citations"])) for r in response["reasoning"]] == [("thinking", thinking, 1)]
    assert "unknown_event" not in codes(response)


def test_a_tool_source_takes_the_tool_name_when_the_tool_calls_give_it():
    text = "It is 14 million."
    source = {"type": "tool", "id": "lookup_abc123:0", "tool_output": {"value": 14}}
    calls = [{"id": "lookup_abc123", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]
    response = one(v2_body(text, [cite(text, "14 million", source)], tool_calls=calls))
    assert response["sources"][0]["title"] == "lookup"


# --- Status ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reason,status",
    [
        ("COMPLETE", "completed"),
        ("STOP_SEQUENCE", "completed"),
        ("TOOL_CALL", "completed"),
        ("MAX_TOKENS", "incomplete"),
        ("TIMEOUT", "incomplete"),
        ("ERROR", "failed"),
        ("SOMETHING_NEW", "incomplete"),
        (None, "incomplete"),
    ],
)
def test_a_v2_finish_reason_gives_the_status(reason: str | None, status: str):
    response = one(v2_body("Tokyo.", [], finish_reason=reason))
    assert response["status"] == status
    if status != "completed":
        assert response["status_detail"]


def test_a_v2_stream_without_message_end_is_incomplete_and_an_error_in_it_failed():
    cut = one(sse(*v2_events(["Tokyo."], [])))
    assert cut["status"] == "incomplete" and cut["status_detail"] == "stream ended without message-end"
    failed = one(sse(*v2_events(["Tokyo."], [], end={"finish_reason": "ERROR", "error": "upstream overloaded"})))
    assert failed["status"] == "failed" and failed["status_detail"] == "upstream overloaded"
    cut_off = one(sse(*v2_events(["Tokyo"], [], end={"finish_reason": "MAX_TOKENS"})))
    assert cut_off["status_detail"] == "finish_reason MAX_TOKENS: the answer was cut off at the token limit"


@pytest.mark.parametrize(
    "reason,status",
    [("COMPLETE", "completed"), ("MAX_TOKENS", "incomplete"), ("ERROR_LIMIT", "incomplete"), ("ERROR_TOXIC", "failed")],
)
def test_a_v1_finish_reason_gives_the_status(reason: str, status: str):
    body = json.loads((BUILT / "v1-documents-built.json").read_text(encoding="utf-8"))
    assert one({**body, "finish_reason": reason})["status"] == status


def test_a_v1_stream_without_stream_end_is_incomplete():
    lines = (BUILT / "v1-stream-built.jsonl").read_bytes().splitlines(keepends=True)
    response = one(b"".join(lines[:-1]))
    assert response["status"] == "incomplete" and response["status_detail"] == "stream ended without stream-end"
    assert response["text"].startswith("The Akashi Kaikyō Bridge has a central span")


# --- Streamed text against the final text -----------------------------------------------------------


def test_a_v1_stream_shows_the_final_text_its_citations_count_in_and_says_where_the_stream_differs():
    response = built("v1-stream-final-differs-built.jsonl")
    assert response["text"] == "The bridge opened in April 1998 and its central span is 1,991 m long."
    assert spans(response) == [("opened in April 1998", ["web-search_0"]), ("central span is 1,991 m", ["doc_0"])]
    (difference,) = diagnostics(response, "stream_text_mismatch")
    assert difference["details"]["position"] == 21 and difference["severity"] == "warning"
    assert "'1998 and its" in difference["message"] and "'April 1998 and its" in difference["message"]


def test_a_v1_stream_equal_to_its_final_text_says_nothing_of_it():
    response = built("v1-stream-built.jsonl")
    assert response["streamed"] and "stream_text_mismatch" not in codes(response)
    assert spans(response) == [
        ("central span of 1,991 m", ["doc_0"]),
        ("opened in April 1998", ["web-search_0"]),
        ("six lanes", ["doc_0"]),
    ]


def test_a_v2_stream_beside_its_final_message_is_one_response_showing_the_final_text():
    response = built("v2-stream-and-final-differ-built.jsonl")
    assert response["streamed"] and response["text"] == "Mount Fuji is 3,776 m high and last erupted in 1707."
    assert spans(response) == [
        ("3,776 m high", ["web_search_q8r7s6t5u4v3:0"]),
        ("last erupted in 1707.", ["web_search_q8r7s6t5u4v3:0"]),
    ]
    (difference,) = diagnostics(response, "stream_text_mismatch")
    assert difference["details"] == {"position": 22, "streamed_length": 47, "final_length": 52}


def test_a_v2_stream_alone_checks_every_citation_against_the_streamed_text():
    text = "Tokyo has 14 million people."
    wrong = {**cite(text, "14 million", TOOL), "text": "15 million"}
    response = one(sse(*v2_events(["Tokyo has", " 14 million people."], [cite(text, "Tokyo", TOOL), wrong]), done=True))
    assert spans(response) == [("Tokyo", [TOOL["id"]])]
    assert [d["details"]["citation"] for d in diagnostics(response, "segment_text_mismatch")] == [2]


# --- Chat v1: documents by id ---------------------------------------------------------------------------


def test_v1_documents_are_sources_by_id_and_searched_ones_are_retrieved_passages():
    response = built("v1-documents-built.json")
    assert response["api"] == "cohere.chat_v1" and response["id"] == "e1f5b0a2-6c3d-4d8e-8f27-91a0b3c4d5e6"
    assert spans(response) == [
        ("central span of 1,991 m", ["doc_0"]),
        ("opened in April 1998", ["web-search_0"]),
        ("six lanes", ["doc_0"]),
    ]
    sources = {s["key"]: s for s in response["sources"]}
    assert sources["doc_0"]["extra"]["snippet_kind"] == "document_text"
    assert sources["web-search_0"]["url"] == "https://en.wikipedia.org/wiki/Akashi_Kaiky%C5%8D_Bridge"
    assert sources["web-search_0"]["extra"]["snippet_kind"] == "retrieved_passage"
    assert response["searches"] == [
        {"queries": ["Akashi Kaikyo Bridge opening date"], "source_keys": ["web-search_0", "web-search_1"]}
    ]
    assert [d["details"]["key"] for d in diagnostics(response, "unused_source")] == ["web-search_1"]


def test_v1_ids_that_name_nothing_are_reported_and_the_citation_keeps_what_it_can():
    response = built("v1-unknown-document-ids-built.json")
    assert spans(response) == [("capital for over a thousand years", ["doc_0"])]
    (partly,) = diagnostics(response, "unknown_document")
    assert partly["details"]["ids"] == ["doc_7"]
    assert response["unresolved"] == [{"marker": "17 World Heritage sites", "ref": "doc_9", "start": 56, "end": 79}]
    (nothing,) = diagnostics(response, "unresolved_marker")
    assert "doc_9" in nothing["message"]


def test_a_v2_citation_without_sources_is_unresolved_not_given_a_source():
    text = "Tokyo has 14 million people."
    response = one(v2_body(text, [{**cite(text, "14 million"), "sources": []}]))
    assert response["citations"] == [] and response["unresolved"][0]["marker"] == "14 million"


def test_a_v1_failed_search_is_reported():
    body = json.loads((BUILT / "v1-documents-built.json").read_text(encoding="utf-8"))
    body["search_results"].append(
        {
            "search_query": {"text": "q"},
            "connector": {"id": "web-search"},
            "document_ids": [],
            "error_message": "timeout",
        }
    )
    assert [d["details"]["error_code"] for d in diagnostics(one(body), "search_failed")] == ["timeout"]


def test_sources_without_ids_get_one_key_each_and_a_diagnostic():
    text = "A and B."
    anonymous = {"type": "document", "document": {"text": "A is true."}}
    response = one(v2_body(text, [cite(text, "A", anonymous), cite(text, "B", anonymous)]))
    assert [s["key"] for s in response["sources"]] == ["document:no-id-1"]
    assert len(diagnostics(response, "invalid_source")) == 1


# --- Detection ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,api",
    [
        ("v1-documents-built.json", "cohere.chat_v1"),
        ("v1-stream-built.jsonl", "cohere.chat_v1"),
        ("v1-stream-final-differs-built.jsonl", "cohere.chat_v1"),
        ("v1-unknown-document-ids-built.json", "cohere.chat_v1"),
        ("v2-bad-offsets-built.json", "cohere.chat_v2"),
        ("v2-ja-emoji-utf16-built.json", "cohere.chat_v2"),
        ("v2-stream-and-final-differ-built.jsonl", "cohere.chat_v2"),
        ("v2-thinking-built.json", "cohere.chat_v2"),
        ("v2-two-text-blocks-built.json", "cohere.chat_v2"),
    ],
)
def test_every_built_dump_is_detected_as_its_api(name: str, api: str):
    assert [r["api"] for r in parse((BUILT / name).read_bytes())] == [api]


OTHER_PROVIDERS = [p for provider in ("perplexity", "anthropic", "gemini", "openai") for p in real_fixtures(provider)]


@pytest.mark.parametrize("path", fixture_params(OTHER_PROVIDERS))
def test_no_other_providers_recording_is_taken_for_cohere(path: Path):
    assert all(r["provider"] != "cohere" for r in parse(path.read_bytes()))


def test_gemini_interactions_events_stay_gemini_and_cohere_v1_events_stay_cohere():
    interactions = [
        {"event_type": "interaction.created", "interaction": {"id": "v1_x", "status": "in_progress"}},
        {"event_type": "content.delta", "index": 0, "delta": {"type": "text", "text": "東京です。"}},
        {"event_type": "interaction.completed", "interaction": {"id": "v1_x", "status": "completed"}},
    ]
    lines = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in interactions).encode()
    assert one(lines)["api"] == "gemini.interactions"
    assert one((BUILT / "v1-stream-built.jsonl").read_bytes())["api"] == "cohere.chat_v1"


def test_a_body_with_choices_or_a_lower_case_finish_reason_is_not_cohere():
    chat = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"message": {"content": "x"}}]}
    assert one(chat)["api"] == "compatible.chat_completions"
    with pytest.raises(DumpError) as refused:
        parse({"message": {"content": "x"}, "finish_reason": "stop"})
    assert refused.value.code == "unknown_provider"


def test_a_second_message_start_or_stream_start_starts_the_next_response():
    two = sse(
        *v2_events(["One."], [], end={"finish_reason": "COMPLETE"}),
        *v2_events(["Two."], [], end={"finish_reason": "COMPLETE"}),
    )
    assert [r["text"] for r in parse(two)] == ["One.", "Two."]
    v1 = (BUILT / "v1-stream-built.jsonl").read_bytes()
    assert len(parse(v1 + v1)) == 2


def test_two_bodies_in_json_lines_are_two_responses():
    body = (BUILT / "v2-thinking-built.json").read_text(encoding="utf-8")
    line = json.dumps(json.loads(body)) + "\n"
    responses = parse((line + line.replace("c8f0e2d4", "d9a1f3e5")).encode())
    assert [r["streamed"] for r in responses] == [False, False]


def test_cohere_is_offered_by_name_with_its_notations():
    apis = {api.name: api for api in registry.api_formats()}
    assert apis["cohere.chat_v2"].provider.label == "Cohere"
    assert "PLAN" in apis["cohere.chat_v2"].citation_notation.template
    assert "document_ids" in apis["cohere.chat_v1"].citation_notation.template
    assert one((BUILT / "v2-thinking-built.json").read_bytes(), provider="cohere")["api"] == "cohere.chat_v2"
    assert one((BUILT / "v1-documents-built.json").read_bytes(), provider="cohere.chat_v1")["api"] == "cohere.chat_v1"


# --- Samples and damaged events -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["10-cohere-ja-documents.json", "11-cohere-stream-en-tool-plan.sse"])
def test_the_samples_parse_without_warnings(name: str):
    for response in parse((SAMPLES / name).read_bytes()):
        assert response["provider"] == "cohere" and response["status"] == "completed"
        assert [d["code"] for d in response["diagnostics"] if d["severity"] != "info"] == []


def test_the_japanese_sample_places_every_citation_on_its_documents():
    response = one((SAMPLES / "10-cohere-ja-documents.json").read_bytes())
    assert spans(response) == [
        ("1964年10月1日に東京–新大阪間で開業", ["doc:0"]),
        ("時速285km", ["doc:1"]),
        ("2020年に営業運転を始めたN700S", ["doc:1"]),
        ("多い日で約470本", ["doc:2"]),
    ]
    assert [s["title"] for s in response["sources"]] == [
        "東海道新幹線のあゆみ",
        "N700S 車両技術資料",
        "輸送実績（2025年度）",
    ]


def test_damaged_and_unknown_events_are_noted_not_fatal():
    events = v2_events(["Tokyo."], [], end={"finish_reason": "COMPLETE"})
    events.insert(2, {"type": "content-delta", "index": "zero", "delta": []})
    events.insert(3, {"type": "citation-start", "delta": {"message": {"citations": "not a citation"}}})
    events.insert(4, {"type": "surprise-event"})
    response = one(sse(*events))
    assert response["text"] == "Tokyo." and response["status"] == "completed"
    assert [d["details"]["type"] for d in diagnostics(response, "unknown_event")] == ["surprise-event"]


def test_a_source_without_a_type_is_read_by_what_it_holds():
    text = "A and B."
    document = {"id": "doc:3", "document": {"id": "doc:3", "text": "A."}}
    tool = {"id": "calc_x1:0", "tool_output": {"result": "B"}}
    response = one(v2_body(text, [cite(text, "A", document), cite(text, "B", tool)]))
    assert [(s["key"], s["kind"]) for s in response["sources"]] == [("doc:3", "document"), ("calc_x1:0", "tool")]
    assert "unknown_citation" not in codes(response)


def test_an_error_event_in_a_v2_stream_fails_the_response():
    events = [*v2_events(["Tok"], []), {"type": "error", "error": {"message": "stream reset"}}]
    response = one(sse(*events))
    assert response["status"] == "failed" and response["status_detail"] == "stream reset"
