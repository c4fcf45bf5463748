"""The database table of the API's rate counters (the ``rates`` cache in ``CACHES``), made as 0012
made the fragments' table: ``createcachetable`` makes every configured table that is missing."""

from django.core.management import call_command
from django.db import migrations

RATE_CACHE_TABLE = "citeview_rate_cache"


def create_cache_tables(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


def drop_rate_cache_table(apps, schema_editor):
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(RATE_CACHE_TABLE)}")


class Migration(migrations.Migration):
    dependencies = [
        ("dumps", "0019_assignments_and_checks_needed"),
    ]

    operations = [
        migrations.RunPython(create_cache_tables, drop_rate_cache_table),
    ]
