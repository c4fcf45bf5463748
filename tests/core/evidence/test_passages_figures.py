"""Passages that find the claim's figure (issue 45, the walk's findings), on pages written for these
tests after the pages the walk met (tests/fixtures/snapshots/): Weather Underground's forecast for San
Francisco, which a Claude web search cited for "8% chance of precipitation"
(../shared/fixtures/anthropic/anthropic-websearch-sonnet4-sf-weather.json quotes its lines), and a
page of the yearly counts of visitors to Japan.
"""

from __future__ import annotations

from citeview.core.evidence.passages import find_passages
from tests.conftest import OWN_FIXTURES

PAGES = OWN_FIXTURES / "snapshots"


def page(name: str) -> str:
    return (PAGES / f"{name}.txt").read_text(encoding="utf-8")


def texts(claim: str, text: str) -> list[str]:
    return [passage.text for passage in find_passages(claim, text)]


def test_the_sentences_holding_the_claims_percentage_come_before_one_of_its_words_with_another():
    found = texts("8% chance of precipitation", page("en-weather"))
    assert "8% Precip." in found[0]
    assert "8% Precip." in found[1]
    assert found[2] == "Partly cloudy skies with a 20% chance of precipitation."


def test_the_sentence_of_the_claims_year_comes_before_the_sentences_of_other_years():
    found = texts("2023年の訪日客数は約2,500万人", page("ja-visitors"))
    assert found[0] == "2023年は2,507万人と、2019年比で78.6%まで回復した。"


def test_a_figure_said_to_be_about_is_held_by_the_precise_one_it_rounds():
    text = "訪日客数の推移。\n\n2023年は2,507万人だった。\n\n2023年の訪日客数の目標は3,000万人だった。"
    found = find_passages("2023年の訪日客数は約2,500万人", text)
    assert found[0].text == "2023年は2,507万人だった。"


def test_a_window_stating_another_value_ranks_just_below_the_one_stating_the_claims():
    text = (
        "Tomorrow: 8% chance of rain.\n\nWednesday: partly cloudy skies with a 20% chance of precipitation.\n\n"
        "Precipitation records for San Francisco go back to 1849."
    )
    found = texts("8% chance of precipitation", text)
    assert found[:2] == [
        "Tomorrow: 8% chance of rain.",
        "Wednesday: partly cloudy skies with a 20% chance of precipitation.",
    ]


def test_a_window_stating_another_value_is_still_found_when_none_states_the_claims():
    # What differs is a finding too: the comparison marks 20% against 8%.
    text = "Forecast for Wednesday.\n\nPartly cloudy skies with a 20% chance of precipitation."
    assert texts("8% chance of precipitation", text) == ["Partly cloudy skies with a 20% chance of precipitation."]


def test_a_japanese_passage_is_the_one_sentence_that_holds_the_claim_not_the_pair_it_is_in():
    text = (
        "訪日外客統計\n\n日本政府観光局（JNTO）は12日、2023年の訪日外客数の推計値を発表した。"
        "2023年の年間の訪日客数は2,507万人で、コロナ禍前の2019年の約8割まで回復した。\n\n国・地域別では韓国が最も多かった。"
    )
    found = texts("日本政府観光局によると、2023年の訪日客数は約2,500万人だった。", text)
    assert found[0] == "2023年の年間の訪日客数は2,507万人で、コロナ禍前の2019年の約8割まで回復した。"


def test_a_claim_that_says_what_two_sentences_say_still_finds_the_pair():
    text = (
        "Unrelated opening words.\nThe museum opened in 1998. It welcomed two million visitors in its first year.\nEnd."
    )
    found = texts("The museum opened in 1998 and welcomed two million visitors in its first year.", text)
    assert found[0] == "The museum opened in 1998. It welcomed two million visitors in its first year."


def test_the_same_sentence_is_never_listed_twice_among_the_candidates():
    found = texts("Winds W at 10 to 20 mph", page("en-weather"))
    assert found[0] == "Winds W at 10 to 20 mph."
    assert len(found) == len(set(found))


def test_candidates_of_the_same_words_spaced_or_cased_otherwise_are_one():
    text = "Winds W at 10 to 20 mph.\n\nOther words here.\n\nwinds  W at 10 to 20 mph.\n\nWinds W at 10 to 15 mph."
    found = texts("Winds W at 10 to 20 mph", text)
    assert found[0] == "Winds W at 10 to 20 mph."
    assert "winds  W at 10 to 20 mph." not in found


def test_a_count_of_years_is_no_other_year():
    text = (
        "厚生労働省は2023年の出生数などをまとめた人口動態統計の概数を公表した。\n\n"
        "出生数は72万7277人で、8年連続の減少となった。\n\n婚姻件数も減った。"
    )
    found = texts("2023年の出生数は約72万人だった。", text)
    assert found[0] == "出生数は72万7277人で、8年連続の減少となった。"


def test_a_months_short_name_reads_as_its_name():
    # A date is written both ways: "Oct. 7" on the page, "October 7" in the answer.
    text = (
        "Python 3.13.0 is the newest major release of the Python programming language.\n\n"
        "This is the stable release of Python 3.13.0.\n\nRelease date: Oct. 7, 2024\n\n"
        "Python 3.13.0 was preceded by release candidate 3.\n\nThe release notes list every stable change."
    )
    found = texts("Python 3.13.0 was released as a stable release on October 7, 2024.", text)
    assert found[0] == "Release date: Oct. 7, 2024"


def test_mar_and_dec_are_months_only_beside_a_figure():
    from citeview.core.evidence.passages import _normalised

    assert _normalised("3 Mar 2025, Dec. 5") == "# march # december #"
    assert _normalised("nothing to mar the view of type dec") == "nothing to mar the view of type dec"


def test_a_window_holding_none_of_the_claims_figures_ranks_below_one_holding_them_all():
    # The opening shares more of the claim's words; the sentence with the vote is what can be checked.
    text = (
        "Lawmakers approve levy on single-use plastic packaging\n\n"
        "Lawmakers on Wednesday approved a levy on single-use plastic packaging, ending two years of argument.\n\n"
        "The bill passed 142-12, with 10 abstentions.\n\n"
        "A previous attempt failed in 2023, when the bill was defeated 71-88.\n\n"
        "Producers will pay 80 cents for every kilogram of plastic packaging they sell."
    )
    found = texts("Lawmakers approved the plastic packaging levy by 142 votes to 12.", text)
    assert found[0] == "The bill passed 142-12, with 10 abstentions."


def test_a_day_of_a_date_is_not_the_claims_count():
    # The 1 of 4月1日 is a day: it does not hold the claim's 1回 (one ride); the fare's 1乗車 does.
    text = (
        "高齢者おでかけ支援事業のご案内\n\n"
        "市では、高齢者の外出機会を増やすため、路線バスの運賃を割り引く事業を実施しています。\n\n"
        "令和7年4月1日から、対象年齢を70歳以上から65歳以上に引き下げました。\n\n"
        "- 市内の路線バスは、1乗車につき100円でご利用いただけます。\n"
        "- 通常運賃が100円未満の区間は、通常運賃となります。\n\n"
        "- 市内に住民登録のある65歳以上の方\n\n"
        "ICカードの発行手数料は500円です。\n"
    )
    scores = {
        passage.text: passage.score
        for passage in find_passages("この市では、65歳以上の市民がバスに1回100円で乗れる。", text)
    }
    fare, date = (
        "- 市内の路線バスは、1乗車につき100円でご利用いただけます。",
        "令和7年4月1日から、対象年齢を70歳以上から65歳以上に引き下げました。",
    )
    assert scores[fare] > scores.get(date, 0)


def test_a_day_of_the_claims_date_is_still_held():
    from citeview.core.evidence.passages import _claim_figures, _dated_only

    assert _dated_only("4月1日から1回100円") == frozenset({"4"})
    assert "day:4" in _claim_figures("4月1日").values
