"""The Perplexity Agent API parser, on our own dumps for the traps in the formats note."""

from __future__ import annotations

import json

from citeview.core.parsing.parse import parse_dump
from tests.builders import agent_completed, agent_created, agent_deltas, agent_object, agent_search
from tests.conftest import own_fixture, sse

A = (2, "https://www.mhlw.go.jp/stf/jouken-a.html", "条件Aについて｜厚生労働省")
B = (9, "https://www.city.example.jp/jouken-b", "条件Bの解説")
C = (2, "https://news.example.com/2026/jouken", "条件の速報")


def seed() -> dict:
    return parse_dump(own_fixture("agent-seed-incomplete.sse")).to_json()["responses"][0]


def urls_of(response: dict, citation: dict) -> list[str]:
    by_key = {s["key"]: s["url"] for s in response["sources"]}
    return [by_key[k] for k in citation["source_keys"]]


def test_it_finds_a_marker_split_across_deltas():
    response = seed()
    assert response["text"] == "条件A[2]、条件B[9]、条件C[8]"
    nine = next(c for c in response["citations"] if c["marker"] == "[9]")
    assert (nine["start"], nine["end"]) == (10, 13)
    assert urls_of(response, nine) == [B[1]]


def test_it_collects_every_search_batch_not_just_the_first():
    response = seed()
    assert [b["queries"] for b in response["searches"]] == [["条件A"], ["条件B"]]
    assert {s["url"] for s in response["sources"]} == {A[1], B[1], C[1]}


def test_it_keeps_both_urls_when_ids_collide():
    response = seed()
    two = next(c for c in response["citations"] if c["marker"] == "[2]")
    assert urls_of(response, two) == [A[1], C[1]]
    assert [s["key"] for s in response["sources"] if s["url"] in (A[1], C[1])] == ["2", "2#2"]
    conflict = next(d for d in response["diagnostics"] if d["code"] == "source_conflict")
    assert conflict["details"]["urls"] == [A[1], C[1]]


def test_a_number_no_result_has_stays_unresolved():
    response = seed()
    assert response["unresolved"] == [{"marker": "[8]", "ref": "8", "start": 17, "end": 20}]
    assert not any(c["marker"] == "[8]" for c in response["citations"])
    message = next(d["message"] for d in response["diagnostics"] if d["code"] == "unresolved_marker")
    assert "[8]" in message and "no search result" in message


def test_a_stream_without_completion_is_incomplete():
    response = seed()
    assert response["status"] == "incomplete"
    assert response["status_detail"] == "stream ended without response.completed"
    assert any(d["code"] == "incomplete_response" for d in response["diagnostics"])


def test_it_is_completed_only_after_response_completed():
    text = "首都はキャンベラです。[1]"
    results = [(1, "https://example.org/canberra", "Canberra")]
    events = [
        agent_created(),
        *agent_search("c1", "首都", results),
        *agent_deltas(text),
        agent_completed(text, results),
    ]
    response = parse_dump(sse(*events)).to_json()["responses"][0]
    assert response["status"] == "completed" and response["status_detail"] is None
    assert response["model"] == "openai/gpt-5.2"  # the final model, not the preset name "fast"
    assert len(response["searches"]) == 1  # the batch is not counted again from the final response
    assert [c["marker"] for c in response["citations"]] == ["[1]"]


def test_a_failed_stream_keeps_its_message():
    events = [
        agent_created(),
        *agent_deltas("途中まで"),
        {"type": "response.failed", "error": {"message": "upstream search timed out", "code": "timeout"}},
    ]
    response = parse_dump(sse(*events)).to_json()["responses"][0]
    assert response["status"] == "failed"
    assert response["status_detail"] == "upstream search timed out"
    assert response["text"] == "途中まで"
    assert any(d["code"] == "failed_response" and d["severity"] == "error" for d in response["diagnostics"])


def test_markers_in_code_are_not_citations():
    text = "Use `items[1]` here.[1]\n\n```python\nprint(rows[2])\n```\n\n    also[3]\n"
    dump = json.dumps(agent_object(text, [(1, "https://example.org/a", "A"), (2, "https://example.org/b", "B")]))
    response = parse_dump(dump.encode()).to_json()["responses"][0]
    assert [(c["marker"], c["start"]) for c in response["citations"]] == [("[1]", text.index(".[1]") + 1)]
    assert response["unresolved"] == []


def test_web_markers_resolve_by_id_and_say_so():
    dump = json.dumps(agent_object("Paris.[web:1] Lyon.[web:5]", [(1, "https://example.org/paris", "Paris")]))
    response = parse_dump(dump.encode()).to_json()["responses"][0]
    assert [(c["marker"], c["source_keys"]) for c in response["citations"]] == [("[web:1]", ["1"])]
    assert [m["marker"] for m in response["unresolved"]] == ["[web:5]"]
    assert any(d["code"] == "web_marker_reading" for d in response["diagnostics"])


def test_sources_never_cited_are_flagged_unused():
    results = [(1, "https://example.org/a", "A"), (2, "https://example.org/b", "B")]
    response = parse_dump(json.dumps(agent_object("A.[1]", results)).encode()).to_json()["responses"][0]
    unused = [d["details"]["key"] for d in response["diagnostics"] if d["code"] == "unused_source"]
    assert unused == ["2"]
    assert all(d["severity"] == "info" for d in response["diagnostics"] if d["code"] == "unused_source")


def test_a_non_streamed_response_reports_its_status():
    obj = agent_object("…", [], status="in_progress")
    response = parse_dump(json.dumps(obj).encode()).to_json()["responses"][0]
    assert response["streamed"] is False
    assert (response["status"], response["status_detail"]) == ("incomplete", "status in_progress")


def test_an_unknown_event_type_is_reported_not_fatal():
    events = [agent_created(), {"type": "response.sandbox.started"}, *agent_deltas("hi")]
    response = parse_dump(sse(*events)).to_json()["responses"][0]
    assert any(
        d["code"] == "unknown_event" and "response.sandbox.started" in d["message"] for d in response["diagnostics"]
    )
    assert response["text"] == "hi"


def test_events_after_a_completed_response_start_the_next_one():
    results = [(1, "https://example.org/one", "One")]
    raw = sse(agent_created(), *agent_deltas("one[1]"), agent_completed("one[1]", results), *agent_deltas("two[1]"))
    first, second = parse_dump(raw).to_json()["responses"]
    assert (first["status"], second["status"], second["text"]) == ("completed", "incomplete", "two[1]")
    assert second["unresolved"][0]["marker"] == "[1]"  # the first response's sources are not the second's


def test_a_ping_or_an_event_without_a_type_does_not_derail_the_stream():
    text = "x[1]"
    results = [(1, "https://example.org/x", "X")]
    raw = sse(agent_created(), {"type": "ping"}, {"foo": "bar"}, *agent_deltas(text), agent_completed(text, results))
    (response,) = parse_dump(raw).to_json()["responses"]
    assert response["status"] == "completed" and response["api"] == "perplexity.agent"
    assert any("without a type" in d["message"] for d in response["diagnostics"] if d["code"] == "unknown_event")


def test_a_single_saved_completed_event_is_read_as_its_response():
    text = "x[1]"
    raw = json.dumps(agent_completed(text, [(1, "https://example.org/x", "X")])).encode()
    (response,) = parse_dump(raw).to_json()["responses"]
    assert (response["text"], response["status"], len(response["citations"])) == (text, "completed", 1)


def test_fields_of_the_wrong_type_are_not_copied_into_the_contract():
    obj = agent_object("x[1][2]", [])
    obj.update(id=123, model={"x": [1]})
    obj["output"][0]["results"] = [
        {"id": 1.0, "url": "https://a.example", "title": 5},
        {"id": True, "url": "https://b.example", "title": "b"},
    ]
    response = parse_dump(json.dumps(obj).encode()).to_json()["responses"][0]
    assert (response["id"], response["model"]) == (None, None)
    assert [(s["key"], s["title"]) for s in response["sources"]] == [("1", None), ("unnumbered-2", "b")]
    assert [m["marker"] for m in response["unresolved"]] == ["[2]"]


def test_a_string_id_that_looks_like_a_conflict_key_stays_distinct():
    obj = agent_object("x[2]", [])
    obj["output"][0]["results"] = [
        {"id": "2#2", "url": "https://a.example"},
        {"id": 2, "url": "https://b.example"},
        {"id": 2, "url": "https://c.example"},
    ]
    keys = [s["key"] for s in parse_dump(json.dumps(obj).encode()).to_json()["responses"][0]["sources"]]
    assert len(keys) == len(set(keys)) == 3
