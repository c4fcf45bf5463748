"""The passage of a source's snapshot found for a claim, compared with it: what the check panel shows
beside the claim, and what the figures and the report count. It points; it never judges."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from citeview.core.evidence.compare import Comparison, Finding, compare, mark_findings
from citeview.core.evidence.pages import Page
from citeview.core.evidence.passages import Passage, passages_of_claims, snapshot_sentences


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
        """A date, figure or qualifier of the claim differs from the passage's, or a negation does."""
        return bool(self.comparison and self.comparison.differs)

    @property
    def figure_or_date_differs(self) -> bool:
        return bool(self.comparison and self.comparison.differs_in(("date", "figure")))

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


def passages_for_claims(claims: Sequence[str], text: str, pages: Sequence[Page] = ()) -> Iterator[PassageFound]:
    """The best passage of ``text`` for each of ``claims`` and how the two compare, in their order, as
    each is found; the text is cut into sentences once for them all."""
    found = passages_of_claims(claims, snapshot_sentences(text, pages), best=1)
    for claim, passages in zip(claims, found, strict=True):
        yield found_with(claim, passages[0] if passages else None)


def found_with(claim: str, passage: Passage | None) -> PassageFound:
    """A passage found for ``claim`` (or none) and how the two compare: the comparison costs only the
    claim's and the passage's length, so a passage kept without it is compared again when shown."""
    return PassageFound(claim, passage, compare(claim, passage.text) if passage else None)
