"""Citation recall and precision, verdict counts and editor agreement (``../shared/docs/evidence-review.md``)."""

from __future__ import annotations

import pytest

from citeview.core.checking.metrics import (
    NO_TOGETHER_ANSWER,
    NO_VERDICT_ON_WORTHY,
    NO_WORTHY_ANSWER,
    NONE_WORTHY,
    NOTHING_CHECKED,
    VERDICTS,
    Ratio,
    StatementJudgement,
    agreement,
    citation_precision,
    citation_recall,
    cohen_kappa,
    collapsed,
    krippendorff_alpha,
    macro_precision,
    macro_recall,
    percent,
    percent_agreement,
    precision_empty_because,
    recall_empty_because,
    verdict_distribution,
)

# The doc's worked example: one answer, four statements.
DOC_STATEMENTS = [
    StatementJudgement("a1", worthy=True, supported_together="yes", verdicts=["complete", "partial"]),  # S1
    StatementJudgement("a1", worthy=True, supported_together="no", verdicts=["partial"], unresolved=1),  # S2, [8]
    StatementJudgement("a1", worthy=True, supported_together=None, verdicts=[]),  # S3, no citation
    StatementJudgement("a1", worthy=False, supported_together=None, verdicts=["none"]),  # S4
]

# The doc's two editors on four citations.
DOC_RATINGS = {
    "c1": {"A": "complete", "B": "complete"},
    "c2": {"A": "partial", "B": "none"},
    "c3": {"A": "none", "B": "none"},
    "c4": {"A": "complete", "B": "partial"},
}


def test_doc_example_recall_is_one_of_three_worthy_statements():
    recall = citation_recall(DOC_STATEMENTS)
    assert (recall.numerator, recall.denominator) == (1, 3)
    assert recall.value == pytest.approx(1 / 3)


def test_doc_example_precision_counts_the_unresolved_marker_and_not_the_unworthy_statement():
    # c1 complete, c2 partial on a statement supported together: 2; c3 and [8] do not; S4 is outside.
    precision = citation_precision(DOC_STATEMENTS)
    assert (precision.numerator, precision.denominator) == (2, 4)
    assert precision.value == 0.5


def test_doc_example_agreement_on_the_six_verdicts():
    assert percent_agreement(DOC_RATINGS) == 0.5
    assert cohen_kappa(DOC_RATINGS, "A", "B") == pytest.approx(0.2727, abs=5e-5)  # (0.5 − 0.3125) / (1 − 0.3125)
    assert krippendorff_alpha(DOC_RATINGS) == pytest.approx(1 / 3)  # 1 − (8 − 1) × 4 / (64 − 22)
    assert agreement(DOC_RATINGS) == {
        "items": 4,
        "raters": 2,
        "percent": 0.5,
        "cohen_kappa": pytest.approx(3 / 11),
        "krippendorff_alpha": pytest.approx(1 / 3),
    }


def test_a_statement_with_only_unresolved_markers_is_never_supported():
    # supported_together = yes cannot make it supported: no resolved citation stands behind it.
    only_unresolved = StatementJudgement("a1", worthy=True, supported_together="yes", verdicts=[], unresolved=2)
    assert citation_recall([only_unresolved]) == Ratio(0, 1)
    assert citation_precision([only_unresolved]) == Ratio(0, 2)


def test_partial_counts_in_precision_only_where_the_statement_is_supported_together():
    statements = [
        StatementJudgement("a1", worthy=True, supported_together="yes", verdicts=["partial"]),
        StatementJudgement("a1", worthy=True, supported_together="contradict", verdicts=["partial", "complete"]),
        StatementJudgement("a1", worthy=True, supported_together="yes", verdicts=["supports_and_refutes", "unclear"]),
    ]
    # partial (yes) 1 + partial (contradict) 0 + complete 1 + supports_and_refutes 0 + unclear 0 = 2 of 5
    assert citation_precision(statements) == Ratio(2, 5)


def test_unjudged_data_is_left_out_not_counted_as_failure():
    statements = [
        *DOC_STATEMENTS,
        # worthiness not judged: out of recall and precision, whatever its citations say
        StatementJudgement("a1", worthy=None, supported_together="no", verdicts=["none"], unresolved=1),
        # worthy, has a citation, supported_together not judged: out of recall; its unjudged verdict is out of
        # precision, its judged one is in
        StatementJudgement("a1", worthy=True, supported_together=None, verdicts=[None, "none"]),
    ]
    assert citation_recall(statements) == Ratio(1, 3)
    assert citation_precision(statements) == Ratio(2, 5)  # the doc's 2 / 4, plus the judged `none`


def test_macro_and_micro_differ_on_answers_of_different_sizes():
    statements = [
        # answer "small": one worthy statement, supported; two complete citations → recall 1/1, precision 2/2
        StatementJudgement("small", worthy=True, supported_together="yes", verdicts=["complete", "complete"]),
        # answer "large": three worthy statements, none supported; three `none` citations → 0/3 and 0/3
        *[StatementJudgement("large", worthy=True, supported_together="no", verdicts=["none"]) for _ in range(3)],
        # answer "chatter": nothing worthy → no recall or precision of its own, left out of both macro means
        StatementJudgement("chatter", worthy=False, supported_together=None, verdicts=["complete"]),
    ]
    # micro recall 1 / 4 = 0.25; macro (1 + 0) / 2 = 0.5
    assert citation_recall(statements) == Ratio(1, 4)
    assert macro_recall(statements) == Ratio(1.0, 2)
    assert macro_recall(statements).value == 0.5
    # micro precision 2 / 5 = 0.4; macro (1 + 0) / 2 = 0.5
    assert citation_precision(statements).value == 0.4
    assert macro_precision(statements).value == 0.5


def test_empty_input_gives_no_figure_rather_than_zero():
    for figure in (citation_recall, citation_precision, macro_recall, macro_precision):
        assert figure([]).value is None
    assert Ratio(0, 0).to_json() == {"numerator": 0, "denominator": 0, "value": None, "percent": None}
    assert percent_agreement({}) is None
    assert cohen_kappa({}, "A", "B") is None
    assert krippendorff_alpha({}) is None
    assert agreement({}) == {"items": 0, "raters": 0, "percent": None, "krippendorff_alpha": None}


def test_a_ratio_serialises_with_its_value_and_its_percentage():
    assert Ratio(1, 4).to_json() == {"numerator": 1, "denominator": 4, "value": 0.25, "percent": 25.0}
    assert Ratio(1, 3).percent == 33.3 and citation_recall(DOC_STATEMENTS).percent == 33.3
    assert percent(None) is None and percent(0.0427) == 4.3


def test_the_doc_example_has_both_figures_so_neither_says_why_it_is_empty():
    assert recall_empty_because(DOC_STATEMENTS) is None and precision_empty_because(DOC_STATEMENTS) is None


def test_an_empty_figure_says_what_is_missing_first():
    citation_only = StatementJudgement("a1", worthy=None, supported_together=None, verdicts=["complete"])
    unworthy = StatementJudgement("a1", worthy=False, supported_together=None, verdicts=["complete"])
    worthy_unjudged = StatementJudgement("a1", worthy=True, supported_together=None, verdicts=[None])
    assert recall_empty_because([]) == precision_empty_because([]) == NOTHING_CHECKED
    # Five verdicts and no statement answer: what the editors saw as "—" everywhere, now with its reason.
    assert recall_empty_because([citation_only] * 5) == NO_WORTHY_ANSWER
    assert precision_empty_because([citation_only] * 5) == NO_WORTHY_ANSWER
    assert recall_empty_because([unworthy]) == precision_empty_because([unworthy]) == NONE_WORTHY
    assert recall_empty_because([worthy_unjudged]) == NO_TOGETHER_ANSWER
    assert precision_empty_because([worthy_unjudged]) == NO_VERDICT_ON_WORTHY
    # A worthy statement that cites nothing counts for recall (as unsupported) but gives precision nothing.
    uncited = StatementJudgement("a1", worthy=True, supported_together=None, verdicts=[])
    assert recall_empty_because([uncited]) is None and citation_recall([uncited]).value == 0
    assert precision_empty_because([uncited]) == NO_VERDICT_ON_WORTHY
    assert macro_precision([uncited]).value is None


def test_verdict_distribution_has_all_six_keys_in_order():
    distribution = verdict_distribution(["partial", "complete", None, "complete", "unclear"])
    assert list(distribution) == list(VERDICTS)
    assert distribution == {
        "complete": 2,
        "partial": 1,
        "none": 0,
        "inaccessible": 0,
        "supports_and_refutes": 0,
        "unclear": 1,
    }
    with pytest.raises(ValueError):
        verdict_distribution(["completed"])


def test_collapsed_scale():
    assert [collapsed(v) for v in VERDICTS] == ["full", "partial", "none", None, "partial", None]
    with pytest.raises(ValueError):
        collapsed("maybe")


def test_unknown_values_in_a_judgement_are_refused():
    with pytest.raises(ValueError):
        StatementJudgement("a1", worthy=True, supported_together="maybe", verdicts=[])
    with pytest.raises(ValueError):
        StatementJudgement("a1", worthy=True, supported_together="yes", verdicts=["fully"])


def test_krippendorff_published_nominal_example_with_missing_values():
    # Krippendorff (2011), Computing Krippendorff's Alpha-Reliability: 4 observers, 12 units, nominal α = 0.743.
    # Unit 12 has one value only and is not pairable. By hand: n = 40 pairable values; disagreeing coincidences
    # 2 (unit 2: 2,2,3,2) + 4 (unit 6: 1,2,3,4) + 2 (unit 8: 1,1,2,1) = 8; n_c = 9, 13, 10, 5, 3 for 1..5, so
    # Σ n_c·n_k (c≠k) = 40² − 384 = 1216 and α = 1 − 39 × 8 / 1216 = 0.7434.
    observers = {
        "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    }
    ratings = {
        unit: {rater: None if values[unit] is None else str(values[unit]) for rater, values in observers.items()}
        for unit in range(12)
    }
    assert krippendorff_alpha(ratings) == pytest.approx(1 - 39 * 8 / 1216)
    assert round(krippendorff_alpha(ratings), 3) == 0.743
    assert agreement(ratings)["items"] == 11
    assert "cohen_kappa" not in agreement(ratings)


def test_three_raters_with_a_missing_value():
    ratings = {
        "c1": {"A": "complete", "B": "complete", "C": "complete"},
        "c2": {"A": "complete", "B": "partial", "C": "complete"},
        "c3": {"A": "none", "B": "none"},  # C did not judge it
        "c4": {"A": "none", "C": None},  # one value only: not comparable
    }
    # percent: c1 3/3 pairs agree, c2 1/3 (A–C), c3 1/1 → (1 + 1/3 + 1) / 3 = 7/9
    assert percent_agreement(ratings) == pytest.approx(7 / 9)
    # α: n = 3 + 3 + 2 = 8; disagreeing coincidences in c2: 4 ordered complete–partial pairs / (3 − 1) = 2;
    # n_complete = 5, n_partial = 1, n_none = 2 → Σ n_c·n_k (c≠k) = 64 − 30 = 34; α = 1 − 7 × 2 / 34 = 10/17
    assert krippendorff_alpha(ratings) == pytest.approx(10 / 17)
    assert agreement(ratings) == {
        "items": 3,
        "raters": 3,
        "percent": pytest.approx(7 / 9),
        "krippendorff_alpha": pytest.approx(10 / 17),
    }


def test_collapsed_agreement_drops_verdicts_that_grade_no_support():
    ratings = {
        "c1": {"A": "complete", "B": "complete"},
        "c2": {"A": "supports_and_refutes", "B": "partial"},
        "c3": {"A": "inaccessible", "B": "none"},
        "c4": {"A": "none", "B": "none"},
        "c5": {"A": "complete", "B": "partial"},
    }
    # Six verdicts: c1 and c4 agree → 2 / 5.
    assert agreement(ratings)["percent"] == pytest.approx(0.4)
    # Collapsed: c3 drops out (inaccessible → not comparable); A = full, partial, none, full and
    # B = full, partial, none, partial agree on 3 / 4.
    # κ: A's marginals full 2, partial 1, none 1; B's full 1, partial 2, none 1 → Σ a_k·b_k = 2 + 2 + 1 = 5;
    # κ = (4 × 3 − 5) / (16 − 5) = 7/11.
    # α: n = 8; disagreement in c5 only: 2 ordered pairs / (2 − 1) = 2; n_full = 3, n_partial = 3, n_none = 2
    # → Σ n_c·n_k (c≠k) = 64 − 22 = 42; α = 1 − 7 × 2 / 42 = 2/3.
    assert agreement(ratings, collapse=True) == {
        "items": 4,
        "raters": 2,
        "percent": 0.75,
        "cohen_kappa": pytest.approx(7 / 11),
        "krippendorff_alpha": pytest.approx(2 / 3),
    }


def test_unanimous_single_label_agrees_fully_but_has_no_chance_corrected_figure():
    # Every value the same: chance agreement is 1, so κ and α are 0 / 0 (undefined), not 1.
    ratings = {"c1": {"A": "complete", "B": "complete"}, "c2": {"A": "complete", "B": "complete"}}
    assert agreement(ratings) == {
        "items": 2,
        "raters": 2,
        "percent": 1.0,
        "cohen_kappa": None,
        "krippendorff_alpha": None,
    }


def test_kappa_uses_only_items_both_raters_judged():
    ratings = {**DOC_RATINGS, "c5": {"A": "none"}, "c6": {"B": "complete", "C": "complete"}, "c7": {"A": None}}
    assert cohen_kappa(ratings, "A", "B") == pytest.approx(3 / 11)
