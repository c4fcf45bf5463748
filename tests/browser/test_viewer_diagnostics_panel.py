"""The viewer's diagnostics in a real browser: words first and the codes behind a toggle, a box per
severity that hides its rows (without the script too), the sources never cited as one row, and each
row, like the unresolved chip, leading to its place in the answer or the source list."""

from __future__ import annotations

import json

import pytest

from citeview.dumps.services import dump_ingest
from tests.browser.test_reviewer_flows import in_viewport, shoot
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db(transaction=True)

TEXT = (
    "東京都は日本の首都です[1]。人口は約1400万人です[2]。大阪府の人口は約880万人です[7]。"
    "名古屋市は中部地方の中心です[static_doc_1]。\n\n"
    + "\n\n".join(f"段落{n}：東京の統計についての説明が続きます。" * 3 for n in range(12))
    + "\n\n福岡市は九州の中心です[8]。"
)
URLS = [f"https://www.example.jp/tokei/{n}" for n in range(1, 7)]  # [7] and [8] point at none


@pytest.fixture
def viewer(signed_in, account):
    raw = json.dumps(sonar_object(TEXT, URLS), ensure_ascii=False).encode()
    dump, _ = dump_ingest(raw=raw, uploaded_by=account)
    signed_in.goto(dump.get_absolute_url())
    return signed_in


def rows(page):
    return page.locator(".cv-diagnostic:visible")


def test_words_first_and_the_codes_behind_the_toggle(viewer):
    page = viewer
    assert page.locator(".cv-diagnostics").get_attribute("open") is not None  # warnings: open
    assert not page.locator(".cv-technical").first.is_visible()
    assert "unresolved_marker" not in page.locator(".cv-diagnostic-list").inner_text()
    page.get_by_label("コードと値を表示").check()
    assert page.locator(".cv-technical").first.is_visible()
    assert "unresolved_marker" in page.locator(".cv-diagnostic-list").inner_text()


def test_the_sources_never_cited_are_one_row_linking_to_each(viewer):
    page = viewer
    row = page.locator(".cv-diagnostic", has_text="件の出典はどこにも引用されていません")
    assert row.count() == 1
    assert row.locator("a").all_inner_texts() == ["[3]", "[4]", "[5]", "[6]"]
    page.set_viewport_size({"width": 390, "height": 700})  # the sources are below the answer
    row.locator("a", has_text="[5]").click()
    assert page.evaluate("location.hash") == "#cv-r0-src-5" and in_viewport(page, "#cv-r0-src-5")


def test_a_box_per_severity_shows_or_hides_its_rows(viewer):
    page = viewer
    total = rows(page).count()
    notes = page.locator(".cv-diagnostic.cv-severity-info").count()
    assert notes and total > notes
    page.get_by_label("情報").uncheck()
    assert rows(page).count() == total - notes
    assert all("cv-severity-warning" in r.get_attribute("class") for r in rows(page).all())
    page.get_by_label("警告").uncheck()
    assert rows(page).count() == 0
    page.get_by_label("情報").check()
    assert rows(page).count() == notes
    page.get_by_label("警告").check()
    assert rows(page).count() == total
    shoot(page, "viewer-diagnostics")  # viewer-diagnostics-desktop.png, viewer-diagnostics-phone.png


def test_an_unresolved_row_and_the_chip_lead_to_the_markers(viewer):
    # Three flagged in the answer's order: [7], [static_doc_1] (a notation citeview does not read), [8].
    page = viewer
    page.set_viewport_size({"width": 1280, "height": 600})
    unresolved = page.locator(".cv-diagnostic", has_text="[8]")
    unresolved.get_by_role("link", name="回答の中の位置を表示").click()
    assert page.evaluate("location.hash") == "#cv-r0-unresolved-2" and in_viewport(page, "#cv-r0-unresolved-2")
    assert page.eval_on_selector("#cv-r0-unresolved-2", "e => e.matches(':target')")
    for expected in (0, 1, 2, 0):  # the chip: each in turn, then round to the first
        page.evaluate("window.scrollTo(0, 0)")
        page.click(".cv-unresolved-chip")
        target = f"#cv-r0-unresolved-{expected}"
        assert page.evaluate("location.hash") == target and in_viewport(page, target)


def test_the_filter_works_without_the_script(browser, live_server, account):
    from tests.browser.conftest import PASSWORD

    raw = json.dumps(sonar_object(TEXT, URLS), ensure_ascii=False).encode()
    dump, _ = dump_ingest(raw=raw, uploaded_by=account)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False, locale="ja-JP")
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("#id_username", account.username)
    page.fill("#id_password", PASSWORD)
    page.click(".cv-login button[type=submit]")
    page.goto(dump.get_absolute_url())
    total = rows(page).count()
    page.get_by_label("情報").uncheck()
    assert 0 < rows(page).count() < total
    page.get_by_label("コードと値を表示").check()
    assert page.locator(".cv-technical:visible").count() == rows(page).count()
    context.close()
