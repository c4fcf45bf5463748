"""What one drawn unit of a check plan gives each of the plan's estimates, from final verdicts only
(:mod:`citeview.core.checking.final`): the numerator and denominator :func:`sampling.estimate` sums.

The figures follow ``../shared/docs/evidence-review.md`` (Liu et al. 2023):

- citation precision counts the citations on verification-worthy statements (a domain: a citation on
  another statement gives 0 / 0, which leaves it out), and of them those ``complete``, or ``partial``
  where the statement is supported together; a marker that cites no source counts as a citation that
  supports nothing;
- citation recall counts the worthy statements whose citations together fully support them; a
  statement with no citation is unsupported;
- the share of each verdict counts the citations with a final verdict.

A unit gives an estimate nothing (it is not checked yet, for that estimate) until every answer the
estimate reads is final. A citation plan cannot estimate recall: its statements are drawn in proportion
to their citations, and a statement citing nothing is never drawn (:data:`RECALL_NOT_ESTIMATED`).
"""

from __future__ import annotations

from citeview.core.checking.metrics import VERDICTS, StatementJudgement
from citeview.core.checking.sampling import Unit

PRECISION = "citation_precision"
RECALL = "citation_recall"
VERDICT_SHARES = tuple(f"verdict_{verdict}" for verdict in VERDICTS)

# Why a citation plan shows no recall, as a code the page says in words.
RECALL_NOT_ESTIMATED = "citation_plan_has_no_recall"


def citation_units(
    verdict: str | None, statement: StatementJudgement | None, unresolved: bool = False
) -> dict[str, Unit]:
    """A drawn citation's part in each estimate it is checked for. ``verdict``: its final verdict
    (None while unchecked or disputed); ``statement``: its statement's final answers (None while they
    are disputed); ``unresolved``: the item is a marker that cites no source (it has no verdict)."""
    units: dict[str, Unit] = {}
    if unresolved:
        units.update(dict.fromkeys(VERDICT_SHARES, Unit(0, 0)))  # it has no verdict to share
    elif verdict is not None:
        units.update(_verdict_shares([verdict]))
    precision = _citation_precision(verdict, statement, unresolved)
    if precision is not None:
        units[PRECISION] = precision
    return units


def statement_units(statement: StatementJudgement | None) -> dict[str, Unit]:
    """A drawn statement's part in each estimate it is checked for. ``statement.verdicts`` holds one
    entry per citation of the statement, None for one without a final verdict; ``statement`` is None
    while the statement's own answers are disputed."""
    if statement is None:
        return {}
    units: dict[str, Unit] = {}
    if None not in statement.verdicts:
        units.update(_verdict_shares(statement.verdicts))
    recall = _statement_recall(statement)
    if recall is not None:
        units[RECALL] = recall
    precision = _statement_precision(statement)
    if precision is not None:
        units[PRECISION] = precision
    return units


def _verdict_shares(verdicts: list[str | None]) -> dict[str, Unit]:
    given = [verdict for verdict in verdicts if verdict is not None]
    return {
        name: Unit(sum(1 for v in given if v == verdict), len(given))
        for name, verdict in zip(VERDICT_SHARES, VERDICTS, strict=True)
    }


def _citation_precision(verdict: str | None, statement: StatementJudgement | None, unresolved: bool) -> Unit | None:
    if statement is None or statement.worthy is None:
        return None
    if not statement.worthy:
        return Unit(0, 0)  # a citation on a statement that claims nothing is outside the denominator
    if unresolved:
        return Unit(0, 1)
    if verdict is None:
        return None
    if verdict == "partial":
        if statement.supported_together is None:
            return None  # a partial citation counts only where the statement is supported together
        return Unit(1 if statement.supported_together == "yes" else 0, 1)
    return Unit(1 if verdict == "complete" else 0, 1)


def _statement_precision(statement: StatementJudgement) -> Unit | None:
    if statement.worthy is None:
        return None
    if not statement.worthy:
        return Unit(0, 0)
    if None in statement.verdicts:
        return None
    together = statement.supported_together
    if together is None and "partial" in statement.verdicts:
        return None
    supporting = sum(1 for v in statement.verdicts if v == "complete" or (v == "partial" and together == "yes"))
    return Unit(supporting, len(statement.verdicts) + statement.unresolved)


def _statement_recall(statement: StatementJudgement) -> Unit | None:
    if statement.worthy is None:
        return None
    if not statement.worthy:
        return Unit(0, 0)
    if not statement.verdicts:
        return Unit(0, 1)  # no citation, or only markers that cite nothing: unsupported (as ALCE)
    if statement.supported_together is None:
        return None
    return Unit(1 if statement.supported_together == "yes" else 0, 1)
