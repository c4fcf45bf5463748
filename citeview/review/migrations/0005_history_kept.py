"""The history of checks is append-only: a revision is written once, and a check and a revision are never
deleted (their foreign keys PROTECT). An undo no longer marks the save it undoes (``undone``): its own
revisions name it (``undoes``). Each undo recorded before is matched to the save it undid: the latest
revision of the same check by the same editor, at the same item version, marked undone, before it."""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def undone_to_undoes(apps: Any, schema_editor: Any) -> None:
    CheckRevision = apps.get_model("review", "CheckRevision")
    for undo in CheckRevision.objects.filter(is_undo=True).order_by("id").iterator():
        undid = (
            CheckRevision.objects.filter(
                check_record_id=undo.check_record_id,
                editor_id=undo.editor_id,
                item_version=undo.item_version,
                undone=True,
                is_undo=False,
                id__lt=undo.id,
            )
            .order_by("-id")
            .values_list("save_id", flat=True)
            .first()
        )
        if undid:
            CheckRevision.objects.filter(pk=undo.pk).update(undoes=undid)


def undoes_to_undone(apps: Any, schema_editor: Any) -> None:
    CheckRevision = apps.get_model("review", "CheckRevision")
    undone = CheckRevision.objects.exclude(undoes="").values_list("undoes", flat=True)
    CheckRevision.objects.filter(save_id__in=list(undone)).update(undone=True)


class Migration(migrations.Migration):
    dependencies = [
        ("dumps", "0019_assignments_and_checks_needed"),
        ("review", "0004_settlements"),
    ]

    operations = [
        migrations.AddField(
            model_name="checkrevision",
            name="undoes",
            field=models.CharField(blank=True, db_index=True, max_length=32),
        ),
        migrations.AddField(
            model_name="checkrevision",
            name="not_blind",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(undone_to_undoes, undoes_to_undone),
        migrations.RemoveField(model_name="checkrevision", name="undone"),
        migrations.AlterField(
            model_name="check",
            name="dump",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="checks", to="dumps.dump"
            ),
        ),
        migrations.AlterField(
            model_name="checkrevision",
            name="check_record",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="revisions", to="review.check"
            ),
        ),
    ]
