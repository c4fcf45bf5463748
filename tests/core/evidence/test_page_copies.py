"""The snapshot's passage held against the page as the model read it (Claude's web fetch): the same
words, other words (marked on both sides), or no such passage."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from citeview.core.evidence.page_copies import copies_compared, marked_html
from tests.hostile.test_properties import SMALL_PROFILE

MODEL_COPY = (
    "気象庁 | 過去の気象データ検索\n\n"
    "| 年 | 平均気温(℃) |\n|---|---|\n| 2023 | 17.6 |\n\n"
    "平年値（1991〜2020年）：年平均気温 15.8℃、年降水量 1598.2mm。\n"
    "観測地点は2014年12月2日に「大手町」から北の丸公園へ移転しました。移転前後の値に注意してください。"
)


def test_the_same_passage_is_found_word_for_word_with_its_closing_stop():
    compared = copies_compared("観測地点は2014年12月2日に「大手町」から北の丸公園へ移転しました。", MODEL_COPY)
    assert compared.same
    assert compared.model_passage == "観測地点は2014年12月2日に「大手町」から北の丸公園へ移転しました。"


def test_full_width_and_half_width_and_punctuation_are_no_difference():
    compared = copies_compared("平年値(1991〜2020年):年平均気温15.8℃,年降水量1598.2mm", MODEL_COPY)
    assert compared.same


def test_an_edited_figure_is_marked_on_both_sides():
    compared = copies_compared("平年値（1991〜2020年）：年平均気温 15.9℃、年降水量 1598.2mm。", MODEL_COPY)
    assert compared.found and not compared.same
    assert (
        compared.model_html()
        == '平年値（1991〜2020年）：年平均気温 15.<mark class="cv-copy-differs">8</mark>℃、年降水量 1598.2mm。'
    )
    assert '15.<mark class="cv-copy-differs">9</mark>℃' in compared.snapshot_html()


def test_markdown_marks_and_link_addresses_in_the_model_copy_are_read_past():
    model = "# News\n\nThe **council** approved the [budget](https://city.example/b) on 3 March 2024. Later news."
    compared = copies_compared("The council approved the budget on 3 March 2024.", model)
    assert compared.same
    assert compared.model_passage == "The **council** approved the [budget](https://city.example/b) on 3 March 2024."


def test_words_added_and_words_dropped_are_each_marked_where_they_are():
    model = "The council approved the budget on Monday by twelve votes. Other news."
    compared = copies_compared("The city council approved the budget by twelve votes.", model)
    assert compared.only_in_snapshot and compared.only_in_model_copy
    assert (
        compared.snapshot_html()
        == 'The <mark class="cv-copy-differs">city</mark> council approved the budget by twelve votes.'
    )
    assert compared.model_html() == (
        'The council approved the budget <mark class="cv-copy-differs">on Monday</mark> by twelve votes.'
    )


def test_a_passage_the_model_copy_does_not_hold_is_not_found():
    compared = copies_compared("東京タワーの高さは333メートルで、1958年に完成した。", MODEL_COPY)
    assert not compared.found and not compared.same and compared.model_html() == ""


def test_a_passage_that_shares_too_few_words_in_order_is_not_found():
    model = "Budget news. The mayor said the council would vote next year on a new budget. End."
    assert not copies_compared("The council approved the budget on 3 March by twelve votes to two.", model).found


def test_both_sides_are_escaped_with_no_markup_but_the_marks():
    compared = copies_compared("<b>Prices</b> rose 3% in May.", "Intro. <i>Prices</i> rose 4% in May. End.")
    for html in (compared.snapshot_html(), compared.model_html()):
        assert "&lt;" in html and "<" not in re.sub(r'<mark class="cv-copy-differs">|</mark>', "", html)
    assert marked_html("a<b", ((0, 1),)) == '<mark class="cv-copy-differs">a</mark>&lt;b'


WORDS = st.sampled_from(
    ["気温", "は", "15.8", "℃", "the", "Council", "ｃｏｕｎｃｉｌ", "2024", "<b>", "**", "&", "\n", " ", "。", "."]
)


@SMALL_PROFILE
@given(st.lists(WORDS, max_size=40).map("".join), st.lists(WORDS, max_size=40).map("".join))
def test_any_two_copies_compare_within_their_own_texts(snapshot_passage, model_copy):
    compared = copies_compared(snapshot_passage, model_copy)
    if compared.model_passage is not None:
        assert compared.model_passage in model_copy
    for text, spans in (
        (snapshot_passage, compared.only_in_snapshot),
        (compared.model_passage or "", compared.only_in_model_copy),
    ):
        assert all(0 <= start < end <= len(text) for start, end in spans)
        assert [start for start, _ in spans] == sorted(start for start, _ in spans)
    for html in (compared.snapshot_html(), compared.model_html()):
        assert "<" not in re.sub(r'<mark class="cv-copy-differs">|</mark>', "", html)
    if snapshot_passage.strip() and compared.found and snapshot_passage in model_copy:
        assert not compared.only_in_snapshot
