"""The Perplexity Sonar (chat completions) parser."""

from __future__ import annotations

import json

from citeview.core.parsing.parse import parse_dump
from tests.builders import sonar_object
from tests.conftest import own_fixture, sse

CITES = ["https://example.org/one", "https://example.org/two", "https://example.org/three"]


def parse(obj: dict) -> dict:
    return parse_dump(json.dumps(obj, ensure_ascii=False).encode()).to_json()["responses"][0]


def test_a_marker_is_its_position_in_citations():
    response = parse(sonar_object("A[1] and C[3].", CITES))
    by_key = {s["key"]: s["url"] for s in response["sources"]}
    assert [(c["marker"], by_key[c["source_keys"][0]]) for c in response["citations"]] == [
        ("[1]", CITES[0]),
        ("[3]", CITES[2]),
    ]


def test_a_number_past_the_list_is_unresolved():
    response = parse(sonar_object("A[1] and Z[4].", CITES))
    assert [m["ref"] for m in response["unresolved"]] == ["4"]
    assert "lists 3" in next(d["message"] for d in response["diagnostics"] if d["code"] == "unresolved_marker")


def test_titles_come_from_search_results_matched_by_url():
    results = [
        {"title": "Three", "url": CITES[2], "snippet": "third", "date": "2026-01-02"},
        {"title": "One", "url": CITES[0]},
    ]
    response = parse(sonar_object("A[1][3]", CITES, search_results=results))
    titles = {s["key"]: (s["title"], s["extra"].get("snippet")) for s in response["sources"]}
    assert titles == {"1": ("One", None), "2": (None, None), "3": ("Three", "third")}


def test_finish_reason_decides_completion():
    assert parse(sonar_object("x", CITES))["status"] == "completed"
    cut = parse(sonar_object("x", CITES, finish_reason="length"))
    assert cut["status"] == "incomplete" and "length" in cut["status_detail"]
    assert parse(sonar_object("x", CITES, finish_reason=None))["status"] == "incomplete"


def test_a_full_mode_stream_uses_the_accumulated_message_not_both():
    response = parse_dump(own_fixture("sonar-stream-full-mode-crlf.sse")).to_json()["responses"][0]
    assert response["streamed"] is True
    assert response["text"] == "地震の情報は気象庁が発表します[1][2]。"
    assert [c["marker"] for c in response["citations"]] == ["[1]", "[2]"]
    assert response["status"] == "completed"


def test_a_delta_only_stream_joins_its_deltas_and_finds_split_markers():
    chunks = [
        {
            "id": "u1",
            "model": "sonar",
            "object": "chat.completion.chunk",
            "citations": CITES,
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": reason}],
        }
        for piece, reason in [("Two[", None), ("2", None), ("]", None), ("", "stop")]
    ]
    response = parse_dump(sse(*chunks, named=False, done=True)).to_json()["responses"][0]
    assert response["text"] == "Two[2]"
    assert response["citations"][0]["source_keys"] == ["2"]


def test_a_citation_list_that_changes_mid_stream_is_a_conflict():
    chunks = [
        {
            "id": "u1",
            "model": "sonar",
            "citations": cites,
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": reason}],
        }
        for cites, piece, reason in [
            (CITES[:2], "See[2]", None),
            (["https://example.org/one", "https://other.example/2"], "", "stop"),
        ]
    ]
    response = parse_dump(sse(*chunks, named=False)).to_json()["responses"][0]
    assert [s["key"] for s in response["sources"]] == ["1", "2", "2#2"]
    assert any(d["code"] == "source_conflict" for d in response["diagnostics"])
    assert response["citations"][0]["source_keys"] == ["2", "2#2"]


def test_content_as_a_list_of_typed_chunks_is_read():
    obj = sonar_object("", CITES)
    obj["choices"][0]["message"]["content"] = [
        {"type": "text", "text": "Part one[1] "},
        {"type": "text", "text": "part two."},
    ]
    assert parse(obj)["text"] == "Part one[1] part two."


def test_odd_types_in_choices_are_read_without_crashing():
    for choices in (5, [{"index": 0, "message": "text", "delta": "x", "finish_reason": "stop"}], ["x"]):
        obj = sonar_object("x", CITES)
        obj["choices"] = choices
        response = parse(obj)
        assert response["text"] == "" and response["api"] == "perplexity.sonar"


def test_an_entry_that_is_not_a_url_keeps_every_other_position():
    response = parse(sonar_object("a[1] b[2] c[3] d[4]", [None, "https://b.example", {"x": 1}, "https://d.example"]))
    by_key = {s["key"]: s["url"] for s in response["sources"]}
    assert {c["marker"]: by_key[c["source_keys"][0]] for c in response["citations"]} == {
        "[2]": "https://b.example",
        "[4]": "https://d.example",
    }
    assert [m["marker"] for m in response["unresolved"]] == ["[1]", "[3]"]
    assert sum(d["code"] == "invalid_source" for d in response["diagnostics"]) == 2


def test_search_results_repeated_in_every_chunk_are_one_batch():
    results = [{"title": "One", "url": CITES[0]}, {"title": "No URL", "snippet": "s"}]
    chunks = [
        {
            "id": "u1",
            "model": "sonar",
            "citations": CITES,
            "search_results": results,
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": reason}],
        }
        for piece, reason in [("a[1]", None), (" b", None), ("", "stop")]
    ]
    response = parse_dump(sse(*chunks, named=False)).to_json()["responses"][0]
    assert [s["title"] for s in response["sources"]] == ["One", None, None, "No URL"]
    assert response["searches"] == [{"queries": [], "source_keys": ["1", "search-2"]}]


def test_two_streams_with_different_ids_are_two_responses():
    def chunk(chunk_id, piece, reason=None):
        return {
            "id": chunk_id,
            "model": "sonar",
            "citations": [f"https://{chunk_id}.example"],
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": reason}],
        }

    raw = sse(chunk("a", "first[1]"), chunk("b", "second[1]"), chunk("b", "", "stop"), named=False)
    first, second = parse_dump(raw).to_json()["responses"]
    assert (first["text"], first["status"]) == ("first[1]", "incomplete")
    assert second["sources"][0]["url"] == "https://b.example" and second["status"] == "completed"


def test_a_redacted_id_on_the_last_chunk_does_not_split_the_stream():
    chunks = [
        {
            "id": "chatcmpl-REDACTED",
            "model": "sonar",
            "citations": CITES,
            "choices": [{"index": 0, "delta": {"content": "Hello"}, "message": {"content": "Hello"}}],
        },
        {
            "id": "0f0e0d0c-1111-4222-8333-444455556666",
            "model": "sonar",
            "citations": CITES,
            "choices": [
                {"index": 0, "finish_reason": "stop", "delta": {"content": ""}, "message": {"content": "Hello[1]"}}
            ],
        },
    ]
    responses = parse_dump(sse(*chunks, named=False)).to_json()["responses"]
    assert [(r["text"], r["status"]) for r in responses] == [("Hello[1]", "completed")]


def test_whole_completions_in_an_array_are_separate_unstreamed_responses():
    raw = json.dumps([sonar_object("x[1]", CITES), sonar_object("y[1]", CITES[1:])]).encode()
    responses = parse_dump(raw).to_json()["responses"]
    assert [(r["text"], r["streamed"]) for r in responses] == [("x[1]", False), ("y[1]", False)]


def test_a_bracketed_number_markdown_does_not_show_as_text_says_why_it_is_no_citation():
    response = parse(sonar_object("東京[1]。`x[2]` と [3](https://example.jp/a) と \\[1]", CITES))
    assert [c["marker"] for c in response["citations"]] == ["[1]"]
    notes = [d for d in response["diagnostics"] if d["code"] == "not_a_marker"]
    assert [(d["details"]["marker"], d["details"]["part"], d["severity"]) for d in notes] == [
        ("[2]", "code", "info"),
        ("[3]", "link_text", "info"),
        ("[1]", "escaped", "info"),
    ]
    assert notes[0]["message"] == "[2] is inside code, so it is shown as written and not read as a citation."
    assert notes[1]["message"] == (
        "[3] is the text of a link the answer writes to https://example.jp/a; it is not read as a citation."
    )


def test_a_deep_research_answer_cites_its_answer_and_not_its_reasoning():
    # sonar-deep-research, built from Perplexity's documented shape (no public recording of one was
    # found): a <think> section before the answer, whose bracketed numbers are no citations.
    body = sonar_object(
        "<think>\n気象庁の統計 [1] を確認する。\n</think>\n\n## 結論\n\n2025年の東京の猛暑日は記録的でした[1][2]。",
        CITES[:2],
        search_results=[{"title": "気象庁", "url": CITES[0]}],
    )
    body["model"] = "sonar-deep-research"
    body["usage"] = {"prompt_tokens": 18, "completion_tokens": 120, "reasoning_tokens": 30000, "num_search_queries": 12}
    response = parse(body)
    assert response["api"] == "perplexity.sonar" and response["model"] == "sonar-deep-research"
    assert [(c["marker"], c["source_keys"]) for c in response["citations"]] == [("[1]", ["1"]), ("[2]", ["2"])]
    assert all(c["start"] > response["text"].index("</think>") for c in response["citations"])
    assert not response["unresolved"]
    assert "reasoning_section" in [d["code"] for d in response["diagnostics"]]
