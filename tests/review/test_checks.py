"""Recording checks: who may, blind first, moving on, revisions, and stale saves that lose nothing."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.forms import MAX_NOTE_CHARS, MAX_QUOTE_CHARS
from citeview.review.models import Check, CheckRevision
from tests.conftest import own_fixture, user_with_role

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"  # one statement citing [2] (two URLs: a conflict) and [9]; [8] unresolved


@pytest.fixture
def dump(editor) -> Dump:
    return dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]


def item_url(dump: Dump, key: str) -> str:
    return reverse("review:item", args=[dump.pk, key])


def verdict(version: int = 0, **fields: str) -> dict[str, str]:
    return {"version": str(version), "verdict": "complete", "verification_worthy": "yes", **fields}


def test_a_dump_lists_its_items_and_the_check_starts_at_the_first_unchecked(client, editor, dump):
    assert dump.item_count == 4 and dump.checked_item_count == 0  # [2] is judged once per URL; [8] has no source
    client.force_login(editor)
    response = client.get(reverse("review:start", args=[dump.pk]))
    assert response.status_code == 302 and response["Location"] == item_url(dump, "r0-c0-1")
    page = client.get(item_url(dump, "r0-c0-1")).content.decode()
    assert "条件A[2]、条件B[9]、条件C[8]" in page  # the statement
    assert "条件Aについて｜厚生労働省" in page and "条件Aについて｜厚生労働省の抜粋" in page  # the source and snippet
    assert page.count('class="cv-check-source"') == 1 and "source 1 of 2" in page  # [2]'s other URL is the next item
    assert 'name="verdict"' in page and "j / k" in page


def test_saving_records_the_check_and_its_revision_and_moves_to_the_next_unchecked_item(client, editor, dump):
    client.force_login(editor)
    response = client.post(item_url(dump, "r0-c0-1"), verdict(subject="yes", note="年度が一致", evidence_quote="抜粋"))
    assert response.status_code == 302 and response["Location"] == item_url(dump, "r0-c0-2")
    check = Check.objects.get(item_key="r0-c0-1")
    assert (check.verdict, check.subject, check.note, check.editor) == ("complete", "yes", "年度が一致", editor)
    assert check.source_url == "https://www.mhlw.go.jp/stf/jouken-a.html" and check.statement_text.startswith("条件A")
    statement = Check.objects.get(kind="statement")
    assert statement.verification_worthy == "yes" and not statement.is_item
    revision = CheckRevision.objects.get(check_record=check)
    assert revision.before == {} and revision.after["verdict"] == "complete"
    dump.refresh_from_db()
    assert dump.checked_item_count == 1

    client.post(item_url(dump, "r0-c0-2"), {"version": "0", "verdict": "unclear"})
    client.post(item_url(dump, "r0-c1"), verdict(version=0, verdict="none"))
    response = client.post(item_url(dump, "r0-c1"), verdict(version=1, verdict="partial"))
    assert response["Location"] == item_url(dump, "r0-u0")  # [8], which has no source, is left
    response = client.post(item_url(dump, "r0-u0"), {"version": "0", "verification_worthy": "yes"})
    assert response["Location"] == reverse("review:done", args=[dump.pk])  # nothing left to check
    changed = CheckRevision.objects.filter(check_record__item_key="r0-c1").last()
    assert (changed.before["verdict"], changed.after["verdict"]) == ("none", "partial")
    page = client.get(item_url(dump, "r0-c1")).content.decode()
    assert "<del>No support</del> → <ins>Partial support</ins>" in page  # the item shows its history


def test_an_editor_sees_other_editors_verdicts_only_after_saving_their_own(client, editor, second_editor, dump):
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(note="ひとつめの判定"))
    client.force_login(second_editor)
    before = client.get(item_url(dump, "r0-c0-1")).content.decode()
    assert "ひとつめの判定" not in before and "Hidden until you save your own check" in before
    client.post(item_url(dump, "r0-c0-1"), verdict(version=1, verdict="partial"))
    after = client.get(item_url(dump, "r0-c0-1")).content.decode()
    assert "ひとつめの判定" in after and "hanako" in after


def test_a_reviewer_reads_every_check_but_cannot_record_one(client, editor, reviewer, dump):
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(note="編集者のメモ"))
    client.force_login(reviewer)
    page = client.get(item_url(dump, "r0-c0-1")).content.decode()
    assert "編集者のメモ" in page and 'name="verdict"' not in page
    assert client.post(item_url(dump, "r0-c0-1"), verdict(version=1)).status_code == 403
    assert Check.objects.filter(editor=reviewer).count() == 0


def test_a_stale_save_by_an_editor_who_has_not_checked_the_item_shows_nothing_of_the_other_save(
    client, editor, second_editor, dump
):
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(note="先に保存", supported_together="contradict"))
    client.force_login(second_editor)
    stale = client.post(item_url(dump, "r0-c0-1"), verdict(version=0, verdict="none", note="後から入力した根拠"))
    page = stale.content.decode()
    assert stale.status_code == 409
    assert "Not saved" in page and "Someone saved it after you opened the page" in page
    assert "先に保存" not in page and "hanako" not in page and "Theirs" not in page  # blind first
    assert "後から入力した根拠" in page and 'value="1"' in page  # yours kept, with the version now seen
    assert not Check.objects.filter(editor=second_editor).exists()

    again = client.post(item_url(dump, "r0-c0-1"), verdict(version=1, verdict="none", note="後から入力した根拠"))
    assert again.status_code == 302
    notes = dict(Check.objects.filter(item_key="r0-c0-1").values_list("editor__username", "note"))
    assert notes == {"hanako": "先に保存", "taro": "後から入力した根拠"}  # nothing lost


def test_a_stale_save_by_an_editor_who_has_checked_the_item_shows_both_versions(client, editor, second_editor, dump):
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(note="先に保存"))
    client.force_login(second_editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(version=1, note="自分の最初の判定"))
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(version=2, note="見直した"))
    client.force_login(second_editor)
    stale = client.post(item_url(dump, "r0-c0-1"), verdict(version=2, verdict="none", note="後から入力した根拠"))
    page = stale.content.decode()
    assert stale.status_code == 409
    assert "Not saved" in page and "hanako" in page
    assert "見直した" in page and "後から入力した根拠" in page  # theirs and yours, side by side
    assert 'value="3"' in page


def test_the_same_editor_in_two_tabs_cannot_overwrite_unseen(client, editor, dump):
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(note="tab one"))
    assert client.post(item_url(dump, "r0-c0-1"), verdict(version=0, note="tab two")).status_code == 409
    assert Check.objects.get(item_key="r0-c0-1").note == "tab one"


def test_an_invalid_verdict_is_refused_without_saving(client, editor, dump):
    client.force_login(editor)
    response = client.post(item_url(dump, "r0-c0-1"), verdict(verdict="maybe"))
    assert response.status_code == 400 and not Check.objects.exists()


def test_a_check_of_megabytes_is_refused_with_the_typed_text_kept_in_the_form(client, editor, dump):
    """8 MB of quote and 8 MB of note were once saved, and the check page grew to 32 MB for everyone."""
    client.force_login(editor)
    quote, note = "Q" * 8_000_000, "N" * 8_000_000
    response = client.post(item_url(dump, "r0-c0-1"), verdict(evidence_quote=quote, note=note, subject="yes"))
    assert response.status_code == 413 and not Check.objects.exists()
    page = response.content.decode()
    assert f"At most {MAX_QUOTE_CHARS:,} characters fit here; this text has 8,000,000. Nothing was saved" in page
    assert f"At most {MAX_NOTE_CHARS:,} characters fit here" in page
    assert quote in page and note in page  # an editor's unsaved input is never thrown away
    assert re.search(r'<input type="radio" name="subject" value="yes"[^>]* checked>', page)


def test_a_quote_and_a_note_at_their_limits_are_saved(client, editor, dump):
    client.force_login(editor)
    quote, note = "引" * MAX_QUOTE_CHARS, "注" * MAX_NOTE_CHARS
    response = client.post(item_url(dump, "r0-c0-1"), verdict(evidence_quote=quote, note=note))
    assert response.status_code == 302
    check = Check.objects.get(item_key="r0-c0-1")
    assert (check.evidence_quote, check.note) == (quote, note)
    too_long = client.post(item_url(dump, "r0-c0-2"), verdict(note=note + "注"))
    assert too_long.status_code == 413 and not Check.objects.filter(item_key="r0-c0-2").exists()


def test_an_unknown_item_is_not_found(client, editor, dump):
    client.force_login(editor)
    assert client.get(item_url(dump, "r0-c99")).status_code == 404


def test_comments_can_be_left_by_reviewers_on_an_item(client, reviewer, dump):
    client.force_login(reviewer)
    response = client.post(
        reverse("review:comment", args=[dump.pk]), {"text": "出典の年度を確認してください", "item_key": "r0-c1"}
    )
    assert response.status_code == 302 and response["Location"] == item_url(dump, "r0-c1")
    assert "出典の年度を確認してください" in client.get(item_url(dump, "r0-c1")).content.decode()
    assert "出典の年度を確認してください" in client.get(dump.get_absolute_url()).content.decode()


def test_editors_give_a_dump_a_title_and_tags_and_a_lead_its_editors(
    client, editor, second_editor, reviewer, dump, django_user_model
):
    client.force_login(reviewer)
    details = {"title": "厚労省の条件 調査", "tags": "health, 2026-Q3, health"}
    assignment = {"editors": [editor.pk, second_editor.pk], "checks_needed": "2"}
    assert client.post(reverse("dumps:details", args=[dump.pk]), details).status_code == 403
    assert client.post(reverse("review:assign", args=[dump.pk]), assignment).status_code == 403
    client.force_login(editor)
    client.post(reverse("dumps:details", args=[dump.pk]), details)
    assert client.post(reverse("review:assign", args=[dump.pk]), assignment).status_code == 403
    client.force_login(user_with_role(django_user_model, "sato", "lead"))
    client.post(reverse("review:assign", args=[dump.pk]), assignment)
    dump.refresh_from_db()
    assert dump.title == "厚労省の条件 調査" and set(dump.assignees.all()) == {editor, second_editor}
    assert sorted(t.name for t in dump.tags.all()) == ["2026-Q3", "health"]
    page = client.get(dump.get_absolute_url()).content.decode()
    assert "厚労省の条件 調査" in page and "health" in page


@pytest.mark.django_db(transaction=True)
def test_two_saves_of_one_item_at_the_same_moment_keep_one_and_refuse_the_other(editor, second_editor):
    """Two requests racing on the same version: the compare-and-set lets exactly one through."""
    from django.db import connection

    if connection.vendor == "sqlite":
        pytest.skip("SQLite lets one writer in at a time; this race is run against PostgreSQL (scripts/test-postgres)")
    import threading

    from citeview.core.checking.items import check_items
    from citeview.review.services import CheckConflict, check_save

    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    item = check_items(dump.result["responses"])[0]
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def save(user) -> None:
        start.wait()
        try:
            check_save(
                dump=dump, item=item, editor=user, values={"verdict": "complete"}, statement_values={}, seen_version=0
            )
            outcomes.append("saved")
        except CheckConflict:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=save, args=(user,)) for user in (editor, second_editor)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused", "saved"]
    assert Check.objects.filter(item_key=item.key).count() == 1
    assert dump.item_states.get(key=item.key).version == 1


def test_a_check_needs_its_verdict_and_an_empty_save_reveals_nothing(client, editor, second_editor, dump):
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(note="先の判定"))
    client.force_login(second_editor)
    response = client.post(item_url(dump, "r0-c0-1"), {"version": "1", "note": "判定なし"})
    assert response.status_code == 400 and "先の判定" not in response.content.decode()
    assert not Check.objects.filter(editor=second_editor).exists()


def test_statement_answers_from_a_stale_page_are_not_wiped_and_a_changed_one_is_refused(client, editor, dump):
    client.force_login(editor)
    seen_blank = {"seen_verification_worthy": "", "seen_supported_together": ""}
    client.post(item_url(dump, "r0-c0-1"), {**verdict(), **seen_blank, "supported_together": "yes"})
    # A tab opened before that save sends the answers blank, as it showed them: they are kept.
    stale = {"version": "0", "verdict": "none", **seen_blank, "verification_worthy": "", "supported_together": ""}
    assert client.post(item_url(dump, "r0-c1"), stale).status_code == 302
    statement = Check.objects.get(kind="statement", editor=editor)
    assert (statement.verification_worthy, statement.supported_together) == ("yes", "yes")
    # Changing an answer that changed meanwhile is refused, and nothing of that save is kept.
    changed = {**stale, "version": "0", "supported_together": "no"}
    assert client.post(item_url(dump, "r0-c0-2"), changed).status_code == 409
    assert not Check.objects.filter(item_key="r0-c0-2").exists()
    statement.refresh_from_db()
    assert statement.supported_together == "yes"


def test_a_comment_on_an_unknown_item_stays_on_the_dump_and_breaks_nothing(client, reviewer, dump):
    client.force_login(reviewer)
    response = client.post(reverse("review:comment", args=[dump.pk]), {"text": "全体へのコメント", "item_key": "x y"})
    assert response.status_code == 302 and response["Location"] == dump.get_absolute_url()
    page = client.get(dump.get_absolute_url())
    assert page.status_code == 200 and "全体へのコメント" in page.content.decode()


def test_a_rebuilt_result_recounts_the_checked_items(client, editor, dump):
    from citeview.dumps.reading import dump_rebuild

    client.force_login(editor)
    client.post(item_url(dump, "r0-c1"), verdict())
    Dump.objects.filter(pk=dump.pk).update(checked_item_count=7)
    dump_rebuild(dump=Dump.objects.get(pk=dump.pk))
    assert Dump.objects.get(pk=dump.pk).checked_item_count == 1


def test_the_report_and_exports_keep_other_editors_checks_from_an_editor_who_has_not_checked(
    client, editor, second_editor, reviewer, dump
):
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(note="先の判定"))
    client.force_login(second_editor)
    report = client.get(reverse("review:report_json", args=[dump.pk])).json()
    # One item: its check and its statement's answers are two rows, but one item is hidden.
    assert report["hidden_until_you_check"] == 1 and "先の判定" not in json.dumps(report, ensure_ascii=False)
    export = b"".join(client.get(reverse("review:verdicts_jsonl")).streaming_content).decode()
    assert "先の判定" not in export
    client.post(item_url(dump, "r0-c0-1"), verdict(version=1, verdict="partial"))
    assert "先の判定" in client.get(reverse("review:report_json", args=[dump.pk])).content.decode()
    client.force_login(reviewer)
    assert client.get(reverse("review:report_json", args=[dump.pk])).json()["hidden_until_you_check"] == 0


def test_the_list_shows_each_dumps_progress_as_a_count_and_a_percentage(client, editor, second_editor, dump):
    assert dump.checks_needed == 2  # the team's default: two independent checks per item
    client.force_login(editor)
    client.post(item_url(dump, "r0-c0-1"), verdict())
    page = client.get(reverse("pages:home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "0 / 4 (0%)" in page and "2 checks per item" in page  # one check of two is not done
    client.force_login(second_editor)
    client.post(item_url(dump, "r0-c0-1"), verdict(version=1))
    page = client.get(reverse("pages:home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "1 / 4 (25%)" in page
