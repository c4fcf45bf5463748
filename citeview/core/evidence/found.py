"""The passage of a source's snapshot found for a claim, compared with it: what the check panel shows
beside the claim, and what the figures and the report count. It points; it never judges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citeview.core.evidence.compare import Comparison, Finding, compare, mark_findings
from citeview.core.evidence.pages import Page
from citeview.core.evidence.passages import Passage, best_passage


@dataclass(frozen=True)
class PassageFound:
    claim: str  # the claim as a reader sees it (no markers, no link addresses)
    passage: Passage | None  # None: no passage scores above the threshold, a finding too
    comparison: Comparison | None

    @property
    def found(self) -> bool:
        return self.passage is not None

    @property
    def differs(self) -> bool:
        """The claim says a date, figure or qualifier the passage does not, or they differ in negation."""
        return bool(self.comparison and self.comparison.differs)

    @property
    def figure_or_date_differs(self) -> bool:
        return bool(self.comparison and any(f.kind in ("date", "figure") for f in self.comparison.claim_only))

    def claim_html(self) -> str:
        """The claim escaped, what differs from the passage marked (``mark_findings`` escapes)."""
        marks: Sequence[Finding] = self.comparison.differing_in_claim if self.comparison else ()
        return mark_findings(self.claim, marks)

    def passage_html(self) -> str:
        if self.passage is None:
            return ""
        marks: Sequence[Finding] = self.comparison.differing_in_passage if self.comparison else ()
        return mark_findings(self.passage.text, marks)

    def to_json(self) -> dict[str, Any]:
        return {
            "found": self.found,
            "passage": self.passage.to_json() if self.passage else None,
            "differs": self.differs,
            "comparison": self.comparison.to_json() if self.comparison else None,
        }


def passage_for_claim(claim: str, text: str, pages: Sequence[Page] = ()) -> PassageFound:
    """The best passage of ``text`` for ``claim`` and how the two compare."""
    passage = best_passage(claim, text, pages)
    return PassageFound(claim, passage, compare(claim, passage.text) if passage else None)
