from citeview.core.checking.final import disagrees, final_verdict, needed_final_verdict


def test_a_settlement_is_final_whatever_the_editors_said():
    final = final_verdict(["complete", "none"], settled="partial")
    assert (final.verdict, final.how, final.editors) == ("partial", "settled", ("complete", "none"))


def test_editors_who_agree_give_the_final_verdict():
    assert final_verdict(["partial", "partial", ""]).verdict == "partial"
    assert final_verdict(["none"]).how == "agreed"


def test_editors_who_disagree_leave_it_unsettled_and_counted_nowhere():
    final = final_verdict(["partial", "none"])
    assert final.verdict is None and final.unsettled
    assert disagrees(["partial", "none"]) and not disagrees(["none", "none", ""])


def test_an_item_nobody_judged_is_unchecked_not_unsettled():
    final = final_verdict(["", ""])
    assert final.verdict is None and final.how == "unchecked" and not final.unsettled


def test_a_plan_needing_two_checks_is_final_once_two_independent_verdicts_agree():
    assert needed_final_verdict([("complete", True)], "", 2).verdict is None
    assert needed_final_verdict([("complete", True), ("complete", False)], "", 2).verdict is None
    assert needed_final_verdict([("complete", True), ("complete", True)], "", 2).verdict == "complete"
    assert needed_final_verdict([("complete", True)], "partial", 2).how == "settled"
    assert needed_final_verdict([("complete", True), ("none", False)], "", 2).how == "disagreed"
