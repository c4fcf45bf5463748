"""``make bench``, section "hints": how often the comparison hints are right, on the labelled
claim/evidence pairs of ``bench/labelled/hint_pairs.jsonl`` (issue 30).

Each pair is compared by ``citeview.core.evidence.compare.compare``, the one function every hint
comes from, and its label (differs, not_stated, agree) held against the pair's. Printed: precision
and recall of "differs" and of "not stated", for each language, for the dev split (the rules were
tuned on it), the test split (held out) and all. Target (issue 45): precision ≥ 0.93 and recall
≥ 0.88 for "differs", in each language, on the test split (issue 30 asked 0.95 / 0.90).

    python -m bench.hints [PATH] [--errors]   # --errors lists the dev split's misses, to tune by
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from bench.figures import Figure
from citeview.core.evidence.compare import compare

PAIRS = Path(__file__).with_name("labelled") / "hint_pairs.jsonl"
PRECISION_TARGET, RECALL_TARGET = 0.93, 0.88
SPLITS, LANGUAGES, LABELS = ("dev", "test", "all"), ("en", "ja"), ("differs", "not_stated")


@dataclass(frozen=True)
class Scored:
    id: str
    lang: str
    split: str
    label: str
    predicted: str


def scored_pairs(path: Path = PAIRS) -> list[Scored]:
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Scored(p["id"], p["lang"], p["split"], p["label"], compare(p["claim"], p["evidence"]).label) for p in pairs]


def precision_recall(pairs: list[Scored], label: str) -> tuple[float | None, float | None, int, int]:
    """Precision and recall of ``label`` (None where nothing was predicted or labelled so), and how
    many pairs are labelled so and predicted so."""
    labelled = sum(p.label == label for p in pairs)
    predicted = sum(p.predicted == label for p in pairs)
    right = sum(p.label == label and p.predicted == label for p in pairs)
    return (right / predicted if predicted else None, right / labelled if labelled else None, labelled, predicted)


def hint_figures(path: Path = PAIRS) -> list[Figure]:
    if not path.exists():
        return [Figure("hints", f"no labelled pairs at {path}", 0, "pairs")]
    pairs = scored_pairs(path)
    figures = []
    for split in SPLITS:
        for lang in LANGUAGES:
            chosen = [p for p in pairs if p.lang == lang and (split == "all" or p.split == split)]
            for label in LABELS:
                precision, recall, labelled, _ = precision_recall(chosen, label)
                name = f"{split} {lang} ({len(chosen)} pairs, {labelled} {label.replace('_', ' ')})"
                figures.append(_rate(f"{name}: precision of {label}", precision, label, PRECISION_TARGET))
                figures.append(_rate(f"{name}: recall of {label}", recall, label, RECALL_TARGET))
    return figures


def _rate(name: str, value: float | None, label: str, target: float) -> Figure:
    if value is None:
        return Figure("hints", name, 0, "none")
    if label != "differs":  # "not stated" is reported, with no target
        return Figure("hints", name, round(value, 3), "")
    return Figure("hints", name, round(value, 3), "", f"≥ {target}", value >= target)


def print_errors(pairs: list[Scored], path: Path) -> None:
    """The dev split's pairs labelled otherwise than predicted (the test split is never listed)."""
    texts = {
        p["id"]: p for p in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    }
    for pair in pairs:
        if pair.split != "dev" or pair.label == pair.predicted:
            continue
        text = texts[pair.id]
        comparison = compare(text["claim"], text["evidence"])
        found = [(h.outcome, h.kind, [f.text for f in h.claim], [f.text for f in h.passage]) for h in comparison.hints]
        print(f"{pair.id}: labelled {pair.label} {text['kinds']}, predicted {pair.predicted} {found}")
        print(f"  claim: {text['claim'][:200]}\n  evidence: {text['evidence'][:300]!r}\n  why: {text['why']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=PAIRS)
    parser.add_argument("--errors", action="store_true", help="list the dev split's misses")
    options = parser.parse_args()
    if options.errors:
        print_errors(scored_pairs(options.path), options.path)
    for figure in hint_figures(options.path):
        mark = "" if figure.met is None else (" ✓" if figure.met else " ✗")
        value = "—" if figure.unit == "none" else f"{figure.value:.3f}"
        print(f"{figure.name:<70} {value:>6} {figure.target}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
