"""A lead settles a disagreement in a real browser (issue 30): from the settle queue to the disputed
item, the editors' verdicts side by side, one of theirs picked with a reason, the item settled."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from citeview.dumps.services import dump_ingest
from citeview.review.models import Check
from citeview.review.selectors import dump_check_items
from citeview.review.services import check_save
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_reviewer_flows import shoot
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db(transaction=True)

SEED = "agent-seed-incomplete.sse"  # one statement citing [2] and [9]
DISPUTED = "r0-c1"  # [9]


def test_a_lead_settles_a_disagreement_on_the_check_page(page, django_user_model):
    hanako, taro, sato = (
        django_user_model.objects.create_user(username=name, password=PASSWORD) for name in ("hanako", "taro", "sato")
    )
    for user, role in ((hanako, "editor"), (taro, "editor"), (sato, "lead")):
        user.groups.add(Group.objects.get(name=role))
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=hanako, filename=SEED)[0]
    item = next(i for i in dump_check_items(dump) if i.key == DISPUTED)
    answers = {"verification_worthy": "yes", "supported_together": "no"}
    for version, (editor, verdict, note) in enumerate(
        ((hanako, "partial", "条件Bの一部だけ"), (taro, "none", "出典は条件Bに触れていない"))
    ):
        values = {"verdict": verdict, "subject": "", "time": "", "conditions": "", "evidence_quote": "", "note": note}
        check_save(dump=dump, item=item, editor=editor, values=values, statement_values=answers, seen_version=version)

    page.goto("/accounts/login/")
    page.fill("#id_username", "sato")
    page.fill("#id_password", PASSWORD)
    page.click(".cv-login button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)

    # The work queue leads to the disagreements waiting; the queue to the item's settle form.
    page.goto("/queue/")
    page.click("text=裁定待ちの食い違い")
    assert not serious_violations(page)
    waiting = page.inner_text(".cv-settle-table")
    assert "hanako: 一部を裏付ける" in waiting and "taro: 裏付けない" in waiting
    page.click(f".cv-settle-table a[href*='/check/{DISPUTED}/']")
    page.wait_for_url(lambda url: f"/check/{DISPUTED}/" in url)
    assert "この項目は編集者の判定が食い違っています" in page.inner_text(".cv-dispute")
    # Both editors' notes are there to read, though the lead has checked nothing.
    others = page.inner_text(".cv-others-list")
    assert "条件Bの一部だけ" in others and "出典は条件Bに触れていない" in others
    shoot(page, "settle-form")
    assert not serious_violations(page)

    # Taro's verdict, picked from its line; the reason is required, so the browser asks for it first.
    page.click("a[href='#cv-settle']")
    taro_line = page.locator(".cv-settle-option", has_text="taro")
    taro_line.locator("input").check()
    page.click(".cv-settle-form button[type=submit]")
    assert page.eval_on_selector(".cv-settle-form textarea", "e => !e.validity.valid")
    assert not Check.settlements.exists()
    page.fill(".cv-settle-form textarea", "出典のページに条件Bの記述はない")
    # Enter on the chosen line submits the settle form, never the lead's own check form.
    taro_line.locator("input").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".cv-settled")

    settlement = Check.settlements.get()
    assert (settlement.verdict, settlement.note, settlement.editor_id) == (
        "none",
        "出典のページに条件Bの記述はない",
        sato.pk,
    )
    assert not Check.objects.filter(editor=sato).exists()  # the lead's own check form was never sent
    assert "sato が裁定" in page.inner_text(".cv-dispute")
    assert "裁定済み" in page.inner_text(".cv-current-item")
    assert not page.console_errors
