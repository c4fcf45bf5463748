"""A check plan's estimates in Chromium, in both languages: the figures page shows each estimate with
its 95% interval, the interval drawn as a band around the estimate's tick, and an unfinished plan says
so; on a phone the page fits, and axe finds nothing serious. Screenshots go to test-artifacts/screenshots/."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.browser.test_check_queue import sign_in
from tests.browser.test_handover import assert_accessible
from tests.browser.test_report_scope import person
from tests.browser.test_reviewer_flows import shoot
from tests.review.report_dump import check_everything, ten_item_dump
from tests.review.test_plan_estimates import make_plan

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = {
    "ja": ("引用適合率", "引用 8 件のうち 6 件を確認済み", "未完了"),
    "en": ("Citation precision", "6 of 8 citations checked", "not finished"),
}


@pytest.fixture
def plan(django_user_model: Any) -> Any:
    """A citation plan over the ten-item dump, both editors' checks in: [3] and [5] are disputed, not settled."""
    hanako, taro = person(django_user_model, "hanako", "editor"), person(django_user_model, "taro", "editor")
    person(django_user_model, "yuki", "reviewer")
    dump = ten_item_dump(hanako)
    check_everything(dump, hanako, 0)
    check_everything(dump, taro, 1)
    return make_plan(dump, person(django_user_model, "sato", "lead"), "citation")


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_the_figures_page_draws_each_estimates_interval(browser, live_server, plan, locale):
    language = locale[:2]
    name, checked, unfinished = WORDS[language]
    tab = sign_in(browser, live_server, User.objects.get(username="yuki"), locale, 1280)
    tab.goto("/figures/")
    tab.select_option("#id_plan", str(plan.pk))
    tab.click(".cv-plan-choice button[type=submit]")
    tab.wait_for_url(re.compile(rf"plan={plan.pk}"))
    section = tab.locator(".cv-plan-estimates")
    row = section.locator("tr.cv-estimate-citation_precision")
    assert name in row.inner_text() and checked in row.inner_text()
    assert re.search(r"66\.7% ?[(（]\d+\.\d%–\d+\.\d%[)）]", row.inner_text())
    assert unfinished in section.locator(".cv-plan-incomplete").inner_text()
    band = section.locator(".cv-bar-interval").first.bounding_box()
    tick = section.locator(".cv-bar-point").first.bounding_box()
    assert band["width"] > 10 and band["x"] <= tick["x"] <= band["x"] + band["width"]  # the estimate inside it
    shoot(tab, f"plan-figures-{language}")
    assert_accessible(tab)
    assert not tab.console_errors
