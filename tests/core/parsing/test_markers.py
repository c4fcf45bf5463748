"""Where ``[N]`` is a citation marker and where it is not: the Markdown parse decides, and every
candidate it does not show as text says what it is instead. Tokens of notations citeview does not
read (``[static_doc_1]``) are named, once per answer, by every API that writes markers."""

from __future__ import annotations

import json

from citeview.core.parsing.markers import MARKER, read_markers, thinking_end
from citeview.core.parsing.parse import parse_dump
from tests.builders import agent_object, sonar_object


def markers(text: str) -> list[str]:
    return [m.text for m in read_markers(text).markers]


def not_markers(text: str) -> list[tuple[str, str, str]]:
    return [(n.match.text, n.part, n.url) for n in read_markers(text).not_markers]


def test_plain_and_web_markers_are_found_with_code_point_offsets():
    found = read_markers("東京[1]、大阪[web:2]").markers
    assert [(m.text, m.ref, m.start, m.end, m.is_web) for m in found] == [
        ("[1]", "1", 2, 5, False),
        ("[web:2]", "2", 8, 15, True),
    ]


def test_code_spans_fences_and_indented_code_hide_markers():
    text = "a `x[1]` b ``y[2]`` c[3]\n\n```\nz[4]\n```\n\n~~~js\nw[5]\n~~~\n\n    v[6]\n"
    assert markers(text) == ["[3]"]


def test_list_continuations_are_not_code():
    assert markers("- item\n\n    continued[7]\n") == ["[7]"]


def test_link_labels_and_escapes_are_not_markers_and_say_what_they_are():
    text = "[1](https://example.org) and\n\\[3] but \\\\[4]"
    assert markers(text) == ["[4]"]
    assert not_markers(text) == [("[1]", "link_text", "https://example.org"), ("[3]", "escaped", "")]


def test_a_definition_like_line_inside_a_paragraph_is_text_so_its_marker_counts():
    # A link reference definition cannot interrupt a paragraph: Markdown shows this line as text.
    assert markers("東京は首都です。\n[2]: https://example.org") == ["[2]"]


def test_a_marker_before_parentheses_that_make_no_link_is_a_marker():
    assert markers("東京[1](2020年)、大阪[2] (注)") == ["[1]", "[2]"]


def test_a_reference_definition_labelled_with_a_marker_is_text_and_its_marker_counts():
    # Markdown would make every [1] a link to evil.example; a marker's number is the provider's.
    assert markers("東京[1]。\n\n[1]: https://evil.example\n\n[web:2]: https://evil.example") == [
        "[1]",
        "[1]",
        "[web:2]",
    ]


def test_a_marker_in_a_link_address_or_title_or_definition_names_the_address():
    text = '<https://a.example/[3]> [t](https://b.example/日本 "see [4]")\n\n[d]: https://d.example/[5]\n'
    assert not_markers(text) == [
        ("[3]", "link_address", "https://a.example/[3]"),
        ("[4]", "link_address", "https://b.example/日本"),
        ("[5]", "reference_definition", "https://d.example/[5]"),
    ]


def test_a_reference_link_the_answer_writes_keeps_its_marker_as_the_link_text():
    text = "[1][d] and [2]\n\n[d]: https://d.example"
    assert markers(text) == ["[2]"] and not_markers(text) == [("[1]", "link_text", "https://d.example")]


def test_a_marker_nested_past_what_markdown_renders_says_so():
    text = "> " * 150 + "深い[1]\n\n浅い[2]"
    assert markers(text) == ["[2]"] and not_markers(text) == [("[1]", "too_deep", "")]


def test_markers_in_code_say_so():
    assert not_markers("`a[1]`\n\n```\nb[2]\n```") == [("[1]", "code", ""), ("[2]", "code", "")]


def test_every_candidate_is_a_marker_or_a_not_marker_exactly_once():
    text = "<think>[9]</think>a[1] `b[2]` [3](https://x.example) \\[4] [5]\n\n[6]: https://y.example\n\n" + "[7]" * 50
    read = read_markers(text)
    found = sorted([m.start for m in read.markers] + [n.match.start for n in read.not_markers])
    assert found == [m.start() for m in MARKER.finditer(text, thinking_end(text))]


def test_an_unclosed_backtick_does_not_hide_the_rest():
    assert markers("it costs `5 dollars[1]") == ["[1]"]


def test_a_reasoning_section_cites_nothing():
    assert markers("<think>maybe [1] or `x[2]` [3]</think>The answer[4]") == ["[4]"]
    assert markers("<think>cut off while thinking [5]") == []


def test_brackets_in_link_destinations_autolinks_and_link_text_are_not_markers():
    text = "See [docs](https://x.example/?q=[1]) and <https://y.example/[2]> and [text [3]](https://z.example) end[4]"
    assert markers(text) == ["[4]"]


def test_a_backtick_does_not_pair_across_list_items_or_headings():
    assert markers("- Type `ls\n- Then read the manual[1] and `man ls`.") == ["[1]"]
    assert markers("Old manuals call it `grep' in quotes[1].\n## Usage\nRun `grep -r` here[2].") == ["[1]", "[2]"]


def test_only_a_leading_think_section_hides_markers():
    assert markers("Models emit a `<think>` block.[1] Also see[2].") == ["[1]", "[2]"]
    assert markers("Text <think> inline [1]") == ["[1]"]


def test_full_width_and_other_digits_are_not_markers():
    assert markers("条件[２] and [٢] and [02]") == ["[02]"]


def test_a_marker_in_a_table_cell_past_the_headers_columns_says_so():
    # Markdown drops such a cell without a trace; the marker is reported, not lost.
    assert not_markers("| a | b |\n|---|---|\n| x | y | [1] |") == [("[1]", "table_cell", "")]


def test_a_marker_in_a_second_definition_of_a_label_says_so():
    text = "[d]: https://a.example\n\n[d]: https://b.example/[1]"
    assert not_markers(text) == [("[1]", "reference_definition", "https://b.example/[1]")]


def test_a_marker_on_the_opening_line_of_a_fence_is_code():
    assert not_markers("~~~~ x[1]\ny[2]\n~~~~") == [("[1]", "code", ""), ("[2]", "code", "")]


def unknown(text: str) -> list[str]:
    return [token.text for token in read_markers(text).unknown]


def test_marker_like_tokens_of_other_notations_are_found_where_the_answer_shows_them():
    text = (
        "東京は首都です[static_doc_1]。人口は[doc2]、[ref:3] と [source-4]。[1, 2] [1-3] [^5] [２]\n\n"
        "【6】 【4:0†source】 ［7］ ok[8] [web:9]"
    )
    assert unknown(text) == [
        "[static_doc_1]",
        "[doc2]",
        "[ref:3]",
        "[source-4]",
        "[1, 2]",
        "[1-3]",
        "[^5]",
        "[２]",
        "【6】",
        "【4:0†source】",
        "［7］",
    ]
    assert markers(text) == ["[8]", "[web:9]"]  # the markers are read as before


def test_words_years_and_links_in_brackets_are_not_taken_for_a_notation():
    text = "[COVID-19] [2020-2023] [docs] [資料] [x] [ ] `[doc_1]` [doc_2](https://x.example)\n\n```\n[doc_3]\n```"
    assert unknown(text) == []


def test_tokens_in_the_reasoning_section_are_not_read():
    assert unknown("<think>[static_doc_1]</think>答え[static_doc_2]") == ["[static_doc_2]"]


def test_every_api_that_writes_markers_names_the_tokens_it_cannot_read():
    text = "東京は首都です[static_doc_1]。人口は約1400万人です[static_doc_2][1]。大阪[static_doc_1]。"
    dumps = {
        "perplexity.sonar": sonar_object(text, ["https://example.jp/1"]),
        "perplexity.agent": agent_object(text, [(1, "https://example.jp/1", "東京都")]),
    }
    for api, dump in dumps.items():
        response = parse_dump(json.dumps(dump, ensure_ascii=False).encode()).to_json()["responses"][0]
        (notation,) = [d for d in response["diagnostics"] if d["code"] == "unknown_notation"]
        assert response["api"] == api and notation["severity"] == "warning"
        assert notation["details"]["tokens"] == ["[static_doc_1]", "[static_doc_2]"]
        assert notation["details"]["count"] == 3 and notation["details"]["first"] == [7, 21]
        assert "[static_doc_1] [static_doc_2]" in notation["message"] and "(3 in all)" in notation["message"]
        assert [c["marker"] for c in response["citations"]] == ["[1]"]  # the marker it reads still cites


def test_an_answer_in_the_notation_it_reads_gets_no_such_warning():
    dump = sonar_object("東京[1]、大阪[2]。`[doc_1]` は例です。", ["https://example.jp/1", "https://example.jp/2"])
    response = parse_dump(json.dumps(dump, ensure_ascii=False).encode()).to_json()["responses"][0]
    assert not [d for d in response["diagnostics"] if d["code"] == "unknown_notation"]
