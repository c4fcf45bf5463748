"""One measured figure of ``make bench``, with its target, and how the table and results file show it."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass


@dataclass
class Figure:
    section: str  # "parse", "render", "memory", "serving", "upload"
    name: str  # what was measured, e.g. "perplexity 10 MB: parse / orjson decode"
    value: float
    unit: str  # "×", "s", "MB", "req/s", "ms", "queries"
    target: str = ""  # e.g. "≤ 1.5"; empty: reported without a target
    met: bool | None = None  # None: no target

    def as_dict(self) -> dict:
        return asdict(self)


def ratio_figure(section: str, name: str, value: float, limit: float) -> Figure:
    """A ratio that must stay at or below ``limit``."""
    return Figure(section, name, round(value, 2), "×", f"≤ {limit}", value <= limit)


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` runs: these machines are shared and noisy."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def medians_side_by_side(
    runs: list[Callable[[], object]], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> list[float]:
    """The median time of each of ``runs`` by ``clock`` (wall time unless told), taken in turn
    ``repeat`` times: a busy moment of a shared machine then slows each of them alike, and a ratio
    between them holds."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, measured in zip(runs, times, strict=True):
            start = clock()
            run()
            measured.append(clock() - start)
    return [statistics.median(measured) for measured in times]


def print_table(figures: list[Figure]) -> None:
    width = max(len(f.name) for f in figures)
    section = None
    for figure in figures:
        if figure.section != section:
            section = figure.section
            print(f"\n{section}")
        verdict = "" if figure.met is None else ("met" if figure.met else "NOT MET")
        value = f"{figure.value:g} {figure.unit}"
        print(f"  {figure.name:<{width}}  {value:>16}  {figure.target:>7}  {verdict}")
