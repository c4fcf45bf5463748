"""The statistics of a sampled check: how many units to draw, which ones, and what the checked ones
say about the whole scope, with a 95% interval (``docs/sampling.md``).

A check plan draws a stratified random sample without replacement (strata are "provider · model",
allocated in proportion), and a share (a verdict's share, citation precision or recall) is estimated
as a combined ratio over the strata, its variance linearised with the finite-population correction.
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from scipy import stats  # type: ignore[import-untyped]

METHOD = "stratified-wilson"


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
    complete: bool  # every drawn unit checked
    method: str  # a stable code naming the interval, e.g. "stratified-wilson"


@lru_cache(maxsize=16)
def _z(confidence: float) -> float:
    """The normal quantile for a two-sided interval (cached: SciPy's ppf costs far more than the rest)."""
    return float(stats.norm.ppf(0.5 + confidence / 2))


def estimate(strata: Mapping[str, StratumSample], confidence: float = 0.95) -> Estimate:
    """The share over the whole scope, from the units checked so far, with its interval."""
    drawn = sum(sample.drawn for sample in strata.values())
    population = sum(sample.population for sample in strata.values())
    complete = all(len(sample.checked) >= sample.drawn for sample in strata.values())
    in_domain = sum(1 for sample in strata.values() for unit in sample.checked if unit.denominator > 0)
    empty = Estimate(None, None, None, in_domain, drawn, population, confidence, complete, METHOD)
    # A stratum with no check yet says nothing: the estimate covers the strata checked so far.
    covered = [sample for sample in strata.values() if sample.checked]
    total_numerator = sum(_weight(s) * sum(u.numerator for u in s.checked) for s in covered)
    total_denominator = sum(_weight(s) * sum(u.denominator for u in s.checked) for s in covered)
    if in_domain == 0 or total_denominator <= 0:
        return empty
    ratio = total_numerator / total_denominator
    variance = _linearised_variance(covered, ratio) / total_denominator**2
    trials = sum(u.denominator for s in covered for u in s.checked)
    fraction = sum(len(s.checked) for s in covered) / sum(s.population for s in covered)
    effective = _effective_size(ratio, variance, trials, fraction)
    low, high = _wilson(ratio, effective, _z(confidence))
    return Estimate(ratio, low, high, in_domain, drawn, population, confidence, complete, METHOD)


def _weight(sample: StratumSample) -> float:
    return sample.population / len(sample.checked)


def _linearised_variance(covered: Sequence[StratumSample], ratio: float) -> float:
    """Σ N_h² (1 − f_h) s²_h / n_h over the residuals y − R x (Taylor linearisation of the ratio)."""
    pooled = _pooled_residual_variance(covered, ratio)
    total = 0.0
    for sample in covered:
        checked = len(sample.checked)
        residuals = [u.numerator - ratio * u.denominator for u in sample.checked]
        # One unit gives no spread of its own: borrow the spread the other strata show.
        spread = _sample_variance(residuals) if checked > 1 else pooled
        correction = max(0.0, 1 - checked / sample.population)
        total += sample.population**2 * correction * spread / checked
    return total


def _pooled_residual_variance(covered: Sequence[StratumSample], ratio: float) -> float:
    squares = 0.0
    freedom = 0
    for sample in covered:
        if len(sample.checked) < 2:
            continue
        residuals = [u.numerator - ratio * u.denominator for u in sample.checked]
        squares += _sample_variance(residuals) * (len(residuals) - 1)
        freedom += len(residuals) - 1
    if freedom:
        return squares / freedom
    every = [u.numerator - ratio * u.denominator for s in covered for u in s.checked]
    return _sample_variance(every) if len(every) > 1 else 0.25


def _sample_variance(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def _effective_size(ratio: float, variance: float, trials: float, fraction: float) -> float:
    """Korn & Graubard's effective sample size p(1 − p)/v; when the sample shows no spread (p̂ = 0 or
    1), the size a simple random sample of the same trials would have."""
    if variance > 0 and 0 < ratio < 1:
        return ratio * (1 - ratio) / variance
    if fraction >= 1:
        return math.inf
    return trials / (1 - fraction)


def _wilson(share: float, size: float, z: float) -> tuple[float, float]:
    if math.isinf(size):
        return share, share
    centre = (share + z * z / (2 * size)) / (1 + z * z / size)
    half = z / (1 + z * z / size) * math.sqrt(share * (1 - share) / size + z * z / (4 * size * size))
    return max(0.0, centre - half), min(1.0, centre + half)


def sample_size_for_margin(margin: float, population: Mapping[str, int], confidence: float = 0.95) -> int:
    """The smallest sample whose interval is at most ± margin at p = 0.5, with the finite-population
    correction; never more than the population."""
    total = sum(population.values())
    z = _z(confidence)
    infinite = z * z * 0.25 / (margin * margin)
    size = infinite / (1 + (infinite - 1) / total) if total else 0.0
    return min(total, math.ceil(size - 1e-9))


def allocate(population: Mapping[str, int], size: int) -> dict[str, int]:
    """Proportional allocation by largest remainder (ties by stratum name); the sizes sum to
    min(size, population) and no stratum gets more than it holds."""
    total = sum(population.values())
    size = max(0, min(size, total))
    if total == 0:
        return dict.fromkeys(population, 0)
    floors = {key: size * count // total for key, count in population.items()}
    left = size - sum(floors.values())
    by_remainder = sorted(population, key=lambda key: (-(size * population[key] % total), key))
    for key in by_remainder[:left]:
        floors[key] += 1
    return floors


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
