"""The pages' fragment cache: ``Dump.page_version``, which every write a page shows bumps, and the
database table of the default cache (``CACHES``), made here so that every database that is migrated
has it (a fresh clone, the tests, the benchmark, a deployment)."""

from django.conf import settings
from django.core.management import call_command
from django.db import migrations, models


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


def drop_cache_table(apps, schema_editor):
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(settings.CACHE_TABLE)}")


class Migration(migrations.Migration):

    dependencies = [
        ("dumps", "0011_imports_in_tasks"),
    ]

    operations = [
        migrations.AddField(
            model_name="dump",
            name="page_version",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(create_cache_table, drop_cache_table),
    ]
