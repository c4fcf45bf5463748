"""Statements: where an answer is cut into sentences, list items and table cells, and which statement
each citation and unresolved marker belongs to."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import pytest

from citeview.core.checking.statements import Statement, statements
from citeview.core.parsing.parse import parse_dump
from tests.conftest import own_fixture


def response(text: str, citations: Sequence[dict[str, Any]] = (), unresolved: Sequence[dict[str, Any]] = ()) -> dict:
    return {"text": text, "citations": list(citations), "unresolved": list(unresolved)}


def texts(text: str) -> list[str]:
    return [s.text for s in statements(response(text))]


def marker_at(text: str, marker: str, occurrence: int = 0) -> dict[str, Any]:
    """A citation for the ``occurrence``-th ``marker`` in ``text``."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(marker, start + 1)
    return {"start": start, "end": start + len(marker), "marker": marker, "source_keys": ["1"]}


def span(start: int, end: int) -> dict[str, Any]:
    return {"start": start, "end": end, "marker": None, "source_keys": ["0"]}


def unresolved_at(text: str, marker: str) -> dict[str, Any]:
    start = text.index(marker)
    return {"marker": marker, "ref": marker.strip("[]"), "start": start, "end": start + len(marker)}


def homes(found: list[Statement]) -> list[tuple[str, list[int], list[int]]]:
    return [(s.text, s.citations, s.unresolved) for s in found]


def test_japanese_sentences_end_at_full_width_terminators():
    assert texts("東京は日本の首都です。大阪は西日本最大の都市です！本当ですか？はい．次に京都") == [
        "東京は日本の首都です。",
        "大阪は西日本最大の都市です！",
        "本当ですか？",
        "はい．",
        "次に京都",
    ]


def test_closing_brackets_stay_and_a_quotation_inside_a_sentence_does_not_end_it():
    assert texts("「はい。」と彼は言った。（注：推定値です。）次に、人口は2．5倍です。") == [
        "「はい。」と彼は言った。",
        "（注：推定値です。）",
        "次に、人口は2．5倍です。",
    ]
    assert texts('He said "it rains." Then (it did.) It stopped.') == [
        'He said "it rains."',
        "Then (it did.)",
        "It stopped.",
    ]


def test_english_periods_end_sentences_only_before_whitespace():
    text = (
        "Revenue grew 2.5% to 1,000.5 million. See https://example.com/a.b?x=1. "
        "Version v1.2.3 ships `pip install x. y` today! Is it stable? Yes"
    )
    assert texts(text) == [
        "Revenue grew 2.5% to 1,000.5 million.",
        "See https://example.com/a.b?x=1.",
        "Version v1.2.3 ships `pip install x. y` today!",
        "Is it stable?",
        "Yes",
    ]


def test_a_url_runs_to_a_closing_bracket_and_japanese_punctuation_is_not_part_of_it():
    assert texts("出典はhttps://example.jp/a.b。詳細は[こちら](https://x.org/p?q=1.2)です。") == [
        "出典はhttps://example.jp/a.b。",
        "詳細は[こちら](https://x.org/p?q=1.2)です。",
    ]


def test_initialisms_and_enumerators_are_not_sentence_ends():
    assert texts("In the U.S. it rained at 10 a.m. on Monday. **1. Background** comes first.") == [
        "In the U.S. it rained at 10 a.m. on Monday.",
        "**1. Background** comes first.",
    ]


def test_emphasis_closing_a_sentence_stays_with_it():
    assert texts("**It rains.** It snows.") == ["**It rains.**", "It snows."]
    assert texts("**東京は首都です。**大阪は都市です。**京都**は古都です。") == [
        "**東京は首都です。**",
        "大阪は都市です。",
        "**京都**は古都です。",
    ]


def test_markers_after_a_terminator_belong_to_the_sentence_before():
    text = "東京は首都です。[1]大阪は都市です。 [2]It rains.[3][4] It snows. [5] Done."
    found = statements(response(text, [marker_at(text, f"[{n}]") for n in range(1, 6)]))
    assert homes(found) == [
        ("東京は首都です。[1]", [0], []),
        ("大阪は都市です。 [2]", [1], []),
        ("It rains.[3][4]", [2, 3], []),
        ("It snows. [5]", [4], []),
        ("Done.", [], []),
    ]


def test_web_markers_found_by_the_parser_attach_like_numbers():
    text = "It rains.[web:3] Next."
    found = statements(response(text, [marker_at(text, "[web:3]")]))
    assert homes(found) == [("It rains.[web:3]", [0], []), ("Next.", [], [])]


def test_an_openai_source_link_after_a_sentence_belongs_to_it():
    text = "It rains. ([bbc.com](https://bbc.com/x?utm_source=openai)) It snows.\nIt hails. [Met](https://met.uk/a)\n"
    link = text.index("([bbc")
    met = text.index("[Met]")
    found = statements(response(text, [span(link + 1, text.index(")) ") + 1), span(met, text.index(")\n") + 1)]))
    assert homes(found) == [
        ("It rains. ([bbc.com](https://bbc.com/x?utm_source=openai))", [0], []),
        ("It snows.", [], []),
        ("It hails. [Met](https://met.uk/a)", [1], []),
    ]


def test_list_items_headings_and_quotes_are_statements_without_their_markdown_prefix():
    text = (
        "## 概要\n\n"
        "- 東京は首都です[1]\n"
        "- 大阪は都市です。京都は古都です。\n"
        "  二行目も同じ項目です。\n"
        "1. First step\n"
        "2) Second step\n\n"
        "> Quoted claim.\n"
        "# Heading. With a period\n"
    )
    assert texts(text) == [
        "概要",
        "東京は首都です[1]",
        "大阪は都市です。",
        "京都は古都です。",
        "二行目も同じ項目です。",
        "First step",
        "Second step",
        "Quoted claim.",
        "Heading.",
        "With a period",
    ]


def test_a_soft_line_break_continues_a_paragraph_unless_the_line_is_closed():
    text = "This sentence wraps\nonto a second line.\n**結論**\n東京は首都\nです。\n以下の通り：\n次の行\nHard break  \nnext"
    assert texts(text) == [
        "This sentence wraps\nonto a second line.",
        "**結論**",
        "東京は首都\nです。",
        "以下の通り：",
        "次の行\nHard break",
        "next",
    ]


def test_a_table_row_is_one_statement_and_header_and_separator_rows_are_none():
    text = "| 都市 | 人口 |\n|---|:---:|\n| 東京 | 1,400万人[1]。多い |\n| a \\| b | - |\n\n都市 | 人口\n--- | ---\n大阪 | 880万人\n"
    found = statements(response(text, [marker_at(text, "[1]")]))
    assert homes(found) == [
        ("東京 | 1,400万人[1]。多い", [0], []),
        ("a \\| b | -", [], []),
        ("大阪 | 880万人", [], []),
    ]
    assert [s.row for s in found] == [True, True, True]


def test_the_heat_alert_table_is_two_statements_and_a_citation_in_its_header_goes_to_the_statement_before():
    text = (
        "基準を整理します。\n\n| 情報 | 基準（WBGT）[1] | 発表のタイミング |\n|---|---|---|\n"
        "| 熱中症警戒アラート | **33以上** | 前日17時頃・当日5時頃 |\n| 熱中症特別警戒アラート | 35以上（全地点） | 前日14時頃 |\n"
    )
    found = statements(response(text, [marker_at(text, "[1]")]))
    assert homes(found) == [
        ("基準を整理します。", [0], []),
        ("熱中症警戒アラート | **33以上** | 前日17時頃・当日5時頃", [], []),
        ("熱中症特別警戒アラート | 35以上（全地点） | 前日14時頃", [], []),
    ]
    assert [s.row for s in found] == [False, True, True]


def test_pipe_lines_without_a_separator_row_are_rows_too_and_an_empty_row_is_none():
    assert texts("| 東京 | 首都 |\n| | |\n") == ["東京 | 首都"]


def test_fenced_code_is_no_statement_and_what_points_into_it_goes_to_the_statement_before():
    text = "Run this:\n\n```python\nx = 1. y = 2\nprint(x)\n```\n\nThen stop.\n~~~\nunclosed. fence"
    inside = text.index("print")
    found = statements(response(text, [span(inside, inside + 5)]))
    assert homes(found) == [("Run this:", [0], []), ("Then stop.", [], [])]


def test_rules_and_a_lone_marker_line_are_not_statements_and_the_marker_goes_to_the_one_before():
    text = "[0]\n\nIt rains.\n\n---\n\n[1]\n\n* * *\nIt snows.\n==="
    found = statements(response(text, [marker_at(text, "[0]"), marker_at(text, "[1]")]))
    assert homes(found) == [("It rains.", [0, 1], []), ("It snows.", [], [])]


def test_a_span_citation_belongs_to_the_sentence_it_ends_in():
    text = "東京は首都です。大阪は都市です。京都は古都です。 "
    gemini = span(0, text.index("京都"))  # two sentences: it ends in the second
    claude_block = span(text.index("京都"), len(text))  # ends with a space: the sentence before it
    found = statements(response(text, [gemini, claude_block]))
    assert homes(found) == [("東京は首都です。", [], []), ("大阪は都市です。", [0], []), ("京都は古都です。", [1], [])]


def test_an_insertion_point_at_a_sentence_end_belongs_to_that_sentence():
    text = "東京は首都です。大阪は都市です。 It rains. It snows."
    places = [5 + 3, 16, text.index("It snows"), text.index(" It snows"), len(text), 0]
    found = statements(response(text, [span(p, p) for p in places]))
    assert homes(found) == [
        ("東京は首都です。", [0, 5], []),  # 8 ends the first sentence and starts the second: the first
        ("大阪は都市です。", [1], []),
        ("It rains.", [3], []),
        ("It snows.", [2, 4], []),
    ]


def test_unresolved_markers_land_where_they_stand():
    text = "東京は首都です[8]。大阪は都市です。[1][9]\n\n[10]"
    markers = [unresolved_at(text, m) for m in ("[8]", "[9]", "[10]")]
    found = statements(response(text, [marker_at(text, "[1]")], markers))
    assert homes(found) == [("東京は首都です[8]。", [], [0]), ("大阪は都市です。[1][9]", [0], [1, 2])]


def test_blank_and_wordless_texts():
    assert statements(response("")) == []
    assert statements(response(" \n\n ")) == []
    assert statements(response("---\n\n| |\n")) == []
    only_marker = statements(response("[1]", [marker_at("[1]", "[1]")]))
    assert homes(only_marker) == [("[1]", [0], [])]  # nothing reads as a sentence, but the citation needs a home


def test_a_text_without_terminator_is_one_statement():
    found = statements(response("  東京は日本の首都  "))
    assert found == [Statement(0, 2, 10, "東京は日本の首都", [], [])]
    assert found[0].key == "s2-10"


def test_a_leading_reasoning_section_holds_no_statements():
    text = "<think>Maybe. Or not [1].</think>The answer.[2] Yes."
    found = statements(response(text, [marker_at(text, "[2]")]))
    assert homes(found) == [("The answer.[2]", [0], []), ("Yes.", [], [])]


def test_keys_and_indexes_follow_the_text():
    found = statements(response("A one. B two.\n- C three"))
    assert [(s.index, s.key, s.text) for s in found] == [
        (0, "s0-6", "A one."),
        (1, "s7-13", "B two."),
        (2, "s16-23", "C three"),
    ]


def test_a_parsed_claude_answer_in_japanese():
    answer = parse_dump(own_fixture("claude-ja-documents-exchange.json")).to_json()["responses"][0]
    assert homes(statements(answer)) == [
        (
            "資料によると、回答者の80%が値上げを実感したとされ、調査は2026年4月1日から4月14日に行われました。",
            [0, 1],
            [],
        ),
        ("また、大阪府の観光客数は1,250万人で8.5%増でした。", [2], []),
    ]


_SENTENCES = [
    "東京は日本の首都です。",
    "人口は約1,400万人で、前年比2.5%増でした！",
    "本当ですか？",
    "「はい。」と担当者は答えた。",
    "Revenue grew 2.5% in 2024. ",
    "See https://example.com/a.b?x=1. ",
    "Run `pip install x. y` first! ",
    "It rains ",
    "**太字の文です。**",
    "In the U.S. it rained. ",
]
_LINES = ["- ", "1. ", "## ", "> ", "| ", ""]


def _long_answer(rng: random.Random) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """A Markdown answer of about 100,000 characters with marker, span and insertion citations."""
    parts: list[str] = []
    citations: list[dict[str, Any]] = []
    unresolved: list[dict[str, Any]] = []
    length = 0
    while length < 100_000:
        roll = rng.random()
        if roll < 0.03:
            piece = "\n\n```\ncode. [1] `x`\n```\n\n"
        elif roll < 0.06:
            piece = "\n|---|---|\n"
        elif roll < 0.15:
            piece = "\n" + rng.choice(_LINES)
        else:
            piece = rng.choice(_SENTENCES)
        parts.append(piece)
        length += len(piece)
        if rng.random() < 0.4:
            marker = f"[{rng.randint(1, 30)}]"
            place = {"start": length, "end": length + len(marker), "marker": marker}
            if rng.random() < 0.1:
                unresolved.append({**place, "ref": marker.strip("[]")})
            else:
                citations.append({**place, "source_keys": ["1"]})
            parts.append(marker)
            length += len(marker)
    text = "".join(parts)
    for _ in range(2000):
        start = rng.randrange(len(text) + 1)
        citations.append(span(start, min(len(text), start + rng.choice([0, 1, 40, 300]))))
    citations.sort(key=lambda c: c["start"])
    return text, citations, unresolved


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_citation_and_marker_lands_in_exactly_one_statement_of_a_long_answer(seed: int):
    text, citations, unresolved = _long_answer(random.Random(seed))
    found = statements(response(text, citations, unresolved))
    assert sorted(c for s in found for c in s.citations) == list(range(len(citations)))
    assert sorted(u for s in found for u in s.unresolved) == list(range(len(unresolved)))
    assert [s.index for s in found] == list(range(len(found)))
    for before, after in pairwise(found):
        assert before.end <= after.start
    for statement in found:
        assert statement.text == text[statement.start : statement.end] == statement.text.strip() != ""
        assert "```" not in statement.text and "|---|" not in statement.text
    assert len({s.key for s in found}) == len(found)


def test_a_half_width_exclamation_or_question_mark_ends_a_japanese_sentence_without_a_space():
    assert texts("v2.0が出ました!次は何?まだです。") == ["v2.0が出ました!", "次は何?", "まだです。"]
    assert texts("Really?!Yes.") == ["Really?!Yes."]  # English still needs the space


def test_a_run_without_sentence_ends_is_cut_into_statements_of_bounded_length_never_inside_a_marker():
    from citeview.core.checking.statements import MAX_STATEMENT_CHARS

    text = "[12]" * 1000  # 4,000 characters of markers, no words, no stops
    cited = [{"start": 4 * i, "end": 4 * i + 4, "marker": "[12]", "source_keys": ["12"]} for i in range(1000)]
    found = statements(response(text, cited))
    assert len(found) > 1 and all(len(s.text) <= MAX_STATEMENT_CHARS for s in found)
    assert all(s.start % 4 == 0 and s.end % 4 == 0 for s in found)  # every cut between two markers
    assert sorted(c for s in found for c in s.citations) == list(range(1000))  # each in exactly one


def test_a_long_run_of_words_is_cut_at_a_space():
    text = "word " * 500
    found = texts(text)
    assert len(found) == 3 and all(piece.startswith("word") and piece.endswith("word") for piece in found)
    assert " ".join(found).split() == text.split()


def test_an_ordinary_long_sentence_is_one_statement():
    sentence = "東京の人口は" + "とても" * 200 + "多いです。"
    assert texts(sentence) == [sentence]


# The check items: what the queue offers, in the order it offers it.


def _items(text: str, citations=(), unresolved=(), status: str = "completed") -> list[tuple[str, str, bool]]:
    from citeview.core.checking.items import check_item_count, check_items

    answer = {**response(text, citations, unresolved), "status": status}
    found = check_items([answer])
    assert check_item_count([answer]) == len(found)
    return [(item.key, item.kind, item.cut_off) for item in found]


def test_the_queue_offers_citations_first_then_markers_without_a_source_then_uncited_statements():
    text = (
        "以下を整理します。\n\n- 東京は首都です[1]。\n- 大阪は都市です[8]。\n- 京都は古都です。\n\n名古屋も[2]大きい。"
    )
    cited = [marker_at(text, "[1]"), marker_at(text, "[2]")]
    found = _items(text, cited, [unresolved_at(text, "[8]")])
    assert [(key, kind) for key, kind, _ in found] == [
        ("r0-c0", "citation"),
        ("r0-c1", "citation"),
        ("r0-u0", "unresolved"),  # its own kind: 大阪… is not offered as a statement without a citation
        ("r0-s0-9", "statement"),  # the lead-in, last with the other uncited statements
        ("r0-s41-49", "statement"),  # 京都は古都です。
    ]


def test_a_marker_without_a_source_beside_real_citations_is_an_item_as_well():
    text = "東京は首都です[1][8]。"
    found = _items(text, [marker_at(text, "[1]")], [unresolved_at(text, "[8]")])
    assert [key for key, _, _ in found] == ["r0-c0", "r0-u0"]


def test_the_last_statement_of_a_response_that_stopped_is_cut_off_and_only_then():
    text = "東京は首都です[1]。なお、大阪は"
    cited = [marker_at(text, "[1]")]
    assert _items(text, cited, status="incomplete") == [("r0-c0", "citation", False), ("r0-s11-17", "statement", True)]
    assert _items(text, cited) == [("r0-c0", "citation", False), ("r0-s11-17", "statement", False)]
    # A response that stopped right after a full sentence has nothing cut off.
    assert _items("東京は首都です。[1]", [marker_at("東京は首都です。[1]", "[1]")], status="incomplete") == [
        ("r0-c0", "citation", False)
    ]


def test_the_item_limit_keeps_the_citations_and_leaves_the_uncited_statements_out():
    from citeview.core.checking.items import check_items

    text = "前置きです。" * 5 + "東京は首都です[1]。"
    answer = {**response(text, [marker_at(text, "[1]")]), "status": "completed"}
    assert [item.kind for item in check_items([answer], limit=2)] == ["citation", "statement"]


def test_several_responses_give_all_their_citations_before_any_uncited_statement():
    from citeview.core.checking.items import check_items

    first = {**response("前置き。東京[1]。", [marker_at("前置き。東京[1]。", "[1]")]), "status": "completed"}
    second = {**response("大阪[2]。", [marker_at("大阪[2]。", "[2]")]), "status": "completed"}
    assert [item.key for item in check_items([first, second])] == ["r0-c0", "r1-c0", "r0-s0-4"]


@pytest.mark.parametrize("seed", [1, 2])
def test_every_citation_source_and_marker_of_a_long_answer_is_one_item_and_the_count_agrees(seed: int):
    from citeview.core.checking.items import check_item_count, check_items

    text, citations, unresolved = _long_answer(random.Random(seed))
    answer = {**response(text, citations, unresolved), "status": "incomplete"}
    items = check_items([answer])
    assert check_item_count([answer]) == len(items) and len({item.key for item in items}) == len(items)
    kinds = [item.kind for item in items]
    assert kinds == sorted(kinds, key=["citation", "unresolved", "statement"].index)  # citations first
    assert sorted(item.citation for item in items if item.kind == "citation") == list(range(len(citations)))
    assert sorted(item.unresolved for item in items if item.kind == "unresolved") == list(range(len(unresolved)))
    for item in items:
        if item.kind == "statement":
            assert not item.statement.citations and not item.statement.unresolved
    last = statements(answer)[-1]
    assert {item.statement.key for item in items if item.cut_off} <= {last.key}  # only where it stopped
    assert check_items([answer], limit=50) == items[:50]
