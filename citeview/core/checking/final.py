"""The final verdict of an item: what the dump's own figures (citation recall and precision) and the
handover report count. A lead's settlement where there is one; else the editors' verdict when every
editor who judged the item gave the same; else none, and the item is named as unsettled. Agreement
figures (κ, α) never read this: they are computed on the editors' own verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

How = Literal["settled", "agreed", "disagreed", "unchecked"]


@dataclass(frozen=True)
class FinalVerdict:
    verdict: str | None  # the verdict counted; None while unchecked or disagreed and not settled
    how: How
    editors: tuple[str, ...] = ()  # the distinct verdicts editors gave, sorted

    @property
    def unsettled(self) -> bool:
        """Editors disagree and nobody has settled it: counted nowhere, named in the report."""
        return self.how == "disagreed"


def final_verdict(editor_verdicts: Iterable[str], settled: str = "") -> FinalVerdict:
    """``editor_verdicts``: the verdicts each editor gave the item (blank for not judged yet);
    ``settled``: the settlement's verdict, blank when there is none."""
    given = tuple(sorted({verdict for verdict in editor_verdicts if verdict}))
    if settled:
        return FinalVerdict(settled, "settled", given)
    if not given:
        return FinalVerdict(None, "unchecked")
    if len(given) == 1:
        return FinalVerdict(given[0], "agreed", given)
    return FinalVerdict(None, "disagreed", given)


def disagrees(editor_verdicts: Iterable[str]) -> bool:
    """Whether editors who judged the item gave different verdicts (the ≠ of the reviewer's view)."""
    return len({verdict for verdict in editor_verdicts if verdict}) > 1


def needed_final_verdict(checks: Iterable[tuple[str, bool]], settled: str = "", needed: int = 1) -> FinalVerdict:
    """:func:`final_verdict` for a plan that needs ``needed`` independent checks per item: ``checks`` the
    (verdict, independent) of each editor's check. Agreement counts only once ``needed`` independent
    verdicts agree: one editor's verdict is not final while the plan still offers the item to a second."""
    given = list(checks)
    final = final_verdict((verdict for verdict, _independent in given), settled)
    independent = sum(1 for verdict, is_independent in given if verdict and is_independent)
    if final.how == "agreed" and independent < needed:
        return FinalVerdict(None, "unchecked", final.editors)
    return final
