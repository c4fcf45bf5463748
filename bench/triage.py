"""``make bench``, section "triage": how well "likely problems first" finds the claims that differ from
their evidence, on the labelled pairs of ``bench/labelled/hint_pairs.jsonl`` (issue 45).

Each pair is an item. Its signals are computed by the code the check panel uses for a claim against
its evidence: ``compare`` (a figure, date or qualifier that differs; a negation that differs) and the
passage finder (``find_passages``: no passage found, or a weak one), then the items are ordered by
``citeview.core.checking.triage.rank``. The pairs are shuffled once with a fixed seed before ranking,
so that items of equal weight, which ``rank`` keeps in the order given, are not in the file's order.

Printed, per language and split: of the pairs labelled "differs", the share that falls in the first 20%
and the first 40% of the order, against a random order (the mean over SHUFFLES shuffles, seeded; its
expected value is 20% and 40%). The weights were tuned on ``dev`` only; ``test`` is held out.

    python -m bench.triage [PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.figures import Figure
from citeview.core.checking.triage import NEGATION_DIFFERS, VALUE_DIFFERS, passage_signals, rank
from citeview.core.evidence.compare import compare
from citeview.core.evidence.passages import find_passages

PAIRS = Path(__file__).with_name("labelled") / "hint_pairs.jsonl"
SPLITS, LANGUAGES = ("dev", "test"), ("en", "ja")
SHARES = (0.2, 0.4)
SEED, SHUFFLES = 45, 2_000


@dataclass(frozen=True)
class Pair:
    id: str
    lang: str
    split: str
    differs: bool  # labelled so
    signals: tuple[str, ...]


def pair_signals(claim: str, evidence: str) -> tuple[str, ...]:
    """The pair's signals, as the check panel computes them for a claim against its evidence."""
    comparison = compare(claim, evidence)
    signals: list[str] = []
    if comparison.negation_differs:
        signals.append(NEGATION_DIFFERS)
    if comparison.differs_in(("figure", "date", "qualifier")):
        signals.append(VALUE_DIFFERS)
    passages = find_passages(claim, evidence)
    signals += passage_signals(bool(passages), passages[0].score if passages else None)
    return tuple(signals)


def read_pairs(path: Path = PAIRS) -> list[Pair]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        Pair(p["id"], p["lang"], p["split"], p["label"] == "differs", pair_signals(p["claim"], p["evidence"]))
        for p in lines
    ]


def found_in_first(ordered: list[Pair], share: float) -> float:
    """Of the pairs labelled "differs", the share among the first ``share`` of ``ordered``."""
    differs = sum(pair.differs for pair in ordered)
    first = ordered[: round(len(ordered) * share)]
    return sum(pair.differs for pair in first) / differs if differs else 0.0


def triage_order(pairs: list[Pair], seed: int = SEED) -> list[Pair]:
    given = list(pairs)
    random.Random(seed).shuffle(given)
    return [entry.item for entry in rank((pair, pair.signals) for pair in given)]


def random_mean(pairs: list[Pair], share: float, shuffles: int = SHUFFLES, seed: int = SEED) -> float:
    rng, shuffled, total = random.Random(seed), list(pairs), 0.0
    for _ in range(shuffles):
        rng.shuffle(shuffled)
        total += found_in_first(shuffled, share)
    return total / shuffles


def triage_figures(path: Path = PAIRS) -> list[Figure]:
    if not path.exists():
        return [Figure("triage", f"no labelled pairs at {path}", 0, "pairs")]
    pairs = read_pairs(path)
    figures = []
    for split in SPLITS:
        for lang in LANGUAGES:
            chosen = [p for p in pairs if p.lang == lang and p.split == split]
            ordered = triage_order(chosen)
            name = f"{split} {lang} ({len(chosen)} pairs, {sum(p.differs for p in chosen)} differs)"
            for share in SHARES:
                first = f"in the first {share:.0%}"
                figures.append(
                    Figure("triage", f"{name}: differs {first}", round(found_in_first(ordered, share), 3), "")
                )
                mean = random_mean(chosen, share)
                figures.append(Figure("triage", f"{name}: differs {first}, random order", round(mean, 3), ""))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=PAIRS)
    options = parser.parse_args()
    for figure in triage_figures(options.path):
        print(f"{figure.name:<80} {figure.value:>6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
