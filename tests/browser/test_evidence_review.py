"""Two editors and a reviewer work through a dump in real browsers: keyboard, blind first, a stale
save that loses nothing, the reviewer's reading, the figures and the report."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from citeview.dumps.services import dump_ingest
from citeview.review.models import Check
from tests.browser.conftest import PASSWORD
from tests.browser.test_reviewer_flows import shoot
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db(transaction=True)

SEED = "agent-seed-incomplete.sse"  # one statement citing [2] and [9]


@pytest.fixture
def people(browser: Any, live_server: Any, django_user_model: Any) -> Iterator[Any]:
    contexts = []

    def sign_in(username: str, role: str, locale: str = "en-US") -> Any:
        user = django_user_model.objects.create_user(username=username, password=PASSWORD)
        user.groups.add(Group.objects.get(name=role))
        context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900}, locale=locale)
        contexts.append(context)
        tab = context.new_page()
        tab.console_errors = []
        tab.on("console", lambda m: tab.console_errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: tab.console_errors.append(str(e)))
        tab.goto("/accounts/login/")
        tab.fill("#id_username", username)
        tab.fill("#id_password", PASSWORD)
        tab.click(".cv-login button[type=submit]")
        tab.wait_for_url(lambda url: "/accounts/login/" not in url)
        tab.user = user
        return tab

    yield sign_in
    for context in contexts:
        context.close()


def test_two_editors_and_a_reviewer_work_through_a_dump(people):
    hanako = people("hanako", "editor")
    taro = people("taro", "editor")
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=hanako.user, filename=SEED)[0]
    # [2] has two URLs (a conflict), so it is judged once per URL: three items, and [8] has no source.
    first, other_url = f"/dumps/{dump.pk}/check/r0-c0-1/", f"/dumps/{dump.pk}/check/r0-c0-2/"
    second = f"/dumps/{dump.pk}/check/r0-c1/"
    unresolved = f"/dumps/{dump.pk}/check/r0-u0/"

    # Hanako starts from the dump page and works by keyboard: 1 = complete, Enter saves and moves on.
    hanako.goto(f"/dumps/{dump.pk}/")
    hanako.click("text=Check the citations")
    hanako.wait_for_url(f"**{first}")
    assert "Check 1 of 4" in hanako.inner_text("h1")  # and [8], which has no source
    hanako.check("input[name=verification_worthy][value=yes]")
    hanako.check("input[name=supported_together][value=yes]")
    hanako.fill("textarea[name=note]", "年度も一致")
    hanako.focus("input[name=subject][value=yes]")
    hanako.keyboard.press("1")
    assert hanako.is_checked("input[name=verdict][value=complete]")
    hanako.keyboard.press("Enter")
    hanako.wait_for_url(f"**{other_url}")
    hanako.keyboard.press("k")  # back to the first item
    hanako.wait_for_url(f"**{first}")
    assert "No other editor has checked this item yet." in hanako.content()

    # Taro judges blind: Hanako's check of the first item is hidden until Taro saves his own.
    taro.goto(first)
    assert "Hidden until you save your own check" in taro.content() and "年度も一致" not in taro.content()
    taro.click("label:has(input[name=verdict][value=partial])")
    taro.click(".cv-save-bar button[type=submit]")
    taro.wait_for_url(f"**{other_url}")
    taro.keyboard.press("k")
    taro.wait_for_url(f"**{first}")
    assert "年度も一致" in taro.inner_text(".cv-other")
    shoot(taro, "check-panel")

    # Taro has the second item open when Hanako saves it: his save is refused, his typing kept, and
    # since he has not judged that item yet he learns only that someone saved it (blind first).
    taro.goto(second)
    hanako.goto(second)
    hanako.click("label:has(input[name=verdict][value=none])")
    hanako.click(".cv-save-bar button[type=submit]")
    hanako.wait_for_url(f"**{unresolved}")  # the next she has not checked: [8], which has no source
    taro.click("label:has(input[name=verdict][value=complete])")
    taro.fill("textarea[name=note]", "出典の本文で確認")
    taro.click(".cv-save-bar button[type=submit]")
    conflict = taro.locator(".cv-conflict")
    expect(conflict).to_be_visible()  # on the page the save answers with
    expect(conflict).to_contain_text("Someone saved it")
    assert "hanako" not in conflict.inner_text()
    shoot(taro, "check-conflict")
    assert taro.input_value("textarea[name=note]") == "出典の本文で確認"
    taro.click(".cv-save-bar button[type=submit]")  # told, he keeps his
    taro.wait_for_url(f"**{unresolved}")
    notes = dict(Check.objects.filter(item_key="r0-c1").values_list("editor__username", "verdict"))
    assert notes == {"hanako": "none", "taro": "complete"}

    # The reviewer (in Japanese) reads both editors' checks, comments, and finds the figures and report.
    yuki = people("yuki", "reviewer", locale="ja-JP")
    yuki.goto(first)
    assert yuki.locator(".cv-check-form").count() == 0
    assert "hanako" in yuki.inner_text(".cv-others-list") and "taro" in yuki.inner_text(".cv-others-list")
    yuki.fill("textarea[name=text]", "年度の根拠を追記してください")
    yuki.click(".cv-comment-form button[type=submit]")
    expect(yuki.locator(".cv-comments-list")).to_contain_text("年度の根拠を追記してください")
    yuki.goto("/figures/")
    # The one citation judged is disputed: no final verdict to chart yet, the editors' verdicts a click away.
    assert "編集者間の一致" in yuki.content() and yuki.locator("svg.cv-bars").count() == 1
    with yuki.expect_navigation():
        yuki.click(".cv-figure-switch a")
    expect(yuki.locator("svg.cv-bars")).to_have_count(2)
    shoot(yuki, "figures")
    yuki.goto(f"/dumps/{dump.pk}/report/")
    shoot(yuki, "report")
    assert "出典の本文で確認" in yuki.content() and "年度も一致" in yuki.content()
    yuki.goto(f"/dumps/{dump.pk}/")
    progress = " ".join(yuki.inner_text(".cv-review-summary").split())
    # Two items checked, each by both editors: the two independent checks each item needs.
    assert "4 項目中 2 項目が 2 人の独立した確認を終えました · hanako: 2 · taro: 2" in progress
    for tab in (hanako, taro, yuki):
        assert not [e for e in tab.console_errors if "status of 409" not in e], tab.console_errors
