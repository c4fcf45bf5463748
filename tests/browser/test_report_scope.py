"""The report and the figures as each role reads them, in Chromium, in both languages, at desktop and
phone width: an editor who checked part of a dump reads on how many items each figure is computed; the
reviewer works the report's disagreements from its filter and its summary's links; a batch's report
says what each response is about, once. Screenshots of each go to test-artifacts/screenshots/."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import expect

from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from tests.browser.conftest import PASSWORD
from tests.browser.test_check_queue import sign_in
from tests.browser.test_handover import assert_accessible
from tests.browser.test_reviewer_flows import shoot
from tests.dumps.test_batches import batch_of
from tests.review.report_dump import SETTLE_REASON, check_everything, settle, ten_item_dump

pytestmark = pytest.mark.django_db(transaction=True)

SCOPE = {"ja": "全 10 項目のうち、あなたに表示できる 4 項目について", "en": "on the 4 of 10 items visible to you"}


def person(django_user_model: Any, name: str, role: str) -> Any:
    user = django_user_model.objects.create_user(username=name, password=PASSWORD)
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def split(django_user_model: Any) -> Any:
    """Ten items: hanako checks four, taro the other six; a lead settles [5], where they differ."""
    hanako, taro = person(django_user_model, "hanako", "editor"), person(django_user_model, "taro", "editor")
    person(django_user_model, "yuki", "reviewer")
    dump = ten_item_dump(hanako)
    keys = [item.key for item in dump_check_items(dump)]
    check_everything(dump, hanako, 0, only=set(keys[:4]))
    check_everything(dump, taro, 1)
    settle(dump, person(django_user_model, "kimura", "lead"), "[5]", "partial", SETTLE_REASON)
    return dump


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_an_editor_reads_the_scope_inside_every_figure(browser, live_server, split, locale):
    language = locale[:2]
    tab = sign_in(browser, live_server, User.objects.get(username="hanako"), locale, 1280)
    tab.goto(f"/dumps/{split.pk}/report/")
    summary = tab.locator(".cv-report-summary")
    assert summary.locator(".cv-scope").count() == 6  # checked by, final verdicts, recall, precision, two lists
    assert SCOPE[language] in summary.inner_text()
    shoot(tab, f"report-scope-editor-{language}")
    assert_accessible(tab)
    tab.goto("/figures/")
    assert SCOPE[language] in tab.inner_text(".cv-headline")
    assert SCOPE[language] in tab.inner_text("#figures-verdicts")
    shoot(tab, f"figures-scope-editor-{language}")
    with tab.expect_navigation():
        tab.click("#figures-verdicts a")  # to each editor's verdicts: a plain link
    assert "verdicts=editors" in tab.url
    caption = {"ja": "編集者ごとの判定", "en": "Each editor's verdicts"}[language]
    assert tab.inner_text(".cv-figure-pair caption") == caption
    shoot(tab, f"figures-editor-verdicts-{language}")
    assert not tab.console_errors
    tab.context.close()


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_the_reviewer_works_the_disagreements_from_the_report(browser, live_server, split, locale):
    language = locale[:2]
    tab = sign_in(browser, live_server, User.objects.get(username="yuki"), locale, 1280)
    tab.goto(f"/dumps/{split.pk}/report/")
    assert tab.locator(".cv-report-summary .cv-scope").count() == 0  # the reviewer reads every item
    with tab.expect_navigation():
        tab.click(".cv-report-filter a")
    assert "only=disagreements" in tab.url
    assert tab.locator(".cv-report-statement").count() == 1 and tab.locator(".cv-report-summary").count() == 0  # [3]
    shoot(tab, f"report-disagreements-only-{language}")
    assert_accessible(tab)
    with tab.expect_navigation():
        tab.click(".cv-report-filter a")  # back to the whole report
    tab.locator(".cv-report-disagreements .cv-report-links a").first.click()  # "In the report"
    expect(tab).to_have_url(re.compile(r"#cv-item-"))
    expect(tab.locator(":target")).to_be_visible()
    tab.goto(f"/dumps/{split.pk}/report/")
    with tab.expect_navigation():
        tab.locator(".cv-report-disagreements .cv-report-links a").nth(1).click()  # its check page
    assert "/check/" in tab.url
    assert not tab.console_errors
    tab.context.close()


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_a_batch_report_says_what_each_response_is_about_once(browser, live_server, django_user_model, locale):
    language = locale[:2]
    editor = person(django_user_model, "hanako", "editor")
    dump = dump_ingest(raw=batch_of(25).encode(), uploaded_by=editor)[0]
    tab = sign_in(browser, live_server, User.objects.get(username="hanako"), locale, 1280)
    tab.goto(f"/dumps/{dump.pk}/report/")
    title = {"ja": "25 件の回答のバッチ · Perplexity", "en": "Batch of 25 responses · Perplexity"}[language]
    assert tab.inner_text(".cv-report-title") == title
    assert tab.locator(".cv-report-opening").count() == 25
    assert "回答12：東京の人口は約1400万人です。" in tab.inner_text(".cv-report-responses")
    shoot(tab, f"report-batch-first-page-{language}")
    tab.goto(f"/dumps/{dump.pk}/report/?page=2")
    assert tab.locator(".cv-report-summary").count() == 0
    with tab.expect_navigation():  # to the first page, where the summary is
        tab.click(".cv-report-summary-elsewhere a")
    expect(tab.locator(".cv-report-summary")).to_be_visible()
    assert tab.url.endswith("#report-summary")
    tab.goto(f"/dumps/{dump.pk}/report/?page=2")
    shoot(tab, f"report-batch-second-page-{language}")
    assert not tab.console_errors
    tab.context.close()
