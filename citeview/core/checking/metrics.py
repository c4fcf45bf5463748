"""Citation recall and precision, and how far editors agree, from evidence-review judgements
(``../shared/docs/evidence-review.md``).

Recall and precision follow Liu, Zhang & Liang (2023), *Evaluating Verifiability in Generative Search
Engines*. Anything not judged yet is left out of the figures, never counted as a failure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from citeview.core.common.phrases import Phrase, phrase

VERDICTS = ("complete", "partial", "none", "inaccessible", "supports_and_refutes", "unclear")
SUPPORTED_TOGETHER = ("yes", "no", "contradict")
COLLAPSED = ("full", "partial", "none")

# Only the three verdicts that grade support have a place on the full / partial / none scale.
# supports_and_refutes → partial: the source does support the statement, but not cleanly, so it is
# neither full support nor none. inaccessible and unclear say nothing about the support (the source or
# the statement could not be read), so they collapse to None: not comparable, a missing value.
_COLLAPSE = {
    "complete": "full",
    "partial": "partial",
    "none": "none",
    "supports_and_refutes": "partial",
    "inaccessible": None,
    "unclear": None,
}

# {item_id: {rater_id: label}}; a rater may miss an item, and a label of None is a missing value too.
Ratings = Mapping[Hashable, Mapping[Hashable, str | None]]


def collapsed(verdict: str) -> str | None:
    """``full``, ``partial`` or ``none``; None for a verdict that grades no support."""
    if verdict not in _COLLAPSE:
        raise ValueError(f"unknown verdict {verdict!r}")
    return _COLLAPSE[verdict]


@dataclass(frozen=True)
class StatementJudgement:
    """One editor's judgement of one statement."""

    answer: str  # the answer (response) the statement belongs to, for macro averages
    worthy: bool | None  # verification_worthy; None = not judged yet
    supported_together: str | None  # "yes" | "no" | "contradict"; None = not judged yet
    verdicts: list[str | None]  # one per resolved citation; None = not judged yet
    unresolved: int = 0  # unresolved markers: citations that point at no source, so support nothing

    def __post_init__(self) -> None:
        if self.supported_together not in (*SUPPORTED_TOGETHER, None):
            raise ValueError(f"unknown supported_together {self.supported_together!r}")
        for verdict in self.verdicts:
            if verdict is not None and verdict not in VERDICTS:
                raise ValueError(f"unknown verdict {verdict!r}")
        if self.unresolved < 0:
            raise ValueError("unresolved cannot be negative")


@dataclass(frozen=True)
class Ratio:
    """A share with what it was computed from, so a page can show "1 / 3" as well as 33.3%.

    A macro average is a Ratio too: the sum of the answers' shares over the number of answers."""

    numerator: int | float
    denominator: int | float

    @property
    def value(self) -> float | None:
        """None when there is nothing to divide by: no data is not 0%."""
        if not self.denominator:
            return None
        return self.numerator / self.denominator

    @property
    def percent(self) -> float | None:
        """The share as a percentage to one decimal (33.3), as every page shows rates."""
        return percent(self.value)

    def to_json(self) -> dict[str, Any]:
        return {
            "numerator": self.numerator,
            "denominator": self.denominator,
            "value": self.value,
            "percent": self.percent,
        }


@dataclass(frozen=True)
class FigureScope:
    """What a figure is computed on: the items whose checks its reader may read, of all the items the
    dumps hold. Blind first keeps other editors' checks of an item from an editor until they have
    checked it, so an editor's figure counts fewer items than the dump's; it must say so, and never
    pass for the dump's figure. Which items are hidden is decided once, by the web app
    (``citeview.review.figure_scope``); this is only the arithmetic and the words."""

    visible_items: int
    items: int

    @classmethod
    def of(cls, items: int, hidden: int) -> FigureScope:
        return cls(max(items - hidden, 0), items)

    @property
    def complete(self) -> bool:
        return self.visible_items >= self.items

    def to_json(self) -> dict[str, Any]:
        return {"visible_items": self.visible_items, "items": self.items, "complete": self.complete}


def scope_phrase(scope: dict[str, Any] | None) -> Phrase | None:
    """What a figure on part of the items says inside it ("on the 2 of 14 items visible to you"); None
    for a figure on every item (``scope`` as :meth:`FigureScope.to_json` makes it)."""
    if not scope or scope["complete"]:
        return None
    values = {"visible": scope["visible_items"], "items": scope["items"]}
    if scope["items"] == 1:
        return phrase("on the {visible} of {items} item visible to you", **values)
    return phrase("on the {visible} of {items} items visible to you", **values)


def percent(share: float | None) -> float | None:
    """A share from 0 to 1 as a percentage to one decimal; None stays None (no data is not 0%)."""
    return None if share is None else round(share * 100, 1)


def citation_recall(judgements: Iterable[StatementJudgement]) -> Ratio:
    """Micro: worthy statements whose citations together fully support them / worthy statements."""
    supported = counted = 0
    for judgement in judgements:
        outcome = _supported(judgement)
        if outcome is None:
            continue
        counted += 1
        supported += outcome
    return Ratio(supported, counted)


def citation_precision(judgements: Iterable[StatementJudgement]) -> Ratio:
    """Micro: citations on worthy statements that support them / citations on worthy statements."""
    supporting: int | float = 0
    counted: int | float = 0
    for judgement in judgements:
        part = _precision_counts(judgement)
        supporting += part.numerator
        counted += part.denominator
    return Ratio(supporting, counted)


def macro_recall(judgements: Iterable[StatementJudgement]) -> Ratio:
    """The mean of the answers' recalls; answers without a counted worthy statement are left out."""
    return _macro(judgements, citation_recall)


def macro_precision(judgements: Iterable[StatementJudgement]) -> Ratio:
    """The mean of the answers' precisions; answers without a counted citation are left out."""
    return _macro(judgements, citation_precision)


# Why recall or precision has nothing to divide by, from the first thing missing to the last. A page
# says it in words: an empty figure is never just "—".
NOTHING_CHECKED = "nothing_checked"  # no statement of these answers has any check
NO_WORTHY_ANSWER = "no_worthy_answer"  # no statement has an answer to "verification-worthy" yet
NONE_WORTHY = "none_worthy"  # every statement answered was judged not verification-worthy
NO_TOGETHER_ANSWER = "no_together_answer"  # recall: no worthy statement has "supported together" yet
NO_VERDICT_ON_WORTHY = "no_verdict_on_worthy"  # precision: no citation on a worthy statement has a verdict


def recall_empty_because(judgements: Iterable[StatementJudgement]) -> str | None:
    """Why :func:`citation_recall` (and :func:`macro_recall`) has no denominator; None when it has one."""
    judgements = list(judgements)
    if citation_recall(judgements).denominator:
        return None
    return _worthiness_missing(judgements) or NO_TOGETHER_ANSWER


def precision_empty_because(judgements: Iterable[StatementJudgement]) -> str | None:
    """Why :func:`citation_precision` (and :func:`macro_precision`) has no denominator; None when it has one."""
    judgements = list(judgements)
    if citation_precision(judgements).denominator:
        return None
    return _worthiness_missing(judgements) or NO_VERDICT_ON_WORTHY


def _worthiness_missing(judgements: list[StatementJudgement]) -> str | None:
    if not judgements:
        return NOTHING_CHECKED
    if all(j.worthy is None for j in judgements):
        return NO_WORTHY_ANSWER
    if not any(j.worthy for j in judgements):
        return NONE_WORTHY
    return None


def verdict_distribution(verdicts: Iterable[str | None]) -> dict[str, int]:
    """How many of each verdict, all six keys in ``VERDICTS`` order; unjudged (None) are left out."""
    counts = Counter(verdict for verdict in verdicts if verdict is not None)
    unknown = set(counts) - set(VERDICTS)
    if unknown:
        raise ValueError(f"unknown verdicts {sorted(unknown)!r}")
    return {verdict: counts[verdict] for verdict in VERDICTS}


def _supported(judgement: StatementJudgement) -> bool | None:
    """Whether a worthy statement counts as supported; None when it is not counted (yet)."""
    if judgement.worthy is not True:
        return None
    if not judgement.verdicts:
        return False  # no citation, or only unresolved markers: unsupported whatever else was recorded (as ALCE)
    if judgement.supported_together is None:
        return None
    return judgement.supported_together == "yes"


def _precision_counts(judgement: StatementJudgement) -> Ratio:
    if judgement.worthy is not True:
        return Ratio(0, 0)  # citations on statements that claim nothing are outside the denominator
    together = judgement.supported_together == "yes"
    judged = [verdict for verdict in judgement.verdicts if verdict is not None]
    supporting = sum(verdict == "complete" or (verdict == "partial" and together) for verdict in judged)
    return Ratio(supporting, len(judged) + judgement.unresolved)


def _macro(judgements: Iterable[StatementJudgement], micro: Callable[[list[StatementJudgement]], Ratio]) -> Ratio:
    by_answer: dict[str, list[StatementJudgement]] = {}
    for judgement in judgements:
        by_answer.setdefault(judgement.answer, []).append(judgement)
    values = [ratio.value for ratio in map(micro, by_answer.values()) if ratio.value is not None]
    return Ratio(sum(values, 0.0), len(values))


# Agreement. Degenerate cases: with no item judged by two raters every figure is None. When every
# value is the same label, chance agreement is 1 and both κ and α are 0 / 0: undefined, so None (as
# Krippendorff advises: data without variation cannot show reliability); percent agreement is then 1.0.


def percent_agreement(ratings: Ratings) -> float | None:
    """Share of agreeing rater pairs per item, averaged over items judged by two raters or more."""
    shares = []
    for labels in _pairable(ratings).values():
        counts = Counter(labels.values())
        pairs = _pairs(len(labels))
        shares.append(sum(_pairs(n) for n in counts.values()) / pairs)
    return sum(shares) / len(shares) if shares else None


def cohen_kappa(ratings: Ratings, rater_a: Hashable, rater_b: Hashable) -> float | None:
    """Cohen's κ between two raters, over the items both judged."""
    both = [
        (labels[rater_a], labels[rater_b])
        for labels in _judged(ratings).values()
        if rater_a in labels and rater_b in labels
    ]
    n = len(both)
    if not n:
        return None
    agreed = sum(a == b for a, b in both)
    marginals_a = Counter(a for a, _ in both)
    marginals_b = Counter(b for _, b in both)
    # In counts rather than shares, so a chance agreement of exactly 1 is caught exactly:
    # κ = (p_o − p_e) / (1 − p_e) = (n·agreed − Σ a_k·b_k) / (n² − Σ a_k·b_k).
    chance = sum(marginals_a[label] * marginals_b[label] for label in marginals_a)
    if n * n == chance:
        return None
    return (n * agreed - chance) / (n * n - chance)


def krippendorff_alpha(ratings: Ratings) -> float | None:
    """Krippendorff's α for nominal labels, any number of raters, missing values allowed
    (Krippendorff 2011, *Computing Krippendorff's Alpha-Reliability*)."""
    units = _pairable(ratings)
    # Coincidences: within each unit, every ordered pair of values from different raters, weighted
    # 1 / (m_u − 1). Only the off-diagonal sum (the disagreements) and the label totals n_c are needed.
    disagreeing = Fraction(0)
    totals: Counter[str] = Counter()
    for labels in units.values():
        counts = Counter(labels.values())
        m = len(labels)
        disagreeing += Fraction(m * m - sum(n * n for n in counts.values()), m - 1)
        totals.update(counts)
    n = sum(totals.values())
    expected = n * n - sum(count * count for count in totals.values())
    if not expected:
        return None
    # α = 1 − D_o / D_e = 1 − (n − 1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k
    return float(1 - (n - 1) * disagreeing / expected)


def agreement(ratings: Ratings, collapse: bool = False) -> dict[str, Any]:
    """Every agreement figure for ``ratings``, on the six verdicts or collapsed to full / partial / none.

    ``items`` and ``raters`` count what the figures are computed from: items judged by two raters or
    more, and the raters who judged them. ``cohen_kappa`` is there only when exactly two raters are."""
    if collapse:
        ratings = {
            item: {rater: None if label is None else collapsed(label) for rater, label in labels.items()}
            for item, labels in ratings.items()
        }
    units = _pairable(ratings)
    raters = {rater for labels in units.values() for rater in labels}
    figures: dict[str, Any] = {
        "items": len(units),
        "raters": len(raters),
        "percent": percent_agreement(units),
    }
    if len(raters) == 2:
        figures["cohen_kappa"] = cohen_kappa(units, *sorted(raters, key=str))
    figures["krippendorff_alpha"] = krippendorff_alpha(units)
    return figures


def _judged(ratings: Ratings) -> dict[Hashable, dict[Hashable, str]]:
    """The ratings without missing values."""
    return {
        item: {rater: label for rater, label in labels.items() if label is not None} for item, labels in ratings.items()
    }


def _pairable(ratings: Ratings) -> dict[Hashable, dict[Hashable, str]]:
    """The items judged by two raters or more: a lone value cannot agree or disagree with anything."""
    return {item: labels for item, labels in _judged(ratings).items() if len(labels) >= 2}


def _pairs(n: int) -> int:
    return n * (n - 1) // 2
