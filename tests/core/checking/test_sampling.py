"""How big a sample is, which units it holds, and what it says: ``citeview.core.checking.sampling``.
The coverage of its intervals is proved in ``test_sampling_coverage.py``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats

from citeview.core.checking.sampling import (
    Estimate,
    StratumSample,
    Unit,
    _wilson,
    _z,
    allocate,
    draw,
    estimate,
    new_seed,
    sample_size_for_margin,
)

UNITS = {
    "openai · gpt-5": [f"c{i}" for i in range(6)],
    "anthropic · claude": [f"c{i}" for i in range(6, 10)],
    "perplexity · sonar": ["c10", "c11"],
}
# Frozen: a plan drawn today must be drawn again the same on any machine and Python version.
GOLDEN_2026 = [
    ("openai · gpt-5", "c5"),
    ("anthropic · claude", "c6"),
    ("perplexity · sonar", "c10"),
    ("openai · gpt-5", "c2"),
    ("openai · gpt-5", "c3"),
    ("anthropic · claude", "c8"),
]


def _citations(complete: int, other: int) -> list[Unit]:
    return [Unit(1, 1)] * complete + [Unit(0, 1)] * other


# draw


def test_a_seed_draws_the_same_units_in_the_same_order_as_when_the_plan_was_made() -> None:
    assert draw(UNITS, 6, seed=2026) == GOLDEN_2026


def test_the_order_the_units_come_in_does_not_change_the_draw() -> None:
    shuffler = random.Random(7)
    shuffled = {stratum: shuffler.sample(keys, len(keys)) for stratum, keys in reversed(UNITS.items())}
    assert draw(shuffled, 6, seed=2026) == GOLDEN_2026


def test_another_seed_draws_another_sample() -> None:
    assert draw(UNITS, 6, seed=2027) != GOLDEN_2026


def test_a_draw_holds_each_stratum_s_allocation_of_distinct_units_from_that_stratum() -> None:
    drawn = draw(UNITS, 6, seed=1)
    assert len(set(drawn)) == 6
    assert all(key in UNITS[stratum] for stratum, key in drawn)
    counts = {stratum: sum(1 for s, _ in drawn if s == stratum) for stratum in UNITS}
    assert counts == allocate({stratum: len(keys) for stratum, keys in UNITS.items()}, 6)


def test_a_sample_larger_than_the_scope_draws_every_unit_once() -> None:
    drawn = draw(UNITS, 50, seed=1)
    assert sorted(drawn) == sorted((stratum, key) for stratum, keys in UNITS.items() for key in keys)


def test_the_draw_mixes_the_strata_rather_than_listing_one_after_another() -> None:
    strata = [stratum for stratum, _ in draw(UNITS, 12, seed=3)]
    assert strata != sorted(strata, key=list(UNITS).index)
    assert strata != sorted(strata)


# allocate


def test_strata_get_units_in_proportion_to_their_size() -> None:
    assert allocate({"a": 600, "b": 300, "c": 100}, 50) == {"a": 30, "b": 15, "c": 5}


def test_the_largest_remainders_get_the_units_left_over_and_ties_go_by_name() -> None:
    assert allocate({"a": 10, "b": 10, "c": 10}, 4) == {"a": 2, "b": 1, "c": 1}
    assert allocate({"a": 50, "b": 30, "c": 20}, 7) == {"a": 4, "b": 2, "c": 1}


def test_a_stratum_too_small_for_a_unit_in_proportion_still_gets_one() -> None:
    assert allocate({"big": 5_000, "rare": 3}, 20) == {"big": 19, "rare": 1}


def test_a_sample_smaller_than_the_strata_goes_in_proportion_so_the_largest_is_never_skipped() -> None:
    # Holding "b" and "c" at one unit each would leave "a", 98% of the scope, with none.
    assert allocate({"a": 1_000, "b": 10, "c": 5}, 2) == {"a": 2, "b": 0, "c": 0}
    assert allocate({"a": 1_000, "b": 10, "c": 5, "empty": 0}, 3) == {"a": 1, "b": 1, "c": 1, "empty": 0}


def test_every_non_empty_stratum_gets_a_unit_when_the_size_allows_one_each() -> None:
    rng = random.Random(46)
    for _ in range(2_000):
        population = {f"s{i}": rng.choice([0, 1, 2, 3, 7, 40, 900]) for i in range(rng.randint(1, 7))}
        non_empty = [stratum for stratum, count in population.items() if count > 0]
        sizes = allocate(population, rng.randint(len(non_empty), sum(population.values()) + 3))
        assert all(sizes[stratum] >= 1 for stratum in non_empty)


def test_a_size_beyond_the_scope_takes_every_unit_and_no_more() -> None:
    assert allocate({"a": 3, "b": 2, "empty": 0}, 9) == {"a": 3, "b": 2, "empty": 0}


def test_an_empty_scope_allocates_nothing() -> None:
    assert allocate({}, 10) == {}
    assert allocate({"a": 0}, 10) == {"a": 0}


def test_allocations_always_sum_to_the_size_and_never_exceed_a_stratum() -> None:
    rng = random.Random(45)
    for _ in range(2_000):
        population = {f"s{i}": rng.choice([0, 1, 2, 3, 7, 40, 900]) for i in range(rng.randint(1, 7))}
        size = rng.randint(0, sum(population.values()) + 3)
        sizes = allocate(population, size)
        assert sum(sizes.values()) == min(size, sum(population.values()))
        assert all(0 <= sizes[stratum] <= population[stratum] for stratum in population)


# sample_size_for_margin


def test_five_points_at_95_percent_takes_370_of_10000_and_385_of_a_scope_without_end() -> None:
    assert sample_size_for_margin(0.05, {"a": 10_000}) == 370
    assert sample_size_for_margin(0.05, {"a": 10**12}) == 385


def test_the_size_for_a_margin_counts_every_stratum_of_the_scope() -> None:
    assert sample_size_for_margin(0.05, {"a": 6_000, "b": 3_000, "c": 1_000}) == 370


def test_a_narrower_margin_or_a_higher_confidence_takes_more() -> None:
    assert sample_size_for_margin(0.03, {"a": 10_000}) == 965
    assert sample_size_for_margin(0.05, {"a": 10_000}, confidence=0.99) == 623


def test_the_size_for_a_margin_is_never_more_than_the_scope() -> None:
    assert sample_size_for_margin(0.05, {"a": 100}) == 80
    assert sample_size_for_margin(0.001, {"a": 100}) == 100
    assert sample_size_for_margin(0.05, {}) == 0


# estimate


def test_strata_count_by_their_size_in_the_scope_not_by_their_share_of_the_sample() -> None:
    result = estimate(
        {
            "a": StratumSample(population=100, drawn=10, checked=_citations(9, 1)),
            "b": StratumSample(population=50, drawn=5, checked=_citations(5, 0)),
        }
    )
    assert result.value == pytest.approx((100 * 0.9 + 50 * 1.0) / 150)
    assert result.low is not None and result.high is not None
    assert result.low < result.value < result.high
    assert (result.checked, result.drawn, result.population, result.complete) == (15, 15, 150, True)
    assert (result.confidence, result.method) == (0.95, "stratified-wilson")


def test_a_scope_checked_whole_is_known_exactly() -> None:
    result = estimate({"a": StratumSample(population=4, drawn=4, checked=_citations(3, 1))})
    assert (result.value, result.low, result.high) == (0.75, 0.75, 0.75)


def test_a_sample_where_every_citation_counts_still_has_an_interval_below_one() -> None:
    result = estimate({"a": StratumSample(population=1_000, drawn=50, checked=_citations(50, 0))})
    assert result.value == 1.0 and result.high == 1.0
    assert result.low is not None and 0.9 < result.low < 0.96


def test_a_sample_where_no_citation_counts_still_has_an_interval_above_zero() -> None:
    result = estimate({"a": StratumSample(population=1_000, drawn=50, checked=_citations(0, 50))})
    assert result.value == 0.0 and result.low == 0.0
    assert result.high is not None and 0.04 < result.high < 0.1


def test_statements_whose_every_citation_counts_are_as_sure_as_their_number_not_their_citations() -> None:
    # A statement's citations tend to fail together: 30 statements of 10 citations are 30 units, not
    # 300 (whose lower bound would be 0.987).
    statements = estimate({"a": StratumSample(population=1_000, drawn=30, checked=[Unit(10, 10)] * 30)})
    citations = estimate({"a": StratumSample(population=1_000, drawn=30, checked=_citations(30, 0))})
    assert statements.value == 1.0 and statements.low is not None
    assert statements.low == pytest.approx(citations.low, abs=1e-12)
    assert 0.87 < statements.low < 0.89


def test_a_stratum_with_one_unit_checked_widens_the_interval_rather_than_narrowing_it() -> None:
    alone = {"a": StratumSample(population=500, drawn=20, checked=_citations(20, 0))}
    with_one = {**alone, "b": StratumSample(population=500, drawn=20, checked=_citations(0, 1))}
    result = estimate(with_one)
    assert result.value == pytest.approx(0.5)
    assert result.low is not None and result.high is not None
    assert result.low < 0.3 and result.high > 0.7


def test_an_incomplete_plan_estimates_from_the_units_checked_so_far_and_says_so() -> None:
    result = estimate(
        {
            "a": StratumSample(population=600, drawn=30, checked=_citations(8, 2)),
            "b": StratumSample(population=300, drawn=15, checked=[]),
        }
    )
    assert result.value == pytest.approx(0.8)
    assert (result.checked, result.drawn, result.population, result.complete) == (10, 45, 900, False)
    assert result.uncovered == 300


def test_a_plan_with_a_stratum_never_drawn_is_not_complete_and_says_how_much_it_leaves_out() -> None:
    result = estimate(
        {
            "a": StratumSample(population=1_000, drawn=2, checked=_citations(2, 0)),
            "b": StratumSample(population=10, drawn=0, checked=[]),
            "empty": StratumSample(population=0, drawn=0, checked=[]),
        }
    )
    assert (result.complete, result.uncovered) == (False, 10)


def test_a_plan_with_every_stratum_checked_leaves_nothing_out() -> None:
    result = estimate(
        {
            "a": StratumSample(population=1_000, drawn=2, checked=_citations(2, 0)),
            "b": StratumSample(population=10, drawn=1, checked=[Unit(0, 0)]),
        }
    )
    assert (result.complete, result.uncovered) == (True, 0)


def test_an_incomplete_plan_is_less_sure_than_the_same_plan_complete() -> None:
    def stratum(complete: int, other: int) -> StratumSample:
        return StratumSample(population=1_000, drawn=100, checked=_citations(complete, other))

    early, done = estimate({"a": stratum(16, 4)}), estimate({"a": stratum(80, 20)})
    assert early.value == done.value == pytest.approx(0.8)
    assert not early.complete and done.complete
    assert early.low is not None and early.high is not None and done.low is not None and done.high is not None
    assert early.high - early.low > done.high - done.low


def test_units_outside_the_domain_are_neither_counted_nor_estimated() -> None:
    checked = [Unit(1, 1), Unit(0, 0), Unit(0, 1), Unit(0, 0), Unit(1, 1), Unit(1, 1)]
    result = estimate({"a": StratumSample(population=200, drawn=6, checked=checked)})
    assert result.value == pytest.approx(0.75)
    assert result.checked == 4


def test_a_statement_s_citations_count_together_in_a_statement_plan() -> None:
    checked = [Unit(2, 2), Unit(0, 3), Unit(1, 1), Unit(3, 4)]
    result = estimate({"a": StratumSample(population=100, drawn=4, checked=checked)})
    assert result.value == pytest.approx(6 / 10)
    assert result.checked == 4


@pytest.mark.parametrize(
    "strata",
    [
        {},
        {"a": StratumSample(population=10, drawn=3, checked=[])},
        {"a": StratumSample(population=10, drawn=3, checked=[Unit(0, 0), Unit(0, 0)])},
    ],
    ids=["no strata", "nothing checked", "nothing in the domain"],
)
def test_with_no_unit_in_the_domain_there_is_no_estimate(strata: dict[str, StratumSample]) -> None:
    result = estimate(strata)
    assert (result.value, result.low, result.high, result.checked) == (None, None, None, 0)


def test_a_99_percent_interval_is_wider_than_a_95_percent_one() -> None:
    strata = {"a": StratumSample(population=2_000, drawn=100, checked=_citations(85, 15))}
    wide, narrow = estimate(strata, confidence=0.99), estimate(strata)
    assert isinstance(wide, Estimate) and wide.confidence == 0.99
    assert wide.low is not None and wide.high is not None and narrow.low is not None and narrow.high is not None
    assert wide.low < narrow.low and wide.high > narrow.high


# new_seed


def test_a_new_seed_fits_a_signed_63_bit_field_and_differs_each_time() -> None:
    seeds = {new_seed() for _ in range(100)}
    assert len(seeds) == 100
    assert all(0 <= seed < 2**62 for seed in seeds)


# The interval's formula


@pytest.mark.parametrize(("complete", "checked"), [(0, 10), (3, 10), (47, 50), (50, 50), (170, 200)])
def test_the_wilson_formula_written_here_gives_what_scipy_gives_for_whole_counts(complete: int, checked: int) -> None:
    # SciPy's Wilson interval takes whole counts only, and an effective size is not one: the formula
    # is written in sampling.py, and held here to SciPy's where both apply.
    scipy_s = stats.binomtest(complete, checked).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = _wilson(np.array([complete / checked]), np.array([float(checked)]), _z(0.95))
    assert (low[0], high[0]) == pytest.approx((scipy_s.low, scipy_s.high), abs=1e-12)


def test_a_stratum_counted_smaller_than_its_checks_is_taken_as_checked_whole() -> None:
    result = estimate({"a": StratumSample(population=0, drawn=4, checked=_citations(3, 1))})
    assert (result.value, result.low, result.high) == (0.75, 0.75, 0.75)
