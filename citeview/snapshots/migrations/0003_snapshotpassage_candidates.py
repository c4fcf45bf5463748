# The candidate passages (up to three, best first) kept beside the passage found for a claim. Rows kept
# before have none; they were found by other code (their ``finder`` is not today's PASSAGE_VERSION), so
# no page reads them and a worker finds them again, candidates and all.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("snapshots", "0002_snapshot_passages"),
    ]

    operations = [
        migrations.AddField(
            model_name="snapshotpassage",
            name="candidates",
            field=models.JSONField(default=list),
        ),
    ]
