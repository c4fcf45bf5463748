"""A dump's large columns go after all the others.

SQLite reaches a column stored after a large value by walking that value's overflow pages: with a
batch's result and renderings (tens of MB) stored before ``derived_at``, ``response_count`` and the
other small columns every page reads, reading them took 6 ms a request (bench/README.md, Serving).
Each large column is copied into a new one, which is added last, and takes its name back; the values
are kept. PostgreSQL, which keeps large values out of line, gains nothing and loses nothing.
"""

from collections.abc import Callable
from typing import Any

from django.db import migrations, models

import citeview.dumps.models

# Each field as the model declares it; a text field is given "" to fill the rows it is added to.
LARGE_FIELDS: dict[str, Callable[[], models.Field[Any, Any]]] = {
    "search_text": lambda: models.TextField(blank=True, default=""),
    "cited_url_hashes": lambda: models.TextField(blank=True, default=""),
    "result": lambda: models.JSONField(
        encoder=citeview.dumps.models.JSONTextEncoder,
        default=citeview.dumps.models.unread_result,
        verbose_name="normalised JSON",
    ),
    "rendered": lambda: models.JSONField(
        encoder=citeview.dumps.models.JSONTextEncoder, default=dict, verbose_name="rendered answers"
    ),
}


def moved_last(name: str, field: models.Field[Any, Any]) -> list[migrations.operations.base.Operation]:
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
    dependencies = [("dumps", "0016_batch_responses")]

    operations = [operation for name, make in LARGE_FIELDS.items() for operation in moved_last(name, make())]
