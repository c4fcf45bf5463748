"""The result and renderings are written with ``JSONTextEncoder``, which also takes JSON encoded already
(``EncodedJSON``). The columns do not change, so only the state does: no table is rebuilt."""

from django.db import migrations, models

import citeview.dumps.models


class Migration(migrations.Migration):

    dependencies = [
        ("dumps", "0008_bytes_in_blob_storage"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="dump",
                    name="rendered",
                    field=models.JSONField(encoder=citeview.dumps.models.JSONTextEncoder, verbose_name="rendered answers"),
                ),
                migrations.AlterField(
                    model_name="dump",
                    name="result",
                    field=models.JSONField(encoder=citeview.dumps.models.JSONTextEncoder, verbose_name="normalised JSON"),
                ),
            ],
            database_operations=[],
        ),
    ]
