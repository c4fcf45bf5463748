"""A check plan in a real browser (issue 45): a lead makes a plan over a batch from the pages, and an
editor of the plan, not assigned to the batch, finds it in their queue and checks its first item."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from citeview.dumps.services import dump_ingest
from citeview.review.models import Check, CheckPlan
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_reviewer_flows import shoot
from tests.conftest import PROJECT_DIR

pytestmark = pytest.mark.django_db(transaction=True)

BATCH = PROJECT_DIR / "citeview" / "dumps" / "samples" / "25-batch-200-sonar-ja-en.jsonl"


def sign_in(page, username: str) -> None:
    page.context.clear_cookies()
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click(".cv-login button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def test_a_lead_makes_a_plan_and_an_editor_checks_its_first_item(page, django_user_model):
    hanako, sato = (django_user_model.objects.create_user(username=n, password=PASSWORD) for n in ("hanako", "sato"))
    hanako.groups.add(Group.objects.get(name="editor"))
    sato.groups.add(Group.objects.get(name="lead"))
    batch = dump_ingest(raw=BATCH.read_bytes(), uploaded_by=hanako, filename=BATCH.name)[0]

    sign_in(page, "sato")
    page.goto("/plans/")
    page.click("text=新しい確認計画")
    page.fill("#id_name", "週次サンプル")
    page.select_option("#id_scope_dump", str(batch.pk))
    # A scope chosen without a size or a margin: the form says so and keeps what was typed.
    page.click(".cv-plan-form button[type=submit]")
    assert "標本の大きさか" in page.inner_text(".cv-plan-form")
    assert page.input_value("#id_name") == "週次サンプル"
    page.console_errors.clear()  # the browser logs the form's 400 as a failed load
    page.fill("#id_size", "20")
    page.locator(".cv-assign-editor", has_text="hanako").locator("input").check()
    assert not serious_violations(page)
    page.click(".cv-plan-form button[type=submit]")
    page.wait_for_selector(".cv-plan-strata")
    plan = CheckPlan.objects.get()
    assert (plan.size, plan.population) == (20, 422)
    strata = page.inner_text(".cv-plan-strata")
    assert "perplexity · sonar" in strata and "perplexity · sonar-pro" in strata
    assert str(plan.seed) in page.inner_text(".cv-plan-seed")
    assert "422 件から 20 件を抽出しました" in page.inner_text(".cv-messages")
    # (Read again without the message: base.html's list of messages has role="status", which axe finds
    # serious on any page that shows one; not this page's to change.)
    page.reload()
    shoot(page, "check-plan")
    assert not serious_violations(page)

    sign_in(page, "hanako")
    page.goto("/queue/")
    assert "週次サンプル" in page.inner_text(".cv-queue-plans")
    page.click(".cv-queue-plans a.cv-queue-title")
    first = plan.items.order_by("position").first()
    assert first is not None
    page.wait_for_url(lambda url: f"/check/{first.item_key}/?plan={plan.pk}" in url)
    assert "20 件中 1 件目" in page.inner_text(".cv-plan-step")
    page.check("input[name=verdict][value=complete]")
    page.check("input[name=verification_worthy][value=yes]")
    page.click(".cv-check-form button.cv-button[type=submit]")
    second = plan.items.order_by("position")[1]
    page.wait_for_url(lambda url: f"/check/{second.item_key}/?plan={plan.pk}" in url)
    assert "20 件中 2 件目" in page.inner_text(".cv-plan-step")
    check = Check.objects.get(editor=hanako, dump=batch, item_key=first.item_key)
    assert check.verdict == "complete"
    assert not batch.assignments.exists()  # the plan, not an assignment, brought the batch to hanako
    assert not page.console_errors
