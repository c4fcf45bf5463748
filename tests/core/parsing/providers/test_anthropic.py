"""The Claude Messages parser: blocks as spans, every location type, streams by block index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import render_answer, source_entries
from tests.conftest import fixture_ids, own_fixture, real_fixtures, sse

FIXTURES = real_fixtures("anthropic")


def walk(value):
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def message(*blocks, stop_reason="end_turn", **extra):
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": list(blocks),
        "stop_reason": stop_reason,
        "usage": {"input_tokens": 1, "output_tokens": 1},
        **extra,
    }


def text(value, *citations):
    block = {"type": "text", "text": value}
    if citations:
        block["citations"] = list(citations)
    return block


def web(url, quote, title="Page"):
    return {
        "type": "web_search_result_location",
        "url": url,
        "title": title,
        "cited_text": quote,
        "encrypted_index": "E",
    }


def parse(obj) -> dict:
    return parse_dump(json.dumps(obj, ensure_ascii=False).encode()).to_json()["responses"][0]


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_every_recorded_quote_survives_on_its_block(path: Path):
    raw = path.read_bytes()
    (response,) = parse_dump(raw).to_json()["responses"]
    assert response["provider"] == "anthropic" and response["status"] == "completed"
    recorded = set()
    for value in walk(
        json.loads(raw)
        if raw.lstrip()[:1] in b"[{" and b"\ndata:" not in raw
        else [json.loads(line[5:]) for line in raw.decode().splitlines() if line.startswith("data:")]
    ):
        if isinstance(value.get("cited_text"), str):
            recorded.add(value["cited_text"])
    assert {c["cited_text"] for c in response["citations"]} == recorded
    blocks_text = response["text"]
    for citation in response["citations"]:
        assert 0 <= citation["start"] < citation["end"] <= len(blocks_text)
        assert citation["marker"] is None and len(citation["source_keys"]) == 1


def test_a_continuation_after_pause_turn_keeps_citations_of_earlier_results():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    path = FIXTURES[0].parent / "anthropic-websearch-sonnet45-pause-turn.json"
    response = parse_dump(path.read_bytes()).to_json()["responses"][0]
    note = next(d for d in response["diagnostics"] if d["code"] == "source_from_earlier_response")
    assert note["details"]["urls"]
    assert all(url in {c["source_keys"][0] for c in response["citations"]} for url in note["details"]["urls"])


def test_the_answer_is_the_text_blocks_joined_and_each_citation_spans_its_block():
    response = parse(
        message(
            text("According to the memo, "),
            text(
                "東京は首都です",
                {
                    "type": "char_location",
                    "cited_text": "東京は日本の首都です。",
                    "document_index": 0,
                    "document_title": "Cities",
                    "start_char_index": 0,
                    "end_char_index": 11,
                },
            ),
            text("。"),
        )
    )
    assert response["text"] == "According to the memo, 東京は首都です。"
    (citation,) = response["citations"]
    assert (citation["start"], citation["end"]) == (23, 30)
    assert citation["location"] == {"type": "char", "start": 0, "end": 11}
    assert response["sources"] == [
        {"key": "doc:0", "kind": "document", "url": None, "title": "Cities", "extra": {"document_index": 0}}
    ]


def test_model_dump_nulls_are_no_citations():
    response = parse(message({"type": "text", "text": "plain", "citations": None}, stop_sequence=None))
    assert response["citations"] == [] and response["text"] == "plain"


def test_every_location_type_is_read():
    response = parse(
        message(
            text(
                "a",
                {
                    "type": "page_location",
                    "cited_text": "p",
                    "document_index": 1,
                    "document_title": "PDF",
                    "start_page_number": 3,
                    "end_page_number": 5,
                },
            ),
            text(
                "b",
                {
                    "type": "content_block_location",
                    "cited_text": "c",
                    "document_index": 2,
                    "document_title": None,
                    "start_block_index": 1,
                    "end_block_index": 2,
                },
            ),
            text(
                "c",
                {
                    "type": "search_result_location",
                    "cited_text": "s",
                    "source": "kb://x",
                    "title": "KB",
                    "search_result_index": 0,
                    "start_block_index": 0,
                    "end_block_index": 1,
                },
            ),
            text("d", web("https://example.org/a", "w")),
        )
    )
    assert [c["location"] for c in response["citations"]] == [
        {"type": "page", "start": 3, "end": 5},
        {"type": "block", "start": 1, "end": 2},
        {"type": "block", "start": 0, "end": 1},
        None,
    ]
    assert [s["key"] for s in response["sources"]] == ["doc:1", "doc:2", "search_result:0", "https://example.org/a"]
    assert response["sources"][2]["url"] is None and response["sources"][2]["extra"]["source"] == "kb://x"


def test_web_results_give_titles_and_age_and_uncited_results_are_sources():
    response = parse(
        message(
            {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"query": "首都"}},
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srv1",
                "content": [
                    {
                        "type": "web_search_result",
                        "url": "https://example.org/a",
                        "title": "A page",
                        "page_age": "2 days ago",
                    },
                    {"type": "web_search_result", "url": "https://example.org/b", "title": "B page"},
                ],
            },
            text("Claim.", web("https://example.org/a", "quote", title=None)),
        )
    )
    assert [(s["key"], s["title"], s["extra"].get("page_age")) for s in response["sources"]] == [
        ("https://example.org/a", "A page", "2 days ago"),
        ("https://example.org/b", "B page", None),
    ]
    assert response["searches"] == [
        {"queries": ["首都"], "source_keys": ["https://example.org/a", "https://example.org/b"]}
    ]


@pytest.mark.parametrize(
    ("reason", "status"),
    [
        ("end_turn", "completed"),
        ("stop_sequence", "completed"),
        ("tool_use", "completed"),
        ("max_tokens", "incomplete"),
        ("pause_turn", "incomplete"),
        ("refusal", "incomplete"),
        ("model_context_window_exceeded", "incomplete"),
    ],
)
def test_stop_reasons_decide_the_status(reason, status):
    response = parse(message(text("x"), stop_reason=reason))
    assert response["status"] == status
    if status == "incomplete":
        assert reason in response["status_detail"]


def stream_events(*block_events, stop=True, stop_reason="end_turn"):
    events = [{"type": "message_start", "message": message(stop_reason=None)}]
    events += block_events
    events.append({"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 9}})
    if stop:
        events.append({"type": "message_stop"})
    return events


def test_stream_citations_attach_to_their_block_whatever_order_deltas_arrive_in():
    quote = web("https://example.org/q", "the quote")
    events = stream_events(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": "", "citations": []}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "cited "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Intro. "}},
        {"type": "ping"},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "claim."}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "citations_delta", "citation": quote}},
        {"type": "content_block_stop", "index": 1},
    )
    response = parse_dump(sse(*events)).to_json()["responses"][0]
    assert response["text"] == "Intro. cited claim." and response["status"] == "completed"
    (citation,) = response["citations"]
    assert (citation["start"], citation["end"], citation["cited_text"]) == (7, 19, "the quote")


def test_a_stream_without_message_stop_is_incomplete_and_an_error_event_fails_it():
    block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "x"}}
    cut = parse_dump(sse(*stream_events(block, stop=False))).to_json()["responses"][0]
    assert (cut["status"], cut["status_detail"]) == ("incomplete", "stream ended without message_stop")
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    failed = parse_dump(sse(*stream_events(block, error, stop=False))).to_json()["responses"][0]
    assert (failed["status"], failed["status_detail"]) == ("failed", "Overloaded")


def test_footnotes_follow_each_block_one_per_source_numbered_by_first_appearance():
    b, a = "https://example.org/b", "https://example.org/a"
    response = parse(message(text("One.", web(b, "x"), web(b, "y")), text(" Two.", web(a, "z"), web(b, "w"))))
    html = render_answer(response, "cv-r0")
    assert html.count("cv-cite-link") == 3  # [1] after One., [2][1] after Two.
    assert html.index(">[1]<") < html.index(">[2]<")
    entries = source_entries(response, "cv-r0")
    assert [(e["label"], e["url"], len(e["cited_by"])) for e in entries] == [("1", b, 2), ("2", a, 1)]


def test_a_block_start_after_its_deltas_keeps_them():
    quote = web("https://example.org/q", "abc")
    events = stream_events(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " world"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": quote}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "text", "text": "Hello", "citations": []},
        },
    )
    response = parse_dump(sse(*events)).to_json()["responses"][0]
    assert response["text"] == "Hello world" and [c["cited_text"] for c in response["citations"]] == ["abc"]


def test_a_streamed_search_keeps_its_query_from_the_input_deltas():
    events = stream_events(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "東京'},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ' 人口"}'}},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "web_search_tool_result",
                "tool_use_id": "srv1",
                "content": [{"type": "web_search_result", "url": "https://example.org/a", "title": "A"}],
            },
        },
    )
    response = parse_dump(sse(*events)).to_json()["responses"][0]
    assert response["searches"] == [{"queries": ["東京 人口"], "source_keys": ["https://example.org/a"]}]


def test_a_web_source_takes_its_title_from_the_search_result():
    response = parse(
        message(
            text("Claim.", web("https://example.org/a", "q", title="citation title")),
            {
                "type": "web_search_tool_result",
                "tool_use_id": "s",
                "content": [{"type": "web_search_result", "url": "https://example.org/a", "title": "Result title"}],
            },
        )
    )
    assert response["sources"][0]["title"] == "Result title"


def test_a_type_that_is_not_a_string_is_no_provider_not_a_crash():
    from citeview.core.common.errors import DumpError

    with pytest.raises(DumpError) as caught:
        parse_dump(b'{"type": {"x": 1}, "role": "assistant", "content": []}')
    assert caught.value.code == "unknown_provider"


def test_a_footnote_after_a_block_ending_inside_code_is_moved_where_it_can_be_seen():
    response = parse(message(text("Use `foo", web("https://example.org/a", "q")), text("bar` now.\n\nNext.")))
    html = render_answer(response, "cv-r0")
    assert "\ufdd0" not in html and "cv-cite-link" in html
    assert html.index("<code>foobar</code>") < html.index("cv-cite-link") < html.index("Next.")


def test_a_footnote_after_a_block_ending_in_a_blank_line_stays_in_its_paragraph():
    response = parse(message(text("First.\n\n", web("https://example.org/a", "q")), text("Second.")))
    html = render_answer(response, "cv-r0")
    assert html.index("cv-cite-link") < html.index("</p>")


# --- Documents sent by Files API id ---------------------------------------------------------------
# tests/fixtures/anthropic/files-api-file-id-conflict-built.* are built from provider-formats.md §2
# (pitfall 7: file_id on char, page and block locations), not recorded: no real recording has one.

FILE_A = "file_011CNha8iCJcU1wXNR6q4V8w"
FILE_B = "file_011CPMxVD3fHLUhvTqtsQA5w"


@pytest.mark.parametrize(
    "name", ["files-api-file-id-conflict-built.json", "files-api-file-id-conflict-stream-built.sse"]
)
def test_two_file_ids_under_one_document_index_are_two_sources_in_conflict(name):
    (response,) = parse_dump(own_fixture(f"anthropic/{name}")).to_json()["responses"]
    assert response["status"] == "completed" and response["streamed"] == name.endswith(".sse")
    sources = {s["key"]: s for s in response["sources"]}
    assert sources["doc:0"]["extra"]["file_id"] == FILE_A and sources["doc:0#2"]["extra"]["file_id"] == FILE_B
    assert sources["doc:0#2"]["extra"]["document_index"] == 0
    (conflict,) = [d for d in response["diagnostics"] if d["code"] == "source_conflict"]
    assert conflict["details"]["keys"] == ["doc:0", "doc:0#2"] and conflict["details"]["file_ids"] == [FILE_A, FILE_B]
    assert FILE_A in conflict["message"] and FILE_B in conflict["message"]
    text = response["text"]
    placed = [(text[c["start"] : c["end"]], c["source_keys"], c["location"]) for c in response["citations"]]
    assert placed[0][1] == ["doc:0"] and placed[1][1] == ["doc:0"] and placed[2][1] == ["doc:0#2"]
    assert [loc["file_id"] for _, _, loc in placed] == [FILE_A, FILE_A, FILE_B, "file_011CQ2xY8rN5mGkW7pLs3TdF"]
    assert placed[3][2] == {"type": "page", "start": 3, "end": 4, "file_id": "file_011CQ2xY8rN5mGkW7pLs3TdF"}
    entries = {e["key"]: e for e in source_entries(response, "cv-r0")}
    assert entries["doc:0"]["conflict"] and entries["doc:0#2"]["conflict"] and not entries["doc:1"]["conflict"]


def test_a_citation_without_a_file_id_is_the_same_document_and_fills_nothing_in_wrongly():
    def char(file_id):
        return {
            "type": "char_location",
            "cited_text": "q",
            "document_index": 0,
            "document_title": "T",
            "start_char_index": 0,
            "end_char_index": 1,
            "file_id": file_id,
        }

    response = parse(message(text("a", char(None)), text("b", char(FILE_A)), text("c", char(None))))
    assert [s["key"] for s in response["sources"]] == ["doc:0"]
    assert response["sources"][0]["extra"]["file_id"] == FILE_A
    assert [c["location"].get("file_id") for c in response["citations"]] == [None, FILE_A, None]
    assert "source_conflict" not in [d["code"] for d in response["diagnostics"]]


def test_a_file_id_on_a_location_that_is_not_well_formed_stays_on_the_source():
    citation = {
        "type": "page_location",
        "cited_text": "p",
        "document_index": 2,
        "start_page_number": "1",
        "file_id": FILE_B,
    }
    response = parse(message(text("a", citation)))
    (only,) = response["citations"]
    assert only["location"] is None and response["sources"][0]["extra"]["file_id"] == FILE_B


@pytest.mark.parametrize(
    ("said", "shown"),
    [("Overloaded", "Overloaded."), ("Overloaded.", "Overloaded."), ("混雑しています。", "混雑しています。")],
)
def test_a_failure_is_said_with_one_full_stop(said, shown):
    events = stream_events(stop=False)
    events.append({"type": "error", "error": {"type": "overloaded_error", "message": said}})
    (response,) = parse_dump(sse(*events)).to_json()["responses"]
    (failure,) = [d for d in response["diagnostics"] if d["code"] == "failed_response"]
    assert failure["message"] == f"The response failed: {shown}"
