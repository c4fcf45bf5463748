from __future__ import annotations

from itertools import pairwise

from citeview.core.checking.triage import (
    NEGATION_DIFFERS,
    NEVER_FETCHED,
    NO_PASSAGE,
    QUOTE_NOT_IN_DOCUMENT,
    SIGNALS,
    UNRESOLVED_MARKER,
    VALUE_DIFFERS,
    WEAK_PASSAGE,
    WEAK_PASSAGE_SCORE,
    WEIGHTS,
    passage_signals,
    rank,
)


def test_a_quote_not_in_the_document_comes_before_a_source_never_fetched() -> None:
    ranked = rank([("fetched", [NEVER_FETCHED]), ("quote", [QUOTE_NOT_IN_DOCUMENT])])
    assert [entry.item for entry in ranked] == ["quote", "fetched"]


def test_signals_add_up_so_two_weak_ones_can_pass_one_strong_one() -> None:
    ranked = rank([("figure", [VALUE_DIFFERS]), ("both", [NO_PASSAGE, UNRESOLVED_MARKER])])
    assert [entry.item for entry in ranked] == ["both", "figure"]
    assert ranked[0].weight == WEIGHTS[NO_PASSAGE] + WEIGHTS[UNRESOLVED_MARKER]


def test_each_item_carries_the_signals_that_put_it_there_strongest_first_each_once() -> None:
    (entry,) = rank([("a", [NEVER_FETCHED, NEGATION_DIFFERS, NEVER_FETCHED])])
    assert entry.signals == (NEGATION_DIFFERS, NEVER_FETCHED)


def test_items_of_equal_weight_keep_the_order_given() -> None:
    given = [(name, [NO_PASSAGE]) for name in "dcba"] + [("none", [])]
    assert [entry.item for entry in rank(given)] == ["d", "c", "b", "a", "none"]


def test_items_with_no_signal_stay_in_the_check_order() -> None:
    assert [entry.item for entry in rank((n, []) for n in range(5))] == [0, 1, 2, 3, 4]


def test_the_strongest_signal_is_a_quote_not_in_the_document_and_the_weakest_never_fetched() -> None:
    assert SIGNALS[0] == QUOTE_NOT_IN_DOCUMENT and SIGNALS[-1] == NEVER_FETCHED
    assert all(WEIGHTS[a] >= WEIGHTS[b] for a, b in pairwise(SIGNALS))


def test_a_passage_is_weak_below_the_score_and_missing_when_none_was_found() -> None:
    assert passage_signals(False, None) == (NO_PASSAGE,)
    assert passage_signals(True, WEAK_PASSAGE_SCORE - 1) == (WEAK_PASSAGE,)
    assert passage_signals(True, WEAK_PASSAGE_SCORE) == ()
