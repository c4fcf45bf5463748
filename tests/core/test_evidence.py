"""Numbers compared between claim and quote, locations in words, links to the quoted passage."""

from __future__ import annotations

import json

from citeview.core.numbers import mark_numbers_in_html, number_values
from citeview.core.parse import parse_dump
from citeview.core.rendering.evidence import evidence_rows, location_words, text_fragment_url
from tests.conftest import own_fixture


def test_full_width_and_grouped_numbers_are_the_same_value():
    assert number_values("２０２６年、1,250万人、2.50ドル") == number_values("2026年 1250万人 2.5ドル")


def test_a_changed_percentage_is_marked_on_both_sides():
    rows = evidence_rows(parse_dump(own_fixture("claude-ja-documents-exchange.json")).to_json()["responses"][0], {})
    first, second, third = rows
    assert '<mark class="cv-number-diff">80</mark>' in first["claim_html"]
    assert '<mark class="cv-number-diff">62</mark>' in first["passages"][0]["quote_html"]
    assert first["numbers_differ"] and not second["numbers_differ"]  # ２０２６年４月１日 = 2026年4月1日
    assert '<mark class="cv-number-diff">1,520</mark>' in third["passages"][0]["quote_html"]


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
    from citeview.core.rendering.markdown import MAX_MARKDOWN_CHARS

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


def test_a_span_citing_two_retrieved_passages_shows_each_beside_the_claim():
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
    }
    (row,) = evidence_rows(response, {"0": "1", "1": "2", "2": "3"})
    assert [p["title"] for p in row["passages"]] == ["案内A", "案内B"]  # a search excerpt is not the page
    # A passage the dump holds says more than the claim: only the claim's own numbers are compared.
    assert not row["numbers_differ"] and "cv-number-diff" not in row["passages"][1]["quote_html"]
    response["sources"][0]["extra"]["snippet"] = "11時開館"
    (row,) = evidence_rows(response, {"0": "1", "1": "2", "2": "3"})
    assert row["numbers_differ"] and '<mark class="cv-number-diff">9</mark>' in row["claim_html"]
