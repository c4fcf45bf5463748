"""The likely problems first: one order of a dump's (or a plan's) items by the signals citeview already
computes of them, each with a weight. It points; it never judges, and it never chooses a sample (a
plan's sample stays random: this may only order its items).

=======================  ======  ==============================================================
Signal                   Weight  Why this weight
=======================  ======  ==============================================================
quote_not_in_document        8   The provider's quote was held against the very document the
                                 request sent and is not in it: the strongest evidence of a
                                 problem there is, and one that never comes from our own rules.
negation_differs             6   The claim says "not" where the evidence does not (or the other
                                 way round). Measured on the dev split: every pair flagged so is
                                 labelled "differs" (13 of 13).
value_differs                5   A figure, date or qualifier of the claim differs from its
                                 evidence's: 54 of the 56 dev pairs flagged so differ.
model_copy_differs           4   The page as the model read it says the passage in other words,
                                 or not at all: the page changed, or the model read another one.
unresolved_marker            4   A marker that points at no source: the claim has nothing
                                 behind it. Certain, but already shown by the answer itself.
no_passage                   2   Nothing in the snapshot of the cited page matches the
                                 claim closely enough: the page may not say it. Weak on the dev
                                 split (7 of 46 such pairs differ, below the 35% of all pairs):
                                 a claim the evidence does not state often finds no passage.
weak_passage                 2   A passage was found, scoring below WEAK_PASSAGE_SCORE: it shares
                                 some words of the claim, perhaps not what it says (dev split:
                                 13 of 29 such pairs differ).
never_fetched                1   No snapshot of the page was ever taken: nothing is known against
                                 the claim, which is weak evidence of nothing but a gap.
=======================  ======  ==============================================================

An item's weight is the sum of its signals' weights; items of equal weight keep the order they were
given in (the check order), so an order with no signal at all is the check order itself. The weights
and WEAK_PASSAGE_SCORE were chosen on the dev split of ``bench/labelled/hint_pairs.jsonl``
(``python -m bench.triage``) and by the reasons above; docs/evidence-review.md has the figures.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

QUOTE_NOT_IN_DOCUMENT = "quote_not_in_document"
NEGATION_DIFFERS = "negation_differs"
VALUE_DIFFERS = "value_differs"
MODEL_COPY_DIFFERS = "model_copy_differs"
UNRESOLVED_MARKER = "unresolved_marker"
NO_PASSAGE = "no_passage"
WEAK_PASSAGE = "weak_passage"
NEVER_FETCHED = "never_fetched"

# Strongest first: an item's signals are listed in this order, and so are a batch's counts.
WEIGHTS: dict[str, int] = {
    QUOTE_NOT_IN_DOCUMENT: 8,
    NEGATION_DIFFERS: 6,
    VALUE_DIFFERS: 5,
    MODEL_COPY_DIFFERS: 4,
    UNRESOLVED_MARKER: 4,
    NO_PASSAGE: 2,
    WEAK_PASSAGE: 2,
    NEVER_FETCHED: 1,
}
SIGNALS: tuple[str, ...] = tuple(WEIGHTS)

# A passage found that scores below this (of 100) is weak. PASSAGE_THRESHOLD (35) is the least score
# of a passage found at all; 40 to 90 move the dev split's figures by one pair at most (docs/evidence-review.md).
WEAK_PASSAGE_SCORE = 50


@dataclass(frozen=True)
class Ranked[T]:
    """One item in the order, with the signals that put it there (strongest first) and their weight."""

    item: T
    signals: tuple[str, ...]
    weight: int


def passage_signals(found: bool, score: int | None) -> tuple[str, ...]:
    """What a passage looked for says: none found, or one found that is weak."""
    if not found:
        return (NO_PASSAGE,)
    if score is not None and score < WEAK_PASSAGE_SCORE:
        return (WEAK_PASSAGE,)
    return ()


def ordered_signals(signals: Iterable[str]) -> tuple[str, ...]:
    """The known signals among ``signals``, each once, strongest first."""
    given = set(signals)
    return tuple(signal for signal in SIGNALS if signal in given)


def weight_of(signals: Iterable[str]) -> int:
    return sum(WEIGHTS[signal] for signal in ordered_signals(signals))


def rank[T](items: Iterable[tuple[T, Iterable[str]]]) -> list[Ranked[T]]:
    """The items, each given with its signals, ordered likely problems first: by the sum of their
    signals' weights, heaviest first; items of equal weight in the order given (``sorted`` is stable)."""
    ranked = [Ranked(item, ordered_signals(signals), weight_of(signals)) for item, signals in items]
    return sorted(ranked, key=lambda entry: -entry.weight)
