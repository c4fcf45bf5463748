"""The statistics of a sampled check: how many units to draw, which ones, and what the checked ones
say about the whole scope, with a 95% interval (``docs/sampling.md``).

A check plan draws a stratified random sample without replacement (strata are "provider · model",
allocated in proportion), and a share (a verdict's share, citation precision or recall) is estimated
as a combined ratio over the strata, its variance linearised with the finite-population correction.
The interval, ``stratified-wilson``, is Wilson's on Korn & Graubard's effective sample size with
their degrees-of-freedom adjustment; SciPy gives the quantiles. The simulation in
``tests/core/checking/test_sampling_coverage.py`` is why this one and not another.
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from scipy import stats  # type: ignore[import-untyped]

METHOD = "stratified-wilson"

Floats = NDArray[np.float64]


@dataclass(frozen=True)
class Unit:
    """One checked unit's part in a figure: a share is numerator/denominator summed over units.
    A share of citations: (1 or 0, 1). A domain (precision counts only citations on verification-worthy
    statements): denominator 0 leaves the unit out. A statement plan's precision: (citations that count,
    citations on it)."""

    numerator: float
    denominator: float


@dataclass(frozen=True)
class StratumSample:
    population: int  # N_h: the stratum's units in scope when the plan was drawn
    drawn: int  # n_h drawn into the plan
    checked: Sequence[Unit]  # the drawn units with a final verdict so far


@dataclass(frozen=True)
class Estimate:
    value: float | None  # None when no checked unit is in the domain
    low: float | None
    high: float | None
    checked: int  # n: checked units in the domain, all strata
    drawn: int
    population: int  # N in scope
    confidence: float  # 0.95
    complete: bool  # every drawn unit checked, and every non-empty stratum has a unit checked
    method: str  # a stable code naming the interval, e.g. "stratified-wilson"
    uncovered: int = 0  # the population of strata with no unit checked: the estimate leaves it out


@lru_cache(maxsize=16)
def _z(confidence: float) -> float:
    """The normal quantile for a two-sided interval (cached: SciPy's ppf costs far more than the rest)."""
    return float(stats.norm.ppf(0.5 + confidence / 2))


def estimate(strata: Mapping[str, StratumSample], confidence: float = 0.95) -> Estimate:
    """The share over the whole scope, from the units checked so far, with its interval."""
    drawn = sum(sample.drawn for sample in strata.values())
    population = sum(sample.population for sample in strata.values())
    # A non-empty stratum with nothing checked (even with nothing drawn) is left out of the estimate,
    # so the estimate is not the whole scope's, however many of the drawn units were checked.
    uncovered = sum(sample.population for sample in strata.values() if not sample.checked)
    complete = not uncovered and all(len(sample.checked) >= sample.drawn for sample in strata.values())
    in_domain = sum(1 for sample in strata.values() for unit in sample.checked if unit.denominator > 0)
    # A stratum with no check yet says nothing: the estimate covers the strata checked so far.
    covered = [sample for sample in strata.values() if sample.checked]
    value: float | None = None
    low: float | None = None
    high: float | None = None
    if in_domain:
        values, lows, highs = estimate_many(
            # A stratum never holds fewer units than were checked in it, whatever the caller counted.
            [max(sample.population, len(sample.checked)) for sample in covered],
            [np.array([[unit.numerator for unit in sample.checked]]) for sample in covered],
            [np.array([[unit.denominator for unit in sample.checked]]) for sample in covered],
            confidence,
        )
        value, low, high = float(values[0]), float(lows[0]), float(highs[0])
    return Estimate(value, low, high, in_domain, drawn, population, confidence, complete, METHOD, uncovered)


def estimate_many(
    populations: Sequence[int],
    numerators: Sequence[Floats],
    denominators: Sequence[Floats],
    confidence: float = 0.95,
) -> tuple[Floats, Floats, Floats]:
    """``estimate`` for many samples of one shape at once (the simulation test draws thousands).
    Stratum h's units are the columns of numerators[h] and denominators[h], one row per sample; each
    stratum has at least one column. Returns the value, low and high per row, NaN where no unit is in
    the domain."""
    ratio, variance, fraction = _combined_ratio(populations, numerators, denominators)
    in_domain = np.asarray(sum((x > 0).sum(axis=1) for x in denominators), dtype=np.float64)
    effective = _effective_size(ratio, variance, in_domain, fraction)
    z = _z(confidence)
    # Korn & Graubard's degrees-of-freedom adjustment: the variance is estimated from n − H units'
    # worth of freedom, so the size shrinks by (z / t_df)² (it matters below about 100 units).
    freedom = np.maximum(in_domain - len(numerators), 1)
    effective = effective * (z / stats.t.ppf(0.5 + confidence / 2, freedom)) ** 2
    low, high = _wilson(ratio, effective, z)
    return ratio, low, high


def _combined_ratio(
    populations: Sequence[int], numerators: Sequence[Floats], denominators: Sequence[Floats]
) -> tuple[Floats, Floats, float]:
    """The combined ratio Σ N_h ȳ_h / Σ N_h x̄_h, its linearised variance with the finite-population
    correction, and the sampling fraction."""
    sizes = np.array([array.shape[1] for array in numerators], dtype=np.float64)
    counts = np.array(populations, dtype=np.float64)
    weights = (counts / sizes)[:, None]
    sums_y = np.stack([y.sum(axis=1) for y in numerators])  # strata × samples
    sums_x = np.stack([x.sum(axis=1) for x in denominators]).astype(np.float64)
    total_x = (weights * sums_x).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total_x > 0, (weights * sums_y).sum(axis=0) / total_x, np.nan)
    residuals = [y - ratio[:, None] * x for y, x in zip(numerators, denominators, strict=True)]
    spreads = np.stack(_stratum_spreads(residuals))
    corrections = np.clip(1 - sizes / counts, 0.0, 1.0)
    variance = (counts**2 * corrections / sizes)[:, None] * spreads
    with np.errstate(divide="ignore", invalid="ignore"):
        variance_of_ratio = variance.sum(axis=0) / total_x**2
    fraction = float(sizes.sum() / counts.sum())
    return ratio, variance_of_ratio, fraction


def _stratum_spreads(residuals: Sequence[Floats]) -> list[Floats]:
    """Each stratum's sample variance of the residuals. A stratum with one unit checked has no spread
    of its own: it takes the spread of all checked units together, as if unstratified (the larger,
    safer choice where the other strata happen to be uniform)."""
    every = np.concatenate(residuals, axis=1)
    overall = every.var(axis=1, ddof=1) if every.shape[1] > 1 else np.zeros(every.shape[0])
    return [r.var(axis=1, ddof=1) if r.shape[1] > 1 else overall for r in residuals]


def _effective_size(ratio: Floats, variance: Floats, in_domain: Floats, fraction: float) -> Floats:
    """Korn & Graubard's effective sample size p(1 − p)/v: the size of a simple random sample that
    would be as precise as this one. A sample with no spread (p̂ = 0 or 1, or strata that happen to be
    uniform) has no variance to divide by: it gets the size a simple random sample of its units in
    the domain has, n/(1 − f), never a point. The units, not their citations (Σ x): a statement's
    citations tend to fail together, so 30 statements of 10 citations are not 300 independent trials
    (a lower bound of 0.987 where 30 units give 0.881). Where every unit in scope was checked (f = 1)
    the size is infinite, and the interval is the value itself."""
    spread = ratio * (1 - ratio)
    with np.errstate(divide="ignore", invalid="ignore"):
        simple = in_domain / (1 - fraction) if fraction < 1 else np.full(in_domain.shape, np.inf)
        design = spread / variance
    # A variance below a trillionth of p(1 − p) is rounding left by the residuals, not spread.
    return np.where(variance > 1e-12 * spread, design, simple)


def _wilson(share: Floats, size: Floats, z: float) -> tuple[Floats, Floats]:
    """Wilson's score interval on the effective size; a point where the whole scope was checked."""
    with np.errstate(divide="ignore", invalid="ignore"):
        k = z * z / size
        centre = (share + k / 2) / (1 + k)
        half = z / (1 + k) * np.sqrt(share * (1 - share) / size + k / (4 * size))
    low = np.clip(centre - half, 0.0, 1.0)
    high = np.clip(centre + half, 0.0, 1.0)
    return np.minimum(low, share), np.maximum(high, share)


def sample_size_for_margin(margin: float, population: Mapping[str, int], confidence: float = 0.95) -> int:
    """The smallest sample whose interval is at most ± margin at p = 0.5, with the finite-population
    correction; never more than the population."""
    total = sum(population.values())
    z = _z(confidence)
    infinite = z * z * 0.25 / (margin * margin)
    size = infinite / (1 + (infinite - 1) / total) if total else 0.0
    return min(total, math.ceil(size - 1e-9))


def allocate(population: Mapping[str, int], size: int) -> dict[str, int]:
    """Proportional allocation by largest remainder (ties by stratum name). The sizes sum to
    min(size, population) and no stratum gets more than it holds. A stratum too small for a unit of
    its own in proportion still gets one, when the size allows one for every non-empty stratum: a
    stratum with none drawn could never be estimated. A smaller size is allocated in plain proportion:
    holding small strata at one would leave the largest ones with nothing."""
    total = sum(population.values())
    size = max(0, min(size, total))
    if size < sum(1 for count in population.values() if count > 0):
        return _largest_remainder(population, size)
    held_at_one: set[str] = set()
    while True:
        rest = {key: count for key, count in population.items() if key not in held_at_one}
        sizes = _largest_remainder(rest, size - len(held_at_one))
        starved = {key for key, drawn in sizes.items() if drawn == 0 and population[key] > 0}
        if not starved or len(held_at_one) + len(starved) > size:
            break
        held_at_one |= starved
    return {key: 1 if key in held_at_one else sizes[key] for key in population}


def _largest_remainder(population: Mapping[str, int], size: int) -> dict[str, int]:
    """Hamilton's method in whole numbers: each stratum's floor of size·N_h/N, then one more for the
    largest remainders."""
    total = sum(population.values())
    if total == 0:
        return dict.fromkeys(population, 0)
    sizes = {key: size * count // total for key, count in population.items()}
    left = size - sum(sizes.values())
    by_remainder = sorted(population, key=lambda key: (-(size * population[key] % total), key))
    for key in by_remainder[:left]:
        sizes[key] += 1
    return sizes


def draw(units: Mapping[str, Sequence[str]], size: int, seed: int) -> list[tuple[str, str]]:
    """(stratum, unit key) pairs in a random order. Only ``random.Random.random()`` is used: it is the
    one part of the module Python promises to keep the same across versions for a given seed."""
    rng = random.Random(seed)
    sizes = allocate({stratum: len(keys) for stratum, keys in units.items()}, size)
    chosen: list[tuple[str, str]] = []
    for stratum in sorted(units):
        keys = sorted(units[stratum])
        chosen.extend((stratum, key) for key in _first_shuffled(keys, sizes[stratum], rng))
    return _first_shuffled(chosen, len(chosen), rng)


def _first_shuffled[T](items: list[T], count: int, rng: random.Random) -> list[T]:
    """The first ``count`` of a Fisher–Yates shuffle, from rng.random() alone."""
    for i in range(count):
        j = i + int(rng.random() * (len(items) - i))
        items[i], items[j] = items[j], items[i]
    return items[:count]


def new_seed() -> int:
    """A fresh seed that fits a signed 63-bit field."""
    return secrets.randbits(62)
