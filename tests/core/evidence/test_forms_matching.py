"""Passages and hints meet the claim's words in other forms (issue 45, "Ceilings"): 受付 for 受け付け,
お住まい for 住まい, "left" for "leave", "child" for "children"."""

from __future__ import annotations

import pytest

from citeview.core.evidence.compare import compare
from citeview.core.evidence.passages import find_passages

OTHER_SENTENCES = ("開庁時間は平日のみです。", "手数料は無料です。")


@pytest.mark.parametrize(
    ("claim", "support"),
    [
        # 受け付けた/受付済み, 申込み/申込, 取り消せる/取消: 24 points before, not found
        ("受け付けた申込みは取り消せる。", "受付済みの申込は取消できます。"),
        # 受け付け/受付します, お住まい/住まい: 34 points before, one short of the threshold
        ("申請書の受け付けは、お住まいの区の窓口です。", "申請書は住まいの区役所で受付します。"),
    ],
)
def test_a_japanese_passage_in_other_forms_is_found(claim: str, support: str) -> None:
    page = f"{OTHER_SENTENCES[0]}{support}{OTHER_SENTENCES[1]}"
    found = find_passages(claim, page)
    assert found
    assert support in found[0].text


def test_an_english_passage_in_other_forms_is_found() -> None:
    page = "Trams run every ten minutes. A goose flies south each year. Permits are listed below."
    found = find_passages("The geese flew south.", page)  # 32 points before: not found
    assert [passage.text for passage in found] == ["A goose flies south each year."]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The minister did not leave the party.", "The minister left the party in March."),
        ("The minister left the party.", "The minister did not leave the party."),
        ("The scheme does not cover children.", "The scheme covers every child in the district."),
    ],
)
def test_a_negation_is_met_by_the_words_in_other_forms(claim: str, evidence: str) -> None:
    assert compare(claim, evidence).negation_differs
