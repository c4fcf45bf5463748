"""The marker rule (issue 44): in any answer, whoever relayed it, each marker Markdown shows as text
(``[N]``, ``[N][M]``, ``[N, M]``, ``【N】``, ``[^N]``, …) links to its source or is flagged unresolved
with the reason. Where a dump lists its sources in order and places none, marker N names the N-th;
elsewhere a number names nothing, said. Markers a reader placed stay as it placed them.

``tests/fixtures/openrouter/openrouter-sonar-relay-zero-width-built.json`` was written for these
tests, in the shape of the failing recording of issue 44 (which is not available): OpenRouter relaying
a Perplexity Sonar answer whose ten annotations are all at 0–0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeview.core.parsing.parse import parse_dump
from tests.builders import sonar_object

RELAY = Path(__file__).parents[2] / "fixtures" / "openrouter" / "openrouter-sonar-relay-zero-width-built.json"


def read(value: dict[str, Any]) -> dict[str, Any]:
    (response,) = parse_dump(json.dumps(value, ensure_ascii=False).encode()).to_json()["responses"]
    return response


def relay(content: str) -> dict[str, Any]:
    """The built relay with another answer, its ten annotations unchanged."""
    value: dict[str, Any] = json.loads(RELAY.read_bytes())
    value["choices"][0]["message"]["content"] = content
    return value


def chat(content: str) -> dict[str, Any]:
    """An OpenAI chat completion: no list its sources are numbered by."""
    return {
        "id": "chatcmpl-markerrule",
        "object": "chat.completion",
        "created": 1795000000,
        "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
    }


def linked(response: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Each marker citation: the text it stands on, and the URLs it links to."""
    urls = {s["key"]: s["url"] for s in response["sources"]}
    return [
        (response["text"][c["start"] : c["end"]], [urls[k] for k in c["source_keys"]])
        for c in response["citations"]
        if c["marker"]
    ]


def flagged(response: dict[str, Any]) -> list[str]:
    """Each unresolved marker as the text shows it, checked to carry its reason."""
    reasons = {d["details"]["start"] for d in response["diagnostics"] if d["code"] == "unresolved_marker"}
    assert all(m["start"] in reasons for m in response["unresolved"])
    assert all(response["text"][m["start"] : m["end"]] == m["marker"] for m in response["unresolved"])
    return [m["marker"] for m in response["unresolved"]]


def reason(response: dict[str, Any], marker: str) -> str:
    return next(
        d["message"]
        for d in response["diagnostics"]
        if d["code"] == "unresolved_marker" and d["details"]["marker"] == marker
    )


def test_an_openrouter_relay_of_sonar_links_each_marker_to_the_annotation_at_its_position():
    response = parse_dump(RELAY.read_bytes()).to_json()["responses"][0]
    pages = [s["url"] for s in response["sources"]]
    assert linked(response) == [
        ("[1]", ["https://www.example.org/tokyo-population"]),
        ("[3]", ["https://example.jp/統計/人口"]),
        ("[4]", ["https://news.example.com/2026/tokyo"]),
        ("[3]", ["https://example.jp/統計/人口"]),
        ("[3]", ["https://example.jp/統計/人口"]),
    ]
    assert response["unresolved"] == []
    # The pages no marker names stay listed as cited without a place; the named ones are placed.
    assert response["cited_without_position"] == [p for n, p in enumerate(pages, 1) if n not in (1, 3, 4)]
    (note,) = [d for d in response["diagnostics"] if d["code"] == "markers_by_position"]
    assert note["severity"] == "info"
    assert note["details"] == {"list": "annotations", "count": 10, "resolved": 5}
    assert "resolved by position" in note["message"]


def test_the_note_that_markers_were_read_by_position_is_said_in_japanese():
    from django.utils import translation

    response = parse_dump(RELAY.read_bytes()).responses[0]
    (note,) = [d for d in response.diagnostics if d.code == "markers_by_position"]
    with translation.override("ja"):
        said = note.message.text(translation.gettext)
    assert said.startswith("レスポンスの annotations は") and "[N]" in said


def test_markers_amid_japanese_text_are_placed_on_the_marker_in_code_points():
    response = read(relay("東京都の人口は約1400万人です[3]。大阪府は約880万人[5][6]。🎌[2]"))
    assert linked(response) == [
        ("[3]", ["https://example.jp/統計/人口"]),
        ("[5]", ["https://www.example.org/osaka"]),
        ("[6]", ["https://data.example.gov/metro"]),
        ("[2]", ["https://www.example.net/census"]),
    ]
    assert response["citations"][0]["start"] == len("東京都の人口は約1400万人です")


def test_a_number_past_the_listed_sources_is_flagged_never_guessed():
    response = read(relay("Tokyo is large.[2][11] 大阪[0]。"))
    assert linked(response) == [("[2]", ["https://www.example.net/census"])]
    assert flagged(response) == ["[11]", "[0]"]
    assert "annotations list 10 source(s) in order" in reason(response, "[11]")


def test_a_sonar_citations_list_names_the_sources_of_other_notations_by_position():
    one, two, three = "https://example.org/one", "https://example.org/two", "https://example.org/three"
    response = read(sonar_object("東京【2】、大阪[1, 3]、京都[^3]、奈良［１］。範囲[1-2]", [one, two, three]))
    assert linked(response) == [
        ("【2】", [two]),
        ("[1, 3]", [one, three]),
        ("[^3]", [three]),
        ("［１］", [one]),
        ("[1-2]", [one, two]),
    ]
    assert flagged(response) == []
    assert "unknown_notation" not in [d["code"] for d in response["diagnostics"]]
    assert [d["details"]["resolved"] for d in response["diagnostics"] if d["code"] == "markers_by_position"] == [5]


def test_a_sonar_token_naming_a_position_past_citations_is_flagged():
    response = read(sonar_object("東京【4】、大阪[2, 9]。", ["https://example.org/one", "https://example.org/two"]))
    assert flagged(response) == ["【4】", "[2, 9]"]
    assert "citations list 2 source(s) in order" in reason(response, "[2, 9]")


def test_without_numbered_sources_every_form_of_marker_is_flagged_with_the_reason():
    response = read(chat("東京[1][2]。大阪【3】、京都[^4]、奈良[1, 2]、神戸[static_doc_1]。"))
    assert response["citations"] == []
    assert flagged(response) == ["[1]", "[2]", "【3】", "[^4]", "[1, 2]", "[static_doc_1]"]
    assert "does not number its sources" in reason(response, "[1]")
    assert "does not number its sources" in reason(response, "【3】")
    assert "notation citeview does not read" in reason(response, "[static_doc_1]")
    # Only the notation it cannot read is named as one: 【3】 and [1, 2] are read, and name no source.
    (unknown,) = [d for d in response["diagnostics"] if d["code"] == "unknown_notation"]
    assert unknown["details"]["tokens"] == ["[static_doc_1]"]


def test_markers_in_code_link_text_and_link_addresses_are_left_as_written():
    text = "See `x[1]` and [2](https://example.org/a) and <https://example.org/[3]> but not [4].\n\n```\n[5]\n```"
    for response in (read(chat(text)), read(relay(text))):
        assert [m["marker"] for m in response["unresolved"]] + [m for m, _ in linked(response)] == ["[4]"]
        assert "not_a_marker" not in [d["code"] for d in response["diagnostics"]]


def test_a_marker_the_reader_placed_stays_as_it_placed_it_and_the_others_are_flagged():
    lenticular = Path(__file__).parents[2] / "fixtures" / "openai" / "openai-responses-lenticular-markers-built.json"
    value = json.loads(lenticular.read_bytes())
    content = value["output"][1]["content"][0]
    before = read(value)
    content["text"] += "詳細は就業規則による[2]。"
    after = read(value)
    assert after["citations"] == before["citations"]  # the file citation on 【4:0†source】, as the reader placed it
    assert flagged(after) == [*flagged(before), "[2]"]


def test_a_reader_that_resolves_its_own_markers_keeps_its_reading():
    one, two = "https://example.org/one", "https://example.org/two"
    response = read(sonar_object("東京[1]。大阪[3]。京都【2】。", [one, two]))
    assert linked(response) == [("[1]", [one]), ("【2】", [two])]
    assert flagged(response) == ["[3]"]
    assert reason(response, "[3]") == "[3] points at no entry in citations (the response lists 2)."


def test_a_range_names_each_number_but_a_token_naming_hundreds_is_flagged_as_a_notation():
    cited = read(relay("東京は大きい[1-3]。"))
    assert [(c["marker"], len(c["source_keys"])) for c in cited["citations"]] == [("[1-3]", 3)]
    # Each number named would be a citation: [1-999,1-999,…] is flagged, not expanded into 200,000.
    flood = read(relay("東京は大きい[" + ",".join(["1-999"] * 200) + "]。"))
    assert not flood["citations"]
    assert "unknown_notation" in [d["code"] for d in flood["diagnostics"]]


def test_a_number_inside_a_cited_sentence_is_still_flagged():
    # Claude cites the whole sentence; the [2] the model wrote in it names nothing Claude lists.
    citation = {"type": "web_search_result_location", "url": "https://example.org/tokyo", "title": "Tokyo"}
    cited = {
        "type": "text",
        "text": "東京の人口は約1400万人です[2]。",
        "citations": [citation | {"cited_text": "約1400万人"}],
    }
    message = {
        "id": "msg_markerrule",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [{"type": "text", "text": "概要。"}, cited],
    }
    response = read(message)
    assert len(response["citations"]) == 1 and response["citations"][0]["marker"] is None
    assert [(m["marker"], response["text"][m["start"] : m["end"]]) for m in response["unresolved"]] == [("[2]", "[2]")]
