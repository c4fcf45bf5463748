"""Several editors per dump (``Assignment``), and how many independent checks each item needs.

The one assignee a dump had becomes its first assignment, dated when the dump was stored: nothing says
when it was made, and the earliest date never marks a check not blind that was. Dumps stored before
keep the one check per item they were worked to; new dumps take ``CITEVIEW_CHECKS_PER_ITEM``. The new
small columns are added after the large ones, so those are moved last again (as 0017 explains).
"""

from typing import Any

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

import citeview.dumps.models


def assignee_to_assignment(apps: Any, schema_editor: Any) -> None:
    Dump = apps.get_model("dumps", "Dump")
    Assignment = apps.get_model("dumps", "Assignment")
    assigned = Dump.objects.exclude(assignee=None).values_list("pk", "assignee_id", "created_at")
    Assignment.objects.bulk_create(
        Assignment(dump_id=pk, editor_id=editor, assigned_at=stored) for pk, editor, stored in assigned.iterator()
    )
    # Worked to one check per item: they stay so, and what was fully checked stays fully checked.
    Dump.objects.update(checks_needed=1, complete_item_count=models.F("checked_item_count"))


def assignment_to_assignee(apps: Any, schema_editor: Any) -> None:
    Dump = apps.get_model("dumps", "Dump")
    Assignment = apps.get_model("dumps", "Assignment")
    for assignment in Assignment.objects.order_by("assigned_at", "pk").iterator():
        Dump.objects.filter(pk=assignment.dump_id, assignee=None).update(assignee_id=assignment.editor_id)


LARGE_FIELDS: dict[str, Any] = {
    "search_text": lambda: models.TextField(blank=True, default=""),
    "cited_url_hashes": lambda: models.TextField(blank=True, default=""),
    "result": lambda: citeview.dumps.models.EncodedJSONField(
        encoder=citeview.dumps.models.JSONTextEncoder,
        default=citeview.dumps.models.unread_result,
        verbose_name="normalised JSON",
    ),
    "rendered": lambda: citeview.dumps.models.EncodedJSONField(
        encoder=citeview.dumps.models.JSONTextEncoder, default=dict, verbose_name="rendered answers"
    ),
}


def moved_last(name: str, field: Any) -> list[Any]:
    moving = f"{name}_moving"
    declared_default = isinstance(field, models.JSONField)  # the text fields have none in the model
    return [
        migrations.AddField("dump", moving, field, preserve_default=declared_default),
        migrations.RunSQL(
            f'UPDATE "dumps_dump" SET "{moving}" = "{name}"',
            reverse_sql=f'UPDATE "dumps_dump" SET "{name}" = "{moving}"',
        ),
        migrations.RemoveField("dump", name),
        migrations.RenameField("dump", moving, name),
    ]


class Migration(migrations.Migration):
    dependencies = [
        ("dumps", "0018_json_fields_unchecked"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Assignment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("assigned_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "assigned_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "dump",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="assignments", to="dumps.dump"
                    ),
                ),
                (
                    "editor",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="assignments",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "assignment",
                "verbose_name_plural": "assignments",
                "ordering": ["dump", "editor__username"],
                "constraints": [models.UniqueConstraint(fields=("dump", "editor"), name="one_assignment_per_editor")],
            },
        ),
        migrations.AddField(
            model_name="dump",
            name="checks_needed",
            field=models.PositiveSmallIntegerField(
                choices=[(1, "one editor checks each item"), (2, "two editors check each item, independently")],
                default=citeview.dumps.models.default_checks_needed,
                verbose_name="independent checks per item",
            ),
        ),
        migrations.AddField(
            model_name="dump",
            name="complete_item_count",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(assignee_to_assignment, assignment_to_assignee),
        migrations.RemoveField(model_name="dump", name="assignee"),
        migrations.AddField(
            model_name="dump",
            name="assignees",
            field=models.ManyToManyField(
                blank=True,
                related_name="assigned_dumps",
                through="dumps.Assignment",
                through_fields=("dump", "editor"),
                to=settings.AUTH_USER_MODEL,
                verbose_name="assigned to",
            ),
        ),
        *(operation for name, make in LARGE_FIELDS.items() for operation in moved_last(name, make())),
    ]
