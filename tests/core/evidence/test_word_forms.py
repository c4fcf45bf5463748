"""The forms of a text's words (issue 45): the same word in another form reads alike, and a figure is
never touched."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from citeview.core.evidence import word_forms
from citeview.core.evidence.word_forms import english_forms, form_set


def one_word(text: str) -> frozenset[str]:
    (forms,) = word_forms.word_forms(text)
    return forms


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("受付", "受け付け"),  # the same noun, written with and without its kana
        ("引上げ", "引き上げ"),
        ("受付", "受け付ける"),  # a noun and the verb it is made from
        ("お住まい", "住まい"),  # the honorific prefix dropped (SudachiPy reads お住まい alone as 御 + 住まう)
    ],
)
def test_japanese_words_in_other_forms_read_alike(one: str, other: str) -> None:
    assert form_set(one) == form_set(other)


def test_the_prefix_is_dropped_inside_a_sentence_too() -> None:
    assert form_set("住まい") <= form_set("市外にお住まいの方は対象になりません。")


def test_particles_and_endings_are_no_words() -> None:
    assert form_set("受け付けられません") == form_set("受付")


def test_different_japanese_words_stay_apart() -> None:
    assert form_set("受付") != form_set("申請")


@pytest.mark.parametrize("word", ["rises", "rose", "rise", "risen", "rising"])
def test_english_forms_of_rise_meet(word: str) -> None:
    assert "rise" in english_forms(word)


def test_rose_is_also_the_flower() -> None:
    assert {"rose", "rise"} <= english_forms("rose")


def test_a_possessive_is_its_word() -> None:
    assert "tokyo" in english_forms("Tokyo's")


@pytest.mark.parametrize("figure", ["2,500", "8%", "3.5", "2024"])
def test_english_figures_are_kept_as_written(figure: str) -> None:
    assert figure in form_set(f"It rose to {figure} in March.")


def test_japanese_figures_are_kept_as_written() -> None:
    forms = form_set("令和6年度の訪日客数は2,500万人で、前年比8%増えた。")
    assert {"令和", "6", "年度", "2,500万", "8"} <= forms
    assert "25000000" not in forms  # SudachiPy's normalised form of 2,500万: a value, not what was written


def test_a_text_longer_than_sudachipy_takes_is_read_in_pieces() -> None:
    text = "申請の受付は窓口で行います。" * 5_000  # 70,000 characters, 210,000 bytes
    assert len(word_forms.word_forms(text)) == 4 * 5_000  # 申請, 受付, 窓口, 行う


def test_one_dictionary_per_process_and_one_tokenizer_per_thread() -> None:
    assert word_forms._tokenizer() is word_forms._tokenizer()
    with ThreadPoolExecutor(max_workers=1) as other:
        assert other.submit(word_forms._tokenizer).result() is not word_forms._tokenizer()
    assert word_forms._dictionary() is word_forms._dictionary()


def test_japanese_text_is_read_by_many_threads_at_once() -> None:
    # A threaded server (make dev) reads two pages at once: one tokenizer for both raised
    # "Tokenizer is already in use" on 63 of 64 calls.
    text = "申請の受付は窓口で行います。お住まいの地域を確認してください。" * 40
    with ThreadPoolExecutor(max_workers=8) as pool:
        read = list(pool.map(lambda _: word_forms.word_forms(text), range(64)))
    assert all(forms == read[0] for forms in read)


def test_a_long_text_of_emoji_is_read_in_pieces_sudachipy_takes() -> None:
    # four bytes a character: 16,000 characters would be 64,000 bytes, past SudachiPy's 49,149
    assert len(word_forms.word_forms("受付😀" * 8_000)) == 8_000
