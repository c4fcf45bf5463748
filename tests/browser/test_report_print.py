"""The handover report of a ten-item dump, printed by Chromium: the summary on page one, the whole
report on no more than three A4 pages (the issue found five), and a screenshot of the page as read."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group

from tests.browser.conftest import PASSWORD
from tests.browser.test_handover import assert_a4, assert_accessible, flat, pdf_text
from tests.browser.test_reviewer_flows import SCREENSHOTS, shoot
from tests.review.report_dump import SETTLE_REASON, check_everything, settle, ten_item_dump

pytestmark = pytest.mark.django_db(transaction=True)


def user(django_user_model: Any, name: str, role: str) -> Any:
    person = django_user_model.objects.create_user(username=name, password=PASSWORD)
    person.groups.add(Group.objects.get(name=role))
    return person


def test_a_ten_item_report_prints_on_at_most_three_pages_with_the_summary_first(page, django_user_model):
    hanako, taro = user(django_user_model, "hanako", "editor"), user(django_user_model, "taro", "editor")
    lead = user(django_user_model, "kimura", "lead")
    dump = ten_item_dump(hanako)
    check_everything(dump, hanako, 0)
    check_everything(dump, taro, 1)
    settle(dump, lead, "[5]", "partial", SETTLE_REASON)

    page.goto("/accounts/login/")
    page.fill("#id_username", "hanako")
    page.fill("#id_password", PASSWORD)
    page.click(".cv-login button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto(f"/dumps/{dump.pk}/report/")
    shoot(page, "handover-report-ten-items-ja")
    assert_accessible(page)
    page.emulate_media(media="print")
    page.screenshot(path=str(SCREENSHOTS / "handover-report-ten-items-ja-print.png"), full_page=True)
    page.emulate_media(media="null")

    reader, text = pdf_text(page.pdf(prefer_css_page_size=True))
    assert_a4(reader)
    assert len(reader.pages) <= 3, f"the report of ten items prints on {len(reader.pages)} pages"
    first = flat(reader.pages[0].extract_text())
    for shown in ("概要", "最終判定", "引用再現率", "裏付けがない", "裁定されていない", "未解決"):
        assert flat(shown) in first, f"{shown} is not on page one"
    assert flat("条件 —") not in text and flat("対象 —") not in text
    assert not page.console_errors
