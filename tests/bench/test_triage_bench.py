from __future__ import annotations

from bench.triage import Pair, found_in_first, random_mean, triage_figures, triage_order


def _pair(number: int, differs: bool, signals: tuple[str, ...] = ()) -> Pair:
    return Pair(f"p{number}", "en", "dev", differs, signals)


def test_it_counts_the_differing_pairs_in_the_first_share_of_the_order() -> None:
    ordered = [_pair(0, True), _pair(1, False), _pair(2, True), _pair(3, False), _pair(4, False)]
    assert found_in_first(ordered, 0.2) == 0.5
    assert found_in_first(ordered, 0.6) == 1.0


def test_the_random_baseline_is_near_the_share_taken() -> None:
    pairs = [_pair(n, n % 3 == 0) for n in range(100)]
    assert abs(random_mean(pairs, 0.2, shuffles=500) - 0.2) < 0.02


def test_the_order_puts_flagged_pairs_first() -> None:
    pairs = [_pair(0, False), _pair(1, True, ("value_differs",)), _pair(2, False, ("never_fetched",))]
    assert [pair.id for pair in triage_order(pairs)] == ["p1", "p2", "p0"]


def test_the_labelled_pairs_put_more_differing_pairs_first_than_a_random_order() -> None:
    figures = {figure.name: figure.value for figure in triage_figures()}
    for split in ("dev", "test"):
        for lang in ("en", "ja"):
            name = next(n for n in figures if n.startswith(f"{split} {lang} ") and n.endswith("first 20%"))
            assert figures[name] > figures[f"{name}, random order"] + 0.15
