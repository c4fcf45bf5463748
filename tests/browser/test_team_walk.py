"""The day of a team, in a real browser (issue 41): a lead assigns a dump to two editors; one checks it in
English on a desktop, the other in Japanese on a phone, blind to the first; they disagree on two items and
the lead settles both; the reviewer reads the report. Each role's counts are asserted on each page they
read, and screenshots of both widths are kept (test-artifacts/screenshots/team-walk-*). It runs on SQLite
and, with `make test`, on PostgreSQL too."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.models import Check, CheckRevision
from citeview.review.selectors import dump_check_items
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_check_queue import sign_in
from tests.browser.test_reviewer_flows import SCREENSHOTS
from tests.conftest import PROJECT_DIR

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLE = PROJECT_DIR / "citeview" / "dumps" / "samples" / "06-claude-ja-documents-exchange.json"
# The seven citations' verdicts, in the order the check page gives them: 1 complete, 2 partial, 3 none.
AOI = ["1", "2", "3", "1", "1", "1", "1"]
BEN = ["1", "1", "2", "1", "1", "1", "1"]  # disagrees with aoi on the second and the third
DESKTOP, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}


def people(django_user_model: Any) -> dict[str, Any]:
    roles = {"sato": "lead", "aoi": "editor", "ben": "editor", "yuki": "reviewer"}
    made = {}
    for name, role in roles.items():
        made[name] = django_user_model.objects.create_user(username=name, password=PASSWORD)
        made[name].groups.add(Group.objects.get(name=role))
    return made


def shot(tab: Any, name: str) -> None:
    """The page at desktop and phone width, then the width it was at again."""
    size = tab.viewport_size
    for label, screen in (("desktop", DESKTOP), ("phone", PHONE)):
        tab.set_viewport_size(screen)
        tab.screenshot(path=str(SCREENSHOTS / f"team-walk-{name}-{label}.png"), full_page=True)
    tab.set_viewport_size(size)


def text(tab: Any, selector: str = "main") -> str:
    return " ".join(tab.inner_text(selector).split())


def check_every_item(tab: Any, dump: Dump, verdicts: list[str], *, by_tapping: bool) -> None:
    """From the queue to the dump's first item, each verdict given and saved: with the keys on a desktop,
    tapping the choice and the Save button on a phone."""
    tab.goto("/queue/")
    tab.click(f".cv-queue-title[href='/dumps/{dump.pk}/check/']")
    for number, verdict in enumerate(verdicts):
        tab.wait_for_selector(".cv-check-form")
        before = tab.url
        with tab.expect_navigation():
            if by_tapping:
                tab.locator(".cv-choice-verdict input[name=verdict]").nth(int(verdict) - 1).check()
                tab.click(".cv-save-bar button[type=submit]")
            else:
                tab.keyboard.press(verdict)
                tab.keyboard.press("Enter")
        assert tab.url != before, number


def test_two_editors_and_a_lead_check_a_dump_and_the_reviewer_reads_the_truth(browser, live_server, django_user_model):
    team = people(django_user_model)
    dump = dump_ingest(raw=SAMPLE.read_bytes(), uploaded_by=team["sato"], filename=SAMPLE.name)[0]
    citations = [item.key for item in dump_check_items(dump)]
    assert len(citations) == 7
    disputed = citations[1:3]

    # The lead assigns the dump to two editors, each item to be checked by both, from its page.
    lead = sign_in(browser, live_server, team["sato"], "ja-JP", 1280)
    lead.goto(dump.get_absolute_url())
    assignment = lead.locator(".cv-assign")
    assignment.locator(f"input[value='{team['aoi'].pk}']").check()
    assignment.locator(f"input[value='{team['ben'].pk}']").check()
    assignment.locator("select[name=checks_needed]").select_option("2")
    with lead.expect_navigation():
        assignment.locator("button[type=submit]").click()
    assert "担当を保存しました。" in text(lead) and "担当: aoi, ben" in text(lead, ".cv-dump-header")
    assert "0 項目が 2 人の独立した確認を終えました" in text(lead, ".cv-review-summary")

    # aoi checks it in English on a desktop, with the keys.
    aoi = sign_in(browser, live_server, team["aoi"], "en-US", 1280)
    aoi.goto("/queue/")
    assert "7 items waiting for you" in text(aoi, ".cv-queue")
    check_every_item(aoi, dump, AOI, by_tapping=False)
    assert "You have checked every item of this dump." in text(aoi)
    aoi.goto("/queue/")
    assert "Nothing assigned to you is waiting to be checked." in text(aoi, ".cv-queue")
    assert "7" in text(aoi, ".cv-editor-progress")  # her own row: 7 of 7 checked

    # ben checks it in Japanese on a phone, blind to aoi's verdicts until he has saved his own.
    ben = sign_in(browser, live_server, team["ben"], "ja-JP", 390)
    ben.set_viewport_size(PHONE)
    ben.goto("/queue/")
    queue = text(ben, ".cv-queue")
    assert "あなたの確認待ち 7 項目" in queue and "2 人目の確認待ち 7" in queue
    shot(ben, "queue-second-editor")
    ben.goto(f"/dumps/{dump.pk}/check/{disputed[0]}/")
    others = text(ben, "section[aria-labelledby=cv-others-title]")
    assert "この項目をあなたが保存するまで表示しません（ほかの編集者による確認 1 件）" in others
    assert "aoi" not in others and "一部を裏付ける" not in others
    statement = ben.locator(".cv-statement").bounding_box()
    assert statement["y"] + statement["height"] < PHONE["height"]  # the claim on the first screen
    check_every_item(ben, dump, BEN, by_tapping=True)
    ben.goto(f"/dumps/{dump.pk}/check/{disputed[0]}/")
    assert "aoi" in text(ben, ".cv-others-list")  # his own verdict given, he reads hers
    assert "この項目は編集者の判定が食い違っています" in text(ben, ".cv-dispute")
    assert not ben.console_errors and not aoi.console_errors

    # The lead settles both disagreements from the settle queue.
    lead.goto("/settle/")
    assert "編集者の判定が食い違い、まだ裁定されていない項目が 2 件あります" in text(lead, ".cv-settle-queue")
    for key, reason in zip(disputed, ("資料は一部のみ裏付ける", "資料は62%、回答は80%"), strict=True):
        lead.goto(f"/dumps/{dump.pk}/check/{key}/#cv-settle")
        lead.locator(".cv-settle-option", has_text="aoi").locator("input").check()
        lead.fill(".cv-settle-form textarea", reason)
        if key == disputed[0]:
            shot(lead, "settle")
            # What docs/evidence-review.md shows of settling (docs/settle-page.png is this, taken once): the editors'
            # checks and the settle form, on a desktop's screen.
            lead.evaluate("document.getElementById('cv-others-title').scrollIntoView({block: 'start'})")
            lead.evaluate("window.scrollBy(0, -70)")  # below the header
            lead.screenshot(path=str(SCREENSHOTS / "team-walk-settle-panel.png"))
            assert not serious_violations(lead)
        with lead.expect_navigation():
            lead.click(".cv-settle-form button[type=submit]")
        assert "sato が裁定" in text(lead, ".cv-dispute") and reason in text(lead, ".cv-dispute")
    lead.goto("/settle/")
    assert "裁定待ちの食い違いはありません。" in text(lead, ".cv-settle-queue")
    assert Check.settlements.filter(dump=dump).count() == 2
    assert not CheckRevision.objects.filter(not_blind=True).exists()  # every check was blind
    lead.goto("/queue/")
    progress = text(lead, ".cv-editor-progress")
    assert "aoi" in progress and "ben" in progress

    # The reviewer reads the report: the dump's own figures, on every item, the settled verdicts counted.
    yuki = sign_in(browser, live_server, team["yuki"], "en-US", 1280)
    yuki.goto("/")
    assert "7 / 7 (100%)" in text(yuki, ".cv-dump-table")
    yuki.goto(f"/dumps/{dump.pk}/report/")
    summary = text(yuki)
    assert "items visible to you" not in summary  # the reviewer reads the whole dump's figures
    assert "aoi (7 items" in summary and "ben (7 items" in summary and "sato (2 items" in summary
    assert "Complete support 5 Partial support 1 No support 1" in summary
    assert "Citation precision 71.4% (5 of 7 citations)" in summary
    assert "Disagreements not yet settled 0" in summary
    shot(yuki, "report")
    report = Check.settlements.filter(dump=dump).values_list("verdict", flat=True)
    assert sorted(report) == ["none", "partial"]  # aoi's two verdicts, chosen by the lead
    yuki.goto(f"/dumps/{dump.pk}/report/?only=disagreements")
    assert all(key in yuki.content() for key in disputed)
    assert not yuki.console_errors and not lead.console_errors
    for tab in (lead, aoi, ben, yuki):
        tab.context.close()
