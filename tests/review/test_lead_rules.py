"""What a lead sees and may do (issue 41, findings 2 and 4). A lead not assigned to a dump reads every
verdict on it, as a reviewer does, so their report is the dump's; assigned to it as an editor, they are
blind first like any editor. A lead never settles an item they gave a verdict on, nor one of a dump they
check as an editor. An editor assigned after reading the verdicts is named to the one assigning, and
their checks of what they could read are recorded as not blind."""

from __future__ import annotations

import pytest
from django.urls import reverse

from citeview.review.models import Check, CheckRevision
from citeview.review.selectors import disputes_waiting, settle_waiting_count
from citeview.review.services import editors_assign
from tests.review.conftest import AGREED, DISPUTED, TARO_NOTE, save
from tests.review.test_settling import item_url, settle

pytestmark = pytest.mark.django_db


def html(client, url: str, **headers: str) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200
    return response.content.decode()


def test_a_lead_not_assigned_reads_the_report_a_reviewer_reads(client, disputed, lead, reviewer):
    """The walk found a lead's summary showing the two items they settled as the dump's figures."""
    client.force_login(lead)
    assert settle(client, disputed).status_code == 302
    as_lead = client.get(reverse("review:report_json", args=[disputed.pk])).json()
    client.force_login(reviewer)
    as_reviewer = client.get(reverse("review:report_json", args=[disputed.pk])).json()
    assert as_lead["summary"] == as_reviewer["summary"]
    assert as_lead["responses"] == as_reviewer["responses"]
    client.force_login(lead)
    assert "Hidden until you save your own check" not in html(client, item_url(disputed, AGREED))


def test_a_lead_assigned_as_an_editor_is_blind_first_like_any_editor(client, disputed, editor, lead):
    editors_assign(dump=disputed, editors=[editor, lead], by=editor)
    client.force_login(lead)
    page = html(client, item_url(disputed, DISPUTED))
    assert TARO_NOTE not in page and "Hidden until you save your own check of this item" in page
    assert "Editors disagree" not in page
    report = client.get(reverse("review:report_json", args=[disputed.pk])).json()
    assert all(verdict["editor"] == "sato" for r in report["responses"] for verdict in r.get("verdicts", []))
    assert disputes_waiting(lead) == ([], 0)  # nothing of this dump is theirs to settle
    save(client, disputed, DISPUTED, "complete")
    page = html(client, item_url(disputed, DISPUTED))
    assert TARO_NOTE in page  # their own verdict given, they read the others'
    assert "You gave a verdict on this item, so you cannot settle it" in page
    assert 'class="cv-settle-form"' not in page


def test_a_lead_who_gave_a_verdict_cannot_settle_the_item_and_is_told_who_does(client, disputed, lead, second_lead):
    """The walk found a lead settling, as "complete" with the reason "I was right", an item they judged."""
    client.force_login(lead)
    save(client, disputed, DISPUTED, "complete")  # not assigned: they check it, and disagree
    assert settle_waiting_count(lead) == 0 and settle_waiting_count(second_lead) == 1
    page = html(client, item_url(disputed, DISPUTED))
    assert "You gave a verdict on this item, so you cannot settle it" in page
    assert "Another lead or a member of staff settles it." in page and 'class="cv-settle-form"' not in page
    response = settle(client, disputed, **{"settle-verdict": "complete", "settle-reason": "I was right"})
    assert response.status_code == 302 and not Check.settlements.exists()
    assert "You gave a verdict on this item" in html(client, response["Location"])
    japanese = html(client, item_url(disputed, DISPUTED), HTTP_ACCEPT_LANGUAGE="ja")
    assert "あなたはこの項目に判定を付けているので、裁定できません。" in japanese
    assert "/settle/" not in html(client, reverse("review:settle_queue")).split("<main")[1].split("</main>")[0]
    client.force_login(second_lead)
    assert settle(client, disputed, **{"settle-verdict": "partial"}).status_code == 302
    assert Check.settlements.get().editor == second_lead


def test_a_lead_assigned_to_a_dump_cannot_settle_its_items(client, disputed, editor, lead):
    editors_assign(dump=disputed, editors=[editor, lead], by=editor)
    client.force_login(lead)
    response = settle(client, disputed)
    assert response.status_code == 302 and not Check.settlements.exists()
    assert "You are assigned to this dump as an editor" in html(client, response["Location"])


def test_assigning_a_lead_who_read_the_verdicts_says_so_and_their_check_is_not_blind(
    client, disputed, editor, lead, second_lead
):
    client.force_login(second_lead)
    viewer = html(client, disputed.get_absolute_url())
    form = viewer.split('class="cv-details-form cv-assign"')[1].split("</details>")[0]
    offered = form.split(f'value="{lead.pk}"')[1].split("</label>")[0]
    assert "has read the verdicts" in offered
    assert "has read the verdicts" not in form.split(f'value="{editor.pk}"')[1].split("</label>")[0]
    response = client.post(
        reverse("review:assign", args=[disputed.pk]),
        {"editors": [editor.pk, lead.pk], "checks_needed": "2"},
        follow=True,
    )
    assert "sato could already read the other editors&#x27; verdicts on this dump" in response.content.decode()
    client.force_login(lead)
    save(client, disputed, DISPUTED, "none")  # judged by hanako and taro before sato was assigned
    revision = CheckRevision.objects.get(check_record__editor=lead, check_record__item_key=DISPUTED)
    assert revision.not_blind
    client.force_login(second_lead)
    history = html(client, item_url(disputed, DISPUTED))
    history = history[history.index('class="cv-history"') :]
    assert "not blind" in history.split("<li>")[1]  # sato's save, the newest, is marked
    assert history.count("cv-not-blind") == 1  # hanako's and taro's were blind


def test_an_editor_judging_first_or_blind_is_never_marked_not_blind(client, dump, editor, second_editor):
    client.force_login(editor)
    save(client, dump, DISPUTED, "partial")
    client.force_login(second_editor)
    save(client, dump, DISPUTED, "none")  # taro could not read hanako's verdict: blind first
    assert not CheckRevision.objects.filter(not_blind=True).exists()


def test_a_lead_checking_a_dump_they_are_not_assigned_to_is_told_and_recorded_not_blind(client, disputed, lead):
    client.force_login(lead)
    page = html(client, item_url(disputed, DISPUTED))
    assert "You are not assigned to this dump, so you see every editor's verdict" in page
    save(client, disputed, DISPUTED, "complete")
    assert CheckRevision.objects.get(check_record__editor=lead, check_record__item_key=DISPUTED).not_blind


def test_the_header_offers_a_lead_the_disagreements_they_may_settle(client, disputed, lead, editor):
    client.force_login(lead)
    assert settle_waiting_count(lead) == 1
    assert settle_waiting_count(editor) == 0


def test_a_lead_who_undid_their_verdict_still_cannot_settle_the_item(client, disputed, lead, second_lead):
    """Undo empties the lead's check but not what they gave: they judged the item, and read the others'."""
    client.force_login(lead)
    save(client, disputed, DISPUTED, "complete")
    client.post(reverse("review:undo", args=[disputed.pk]))
    assert Check.objects.get(dump=disputed, item_key=DISPUTED, editor=lead).verdict == ""
    assert settle_waiting_count(lead) == 0 and settle_waiting_count(second_lead) == 1
    response = settle(client, disputed, **{"settle-verdict": "complete", "settle-reason": "I was right"})
    assert response.status_code == 302 and not Check.settlements.exists()
    assert "You gave a verdict on this item, so you cannot settle it" in html(client, response["Location"])


def test_the_disagreements_waiting_follow_every_save_undo_and_settlement(client, dump, editor, second_editor, lead):
    client.force_login(editor)
    save(client, dump, DISPUTED, "partial")
    client.force_login(second_editor)
    save(client, dump, DISPUTED, "none")
    dump.refresh_from_db()
    assert dump.disputed_item_count == 1 and settle_waiting_count(lead) == 1
    client.post(reverse("review:undo", args=[dump.pk]))  # taro takes his verdict back: they no longer differ
    dump.refresh_from_db()
    assert dump.disputed_item_count == 0 and settle_waiting_count(lead) == 0
    save(client, dump, DISPUTED, "none")
    assert settle_waiting_count(lead) == 1
    client.force_login(lead)
    assert settle(client, dump).status_code == 302
    dump.refresh_from_db()
    assert dump.disputed_item_count == 0 and settle_waiting_count(lead) == 0
