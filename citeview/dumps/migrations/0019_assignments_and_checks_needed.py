"""Several editors per dump (``Assignment``), how many independent checks each item needs, and each
response's items (a figure of part of a dump counts them; ``refresh_dumps`` fills them in).

The one assignee a dump had becomes its first assignment, dated when the dump was stored: nothing says
when it was made, and a date no later than any check of the dump leaves no check marked "read before
it was assigned" for a verdict nobody can say it read. Dumps stored before
keep the one check per item they were worked to; new dumps take ``CITEVIEW_CHECKS_PER_ITEM``. The new
small columns are added after the large ones, so those are moved last again on SQLite (as 0017
explains; PostgreSQL keeps large values out of line, and gains nothing).
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


def count_disputes(apps: Any, schema_editor: Any) -> None:
    """Each dump's items whose editors gave different verdicts and that nobody has settled."""
    Dump = apps.get_model("dumps", "Dump")
    Check = apps.get_model("review", "Check")
    verdicts = Check.objects.filter(kind="citation", is_item=True, is_settlement=False).exclude(verdict="")
    differing = verdicts.values("dump_id", "item_key").annotate(n=models.Count("verdict", distinct=True))
    settled = set(
        Check.objects.filter(is_settlement=True).exclude(verdict="").values_list("dump_id", "item_key")
    )
    counts: dict[int, int] = {}
    for row in differing.filter(n__gt=1).order_by().iterator():
        if (row["dump_id"], row["item_key"]) not in settled:
            counts[row["dump_id"]] = counts.get(row["dump_id"], 0) + 1
    for pk, count in counts.items():
        Dump.objects.filter(pk=pk).update(disputed_item_count=count)


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


class OnSQLiteOnly(migrations.operations.base.Operation):
    """Its operations' changes to the model state everywhere, to the database only on SQLite: moving a
    column last changes nothing but the columns' order, which PostgreSQL (large values out of line)
    gains nothing from, and copying every dump's large values there would hold the table locked."""

    reversible = True

    def __init__(self, operations: list[Any]) -> None:
        self.operations = operations

    def deconstruct(self) -> tuple[str, list[Any], dict[str, Any]]:
        return (self.__class__.__qualname__, [self.operations], {})

    def state_forwards(self, app_label: str, state: Any) -> None:
        for operation in self.operations:
            operation.state_forwards(app_label, state)

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor != "sqlite":
            return
        for operation in self.operations:
            after = from_state.clone()
            operation.state_forwards(app_label, after)
            operation.database_forwards(app_label, schema_editor, from_state, after)
            from_state = after

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor != "sqlite":
            return
        states = [to_state]
        for operation in self.operations[:-1]:
            after = states[-1].clone()
            operation.state_forwards(app_label, after)
            states.append(after)
        for operation, before in zip(reversed(self.operations), reversed(states), strict=True):
            after = before.clone()
            operation.state_forwards(app_label, after)
            operation.database_backwards(app_label, schema_editor, after, before)

    def describe(self) -> str:
        return "On SQLite only: " + "; ".join(operation.describe() for operation in self.operations)


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
        ("review", "0004_settlements"),  # counting the disputes reads the checks
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
        migrations.AddField(
            model_name="dump",
            name="response_items",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="dump",
            name="disputed_item_count",
            field=models.PositiveIntegerField(db_index=True, default=0),
        ),
        migrations.RunPython(count_disputes, migrations.RunPython.noop),
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
        OnSQLiteOnly([operation for name, make in LARGE_FIELDS.items() for operation in moved_last(name, make())]),
    ]
