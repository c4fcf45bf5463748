"""The check page on a phone (issue 41): the claim being judged is on the first screen, whether or not
the cited page has a snapshot. (The snapshot shows the claim again beside its passage; that copy
once hid the statement box, and put the claim a screen or more down on a phone.)"""

from __future__ import annotations

import json
from typing import Any

import pytest

from citeview.dumps.services import dump_ingest
from citeview.snapshots.services import snapshot_paste
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_check_queue import editor_tab  # noqa: F401 (a fixture)
from tests.browser.test_reviewer_flows import SCREENSHOTS
from tests.builders import sonar_object
from tests.conftest import OWN_FIXTURES

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
TOKYO = "https://stats.example/tokyo"
CASES = {
    "en-US": {
        "claim": "As of January 2024, the population of Tokyo was about 14.1 million[1].",
        "words": "the population of Tokyo was about 14.1 million",
        "page": (
            "Tokyo's population was 13.9 million in January 2024, up 0.2% on the year before. "
            "Most residents live in the 23 special wards.\n\nOther text about the city and its history."
        ),
        "title": "Population of Tokyo Metropolis: monthly estimates by the Bureau of General Affairs, 2024 edition",
        "snippet": (
            "The Tokyo Metropolitan Government estimates the population on the first day of every month from "
            "the census and the basic resident register. As of January 1, 2024, the estimated population was "
            "13.9 million, an increase on the year before, mainly from people moving in from other prefectures. "
            "The number of households reached 7.4 million; the average household had 1.9 members."
        ),
    },
    "ja-JP": {
        "claim": "東京都の人口は約1410万人で、前年比0.3%増です[1]。",
        "words": "東京都の人口は約1410万人で、前年比0.3%増です",
        "page": (OWN_FIXTURES / "snapshots" / "ja-population-other-figure.txt").read_text(encoding="utf-8"),
        "title": "東京都の人口（推計）｜東京都総務局統計部　毎月1日現在の推計人口と世帯数の公表",
        "snippet": (
            "東京都は、国勢調査の結果と住民基本台帳をもとに、毎月1日現在の人口を推計して公表しています。"
            "2024年1月1日現在の東京都の人口は約1,390万人で、前年と比べて0.3％増加しました。"
            "増加の主な要因は他の道府県からの転入超過であり、自然増減は引き続き減少となっています。"
            "世帯数は約740万世帯となりました。"
        ),
    },
}

# The statement boxes of the panel that show the claim, in sight without scrolling.
CLAIM_IN_SIGHT = """words => [...document.querySelectorAll('.cv-check-panel .cv-statement')].filter(box => {
    const shown = box.getBoundingClientRect();
    return box.checkVisibility() && shown.height > 0 && shown.top >= 0 && shown.bottom <= innerHeight
        && box.textContent.includes(words);
}).length"""


def _dump(user: Any, case: dict[str, str]) -> Any:
    """A Perplexity answer citing one page, with its title and search snippet as the API gives them."""
    found = [{"title": case["title"], "url": TOKYO, "date": "2024-01-15", "snippet": case["snippet"]}]
    raw = json.dumps(sonar_object(case["claim"], [TOKYO], search_results=found), ensure_ascii=False).encode()
    return dump_ingest(raw=raw, uploaded_by=user)[0]


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
@pytest.mark.parametrize("with_snapshot", [False, True])
def test_on_a_phone_the_claim_being_judged_is_on_the_first_screen(editor_tab, locale, with_snapshot):  # noqa: F811
    case = CASES[locale]
    page = editor_tab(locale, PHONE["width"])
    page.set_viewport_size(PHONE)
    dump = _dump(page.user, case)
    if with_snapshot:
        snapshot_paste(url=TOKYO, text=case["page"], taken_by=page.user)
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    if with_snapshot:
        page.wait_for_selector(".cv-snapshot-passage")
        assert page.locator(".cv-snapshot-passage mark").count()  # the passage differs, and says where
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate(CLAIM_IN_SIGHT, case["words"]) == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    name = f"check-phone-{'snapshot' if with_snapshot else 'no-snapshot'}-{locale[:2]}"
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    page.screenshot(path=str(SCREENSHOTS / f"{name}-whole.png"), full_page=True)
    assert not serious_violations(page)
    assert not page.console_errors, page.console_errors


def test_on_a_desktop_the_claim_is_shown_once_beside_the_passage(editor_tab: Any):  # noqa: F811
    case = CASES["en-US"]
    page = editor_tab("en-US", 1280)
    dump = _dump(page.user, case)
    snapshot_paste(url=TOKYO, text=case["page"], taken_by=page.user)
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    page.wait_for_selector(".cv-snapshot-passage")
    assert page.evaluate(CLAIM_IN_SIGHT, case["words"]) == 1
    assert page.locator(".cv-snapshot-claim").is_visible()
    assert page.locator(".cv-snapshot-claim mark").count()  # what differs, marked on the claim's side too
