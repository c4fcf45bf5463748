"""Dates, figures, qualifiers and negations found in a claim and a passage, and what differs between them."""

from __future__ import annotations

import time

import pytest

from citeview.core.evidence.compare import compare, findings, mark_findings
from citeview.core.numbers import folded, mark_numbers_in_html, number_value, number_values


def values(text: str, kind: str) -> list[str]:
    return [finding.value for finding in findings(text) if finding.kind == kind]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("令和6年", "2024"),
        ("令和元年", "2019"),
        ("平成31年", "2019"),
        ("平成元年", "1989"),
        ("昭和64年", "1989"),
        ("大正元年", "1912"),
        ("明治45年", "1912"),
        ("令和6年4月1日", "2024-04-01"),
        ("令和６年４月１日", "2024-04-01"),
        ("2024年4月1日", "2024-04-01"),
        ("２０２４年４月１日", "2024-04-01"),
        ("2024/4/1", "2024-04-01"),
        ("2024-04-01", "2024-04-01"),
        ("2024.4.1", "2024-04-01"),
        ("April 1, 2024", "2024-04-01"),
        ("Apr. 1st, 2024", "2024-04-01"),
        ("1 April 2024", "2024-04-01"),
        ("1st of April, 2024", "2024-04-01"),
        ("April 2024", "2024-04"),
        ("2024年4月", "2024-04"),
        ("4月1日", "--04-01"),
        ("April 1", "--04-01"),
        ("2024年度", "FY2024"),
        ("令和6年度", "FY2024"),
        ("FY2024", "FY2024"),
        ("fiscal year 2024", "FY2024"),
        ("in 2024", "2024"),
        ("since 2019", "2019"),
    ],
)
def test_dates_are_read_as_one_calendar_date(text, value):
    assert values(text, "date") == [value]
    assert values(text, "figure") == []  # a date's digits are the date's


def test_the_same_date_written_four_ways_is_one_date():
    for written in ("2024年4月1日", "2024/4/1", "April 1, 2024", "1 April 2024", "令和6年4月1日"):
        assert not compare(f"施行日は{written}。", "The law took effect on April 1, 2024.").differs, written


def test_era_years_meet_their_western_years():
    assert not compare("平成31年4月30日に退位した。", "2019年4月30日に退位。").differs
    assert not compare("令和元年に始まった。", "The era began in 2019.").differs
    assert compare("令和5年に始まった。", "The era began in 2019.").differs


def test_a_date_missing_a_part_agrees_with_one_that_has_it_and_a_fiscal_year_only_with_a_fiscal_year():
    assert not compare("In April 2024 it opened.", "2024年4月1日に開業した。").differs
    assert not compare("4月1日に開業。", "It opened on April 1, 2024.").differs
    assert compare("In April 2024 it opened.", "2024年5月1日に開業した。").differs
    assert compare("2024年度の予算", "2024年の予算").differs  # FY2024 is not the year 2024
    assert not compare("FY2024 budget", "令和6年度予算").differs


def test_bare_years_are_dates_only_after_a_word_that_makes_them_one():
    assert values("2000 people came in 2023.", "date") == ["2023"]
    assert values("2000 people came in 2023.", "figure") == ["2000"]
    # a year read as a figure on one side and a date on the other is still one year
    assert not compare("2023 was a record year.", "The record came in 2023.").differs


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("約1,410万人", "14.1 million people"),
        ("1410万人", "１，４１０万人"),
        ("2.5 billion", "25億"),
        ("80%", "８０％"),
        ("1,250", "1250"),
    ],
)
def test_figures_compare_by_value_with_their_scale_and_full_width_digits(claim, passage):
    assert values(claim, "figure") == values(passage, "figure")


def test_a_changed_figure_is_flagged_on_both_sides():
    comparison = compare("The population reached 14.1 million.", "The population reached 13.9 million.")
    assert comparison.differs and not comparison.negation_differs
    assert [f.text for f in comparison.differing_in_claim] == ["14.1 million"]
    assert [f.text for f in comparison.differing_in_passage] == ["13.9 million"]


def test_what_only_the_passage_says_is_context_not_a_difference():
    comparison = compare("東京都の人口は約1,410万人。", "2024年1月1日現在の東京都の人口は約1,410万人で、0.3%増加した。")
    assert not comparison.differs
    assert {f.value for f in comparison.passage_only} == {"2024-01-01", "0.3"}
    assert comparison.differing_in_passage == ()


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("65歳以上", "at_least"),
        ("15歳以下", "at_most"),
        ("15歳未満", "less_than"),
        ("3日以内", "at_most"),
        ("1万人超", "more_than"),
        ("約1,000人", "about"),
        ("およそ5割", "about"),
        ("100人程度", "about"),
        ("最大10%", "at_most"),
        ("最低3回", "at_least"),
        ("少なくとも2人", "at_least"),
        ("会員のみ", "only"),
        ("at least 5 people", "at_least"),
        ("up to 10%", "at_most"),
        ("about 3,000", "about"),
        ("more than 50", "more_than"),
        ("fewer than 20", "less_than"),
        ("no more than 3", "at_most"),
        ("65 and over", "at_least"),
        ("65 or older", "at_least"),
        ("only members", "only"),
    ],
)
def test_qualifiers_are_read_as_one_meaning_in_either_language(text, kind):
    assert values(text, "qualifier") == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "以上です。",
        "最大の都市",
        "about Tokyo",
        "Moreover, it grew.",
        "over the years",
        "not only A but B",
        "under way",
    ],
)
def test_words_with_other_senses_are_no_qualifiers(text):
    assert values(text, "qualifier") == []


def test_a_changed_qualifier_is_flagged():
    comparison = compare("65歳以上の人が対象", "The programme is for people 65 or younger.")
    assert comparison.differs
    assert {f.value for f in comparison.claim_only} == {"at_least"}
    assert not compare("65歳以上の人が対象", "for people aged 65 and over").differs


@pytest.mark.parametrize(
    "text",
    [
        "必要ではない",
        "必要じゃない",
        "公開されていない",
        "行かなかった",
        "ありません",
        "確認できませんでした",
        "確認せずに",
        "知らずに",
        "予定は無い",
        "不要",
        "未定",
        "未公表",
        "非公開",
        "It is not required.",
        "No data was published.",
        "It never closed.",
        "without a permit",
        "It doesn't apply.",
        "It can’t be used.",
        "It cannot be used.",
    ],
)
def test_negations_are_found(text):
    assert values(text, "negation") == ["not"]


@pytest.mark.parametrize(
    "text",
    [
        "未来の計画",
        "非常に多い",
        "不動産の価格",
        "不可欠な資源",
        "15歳未満",
        "少ない",
        "間違いない",
        "3ないし5",
        "No. 5 on the list",
        "not only A but also B",
        "no more than 3",
        "Knowledge is power.",
        "Note the nonce.",
    ],
)
def test_words_that_look_negative_but_negate_nothing_are_not_negations(text):
    assert values(text, "negation") == []


def test_a_claim_and_a_passage_that_differ_in_negation_are_flagged():
    comparison = compare("申請は不要である。", "申請が必要である。")
    assert comparison.negation_differs and comparison.differs
    assert [f.text for f in comparison.differing_in_claim] == ["不要"]
    english = compare("The permit is required.", "The permit is not required.")
    assert english.negation_differs and [f.text for f in english.differing_in_passage] == ["not"]
    assert not compare("必要ではない", "It is not required.").negation_differs


def test_the_hints_group_time_figures_and_conditions_for_each_side():
    comparison = compare(
        "令和6年4月1日から65歳以上の約1,410万人が対象ではない。",
        "As of April 1, 2024, 14.1 million people aged 65 and over.",
    )
    hints = comparison.hints()
    assert [f.value for f in hints["time"]["claim"]] == ["2024-04-01"]
    assert [f.value for f in hints["time"]["passage"]] == ["2024-04-01"]
    assert [f.value for f in hints["figures"]["claim"]] == ["65", "14100000"]
    assert [f.value for f in hints["conditions"]["claim"]] == ["at_least", "about", "not"]
    assert [f.value for f in hints["conditions"]["passage"]] == ["at_least"]
    assert comparison.negation_differs
    stored = comparison.to_json()
    assert stored["differs"] and stored["claim_only"] == [f.to_json() for f in comparison.claim_only]


def test_spans_hold_in_the_text_given_full_width_or_not():
    text = "売上は２０２４年度に１，２５０億円、前年は未公表。"
    for finding in findings(text):
        assert text[finding.start : finding.end] == finding.text
    assert [f.text for f in findings(text)] == ["２０２４年度", "１，２５０億", "未公表"]


def test_marking_escapes_the_text_and_wraps_only_what_differs():
    passage = "<b>13.9 million</b> & not all"
    comparison = compare("14.1 million people", passage)
    assert mark_findings(passage, comparison.differing_in_passage) == (
        '&lt;b&gt;<mark class="cv-number-diff">13.9 million</mark>&lt;/b&gt; &amp; '
        '<mark class="cv-negation-diff">not</mark> all'
    )
    assert mark_findings("plain", findings("other 5 text")) == "plain"  # findings of another text are skipped


def test_the_numbers_module_keeps_its_behaviour_and_lends_its_reading():
    assert number_values("２０２６年、1,250万人、2.50ドル") == {"2026", "1250", "2.5"}
    assert mark_numbers_in_html("12 and 13", {"12"}) == '<mark class="cv-number-diff">12</mark> and 13'
    assert folded("２．５") == "2.5" and number_value("２,５") == "2.5" and number_value("1,234") == "1234"


def test_comparing_a_long_text_costs_in_proportion_to_it():
    text = "令和6年4月1日から65歳以上の約1,410万人が対象ではない。" * 8_000  # 256,000 characters, 48,000 findings
    start = time.process_time()
    comparison = compare(text, text)
    assert time.process_time() - start < 3  # about 1 s of CPU time on the development machine
    assert not comparison.differs and len(comparison.claim) == 48_000


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_BITS = st.sampled_from(["令和", "元", "6", "年", "度", "4", "月", "1", "日", "２０２４", "/", "-", "April ", "1, ", "in ",
                         "約", "以上", "not ", "ない", "不要", "未来", "万", " million", ".", ",", " ", "FY", "No. "])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(claim=st.lists(_BITS, max_size=15).map("".join), passage=st.lists(_BITS, max_size=15).map("".join))
def test_any_texts_compare_with_spans_that_hold(claim, passage):
    comparison = compare(claim, passage)
    for text, found in ((claim, comparison.claim), (passage, comparison.passage)):
        for finding in found:
            assert text[finding.start : finding.end] == finding.text
    assert compare(claim, claim).differs is False
