"""Searching one dump in a real browser: `/` focuses the box, every match in the answer and its
sources is highlighted, Enter steps through them, Escape clears; without the script the browser's
own find is offered instead."""

from __future__ import annotations

import json

import pytest

from citeview.dumps.services import dump_ingest
from tests.browser.test_reviewer_flows import in_viewport, shoot
from tests.builders import sonar_object
from tests.conftest import PROJECT_DIR

pytestmark = pytest.mark.django_db(transaction=True)

HEAT = PROJECT_DIR / "citeview" / "dumps" / "samples" / "01-agent-stream-ja-tokyo-heat.sse"

HIGHLIGHTED = "name => CSS.highlights.has(name) ? CSS.highlights.get(name).size : 0"
CURRENT_TEXT = (
    "() => { const h = CSS.highlights.get('cv-find-current'); return h && h.size ? [...h][0].toString() : ''; }"
)
# How often a word stands in what a reader sees of the scopes searched, in any case: innerText leaves
# out what is hidden (the cards written once), and the domains and addresses are in lower case.
VISIBLE_COUNT = """word => [...document.querySelectorAll('.cv-answer, .cv-source-list, .cv-evidence-rows')]
    .map(e => e.innerText.toLowerCase().split(word.toLowerCase()).length - 1).reduce((a, b) => a + b, 0)"""


@pytest.fixture
def heat_page(signed_in, account):
    dump, _ = dump_ingest(raw=HEAT.read_bytes(), uploaded_by=account, filename=HEAT.name)
    signed_in.goto(dump.get_absolute_url())
    return signed_in


def status(page) -> str:
    return page.locator(".cv-find-status").inner_text()


def test_slash_focuses_the_search_and_every_match_is_highlighted(heat_page):
    page = heat_page
    assert page.locator(".cv-find").is_visible() and not page.locator(".cv-find-fallback").is_visible()
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.matches('.cv-find-input')")
    page.keyboard.type("クーリングシェルター")
    page.wait_for_function("() => document.querySelector('.cv-find-status').textContent !== ''")
    total = page.evaluate(VISIBLE_COUNT, "クーリングシェルター")
    assert total >= 3  # in the answer and in two sources' snippets and titles
    assert page.evaluate(HIGHLIGHTED, "cv-find") == total
    assert status(page) == f"{total} 件中 1 件目"
    assert page.evaluate(CURRENT_TEXT) == "クーリングシェルター"
    page.evaluate("window.scrollTo(0, 0)")  # a whole-page picture, the sticky header at its top
    shoot(page, "viewer-search")  # viewer-search-desktop.png, viewer-search-phone.png


def test_enter_steps_through_the_matches_and_escape_clears_them(heat_page):
    page = heat_page
    page.keyboard.press("/")
    page.keyboard.type("WBGT")
    page.keyboard.press("Enter")  # at once, before the box has searched by itself: the first match
    total = page.evaluate(VISIBLE_COUNT, "WBGT")
    assert status(page) == f"{total} 件中 1 件目"
    page.keyboard.press("Enter")
    assert status(page) == f"{total} 件中 2 件目"
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    assert status(page) == f"{total} 件中 {total} 件目"  # round to the last
    current = page.evaluate(
        "() => { const r = [...CSS.highlights.get('cv-find-current')][0].getBoundingClientRect(); return [r.top, r.bottom]; }"
    )
    assert current[0] >= 0 and current[1] <= page.viewport_size["height"]  # scrolled to
    page.keyboard.press("Escape")
    assert page.input_value(".cv-find-input") == "" and status(page) == ""
    assert page.evaluate(HIGHLIGHTED, "cv-find") == 0
    page.keyboard.press("Escape")  # the box empty: Escape leaves it
    assert not page.evaluate("document.activeElement.matches('.cv-find-input')")


def test_case_and_width_do_not_matter_and_hidden_cards_are_not_searched(heat_page):
    page = heat_page
    page.fill(".cv-find-input", "ｗｂｇｔ")  # full-width, lower case
    page.wait_for_function("() => document.querySelector('.cv-find-status').textContent !== ''")
    assert page.evaluate(HIGHLIGHTED, "cv-find") == page.evaluate(VISIBLE_COUNT, "WBGT")
    page.fill(".cv-find-input", "存在しない語句")
    page.wait_for_function("() => document.querySelector('.cv-find-status').textContent === '一致なし'")


def test_typing_slash_in_a_field_types_it(heat_page):
    page = heat_page
    page.click(".cv-find-input")
    page.keyboard.type("33/35")
    assert page.input_value(".cv-find-input") == "33/35"


def test_a_match_in_a_source_is_scrolled_to_on_a_phone(heat_page):
    page = heat_page
    page.set_viewport_size({"width": 390, "height": 700})
    page.fill(".cv-find-input", "日本経済新聞")  # only the last source's title
    page.wait_for_function("() => document.querySelector('.cv-find-status').textContent !== ''")
    assert status(page) == "1 件中 1 件目" and in_viewport(page, "#cv-r0-src-6")


def test_a_diagnostic_without_a_place_finds_what_it_names(signed_in, account):
    text = "東京は首都です[static_doc_1]。人口は約1400万人です[1]。"
    raw = json.dumps(sonar_object(text, ["https://www.metro.tokyo.lg.jp/"]), ensure_ascii=False).encode()
    dump, _ = dump_ingest(raw=raw, uploaded_by=account)
    page = signed_in
    page.goto(dump.get_absolute_url())
    page.click(".cv-find-this")
    assert page.input_value(".cv-find-input") == "[static_doc_1]" and status(page) == "1 件中 1 件目"
    assert page.evaluate(CURRENT_TEXT) == "[static_doc_1]"
    assert not page.console_errors


def test_without_the_script_the_browsers_own_find_is_offered(browser, live_server, account):
    from tests.browser.conftest import PASSWORD

    dump, _ = dump_ingest(raw=HEAT.read_bytes(), uploaded_by=account)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False, locale="ja-JP")
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("#id_username", account.username)
    page.fill("#id_password", PASSWORD)
    page.click(".cv-login button[type=submit]")
    page.goto(dump.get_absolute_url())
    assert not page.locator(".cv-find").is_visible() and not page.locator(".cv-find-this").count()
    assert "ブラウザの検索" in page.locator(".cv-find-fallback").inner_text()
    context.close()
