"""The passages of a source's snapshot found for a claim, the best compared with it: what the check
panel shows beside the claim, and what the figures and the report count. It points; it never judges."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from citeview.core.evidence.compare import (
    Comparison,
    Finding,
    claim_marks,
    compare,
    evidence_marks,
    findings,
    mark_findings,
    of_the_claims_kinds,
)
from citeview.core.evidence.passages import BEST, Passage, passages_of_claims, snapshot_sentences
from citeview.core.evidence.pdf_pages import Page

# What "the figures and dates a passage holds" are, of the findings ``compare`` reads.
FIGURE_AND_DATE_KINDS = ("figure", "date")


@dataclass(frozen=True)
class PassageFound:
    claim: str  # the claim as a reader sees it (no markers, no link addresses)
    passage: Passage | None  # None: no passage scores above the threshold, a finding too
    comparison: Comparison | None
    # Up to BEST passages, best first; the first is ``passage``, the one the comparison is with.
    candidates: tuple[Passage, ...] = ()

    @property
    def found(self) -> bool:
        return self.passage is not None

    @property
    def differs(self) -> bool:
        """A date, figure or qualifier of the claim differs from the passage's, or a negation does."""
        return bool(self.comparison and self.comparison.differs)

    @property
    def figure_or_date_differs(self) -> bool:
        return bool(self.comparison and self.comparison.differs_in(("date", "figure")))

    def claim_html(self) -> str:
        """The claim escaped, what differs from the passage marked (``mark_findings`` escapes)."""
        marks: Sequence[Finding] = claim_marks([self.comparison]) if self.comparison else ()
        return mark_findings(self.claim, marks)

    def passage_html(self) -> str:
        if self.passage is None:
            return ""
        marks: Sequence[Finding] = evidence_marks(self.comparison) if self.comparison else ()
        return mark_findings(self.passage.text, marks)

    def to_json(self) -> dict[str, Any]:
        return {
            "found": self.found,
            "passage": self.passage.to_json() if self.passage else None,
            "candidates": [candidate.to_json() for candidate in self.candidates],
            "differs": self.differs,
            "comparison": self.comparison.to_json() if self.comparison else None,
        }


def passages_for_claims(
    claims: Sequence[str], text: str, pages: Sequence[Page] = (), best: int = BEST
) -> Iterator[PassageFound]:
    """The best passages of ``text`` for each of ``claims`` (up to ``best``, best first) and how the
    first compares with the claim, in their order, as each is found; the text is cut into sentences
    once for them all."""
    found = passages_of_claims(claims, snapshot_sentences(text, pages), best=best)
    for claim, passages in zip(claims, found, strict=True):
        yield found_with(claim, passages)


def found_with(claim: str, candidates: Sequence[Passage]) -> PassageFound:
    """The candidates found for ``claim`` (none: no passage found) and how the first compares with it:
    the comparison costs only the claim's and the passage's length, so passages kept without it are
    compared again when shown."""
    passage = candidates[0] if candidates else None
    return PassageFound(claim, passage, compare(claim, passage.text) if passage else None, tuple(candidates))


def figures_and_dates(text: str) -> tuple[Finding, ...]:
    """The figures and dates a passage holds, in its order, as the comparison reads them."""
    return tuple(finding for finding in findings(text) if finding.kind in FIGURE_AND_DATE_KINDS)


def claims_kinds_in(claim: str, text: str) -> tuple[Finding, ...]:
    """The figures and dates a passage holds of the kinds the claim states (``of_the_claims_kinds``): a
    claim about the chance of rain lists the passage's percentages, not its weekdays and clock times."""
    return of_the_claims_kinds(findings(claim), figures_and_dates(text))
