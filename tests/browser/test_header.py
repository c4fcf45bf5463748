"""The header of every page, in a real browser (issue 41): one row on a phone, every link one tap
away in its menu (by finger, keyboard or screen reader), and for leads and staff a link to the
disagreements waiting to be settled, with how many there are. In English and in Japanese."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group

from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from citeview.review.services import check_save
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_check_queue import sign_in
from tests.browser.test_reviewer_flows import SCREENSHOTS
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
ONE_ROW = 56  # px: a 44 px target and its padding; the old phone header took about 130
SEED = "agent-seed-incomplete.sse"
WORDS = {
    "en-US": {"settle": "Settle 1", "menu": "Menu", "log_out": "Log out"},
    "ja-JP": {"settle": "裁定 1", "menu": "メニュー", "log_out": "ログアウト"},
}


@pytest.fixture
def team(browser: Any, live_server: Any, django_user_model: Any):
    """Two editors who disagree on one item of a dump, and a tab for whoever signs in."""
    people = {}
    for name, role in (("hanako", "editor"), ("taro", "editor"), ("sato", "lead")):
        people[name] = django_user_model.objects.create_user(username=name, password="a-browser-test-password")
        people[name].groups.add(Group.objects.get(name=role))
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=people["hanako"], filename=SEED)[0]
    item = next(i for i in dump_check_items(dump) if i.key == "r0-c1")
    for version, (editor, verdict) in enumerate(((people["hanako"], "partial"), (people["taro"], "none"))):
        values = {"verdict": verdict, "subject": "", "time": "", "conditions": "", "evidence_quote": "", "note": ""}
        check_save(dump=dump, item=item, editor=editor, values=values, statement_values={}, seen_version=version)
    contexts = []

    def open_tab(name: str, locale: str, viewport: dict[str, int]) -> Any:
        tab = sign_in(browser, live_server, people[name], locale, viewport["width"])
        tab.set_viewport_size(viewport)
        contexts.append(tab.context)
        tab.dump = dump
        return tab

    yield open_tab
    for context in contexts:
        context.close()


def _header_height(page: Any) -> float:
    return page.locator(".cv-topbar").bounding_box()["height"]


def _targets(page: Any) -> list[Any]:
    return page.locator(".cv-topbar a, .cv-topbar button, .cv-topbar summary").all()


def _shoot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
@pytest.mark.parametrize("name", ["hanako", "sato"])  # an editor, a lead
def test_on_a_phone_the_header_is_one_row_and_every_link_is_in_its_menu(team, name, locale):
    page = team(name, locale, PHONE)
    words = WORDS[locale]
    for url in ("/", "/figures/", f"/dumps/{page.dump.pk}/report/"):
        page.goto(url)
        assert _header_height(page) <= ONE_ROW, (url, _header_height(page))
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], url
    # The lead's way to the disagreements stays in the row; the rest is in the menu, closed.
    settle = page.locator(".cv-topbar .cv-settle-link")
    if name == "sato":
        assert settle.is_visible() and " ".join(settle.inner_text().split()) == f"⚖ {words['settle']}"
    else:
        assert settle.count() == 0
    assert page.locator(".cv-menu > summary").inner_text().strip() == words["menu"]
    assert not page.locator(".cv-nav").is_visible()
    _shoot(page, f"header-{name}-{locale}-phone")

    # One tap opens it: every link and button of the header is then in sight, a finger's size, and the
    # page does not widen; the header's own row stays one row.
    page.click(".cv-menu > summary")
    assert _header_height(page) <= ONE_ROW
    shown = {}
    for target in _targets(page):
        seen = target.bounding_box()
        assert seen is not None and target.is_visible(), target.inner_text()
        assert seen["x"] >= 0 and seen["x"] + seen["width"] <= PHONE["width"], target.inner_text()
        assert seen["y"] + seen["height"] <= PHONE["height"], target.inner_text()
        assert seen["height"] >= 44, target.inner_text()
        shown[target.get_attribute("href") or target.inner_text().strip()] = target
    wanted = {"/", "/imports/", "/queue/", "/figures/", "/accounts/", words["log_out"], "日本語", "English"}
    assert wanted <= set(shown), set(shown)
    assert ("/settle/" in shown) == (name == "sato")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _shoot(page, f"header-{name}-{locale}-phone-menu")
    assert not serious_violations(page)

    # A link in the menu goes where it says.
    page.click(".cv-nav a[href='/queue/']")
    page.wait_for_url("**/queue/")
    assert not page.locator(".cv-nav").is_visible()  # the next page opens with the menu closed
    assert not page.console_errors, page.console_errors


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_the_menu_opens_and_closes_from_the_keyboard(team, locale):
    page = team("sato", locale, PHONE)
    page.goto("/figures/")
    page.focus(".cv-menu > summary")
    page.keyboard.press("Enter")
    assert page.locator(".cv-nav").is_visible()
    assert page.eval_on_selector(".cv-menu", "e => e.open")
    # Tab walks on into the menu, in the order it shows.
    page.keyboard.press("Tab")
    first = page.evaluate("document.activeElement.closest('.cv-menu') !== null")
    assert first
    # Escape closes it and gives the focus back to its toggle.
    page.keyboard.press("Escape")
    assert not page.eval_on_selector(".cv-menu", "e => e.open")
    assert page.evaluate("document.activeElement.matches('.cv-menu > summary')")


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
@pytest.mark.parametrize("name", ["hanako", "sato"])
def test_on_a_desktop_the_header_is_one_row_with_every_link_in_sight(team, name, locale):
    page = team(name, locale, DESKTOP)
    page.goto("/")
    assert _header_height(page) <= ONE_ROW
    assert not page.locator(".cv-menu > summary").is_visible()  # nothing folded where there is room
    for target in _targets(page):
        if target.evaluate("e => e.matches('summary')"):
            continue
        assert target.is_visible(), target.inner_text()
        seen = target.bounding_box()
        assert seen["x"] + seen["width"] <= DESKTOP["width"], target.inner_text()
    _shoot(page, f"header-{name}-{locale}-desktop")


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_a_lead_follows_the_settle_link_to_the_disagreement_waiting(team, locale):
    page = team("sato", locale, DESKTOP)
    page.goto("/")
    settle = page.locator(".cv-topbar .cv-settle-link")
    assert " ".join(settle.inner_text().split()) == f"⚖ {WORDS[locale]['settle']}"
    settle.click()
    page.wait_for_url("**/settle/")
    assert page.locator(".cv-settle-table a[href*='/check/r0-c1/']").count() == 1
    assert page.eval_on_selector(".cv-settle-link", "e => e.getAttribute('aria-current')") == "page"
