"""What each drawn unit of a plan gives each estimate, on the worked example of evidence-review.md:
S1 worthy, c1 complete and c2 partial, supported together; S2 worthy, c3 partial and an unresolved
[8], not supported together; S3 worthy, no citation; S4 not worthy, c4 none. Recall 1 / 3, precision
2 / 4."""

from __future__ import annotations

from citeview.core.checking.metrics import StatementJudgement
from citeview.core.checking.plan_units import PRECISION, RECALL, citation_units, statement_units
from citeview.core.checking.sampling import StratumSample, Unit, estimate

S1 = StatementJudgement("a", True, "yes", ["complete", "partial"])
S2 = StatementJudgement("a", True, "no", ["partial"], unresolved=1)
S3 = StatementJudgement("a", True, None, [])
S4 = StatementJudgement("a", False, None, ["none"])


def _census(units: list[dict[str, Unit]], name: str) -> float | None:
    """The estimate when every unit of the population is drawn and checked: the exact figure."""
    checked = [unit[name] for unit in units]
    return estimate({"all": StratumSample(len(units), len(units), checked)}).value


def test_a_statement_plan_over_the_worked_example_gives_its_recall_and_precision() -> None:
    units = [statement_units(s) for s in (S1, S2, S3, S4)]
    assert _census(units, RECALL) == 1 / 3
    assert _census(units, PRECISION) == 2 / 4


def test_a_citation_plan_over_the_worked_example_gives_its_precision() -> None:
    units = [
        citation_units("complete", S1),
        citation_units("partial", S1),
        citation_units("partial", S2),
        citation_units(None, S2, unresolved=True),  # [8]: a citation that supports nothing
        citation_units("none", S4),
    ]
    assert _census(units, PRECISION) == 2 / 4
    assert all(RECALL not in unit for unit in units)


def test_a_citation_on_a_statement_that_claims_nothing_is_outside_precision() -> None:
    assert citation_units("none", S4)[PRECISION] == Unit(0, 0)


def test_a_citation_plan_shares_each_verdict_over_the_citations_with_a_final_verdict() -> None:
    units = [citation_units(v, S1) for v in ("complete", "complete", "partial", "none")]
    assert _census(units, "verdict_complete") == 0.5
    assert _census(units, "verdict_none") == 0.25


def test_a_citation_without_a_final_verdict_is_not_checked_yet() -> None:
    assert citation_units(None, S1) == {}


def test_a_partial_citation_waits_for_supported_together() -> None:
    undecided = StatementJudgement("a", True, None, ["partial"])
    assert PRECISION not in citation_units("partial", undecided)
    assert "verdict_partial" in citation_units("partial", undecided)


def test_a_statement_with_a_citation_not_judged_yet_gives_no_precision_but_gives_recall() -> None:
    waiting = StatementJudgement("a", True, "yes", ["complete", None])
    units = statement_units(waiting)
    assert PRECISION not in units
    assert "verdict_complete" not in units
    assert units[RECALL] == Unit(1, 1)


def test_a_statement_whose_answers_are_disputed_is_in_no_estimate() -> None:
    assert statement_units(None) == {}
