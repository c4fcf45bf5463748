"""Dates, figures, qualifiers and negations found in a claim and a passage, and what differs between them."""

from __future__ import annotations

import time
from typing import Any

import pytest

from citeview.core.checking.side_by_side import evidence_rows
from citeview.core.common.numbers import folded, mark_numbers_in_html, number_value, number_values
from citeview.core.evidence.compare import MAX_COMPARED_CHARS, compare, findings, mark_findings


def values(text: str, kind: str) -> list[str]:
    return [finding.value for finding in findings(text) if finding.kind == kind]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("令和6年", "2024"),
        ("令和元年", "2019"),
        ("平成31年", "2019"),
        ("平成元年", "1989"),
        ("昭和64年", "1989"),
        ("大正元年", "1912"),
        ("明治45年", "1912"),
        ("令和6年4月1日", "2024-04-01"),
        ("令和６年４月１日", "2024-04-01"),
        ("2024年4月1日", "2024-04-01"),
        ("２０２４年４月１日", "2024-04-01"),
        ("2024/4/1", "2024-04-01"),
        ("2024-04-01", "2024-04-01"),
        ("2024.4.1", "2024-04-01"),
        ("April 1, 2024", "2024-04-01"),
        ("Apr. 1st, 2024", "2024-04-01"),
        ("1 April 2024", "2024-04-01"),
        ("1st of April, 2024", "2024-04-01"),
        ("April 2024", "2024-04"),
        ("2024年4月", "2024-04"),
        ("4月1日", "--04-01"),
        ("April 1", "--04-01"),
        ("2024年度", "FY2024"),
        ("令和6年度", "FY2024"),
        ("FY2024", "FY2024"),
        ("fiscal year 2024", "FY2024"),
        ("in 2024", "2024"),
        ("since 2019", "2019"),
    ],
)
def test_dates_are_read_as_one_calendar_date(text, value):
    assert values(text, "date") == [value]
    assert values(text, "figure") == []  # a date's digits are the date's


def test_the_same_date_written_four_ways_is_one_date():
    for written in ("2024年4月1日", "2024/4/1", "April 1, 2024", "1 April 2024", "令和6年4月1日"):
        assert not compare(f"施行日は{written}。", "The law took effect on April 1, 2024.").differs, written


def test_era_years_meet_their_western_years():
    assert not compare("平成31年4月30日に退位した。", "2019年4月30日に退位。").differs
    assert not compare("令和元年に始まった。", "The era began in 2019.").differs
    assert compare("令和5年に始まった。", "The era began in 2019.").differs


def test_a_date_missing_a_part_agrees_with_one_that_has_it_and_a_fiscal_year_only_with_a_fiscal_year():
    assert not compare("In April 2024 it opened.", "2024年4月1日に開業した。").differs
    assert not compare("4月1日に開業。", "It opened on April 1, 2024.").differs
    assert compare("In April 2024 it opened.", "2024年5月1日に開業した。").differs
    assert compare("2024年度の予算", "2024年の予算").differs  # FY2024 is not the year 2024
    assert not compare("FY2024 budget", "令和6年度予算").differs


def test_bare_years_are_dates_only_after_a_word_that_makes_them_one():
    assert values("2000 people came in 2023.", "date") == ["2023"]
    assert values("2000 people came in 2023.", "figure") == ["2000"]
    # a year read as a figure on one side and a date on the other is still one year
    assert not compare("2023 was a record year.", "The record came in 2023.").differs


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("約1,410万人", "14.1 million people"),
        ("1410万人", "１，４１０万人"),
        ("2.5 billion", "25億"),
        ("80%", "８０％"),
        ("1,250", "1250"),
    ],
)
def test_figures_compare_by_value_with_their_scale_and_full_width_digits(claim, passage):
    assert values(claim, "figure") == values(passage, "figure")


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("a squad of two dozen riders", "24", "rider"),
        ("one hundred and twenty trucks", "120", "truck"),
        ("Thirty-six ministers resigned", "36", "minister"),
        ("a billion dollars", "1000000000", "$"),
        ("half of the members", "50", "%"),
        ("two-thirds of members", "66.7", "%"),
        ("one in four drivers", "25", "%"),
        ("profits tripled", "3", "倍"),
        ("2.5 times as many", "2.5", "倍"),
        ("打率は3割1分2厘", "31.2", "%"),
        ("支持率は2割5分", "25", "%"),
    ],
)
def test_figures_written_in_words_or_in_wari_are_read_whole(text, value, unit):
    (figure,) = [f for f in findings(text) if f.kind == "figure"]
    assert (figure.value, figure.unit) == (value, unit)


@pytest.mark.parametrize(
    "text",
    ["one of the reasons", "a ten-year plan", "the first half of the season", "a third-party seller"],
)
def test_words_that_only_look_like_numbers_are_no_figures(text):
    assert values(text, "figure") == []


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        ("A squad of two dozen riders set off.", "A squad of 24 riders set off.", "agree"),
        ("A squad of two dozen riders set off.", "A squad of 20 riders set off.", "differs"),
        ("Roughly a third of tenants pay late.", "Some 34% of tenants pay late.", "agree"),
        ("Roughly a third of tenants pay late.", "Some 18% of tenants pay late.", "differs"),
        ("One in four drivers speeds.", "A quarter of drivers speed.", "agree"),
        ("Profits tripled last year.", "Profits doubled last year.", "differs"),
        ("Profits rose 2.5 times.", "利益は2.5倍に増えた。", "agree"),
        ("The fund lost nearly a billion dollars.", "The fund lost more than $1 billion.", "differs"),
        ("打率は3割1分2厘だった。", "打率.312で終えた。", "agree"),
        ("打率は3割1分2厘だった。", "打率.298で終えた。", "differs"),
    ],
)
def test_figures_in_words_compare_with_figures_in_digits(claim, passage, label):
    assert compare(claim, passage).label == label


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        # a decade agrees with its years and differs from years outside it
        ("The bridge was built in the 1960s.", "The bridge was built in 1967.", "agree"),
        ("The bridge was built in the mid-1960s.", "The bridge was built in 1972.", "differs"),
        ("橋は1960年代に建設された。", "橋は1967年に建設された。", "agree"),
        # a fiscal year named by its end: conventions differ, so it is held only against fiscal years
        (
            "In fiscal 2023, sales were $4 billion.",
            "For the fiscal year ended March 31, 2023, sales were $4 billion.",
            "agree",
        ),
        (
            "In fiscal 2022, sales were $4 billion.",
            "For the fiscal year ended March 31, 2023, sales were $4 billion.",
            "agree",
        ),
        (
            "In fiscal 2020, sales were $4 billion.",
            "For the fiscal year ended March 31, 2023, sales were $4 billion.",
            "differs",
        ),
        (
            "2024年4〜9月期の売上高は最高だった。",
            "2025年3月期上半期の売上高は最高だった。",
            "agree",
        ),  # its first half is April to September 2024
        ("2025年3月期の売上高は最高だった。", "2024年3月期の売上高は最高だった。", "differs"),
    ],
)
def test_decades_and_fiscal_years_named_by_their_end(claim, passage, label):
    assert compare(claim, passage).label == label


def test_a_changed_figure_is_flagged_on_both_sides():
    comparison = compare("The population reached 14.1 million.", "The population reached 13.9 million.")
    assert comparison.differs and not comparison.negation_differs
    assert [f.text for f in comparison.differing_in_claim] == ["14.1 million"]
    assert [f.text for f in comparison.differing_in_passage] == ["13.9 million"]


def test_what_only_the_passage_says_is_context_not_a_difference():
    comparison = compare("東京都の人口は約1,410万人。", "2024年1月1日現在の東京都の人口は約1,410万人で、0.3%増加した。")
    assert not comparison.differs and comparison.hints == () and comparison.label == "agree"
    assert comparison.differing_in_passage == ()


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("65歳以上", "at_least"),
        ("15歳以下", "at_most"),
        ("15歳未満", "less_than"),
        ("3日以内", "at_most"),
        ("1万人超", "more_than"),
        ("約1,000人", "about"),
        ("およそ5割", "about"),
        ("100人程度", "about"),
        ("最大10%", "at_most"),
        ("最低3回", "at_least"),
        ("少なくとも2人", "at_least"),
        ("at least 5 people", "at_least"),
        ("up to 10%", "at_most"),
        ("about 3,000", "about"),
        ("more than 50", "more_than"),
        ("fewer than 20", "less_than"),
        ("no more than 3", "at_most"),
        ("65 and over", "at_least"),
        ("65 or older", "at_least"),
        ("上限7万円", "at_most"),
        ("一律5万円", "exactly"),
        ("長くても３か月", "at_most"),
        ("5万人に届かなかった", "less_than"),
        ("2%を上回った", "more_than"),
    ],
)
def test_qualifiers_are_read_as_one_meaning_in_either_language(text, kind):
    assert values(text, "qualifier") == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "以上です。",
        "最大の都市",
        "about Tokyo",
        "Moreover, it grew.",
        "over the years",
        "not only A but B",
        "under way",
        "会員のみ",  # "only" on its own bounds no figure: だけでなく was once read as a condition
        "本人の分だけでなく",
    ],
)
def test_words_with_other_senses_are_no_qualifiers(text):
    assert values(text, "qualifier") == []


def test_a_changed_qualifier_is_flagged():
    comparison = compare("65歳以上の人が対象", "The programme is for people 65 or younger.")
    assert comparison.differs and comparison.kinds("differs") == ["qualifier"]
    assert [f.text for f in comparison.differing_in_claim] == ["65", "以上"]
    assert not compare("65歳以上の人が対象", "for people aged 65 and over").differs


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        ("18歳以下の子どもは入館無料だ。", "18歳未満の方は無料です。", "differs"),
        ("18歳未満の子どもは入館無料だ。", "17歳以下は無料です。", "agree"),  # whole years: < 18 is ≤ 17
        ("最高気温が35度以上の猛暑日となった。", "午後2時すぎに36.2度を観測した。", "agree"),  # 36.2 meets ≥ 35
        ("The fund raised no less than $40 million.", "The fund closed with $40 million.", "agree"),
        ("1世帯あたり最大10万円が支給される。", "支給額は1世帯につき一律10万円です。", "differs"),
        ("1世帯あたり最大10万円が支給される。", "支給額は1世帯につき上限10万円です。", "agree"),
        ("会場には5万人以上が訪れた。", "来場者は5万人に届かなかった。", "differs"),
        ("東京都の人口は約1410万人だ。", "都の推計人口は１４１０万人を超えた。", "agree"),
    ],
)
def test_a_qualifier_is_read_as_the_bound_it_puts_on_its_figure(claim, passage, label):
    assert compare(claim, passage).label == label


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        # "nearly" approaches from below: it is not "more than", nor "at least", but it is "up to"
        ("Almost 800 runners finished the race.", "More than 800 runners finished the race.", "differs"),
        ("Over 800 runners finished the race.", "Close to 800 runners finished the race.", "differs"),
        ("Nearly 800 runners finished the race.", "At least 800 runners finished the race.", "differs"),
        ("Nearly 800 runners finished the race.", "Up to 800 runners finished the race.", "agree"),
        ("Nearly 800 runners finished the race.", "Almost 800 runners finished the race.", "agree"),
        ("Nearly 800 runners finished the race.", "Some 780 runners finished the race.", "agree"),
        ("Nearly 800 runners finished the race.", "792 runners finished the race.", "agree"),
        ("Just over 800 runners finished the race.", "More than 800 runners finished the race.", "agree"),
        ("Just over 800 runners finished the race.", "Just under 800 runners finished the race.", "differs"),
        ("応募は2万件弱だった。", "応募は2万件を超えた。", "differs"),
        ("応募は2万件強だった。", "応募は2万件を超えた。", "agree"),
        ("応募は2万件強だった。", "応募は2万件弱にとどまった。", "differs"),
        ("応募は2万件余りだった。", "応募は2万件に届かなかった。", "differs"),
        ("応募は2万件近くに上った。", "応募はおよそ2万件。", "agree"),
        ("応募は2万件足らずだった。", "応募は2万件以上。", "differs"),
        # verbs that bound the figure they take
        ("Turnout topped 70%.", "Turnout fell short of 70%.", "differs"),
        ("As many as 40 flights were cancelled.", "At least 40 flights were cancelled.", "differs"),
        # 100+ is "100 or more", as loosely as "more than 100" or "at least 100"
        ("The chain runs 250+ shops.", "The chain runs more than 250 shops.", "agree"),
        ("The chain runs 250+ shops.", "The chain runs fewer than 250 shops.", "differs"),
    ],
)
def test_nearly_and_just_over_lean_to_one_side_of_their_figure(claim, passage, label):
    assert compare(claim, passage).label == label


def test_strong_and_weak_are_bounds_only_beside_a_figure():
    assert values("震度5強を観測", "qualifier") == ["just_over"]
    assert values("5強い風", "qualifier") == []
    assert values("3 + 4 = 7", "qualifier") == []


@pytest.mark.parametrize(
    "text",
    [
        "必要ではない",
        "必要じゃない",
        "公開されていない",
        "行かなかった",
        "ありません",
        "確認できませんでした",
        "確認せずに",
        "知らずに",
        "予定は無い",
        "不要",
        "未定",
        "未公表",
        "非公開",
        "It is not required.",
        "No data was published.",
        "It never closed.",
        "without a permit",
        "It doesn't apply.",
        "It can’t be used.",
        "It cannot be used.",
    ],
)
def test_negations_are_found(text):
    assert values(text, "negation") == ["not"]


@pytest.mark.parametrize(
    "text",
    [
        "本人の分だけでなく家族の分も合算できます",
        "高齢者のみならず若者も",
        "人手不足の解消に欠かせない",
        "効果があるのは間違いない",
        "届け出をしなければならない",
        "路線バスはなくてはならない存在だ",
        "市内在住者に限らず利用できる",
        "利用者は少なくない",
        "not only A but also B",
        "no less than 40",
        "There is no doubt about it.",
        "人手不足",
        "未来の計画",
        "非常に多い",
        "不動産の価格",
        "不可欠な資源",
        "15歳未満",
        "少ない",
        "間違いない",
        "3ないし5",
        "No. 5 on the list",
        "not only A but also B",
        "no more than 3",
        "Knowledge is power.",
        "Note the nonce.",
    ],
)
def test_words_that_look_negative_but_negate_nothing_are_not_negations(text):
    assert values(text, "negation") == []


def test_a_claim_and_a_passage_that_differ_in_negation_are_flagged():
    comparison = compare("申請は不要である。", "申請が必要である。")
    assert comparison.negation_differs and comparison.differs
    assert [f.text for f in comparison.differing_in_claim] == ["不要"]
    english = compare("The permit is required.", "The permit is not required.")
    assert english.negation_differs and [f.text for f in english.differing_in_passage] == ["not"]
    assert not compare("必要ではない", "It is not required.").negation_differs
    assert compare("The minister did not attend the ceremony.", "The minister attended the ceremony.").negation_differs
    assert compare("同店は日曜日も営業している。", "なお、日曜日は営業しておりません。").negation_differs


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        # だけでなく ("not only") negates nothing, and no "only" is a condition that differs
        ("本人の分だけでなく配偶者の分も合算できます。", "本人及び配偶者の医療費を合算できます。"),
        ("政府は外国人材の受け入れが欠かせないとしている。", "政府は外国人材の受け入れ拡大が不可欠だと説明している。"),
        ("事業者は令和7年4月1日までに届け出をしなければならない。", "2025年4月1日までに届け出る必要があります。"),
        # a negation elsewhere in the evidence negates something the claim does not say
        (
            "Economists expect the central bank to hold rates in June.",
            "Economists aren't expecting a rate change at the June meeting.",
        ),
        ("Glarb is a frogfolk wizard.", "Glarb is a frogfolk wizard. You can tap it for no mana."),
        ("申請期限は2025年3月31日までです。", "受付は令和7年3月31日までです。期限を過ぎた申請は受け付けられません。"),
    ],
)
def test_a_negative_that_negates_nothing_the_other_side_asserts_is_no_difference(claim, passage):
    comparison = compare(claim, passage)
    assert not comparison.differs, comparison.hints


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        # an irregular past meets its verb; a doubled consonant or -ied meets its stem
        ("Exports did not rise in March.", "Exports rose in March.", "differs"),
        ("The council never met the residents.", "The council met the residents twice.", "differs"),
        ("The team did not stop the project.", "The team stopped the project.", "differs"),
        ("The firm has not applied for a licence.", "The firm applied for a licence.", "differs"),
        # "failed to", "refused to", "no longer", "hardly", "stopped …ing" negate
        ("The measure failed to pass the assembly.", "The measure passed the assembly.", "differs"),
        ("The measure passed the assembly.", "The measure failed to pass the assembly.", "differs"),
        ("The mayor refused to sign the order.", "The mayor signed the order.", "differs"),
        ("The bakery no longer opens on Sundays.", "The bakery opens on Sundays.", "differs"),
        ("The bakery no longer opens on Sundays.", "The bakery stopped opening on Sundays.", "agree"),
        ("The striker hardly scored this season.", "The striker scored this season.", "differs"),
        ("The police stopped the car.", "Police stopped the car on the bridge.", "agree"),
        # litotes and hedges assert, or only hedge
        ("The plan is not without risk.", "The plan carries risk.", "agree"),
        ("A fall in prices is not impossible.", "Prices could fall.", "agree"),
        ("Higher pay does not necessarily mean higher output.", "Higher pay means higher output.", "agree"),
        # 対象外 negates 対象
        ("市外の事業者も補助の対象となる。", "市外の事業者は補助の対象外です。", "differs"),
        ("市外の事業者は補助の対象外だ。", "市外の事業者も補助の対象となります。", "differs"),
        # a double negative asserts; とは限らない and 必ずしも only hedge
        ("全ての窓口が閉まらないわけではない。", "一部の窓口は閉まる。", "agree"),
        ("この薬が効かなくはない。", "この薬は効く。", "agree"),
        ("値上げが需要を減らすとは限らない。", "値上げは需要を減らす。", "agree"),
        ("新制度は必ずしも有利ではない。", "新制度は有利だ。", "agree"),
        ("全員が賛成したわけではない。", "全員が賛成した。", "differs"),  # one negative: it negates
    ],
)
def test_negations_are_read_with_their_forms_and_their_scope(claim, passage, label):
    assert compare(claim, passage).label == label


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        # verbs that say a thing is not done negate it: 見送る, 断念, 否決
        ("市は増税を見送った。", "市は増税に踏み切った。", "differs"),
        ("市は増税をしない方針だ。", "市は増税を見送る方針を決めた。", "agree"),
        ("条例案は市議会で可決された。", "条例案は市議会で否決された。", "differs"),
        # the topic names who acts, not what is negated
        ("同社は新工場を建設しない。", "同社は新製品を発表した。", "agree"),
        ("同社は新工場を建設しない。", "同社は新工場の建設を発表した。", "differs"),
    ],
)
def test_japanese_negations_are_read_with_what_they_negate(claim, passage, label):
    assert compare(claim, passage).label == label


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        # the coarser figure rounds the finer, half away from zero
        ("Highs are around 85 degrees.", "Highs are around 80 degrees.", "differs"),
        ("Highs are around 84 degrees.", "Highs are around 80 degrees.", "agree"),
        ("The city has about 2,730 shelters.", "The city has about 2,700 shelters.", "agree"),
        ("来場者は約3万人だった。", "来場者は3万5000人だった。", "differs"),
        ("来場者は約3万人だった。", "来場者は3万4900人だった。", "agree"),
        ("The wall dates from c. 1200 BC.", "The wall dates from about 1200 BC.", "agree"),
        # a weekday written with a holiday mark: （水・祝）
        ("式典は11月3日の火曜日に開かれる。", "式典は11月3日（月・祝）に開かれる。", "differs"),
    ],
)
def test_rounding_and_weekdays_as_written(claim, passage, label):
    assert compare(claim, passage).label == label


def test_one_side_negating_what_the_other_asserts_differs_in_negation():
    comparison = compare("Economists expect the central bank to cut rates.", "Economists aren't expecting a rate cut.")
    assert comparison.negation_differs and [f.text for f in comparison.differing_in_passage] == ["n't"]


def test_a_date_the_evidence_does_not_give_is_not_stated_not_a_difference():
    comparison = compare("新庁舎は令和10年度に完成する予定だ。", "新庁舎の建設地は、市役所の隣接地に決まった。")
    assert comparison.label == "not_stated" and not comparison.differs
    assert [(h.outcome, h.kind, [f.text for f in h.claim]) for h in comparison.hints] == [
        ("not_stated", "date", ["令和10年度"])
    ]
    assert comparison.differing_in_claim == () and [f.text for f in comparison.not_stated_in_claim] == ["令和10年度"]
    # A figure of another unit or about another thing is not held against the claim's either.
    assert (
        compare("2026年のワールドカップは48チームで争われる。", "次回大会は3か国の共同開催となる。").label
        == "not_stated"
    )
    assert compare("While most S&P 500 shares rose, the index fell 1%.", "The Nasdaq 100 slid 2.4%.").label == (
        "not_stated"
    )


def test_a_date_or_figure_both_state_differently_differs():
    comparison = compare("新駅は2030年春に開業する予定だ。", "新駅の開業は令和13年春を予定している。")
    assert comparison.kinds("differs") == ["date"]
    assert [f.text for f in comparison.differing_in_passage] == ["令和13年"]
    comparison = compare("The vote was 33 in favour.", "The vote was 31 in favour.")
    assert comparison.kinds("differs") == ["figure"] and comparison.to_json()["label"] == "differs"


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("令和8年に開業する。", "2026年に開業する。"),
        ("事業費は1.2兆円にのぼる。", "総事業費は1兆2000億円に達する見込みだ。"),
        ("税収は75兆2320億円だった。", "税収は75.2兆円となった。"),
        ("会場には約5万人が訪れた。", "来場者数は延べ5万1200人だった。"),
        ("回答者の3割が満足と答えた。", "満足と回答した人は全体の30％だった。"),
        ("約4割の企業が賃上げを予定している。", "賃上げを予定している企業は41.3％だった。"),
        ("The city will spend $1.2 billion on the line.", "a budget of 1,200 million dollars for the line"),
        ("Today's sunrise is at 7:12 AM.", "Today's sunrise time is 7:12 AM."),
        ("The current day is Tuesday.", "Tue, 13 May 2025 06:07:56"),
        ("with 2026 writeups describing it", "Here's my setup in 2026, with a tool or two."),
    ],
)
def test_one_value_written_two_ways_agrees(claim, passage):
    comparison = compare(claim, passage)
    assert comparison.label == "agree", comparison.hints


@pytest.mark.parametrize(
    ("claim", "passage", "kind"),
    [
        ("The motion passed 142 to 10.", "The motion was adopted by a vote of 142-12.", "figure"),
        ("事業費は1.2兆円にのぼる。", "総事業費は1兆5000億円に達する見込みだ。", "figure"),
        ("会場には約5万人が訪れた。", "来場者数は延べ3万8000人だった。", "figure"),
        ("Rust focuses on four goals.", "Rust is focused on three goals.", "figure"),
        ("Python 3.14.0 is the latest stable version.", "The latest stable version is 3.11.2.", "figure"),
        ("The index had its worst day since October.", "The index had its worst day since November.", "date"),
        ("The current day is Tuesday.", "The actual time is: Mon May 12 2025 22:14:39", "date"),
    ],
)
def test_values_both_sides_state_differently_differ(claim, passage, kind):
    comparison = compare(claim, passage)
    assert comparison.label == "differs" and kind in comparison.kinds("differs"), comparison.hints


def test_spans_hold_in_the_text_given_full_width_or_not():
    text = "売上は２０２４年度に１，２５０億円、前年は未公表。"
    for finding in findings(text):
        assert text[finding.start : finding.end] == finding.text
    assert [f.text for f in findings(text)] == ["２０２４年度", "１，２５０億", "未公表"]


def test_marking_escapes_the_text_and_wraps_only_what_differs():
    passage = "<b>13.9 million</b> people & not counted"
    comparison = compare("14.1 million people & counted", passage)
    assert mark_findings(passage, comparison.differing_in_passage) == (
        '&lt;b&gt;<mark class="cv-number-diff">13.9 million</mark>&lt;/b&gt; people &amp; '
        '<mark class="cv-negation-diff">not</mark> counted'
    )
    assert mark_findings("plain", findings("other 5 text")) == "plain"  # findings of another text are skipped


def test_the_numbers_module_keeps_its_behaviour_and_lends_its_reading():
    assert number_values("２０２６年、1,250万人、2.50ドル") == {"2026", "1250", "2.5"}
    assert mark_numbers_in_html("12 and 13", {"12"}) == '<mark class="cv-number-diff">12</mark> and 13'
    assert folded("２．５") == "2.5" and number_value("２,５") == "2.5" and number_value("1,234") == "1234"


def test_comparing_a_long_text_costs_in_proportion_to_it():
    text = "令和6年4月1日から65歳以上の約1,410万人が対象ではない。" * 8_000  # 256,000 characters, 48,000 findings
    start = time.process_time()
    comparison = compare(text, text)
    assert time.process_time() - start < 3  # about 1 s of CPU time on the development machine
    # Only the first MAX_COMPARED_CHARS characters are compared, and the comparison says so.
    assert not comparison.differs and comparison.cut
    assert len(comparison.claim) == len(findings(text[:MAX_COMPARED_CHARS])) == 1_875


def test_text_past_the_ceiling_is_not_compared_and_the_comparison_says_so():
    padding = "あ" * (MAX_COMPARED_CHARS - len("2023年"))
    within, past = padding + "2023年", padding + "。" * 5 + "2023年"  # the year at the ceiling, and past it
    assert len(within) == MAX_COMPARED_CHARS and len(past) == MAX_COMPARED_CHARS + 5
    assert compare("2024年に開業した。", within).differs and not compare("2024年に開業した。", within).cut
    beyond = compare("2024年に開業した。", past)
    assert not beyond.differs and beyond.cut and beyond.label == "not_stated"
    assert compare(past, "2024年").cut and compare(past, "2024年").to_json()["cut"] is True


@pytest.mark.parametrize(
    "text",
    ["1" + " " * 40_000 + "x", "1" + " " * 40_000 + "%", "not " * 10_000, "1" + "\n" * 40_000 + "年"],
    ids=["digit, spaces, x", "digit, spaces, %", "not x 10,000", "digit, newlines, 年"],
)
def test_the_attackers_texts_compare_in_a_fraction_of_a_second(text):
    """Issue 42: each took 8 to 12 s in ``compare``; a second is the bound here, with room for a loaded machine."""
    start = time.process_time()
    compare(text, "The ceremony was attended by 5% of members in 2024.")
    compare("The ceremony was not attended in 2024.", text)
    assert time.process_time() - start < 1


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_BITS = st.sampled_from(["令和", "元", "6", "年", "度", "4", "月", "1", "日", "２０２４", "/", "-", "April ", "1, ", "in ",
                         "約", "以上", "not ", "ない", "不要", "未来", "万", " million", ".", ",", " ", "FY", "No. "])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(claim=st.lists(_BITS, max_size=15).map("".join), passage=st.lists(_BITS, max_size=15).map("".join))
def test_any_texts_compare_with_spans_that_hold(claim, passage):
    comparison = compare(claim, passage)
    for text, found in ((claim, comparison.claim), (passage, comparison.passage)):
        for finding in found:
            assert text[finding.start : finding.end] == finding.text
    assert compare(claim, claim).differs is False


def _cited(claim: str, snippet: str) -> dict[str, Any]:
    """A response whose one sentence cites one source by a marker, the source's snippet its evidence."""
    text = f"{claim}[1]。"
    marker = text.index("[1]")
    citation = {"start": marker, "end": marker + 3, "marker": "[1]", "source_keys": ["1"], "cited_text": None}
    source = {"key": "1", "kind": "web", "url": "https://www.example.go.jp/a", "title": "A"}
    return {
        "text": text,
        "status": "completed",
        "sources": [{**source, "extra": {"snippet": snippet, "snippet_kind": "search_snippet"}}],
        "citations": [{**citation, "location": None}],
        "unresolved": [],
        "diagnostics": [],
    }


@pytest.mark.parametrize(
    ("claim", "evidence", "outcomes"),
    [
        ("新駅は令和8年に開業する", "新駅は2026年に開業する。", []),  # 令和8年 is 2026
        ("新駅は令和7年に開業する", "新駅は2026年に開業する。", [("differs", "date")]),
        ("新駅は令和8年に開業する", "新駅の建設が進んでいる。", [("not_stated", "date")]),
        ("本人の分だけでなく家族の分も合算できます", "本人と家族の分を合算できます。", []),
    ],
)
def test_the_viewer_the_check_page_and_the_snapshot_panel_give_one_finding(claim, evidence, outcomes):
    from citeview.core.checking.items import DIFFERS, check_items, item_flags_and_comparisons
    from citeview.core.evidence.found import found_with
    from citeview.core.evidence.passages import Passage
    from citeview.review.snapshot_panel import _hints

    response = _cited(claim, evidence)
    (row,) = evidence_rows(response, {"1": "1"})
    viewer = [(hint["outcome"], hint["kind"]) for hint in row["passages"][0]["hints"]]
    (item,) = check_items([response])
    flags, comparisons = item_flags_and_comparisons([response], [item])
    check_page = [(hint.outcome, hint.kind) for hint in comparisons[item.key].hints]
    flagged = DIFFERS in flags.get(item.key, [])
    snapshot = [
        (hint["outcome"], hint["kind"])
        for row_ in _hints(found_with(claim, (Passage(0, len(evidence), evidence, 90, None),)))
        for hint in row_["hints"]
    ]
    assert viewer == check_page == snapshot == outcomes
    assert flagged == any(outcome == "differs" for outcome, _ in outcomes)


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("選手四十二人が出場した", "42", "人"),
        ("予算は五億七千万円", "570000000", "円"),
        ("三千四百件の応募", "3400", "件"),
        ("第七回の大会", "7", "回"),
        ("百万人を動員", "1000000", "人"),
    ],
)
def test_a_number_in_kanji_before_a_counter_is_a_figure(text, value, unit):
    found = [f for f in findings(text) if f.kind == "figure"]
    assert [(f.value, f.unit) for f in found] == [(value, unit)]


@pytest.mark.parametrize(
    "text", ["一部の店舗", "一般の利用者", "十分な説明", "万一の場合", "数十人が集まった", "一人暮らしの人"]
)
def test_a_kanji_numeral_inside_a_word_is_no_figure(text):
    assert values(text, "figure") == []


def test_a_number_in_kanji_is_held_against_digits_with_its_bound():
    assert compare("市は二十校を統合する。", "市は23校を統合する。").label == "differs"
    assert compare("市は二十校を統合する。", "市は20校を統合する。").label == "agree"
    assert compare("会場には五十人以上が集まった。", "会場には62人が集まった。").label == "agree"
    assert compare("会場には五十人未満が集まった。", "会場には62人が集まった。").label == "differs"


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("8 km", "km"),
        ("8km", "km"),
        ("8 kilometres", "km"),
        ("8 kilometers", "km"),
        ("8キロメートル", "km"),
        ("8 kg", "kg"),
        ("8 kilograms", "kg"),
        ("8キログラム", "kg"),
        ("8パーセント", "%"),
        ("8 per cent", "%"),
        ("8 dollars", "$"),
        ("8ドル", "$"),
        ("8 yen", "円"),
    ],
)
def test_a_unit_is_read_in_any_of_its_names(text, unit):
    assert [f.unit for f in findings(text) if f.kind == "figure"] == [unit]


def test_figures_in_synonymous_units_are_held_against_each_other():
    assert compare("The bridge spans 3 kilometres.", "The bridge spans 3km.").label == "agree"
    assert compare("The bridge spans 3 kilometres.", "The bridge spans 4 km.").label == "differs"
    assert compare("橋の長さは3キロ。", "橋の長さは3キロメートル。").label == "agree"
    assert compare("荷物は20キロまで。", "荷物は25キログラムまで。").label == "differs"
    assert compare("荷物は20キロ、橋は3キロ。", "荷物は25人。").label != "differs"  # キロ is no person


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("doors open at 7 p.m.", "19:00"),
        ("the call starts at 10:30 PST", "10:30@-480"),
        ("the market opens at 9:00 JST", "09:00@540"),
        ("at 6 pm Eastern", "18:00@-300,-240"),
    ],
)
def test_a_clock_time_is_read_with_its_zone(text, value):
    assert [f.value for f in findings(text) if f.unit == "time"] == [value]


def test_clock_times_in_two_zones_are_one_moment_and_move_the_date():
    same = "The vote closes at 11 p.m. PDT on Friday, March 6."
    assert compare(same, "Polls close at 06:00 UTC on Saturday, March 7.").label == "agree"
    assert compare(same, "Polls close at 05:00 UTC on Saturday, March 7.").label == "differs"
    assert compare(same, "Polls close at 06:00 UTC on Friday, March 6.").label == "differs"
    # one side without a zone: the times are held as written, as before
    assert compare("The vote closes at 11 p.m. on Friday.", "Polls close at 11 p.m. PDT on Friday.").label == "agree"
    assert compare("The vote closes at 11 p.m. on Friday.", "Polls close at 06:00 UTC on Saturday.").label == "differs"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Q3 2024 sales", "P2024-07:2024-09"),
        ("2024 Q3 sales", "P2024-07:2024-09"),
        ("the third quarter of 2024", "P2024-07:2024-09"),
        ("H2 2024", "P2024-07:2024-12"),
        ("the second half of 2024", "P2024-07:2024-12"),
        ("2024年7〜9月期", "P2024-07:2024-09"),
        ("2025年3月期下期", "P2024-10:2025-03"),
        ("2025年3月期第3四半期", "P2024-10:2024-12"),
        ("7〜9月期", "PM07:09"),
        ("fiscal Q3 2024", "FQ2024-3"),
        ("the third quarter of fiscal 2024", "FQ2024-3"),
    ],
)
def test_quarters_halves_and_runs_of_months_are_read_as_periods(text, value):
    assert values(text, "date") == [value]


def test_a_period_agrees_with_the_dates_inside_it():
    assert compare("Sales fell in Q3 2024.", "Sales fell in August 2024.").label == "agree"
    assert compare("Sales fell in November 2024.", "Sales fell in Q3 2024.").label == "differs"
    # the passage's month may be when it was announced: a claim's period is held only against periods
    assert compare("Sales fell in Q3 2024.", "Sales fell, it said in November 2024.").label != "differs"
    assert compare("Sales fell in H2 2024.", "Sales fell in Q4 2024.").label == "agree"
    assert compare("Sales fell in Q3 2024.", "Sales fell in Q2 2024.").label == "differs"
    assert compare("売上高は2024年7〜9月期に減った。", "2025年3月期第2四半期の売上高は減った。").label == "agree"
    assert compare("売上高は2024年10〜12月期に減った。", "2025年3月期第2四半期の売上高は減った。").label == "differs"
    assert compare("売上高は7〜9月期に減った。", "2024年7〜9月期の売上高は減った。").label == "agree"
    # a day is a page's date as often as the period's: not held against it
    assert compare("Sales fell in Q3 2024.", "Posted 14 November 2024. Sales fell.").label != "differs"
    # a fiscal quarter's months are the company's: only held against fiscal quarters
    assert compare("Sales fell in fiscal Q3 2024.", "Sales fell in August 2024.").label != "differs"
    assert compare("Sales fell in fiscal Q3 2024.", "Sales fell in fiscal Q2 2024.").label == "differs"


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        ("出荷台数は前年比4.5%増えた。", "出荷台数は前年比4.5％減の120万台だった。", "differs"),
        ("出荷台数は前年比4.5%増えた。", "出荷台数は前年比4.5％増の120万台だった。", "agree"),
        ("職員を12人減らす。", "職員を12人増やす。", "differs"),
        ("Exports climbed 3.1% in May.", "Exports fell 3.1% in May.", "differs"),
        ("Exports climbed by 3.1% in May.", "Exports posted a 3.1% increase in May.", "agree"),
        ("Exports were down 3.1% in May.", "Exports were up 3.1% in May.", "differs"),
        # a side that says no direction keeps the figure's agreement
        ("Exports fell 3.1% in May.", "Exports moved 3.1% in May.", "agree"),
        # the base of a change is no change
        ("利益は前年の80億円から増えた。", "利益は80億円減った。", "agree"),
    ],
)
def test_a_change_given_the_other_way_differs(claim, passage, label):
    assert compare(claim, passage).label == label


def test_a_text_that_negates_what_it_asserts_elsewhere_agrees_with_itself():
    text = "Rates did not rise in May. In June rates rise."
    assert compare(text, "Rates rise.").label == "differs"
    assert compare(text, text).label == "agree"


def test_a_share_is_not_held_against_a_figure_too_large_to_be_one():
    """The check page's own example: 0.2% in the passage is another quantity than the claim's 14.1
    million, so only 13.9 million is marked as what differs."""
    result = compare(
        "As of January 2024, the population of Tokyo was about 14.1 million.",
        "Tokyo's population was 13.9 million in January 2024, up 0.2% on the year before.",
    )
    assert [(h.outcome, h.kind, [f.text for f in h.passage]) for h in result.hints] == [
        ("differs", "figure", ["13.9 million"])
    ]
    # A share and a bare number that may be one are still held against each other.
    (hint,) = compare("Turnout was 55.3 this year.", "Turnout was 52.1% this year.").hints
    assert (hint.outcome, [f.text for f in hint.passage]) == ("differs", ["52.1"])


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        # a release named by its version is a figure: v1.31 is not v1.33
        (
            "The field stops being populated in Kubernetes v1.31.",
            "The field will not be populated starting in Kubernetes v1.33.",
            "differs",
        ),
        ("クラウドプロバイダーの外部化はv1.24から始まった。", "外部化はv1.26から始まりました。", "differs"),
        ("go1.24では削除される。", "go1.22で削除される予定です。", "differs"),
        ("The field stops being populated in v1.33.", "It is not populated starting in v1.33.", "agree"),
        # the release the passage calls "this release" is what it is about, not a value it lacks
        ("Kubernetes v1.31 consists of 45 enhancements.", "This release consists of 45 enhancements.", "agree"),
    ],
)
def test_a_version_named_with_v_or_go_is_a_figure(claim, passage, label):
    assert compare(claim, passage).label == label


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2025年前半", "P2025-01:2025-06"),
        ("２０２５年の後半", "P2025-07:2025-12"),
        ("2025年上半期", "P2025-01:2025-06"),
        ("2025年第3四半期", "P2025-07:2025-09"),
        ("2025年度下期", "FH2025-2"),
        ("2025年度第1四半期", "FQ2025-1"),
    ],
)
def test_a_half_or_quarter_of_a_numbered_year_is_a_period(text, value):
    assert values(text, "date") == [value]


def test_a_half_of_a_year_differs_from_the_other_half_and_holds_its_months():
    evidence = "go1.24は2025年前半にリリースされる予定です。"
    assert compare("go1.24は2025年後半にリリースされる予定だ。", evidence).label == "differs"
    assert compare("go1.24は2025年3月にリリースされる予定だ。", evidence).label == "agree"
    assert compare("go1.24は2025年9月にリリースされる予定だ。", evidence).label == "differs"


def test_two_negations_of_the_same_words_agree_beside_a_sentence_that_asserts_them():
    evidence = (
        "go1.18以降、crypto/x509はSHA-1で署名された証明書を拒否するようになりました。"
        "認証局は2015年以降SHA-1証明書を発行していません。"
    )
    assert compare("認証局は2015年以降SHA-1証明書を発行していない。", evidence).label == "agree"
    assert compare("認証局は2015年以降SHA-1証明書を発行している。", evidence).label == "differs"
    passage = "The tool does not cover children. It covers every adult."
    assert compare("It does not cover children.", passage).label == "agree"


@pytest.mark.parametrize(
    ("claim", "passage", "label"),
    [
        # a gap between two counts is not one of the counts it lies between
        (
            "Kubernetes v1.31 ships 45 enhancements, five more than v1.30 did.",
            "This release consists of 45 enhancements.\nOf those enhancements, 11 have graduated to Stable, 22 are entering Beta.",
            "not_stated",
        ),
        (
            "v1.31の機能強化は45件で、前回のv1.30より10件多い。",
            "今回のリリースでは、45の機能強化が行われました。そのうち、11の機能がGAに昇格しました。",
            "not_stated",
        ),
        # and is held against a gap
        ("It has five more seats than before.", "It has 5 more seats than before.", "agree"),
        ("前回より10件多い。", "前回より12件多い。", "differs"),
    ],
)
def test_a_gap_between_two_figures_is_held_only_against_a_gap(claim, passage, label):
    assert compare(claim, passage).label == label


def test_an_adjective_between_a_figure_and_its_noun_is_not_its_unit():
    passage = "We support no more than 110 pods per node and no more than 150000 total pods."
    assert compare("A cluster may run at most 150,000 pods in total.", passage).label == "agree"
    assert compare("A cluster may run at most 200,000 pods in total.", passage).label == "differs"
    assert [f.unit for f in findings("no more than 150000 total pods") if f.kind == "figure"] == ["pod"]


def test_individuals_are_people():
    passage = "We saw contributions from 113 different companies and 528 individuals."
    assert compare("Contributions came from 113 companies and 528 people.", passage).label == "agree"
    assert compare("Contributions came from 113 companies and 582 people.", passage).label == "differs"


def test_a_count_with_tsu_is_a_count_of_things_not_a_duration():
    passage = "最新の3つのマイナーリリースについてリリースブランチを管理しています。"
    assert compare("各マイナーリリースは、リリースから１年間サポートされる。", passage).label == "not_stated"
    assert compare("最新の4つのマイナーリリースのブランチを管理している。", passage).label == "differs"
    assert compare("最新の3個のマイナーリリースのブランチを管理している。", passage).label == "agree"


def test_mu_negates_the_word_with_yu():
    passage = "複数のサービスCIDRのサポートがベータになりました(デフォルトでは無効)。"
    assert compare("複数のサービスCIDRの対応はベータとなり、既定で有効になった。", passage).label == "differs"
    assert compare("複数のサービスCIDRの対応はベータとなり、既定では無効だ。", passage).label == "agree"
    assert compare("このサービスは有料です。", "このサービスは無料で利用できます。").label == "differs"
