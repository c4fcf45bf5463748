"""A history nothing can erase (issue 41, finding 3): checks, settlements and revisions are append-only.
Undo writes a revision that puts back what was there before; a settlement is changed only by another
settlement; neither the admin, the API nor deleting a user removes a check or a revision. After every
path the test tries, every revision is still there and the item's history shows it."""

from __future__ import annotations

import pytest
from django.db.models.deletion import ProtectedError
from django.urls import reverse

from citeview.accounts.tokens import token_create
from citeview.dumps.models import Dump
from citeview.review.models import Check, CheckRevision, HistoryIsKept
from tests.api.conftest import bearer_client
from tests.review.conftest import DISPUTED, save
from tests.review.test_settling import item_url, settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("admin", "admin@example.com", "a-long-test-password")


@pytest.fixture
def settled_twice(client, disputed, lead, second_lead) -> Dump:
    """hanako partial and taro none on [9]; sato settles it, and kato settles it again."""
    client.force_login(lead)
    assert (
        settle(client, disputed, **{"settle-verdict": "partial", "settle-reason": "一部は裏付けられる"}).status_code
        == 302
    )
    client.force_login(second_lead)
    assert settle(client, disputed, **{"settle-verdict": "none", "settle-reason": "年が違う"}).status_code == 302
    return disputed


def history(client, dump: Dump, key: str = DISPUTED) -> str:
    page = client.get(item_url(dump, key)).content.decode()
    return page[page.index('class="cv-history"') : page.index("</details>", page.index('class="cv-history"'))]


def every_revision(dump: Dump) -> list[tuple[int, str, dict, dict]]:
    return list(
        CheckRevision.objects.filter(check_record__dump=dump)
        .order_by("id")
        .values_list("id", "editor__username", "before", "after")
    )


def test_the_attack_of_three_undos_after_a_settlement_and_a_resettlement_erases_nothing(
    client, settled_twice, editor, lead, second_lead
):
    before = every_revision(settled_twice)
    for user in (lead, second_lead, editor):
        client.force_login(user)
        client.post(reverse("review:undo", args=[settled_twice.pk]))
        client.post(reverse("review:undo", args=[settled_twice.pk]))
        client.post(reverse("review:undo", args=[settled_twice.pk]))
    after = every_revision(settled_twice)
    assert after[: len(before)] == before  # every earlier revision is still there, unchanged
    settlement = Check.settlements.get(dump=settled_twice, item_key=DISPUTED)
    assert (settlement.verdict, settlement.note, settlement.editor) == ("none", "年が違う", second_lead)
    assert settlement.revisions.count() == 2  # sato's settlement and kato's, neither undone
    client.force_login(lead)
    shown = history(client, settled_twice)
    assert "settled by sato: 一部は裏付けられる" in shown and "settled by kato: 年が違う" in shown


def test_undo_again_and_again_empties_a_new_check_but_keeps_every_revision(client, disputed, editor):
    client.force_login(editor)
    save(client, disputed, "r0-c0-2", "complete", note="最初の判定")
    save(client, disputed, "r0-c0-2", "none", note="二度目の判定")
    check = Check.objects.get(dump=disputed, item_key="r0-c0-2", editor=editor)
    for _ in range(6):  # past the editor's saves: undo finds nothing more to undo, and deletes nothing
        client.post(reverse("review:undo", args=[disputed.pk]))
    check.refresh_from_db()
    assert check.verdict == "" and check.note == ""  # the check made by the first save is empty now
    revisions = list(check.revisions.order_by("id").values_list("is_undo", "after"))
    assert [is_undo for is_undo, _after in revisions] == [False, False, True, True]
    assert revisions[1][1]["note"] == "二度目の判定" and revisions[2][1]["note"] == "最初の判定"
    shown = history(client, disputed, "r0-c0-2")
    assert "最初の判定" in shown and "二度目の判定" in shown and shown.count("undo") >= 2


def test_an_emptied_check_is_no_check_to_read_count_or_export(client, disputed, editor, second_editor, reviewer):
    client.force_login(editor)
    save(client, disputed, "r0-c0-2", "complete")
    client.post(reverse("review:undo", args=[disputed.pk]))
    client.force_login(reviewer)
    api = bearer_client(token_create(user=reviewer, name="read")[1])
    item = next(i for i in api.get(f"/api/dumps/{disputed.pk}/checks").json()["items"] if i["key"] == "r0-c0-2")
    assert item["checks"] == []
    exported = client.get(reverse("review:verdicts_jsonl"))
    rows = b"".join(exported.streaming_content).decode().splitlines()
    assert not any('"item": "r0-c0-2"' in row for row in rows)
    client.force_login(second_editor)  # taro has not checked it: nothing of hanako's is hidden from him
    assert "Hidden until you save your own check" not in client.get(item_url(disputed, "r0-c0-2")).content.decode()


def test_the_admin_deletes_no_check_settlement_or_revision(client, settled_twice, staff):
    client.force_login(staff)
    before = every_revision(settled_twice)
    for check in Check.rows.filter(dump=settled_twice):
        page = client.get(reverse("admin:review_check_change", args=[check.pk]))
        assert page.status_code == 200 and "Delete" not in page.content.decode().split('<div class="submit-row">')[-1]
        assert client.post(reverse("admin:review_check_delete", args=[check.pk]), {"post": "yes"}).status_code == 403
    chosen = list(Check.rows.filter(dump=settled_twice).values_list("pk", flat=True))
    listing = client.get(reverse("admin:review_check_changelist")).content.decode()
    assert "delete_selected" not in listing
    client.post(
        reverse("admin:review_check_changelist"),
        {"action": "delete_selected", "_selected_action": chosen, "post": "yes"},
    )
    assert Check.rows.filter(dump=settled_twice).count() == len(chosen) and every_revision(settled_twice) == before


def test_a_dump_with_checks_and_the_user_who_made_one_are_not_deleted(client, settled_twice, editor, staff):
    before = every_revision(settled_twice)
    with pytest.raises(ProtectedError):
        settled_twice.delete()
    with pytest.raises(ProtectedError):
        editor.delete()
    client.force_login(staff)
    page = client.post(reverse("admin:auth_user_delete", args=[editor.pk]), {"post": "yes"})
    assert page.status_code == 200 and "Cannot delete user" in page.content.decode()
    assert Dump.objects.filter(pk=settled_twice.pk).exists() and every_revision(settled_twice) == before
    client.force_login(editor)
    assert "花子のメモ" in history(client, settled_twice)


def test_no_code_path_deletes_or_rewrites_a_revision(settled_twice):
    revision = CheckRevision.objects.filter(check_record__dump=settled_twice).first()
    with pytest.raises(HistoryIsKept):
        revision.delete()
    with pytest.raises(HistoryIsKept):
        CheckRevision.objects.filter(pk=revision.pk).delete()
    with pytest.raises(HistoryIsKept):
        revision.save()
    with pytest.raises(HistoryIsKept):
        CheckRevision.objects.filter(pk=revision.pk).update(after={})
    with pytest.raises(HistoryIsKept):
        CheckRevision.objects.bulk_update([revision], ["after"])
    with pytest.raises(HistoryIsKept):
        Check.settlements.filter(dump=settled_twice).update(verdict="complete")
    with pytest.raises(HistoryIsKept):
        Check.rows.filter(dump=settled_twice).delete()
    with pytest.raises(HistoryIsKept):
        Check.settlements.get(dump=settled_twice).delete()


def test_the_api_deletes_no_check(settled_twice, editor):
    api = bearer_client(token_create(user=editor, name="pipeline")[1])
    before = every_revision(settled_twice)
    assert api.delete(f"/api/dumps/{settled_twice.pk}/checks").status_code == 405
    assert api.delete(f"/api/dumps/{settled_twice.pk}").status_code == 405
    assert every_revision(settled_twice) == before
