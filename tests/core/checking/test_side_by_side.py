"""Numbers compared between claim and quote, locations in words, links to the quoted passage."""

from __future__ import annotations

import json
from typing import Any

from citeview.core.checking.side_by_side import evidence_rows, location_words
from citeview.core.common.links import text_fragment_url
from citeview.core.common.numbers import mark_numbers_in_html, number_values
from citeview.core.parsing.parse import parse_dump
from tests.conftest import own_fixture


def test_full_width_and_grouped_numbers_are_the_same_value():
    assert number_values("２０２６年、1,250万人、2.50ドル") == number_values("2026年 1250万人 2.5ドル")


def test_a_changed_percentage_is_marked_on_both_sides():
    rows = evidence_rows(parse_dump(own_fixture("claude-ja-documents-exchange.json")).to_json()["responses"][0], {})
    first, second, third = rows
    assert '<mark class="cv-number-diff">80</mark>' in first["claim_html"]
    assert '<mark class="cv-number-diff">62</mark>' in first["passages"][0]["quote_html"]
    assert first["differences"] == ["figure"] and not second["differences"]  # ２０２６年４月１日 = 2026年4月1日
    assert '<mark class="cv-number-diff">1,520万</mark>' in third["passages"][0]["quote_html"]


def test_marking_never_breaks_an_entity_or_a_tag():
    html = '<a href="#cv-r0-src-12" title="x">&#39;12&#39;</a> 12'
    assert mark_numbers_in_html(html, {"12"}) == (
        '<a href="#cv-r0-src-12" title="x">&#39;<mark class="cv-number-diff">12</mark>&#39;</a> '
        '<mark class="cv-number-diff">12</mark>'
    )


def test_locations_read_as_words():
    assert location_words({"type": "char", "start": 120, "end": 245}, {}) == "chars 120–245"
    assert location_words({"type": "page", "start": 3, "end": 5}, {}) == "p. 3–4"
    assert location_words({"type": "page", "start": 3, "end": 4}, {}) == "p. 3"
    assert location_words({"type": "block", "start": 2, "end": 4}, {}) == "blocks 2–3"
    assert location_words(None, {"url": "https://www.example.org/x"}) == "example.org"


def test_web_quotes_link_to_the_passage_with_a_text_fragment():
    url = text_fragment_url("https://example.org/a", "Canberra is the capital ... the federal parliament sits")
    assert url == "https://example.org/a#:~:text=the%20federal%20parliament%20sits"  # the longest unelided stretch
    long = text_fragment_url(
        "https://example.org/a#top", "one two three four five six seven eight nine ten eleven-twelve"
    )
    assert (
        long
        == "https://example.org/a#top:~:text=one%20two%20three%20four%20five,seven%20eight%20nine%20ten%20eleven%2Dtwelve"
    )


def test_signs_decimal_commas_and_names_with_digits_are_read_as_a_reader_would():
    assert number_values("25%") != number_values("2,5%")
    assert number_values("-5 °C") != number_values("5 °C")
    assert number_values("COVID-19 と GPT-4 の 80%") == {"80"}
    assert number_values("回答者の80%") == {"80"}


def test_evidence_is_listed_for_the_rendered_part_of_a_long_answer_only():
    from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS

    def cited(text: str) -> dict:
        citation = {
            "type": "web_search_result_location",
            "cited_text": text,
            "url": "https://example.jp/",
            "title": "例",
        }
        return {"type": "text", "text": text, "citations": [{**citation, "encrypted_index": "x"}]}

    blocks = [cited("最初の文。"), {"type": "text", "text": "あ" * MAX_MARKDOWN_CHARS}, cited("最後の文。")]
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "content": blocks}
    response = parse_dump(json.dumps({**message, "stop_reason": "end_turn"}).encode()).to_json()["responses"][0]
    assert len(response["citations"]) == 2
    rows = evidence_rows(response, {})
    assert [row["passages"][0]["quote_html"] for row in rows] == ["最初の文。"]


def test_a_span_citing_three_sources_shows_each_text_beside_the_claim_labelled_by_what_it_is():
    passage = {"snippet_kind": "retrieved_passage"}
    response = {
        "text": "開館は9時です。",
        "sources": [
            {"key": "0", "kind": "document", "url": None, "title": "案内A", "extra": {**passage, "snippet": "9時開館"}},
            {
                "key": "1",
                "kind": "document",
                "url": None,
                "title": "案内B",
                "extra": {**passage, "snippet": "10時開館"},
            },
            {
                "key": "2",
                "kind": "web",
                "url": None,
                "title": "検索",
                "extra": {"snippet": "9時", "snippet_kind": "search_snippet"},
            },
        ],
        "citations": [
            {"start": 0, "end": 8, "marker": None, "source_keys": ["0", "1", "2"], "cited_text": None, "location": None}
        ],
        "unresolved": [],
    }
    (row,) = evidence_rows(response, {"0": "1", "1": "2", "2": "3"})
    passages = row["passages"]
    assert [(p["title"], p["kind"]) for p in passages] == [
        ("案内A", "retrieved_passage"),
        ("案内B", "retrieved_passage"),
        ("検索", "search_snippet"),  # shown, and labelled: an excerpt is not the page
    ]
    # Two of them say 9時 as the claim does; the one that says 10時 is marked on its side.
    assert "cv-number-diff" not in row["claim_html"]
    assert '<mark class="cv-number-diff">10</mark>' in passages[1]["quote_html"]
    assert row["differences"] == ["figure"]
    response["sources"][0]["extra"]["snippet"] = "11時開館"
    response["sources"][2]["extra"]["snippet"] = "開館時間のご案内"
    (row,) = evidence_rows(response, {"0": "1", "1": "2", "2": "3"})
    assert '<mark class="cv-number-diff">9</mark>' in row["claim_html"]  # none of the three says 9時


def _marker_response(text: str, snippet: str, snippet_kind: str = "search_snippet") -> dict[str, Any]:
    marker = text.index("[1]")
    return {
        "text": text,
        "sources": [
            {
                "key": "1",
                "kind": "web",
                "url": "https://www.example.go.jp/a",
                "title": "A",
                "extra": {"snippet": snippet, "snippet_kind": snippet_kind},
            }
        ],
        "citations": [
            {
                "start": marker,
                "end": marker + 3,
                "marker": "[1]",
                "source_keys": ["1"],
                "cited_text": None,
                "location": None,
            }
        ],
        "unresolved": [],
    }


def test_a_marker_claims_its_sentence_and_its_search_snippet_stands_beside_it():
    response = _marker_response(
        "前置きです。申請は令和6年4月1日から受け付けます[1]。次の文。", "申請は2023年4月1日から受け付けます。"
    )
    (row,) = evidence_rows(response, {"1": "1"})
    assert "前置き" not in row["claim_html"] and "次の文" not in row["claim_html"]
    (passage,) = row["passages"]
    assert passage["kind"] == "search_snippet"
    # 令和6年 is 2024: the years differ, marked on both sides.
    assert '<mark class="cv-number-diff">令和6年4月1日</mark>' in row["claim_html"]
    assert '<mark class="cv-number-diff">2023年4月1日</mark>' in passage["quote_html"]
    assert row["differences"] == ["date"]
    assert passage["link"].startswith("https://www.example.go.jp/a#:~:text=")


def test_a_negation_on_one_side_only_is_marked_on_both():
    response = _marker_response("この手当は所得制限がありません[1]。", "この手当には所得制限があります。")
    (row,) = evidence_rows(response, {"1": "1"})
    assert '<mark class="cv-negation-diff">ません</mark>' in row["claim_html"]
    assert row["differences"] == ["negation"]
    english = _marker_response("The allowance is not means-tested [1].", "The allowance is means-tested.")
    (row,) = evidence_rows(english, {"1": "1"})
    assert '<mark class="cv-negation-diff">not</mark>' in row["claim_html"]


def test_a_full_width_date_reads_as_the_same_date():
    response = _marker_response("受付は２０２４年４月１日からです[1]。", "受付は2024年4月1日から。")
    (row,) = evidence_rows(response, {"1": "1"})
    assert row["differences"] == [] and "<mark" not in row["claim_html"] + row["passages"][0]["quote_html"]


def test_a_long_text_the_dump_holds_is_shown_at_the_passage_that_matches_the_claim():
    filler = "".join(f"第{n}条は別の手続について定める。" for n in range(400))
    document = filler + "高額療養費の自己負担限度額は月額8万円である。" + filler
    response = _marker_response("高額療養費の自己負担限度額は月額9万円です[1]。", document, "document_text")
    (row,) = evidence_rows(response, {"1": "1"})
    (passage,) = row["passages"]
    assert passage["found"] is True and passage["kind"] == "document_text"
    assert '<mark class="cv-number-diff">8万</mark>' in passage["quote_html"]
    assert "第0条" not in passage["quote_html"]
    unrelated = _marker_response("高額療養費の自己負担限度額は月額9万円です[1]。", filler * 2, "document_text")
    (row,) = evidence_rows(unrelated, {"1": "1"})
    # No passage matches: the text's beginning is shown, about something else. It does not state the
    # claim's figure, which is said quietly and marked on neither side.
    assert row["passages"][0]["found"] is False and "<mark" not in row["passages"][0]["quote_html"]
    assert "<mark" not in row["claim_html"] and row["differences"] == []
    assert row["passages"][0]["hints"] == [{"outcome": "not_stated", "kind": "figure"}]


def test_a_quote_is_labelled_checked_only_when_it_was_checked_against_a_document():
    exchange = parse_dump(own_fixture("claude-ja-documents-exchange.json")).to_json()["responses"][0]
    # The exchange holds the request's documents: its quotes were checked, the one that differs too.
    assert {p["kind"] for row in evidence_rows(exchange, {}) for p in row["passages"]} == {"checked_quote"}
    search = parse_dump(own_fixture("claude-content-blocks-search-results.json")).to_json()["responses"][0]
    assert {p["kind"] for row in evidence_rows(search, {}) for p in row["passages"]} == {"quote"}


def test_markers_side_by_side_cite_one_sentence_shown_once_without_its_list_mark():
    response = _marker_response("- 受付は9時からです[1][3]。", "受付は9時から。")
    second = dict(response["citations"][0], start=response["text"].index("[3]"), marker="[3]", source_keys=["3"])
    second["end"] = second["start"] + 3
    response["citations"].append(second)
    response["sources"].append(dict(response["sources"][0], key="3", title="B", extra={"snippet": "受付は10時から。"}))
    (row,) = evidence_rows(response, {"1": "1", "3": "3"})
    assert row["claim_html"] == "受付は9時からです"
    assert [p["title"] for p in row["passages"]] == ["A", "B"]
    assert '<mark class="cv-number-diff">10</mark>' in row["passages"][1]["quote_html"]


def test_a_claim_reads_without_its_inline_citation_link_or_brackets():
    # OpenAI's web search writes its citations into the answer: "([reuters.com](https://…))".
    from citeview.core.checking.side_by_side import claim_words

    assert claim_words("Sales rose 3% in 2025 ([reuters.com](https://www.reuters.com/a?utm_source=openai)).") == (
        "Sales rose 3% in 2025."
    )
    assert claim_words("See [the report](https://example.org/r) for 2025.") == "See the report for 2025."
    assert claim_words("report](https://example.org/r) says 2025.") == "report says 2025."
