"""The frame of every page and the list, in a real browser: the header fits a phone with Log out one
tap away (in its menu), the user name looks like the link it is, the list is a card per dump on a phone, and column
headers never break inside a word."""

from __future__ import annotations

import json

import pytest

from citeview.dumps.services import dump_ingest
from tests.browser.test_reviewer_flows import shoot
from tests.builders import sonar_object
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}


def box(page, selector: str) -> dict:
    return page.eval_on_selector(selector, "e => { const r = e.getBoundingClientRect(); return r.toJSON(); }")


@pytest.mark.parametrize("language", ["ja", "en"])
@pytest.mark.parametrize("staff", [False, True])
def test_the_header_fits_a_phone_with_log_out_one_tap_away(signed_in, account, language, staff):
    page = signed_in
    if staff:  # one link more: Admin
        account.is_staff = True
        account.save()
    page.click(f".cv-language button[value={language}]")
    page.wait_for_selector(f"html[lang={language}]")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.click(".cv-menu > summary")  # the header is one row: the rest is in its menu (tests/browser/test_header.py)
    logout = box(page, ".cv-nav .cv-inline-form button")
    assert logout["left"] >= 0 and logout["right"] <= PHONE["width"]
    assert page.locator(".cv-nav .cv-inline-form button").inner_text() == (
        "ログアウト" if language == "ja" else "Log out"
    )
    for target in page.locator(".cv-topbar a, .cv-topbar button").all():
        assert target.bounding_box()["height"] >= 44, target.inner_text()


def test_the_user_name_looks_like_the_link_it_is(signed_in):
    page = signed_in
    user = page.eval_on_selector(".cv-user", "e => [getComputedStyle(e).color, getComputedStyle(e).textDecorationLine]")
    other = page.eval_on_selector(".cv-nav > a", "e => getComputedStyle(e).color")
    assert user == [other, "underline"]


def test_the_list_is_a_card_per_dump_on_a_phone_with_status_unresolved_and_progress(signed_in, account):
    page = signed_in
    dump_ingest(raw=own_fixture("agent-seed-incomplete.sse"), uploaded_by=account, filename="seed.sse")
    raw = json.dumps(sonar_object("東京は日本の首都です[1]。", ["https://www.metro.tokyo.lg.jp/"])).encode()
    dump_ingest(raw=raw, uploaded_by=account, filename="tokyo.json")
    page.goto("/")
    page.set_viewport_size(PHONE)
    cards = page.locator(".cv-dump-row")
    assert cards.count() == 2
    for card in cards.all():
        shown = card.bounding_box()
        assert shown["x"] >= 0 and shown["x"] + shown["width"] <= PHONE["width"]
        for part in (".cv-dump-link", ".cv-status, .cv-chip", ".cv-col-unresolved", ".cv-list-progress"):
            element = card.locator(part).first
            assert element.is_visible(), part
            seen = element.bounding_box()
            assert seen["x"] + seen["width"] <= PHONE["width"], part
        assert card.locator(".cv-dump-link").bounding_box()["height"] >= 44
    seed = cards.filter(has_text="seed.sse")
    assert "未解決" in seed.locator(".cv-col-unresolved").inner_text() and "⚠ 1" in seed.inner_text()
    assert "確認済み" in seed.locator(".cv-col-checked").inner_text()
    shoot(page, "list")  # list-desktop.png, list-phone.png


# Where a header's lines break, as offsets into its text, and where its words begin and end (the
# browser's own word segmenter, which knows Japanese words).
BREAKS_AND_WORDS = """th => {
    const text = th.textContent;
    const node = [...th.childNodes].find(n => n.nodeType === 3 && n.textContent === text) || th.firstChild;
    const range = document.createRange();
    const breaks = [];
    let top = null;
    for (let i = 0; i < text.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getBoundingClientRect();
        if (!rect.width && !rect.height) continue;
        if (top !== null && rect.top > top + 2) breaks.push(i);
        top = rect.top;
    }
    const lang = document.documentElement.lang;
    const bounds = [...new Intl.Segmenter(lang, {granularity: "word"}).segment(text)].map(s => s.index);
    return {breaks, bounds};
}"""


@pytest.mark.parametrize("width", [1280, 820, 390])
def test_column_headers_never_break_inside_a_word(signed_in, account, width):
    page = signed_in
    answer = (
        "| 情報 | 基準（WBGT） | 発表される地域 | 対象期間 | Announcement | Threshold |\n|---|---|---|---|---|---|\n"
        "| 熱中症警戒アラート | 33以上 | 全国の58地域 | 4月下旬から10月下旬まで | Heatstroke alert for the whole prefecture | 33 |"
    )
    raw = json.dumps(sonar_object(answer, ["https://www.wbgt.env.go.jp/"]), ensure_ascii=False).encode()
    dump, _ = dump_ingest(raw=raw, uploaded_by=account)
    page.set_viewport_size({"width": width, "height": 900})
    for url in ("/", dump.get_absolute_url()):
        page.goto(url)
        headers = page.locator(".cv-table th:visible, .cv-answer th:visible")
        assert headers.count() or (url == "/" and width < 600)  # on a phone the list is cards
        for header in headers.all():
            found = header.evaluate(BREAKS_AND_WORDS)
            inside = [at for at in found["breaks"] if at not in found["bounds"]]
            assert not inside, (url, header.inner_text(), inside)
        if url != "/":
            assert page.evaluate("document.documentElement.scrollWidth") <= width  # the table scrolls, not the page
