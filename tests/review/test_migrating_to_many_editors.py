"""The migrations of issue 41 keep what was there: a dump's one assignee becomes one of its editors, a
dump worked to one check per item stays so (and stays fully checked), and an undo recorded before names
the save it undid, so that pressing undo again still goes further back."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from citeview.dumps.models import Assignment, Dump
from citeview.review.models import CheckRevision
from citeview.review.services import last_save

BEFORE = [("dumps", "0018_json_fields_unchecked"), ("review", "0004_settlements")]


@pytest.mark.django_db(transaction=True)
def test_the_one_assignee_becomes_an_editor_and_the_undos_name_what_they_undid(django_user_model):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    user = apps.get_model("auth", "User").objects.create(username="hanako")
    old_dump = apps.get_model("dumps", "Dump").objects.create(
        sha256="a" * 64, size=2, assignee_id=user.pk, item_count=3, checked_item_count=3
    )
    check = apps.get_model("review", "Check").objects.create(
        dump_id=old_dump.pk, item_key="r0-c0", kind="citation", editor_id=user.pk, statement_text="東京", verdict="none"
    )
    revisions = apps.get_model("review", "CheckRevision").objects
    first = revisions.create(check_record_id=check.pk, editor_id=user.pk, item_version=1, after={"verdict": "complete"})
    first.save_id = "first-save"
    first.save()
    second = revisions.create(
        check_record_id=check.pk,
        editor_id=user.pk,
        item_version=2,
        before={"verdict": "complete"},
        after={"verdict": "none"},
        save_id="second-save",
        undone=True,
    )
    revisions.create(
        check_record_id=check.pk,
        editor_id=user.pk,
        item_version=second.item_version,
        before={"verdict": "none"},
        after={"verdict": "complete"},
        save_id="the-undo",
        is_undo=True,
    )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    dump = Dump.objects.get()
    assignment = Assignment.objects.get()
    assert (assignment.dump_id, assignment.editor.username) == (dump.pk, "hanako")
    assert assignment.assigned_at == dump.created_at  # the earliest it can have been: no check made not blind
    assert (dump.checks_needed, dump.complete_item_count) == (1, 3)  # worked to one check, fully checked still
    assert CheckRevision.objects.get(save_id="the-undo").undoes == "second-save"
    editor = django_user_model.objects.get(username="hanako")
    assert [revision.save_id for revision in last_save(dump, editor)] == ["first-save"]  # undo goes further back
