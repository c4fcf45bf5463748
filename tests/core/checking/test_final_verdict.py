from citeview.core.checking.final import disagrees, final_verdict


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
