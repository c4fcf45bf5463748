"""The proof the issue asks for: over populations whose precision is known, the 95% interval of a
stratified sample covers the true value in 93–97% of 2,000 draws, for samples of 50 to 400.

Every sample is drawn by the module's own ``allocate`` and ``draw``, and estimated by its own
``estimate_many`` (``estimate`` for many samples at once; a test below holds the two equal). One set of
2,000 draws per size serves every population: a draw picks units by key, never by value, so each
population's 2,000 samples are still independent of one another.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

import numpy as np
import pytest
from numpy.typing import NDArray

from citeview.core.checking.sampling import StratumSample, Unit, draw, estimate, estimate_many

DRAWS = 2_000
SIZES = (50, 100, 200, 400)
# Three strata of unequal size, about 60/30/10% of N = 3,217 (real strata are never round).
STRATA = {"openai · gpt-5": 1_930, "anthropic · claude": 965, "perplexity · sonar": 322}
Floats = NDArray[np.float64]
Population = dict[str, tuple[Floats, Floats]]  # stratum → (numerators, denominators), one per unit


def _citations(rates: tuple[float, float, float], seed: int) -> Population:
    """Citation units, each complete (1) or not (0); exactly round(rate × N_h) of a stratum are."""
    rng = np.random.default_rng(seed)
    population: Population = {}
    for (stratum, count), rate in zip(STRATA.items(), rates, strict=True):
        numerators = np.zeros(count)
        numerators[: round(rate * count)] = 1
        rng.shuffle(numerators)
        population[stratum] = (numerators, np.ones(count))
    return population


def _domain(seed: int) -> Population:
    """Citation units of which only those on verification-worthy statements count (denominator 1)."""
    rng = np.random.default_rng(seed)
    worthy, complete = (0.8, 0.6, 0.5), (0.9, 0.8, 0.7)
    population: Population = {}
    for (stratum, count), in_domain, rate in zip(STRATA.items(), worthy, complete, strict=True):
        denominators = (rng.random(count) < in_domain).astype(np.float64)
        population[stratum] = (denominators * (rng.random(count) < rate), denominators)
    return population


def _statements(seed: int) -> Population:
    """Statement units: 0 to 4 citations each (0: not worth verifying), and the citations of one
    statement tend to fail together (each statement's own rate is drawn from a beta)."""
    rng = np.random.default_rng(seed)
    population: Population = {}
    for (stratum, count), rate in zip(STRATA.items(), (0.88, 0.83, 0.75), strict=True):
        citations = rng.choice([0, 1, 2, 3, 4], size=count, p=[0.25, 0.3, 0.2, 0.15, 0.1])
        own_rates = rng.beta(rate * 8, (1 - rate) * 8, size=count)
        population[stratum] = (rng.binomial(citations, own_rates).astype(np.float64), citations.astype(np.float64))
    return population


def _clustered_near_one(seed: int) -> Population:
    """Statement units of 3 to 8 citations each, about 98.5% of which count, failing together (each
    statement's own rate from a beta): many samples have no failure at all, p̂ = 1, and the interval
    then rests on the number of statements alone."""
    rng = np.random.default_rng(seed)
    population: Population = {}
    for (stratum, count), rate in zip(STRATA.items(), (0.99, 0.98, 0.97), strict=True):
        citations = rng.integers(3, 9, size=count)
        own_rates = rng.beta(rate * 12, (1 - rate) * 12, size=count)
        population[stratum] = (rng.binomial(citations, own_rates).astype(np.float64), citations.astype(np.float64))
    return population


POPULATIONS: dict[str, Callable[[], Population]] = {
    "precision 0.60": lambda: _citations((0.65, 0.55, 0.45), seed=1),
    "precision 0.85": lambda: _citations((0.90, 0.80, 0.70), seed=2),
    "precision 0.97": lambda: _citations((0.98, 0.96, 0.94), seed=3),
    "a domain: worthy statements only": lambda: _domain(seed=4),
    "a ratio: statements with several citations": lambda: _statements(seed=5),
    "a ratio near 1: statements whose citations fail together": lambda: _clustered_near_one(seed=6),
}


@cache
def _drawn(size: int) -> dict[str, NDArray[np.int64]]:
    """2,000 draws of ``size`` units: per stratum, a draws × n_h array of unit positions."""
    units = {stratum: [f"{i:05d}" for i in range(count)] for stratum, count in STRATA.items()}
    seeds = random.Random(45_000 + size)
    rows: dict[str, list[list[int]]] = {stratum: [] for stratum in STRATA}
    for _ in range(DRAWS):
        picked: dict[str, list[int]] = {stratum: [] for stratum in STRATA}
        for stratum, key in draw(units, size, seeds.getrandbits(62)):
            picked[stratum].append(int(key))
        for stratum in STRATA:
            rows[stratum].append(picked[stratum])
    return {stratum: np.array(positions) for stratum, positions in rows.items()}


@cache
def _population(name: str) -> Population:
    return POPULATIONS[name]()


def _true_value(population: Population) -> float:
    numerators = sum(float(y.sum()) for y, _ in population.values())
    denominators = sum(float(x.sum()) for _, x in population.values())
    return numerators / denominators


def _coverage(name: str, size: int) -> float:
    population, drawn = _population(name), _drawn(size)
    _, low, high = estimate_many(
        list(STRATA.values()),
        [population[stratum][0][drawn[stratum]] for stratum in STRATA],
        [population[stratum][1][drawn[stratum]] for stratum in STRATA],
    )
    truth = _true_value(population)
    return float(np.mean((low <= truth) & (truth <= high)))


# The one setting where no interval can land in 93–97%. With 3 failures expected in 100, whether an
# interval covers 0.97 depends only on the number of failures F: Wilson covers F ≤ 6, which already
# happens in 96.9% of binomial samples, and a sample without replacement from strata varies less, so
# 97.2% here; an interval covering F ≤ 5 (Jeffreys) falls to 92.8%. docs/sampling.md has the table.
LATTICE_CEILING = {("precision 0.97", 100): 0.975}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", POPULATIONS)
def test_the_95_interval_covers_the_true_share_in_93_to_97_percent_of_2000_draws(name: str, size: int) -> None:
    assert 0.93 <= _coverage(name, size) <= LATTICE_CEILING.get((name, size), 0.97)


def test_the_populations_have_the_precision_they_are_named_for() -> None:
    assert _true_value(_population("precision 0.60")) == pytest.approx(0.60, abs=0.001)
    assert _true_value(_population("precision 0.85")) == pytest.approx(0.85, abs=0.001)
    assert _true_value(_population("precision 0.97")) == pytest.approx(0.97, abs=0.001)


@pytest.mark.parametrize("name", POPULATIONS)
def test_estimating_many_samples_at_once_gives_what_estimate_gives_for_each(name: str) -> None:
    population, drawn = _population(name), _drawn(50)
    values, lows, highs = estimate_many(
        list(STRATA.values()),
        [population[stratum][0][drawn[stratum][:20]] for stratum in STRATA],
        [population[stratum][1][drawn[stratum][:20]] for stratum in STRATA],
    )
    for row in range(20):
        strata = {
            stratum: StratumSample(
                population=count,
                drawn=drawn[stratum].shape[1],
                checked=[
                    Unit(float(population[stratum][0][i]), float(population[stratum][1][i]))
                    for i in drawn[stratum][row]
                ],
            )
            for stratum, count in STRATA.items()
        }
        one = estimate(strata)
        assert (one.value, one.low, one.high) == pytest.approx((values[row], lows[row], highs[row]), abs=1e-12)
