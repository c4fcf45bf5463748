# Their text is valid JSON as written (EncodedJSONField): SQLite's JSON_VALID check on every write
# is dropped. The result is altered before the renderings so that they stay the table's last columns.

import citeview.dumps.models
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("dumps", "0017_large_columns_last"),
    ]

    operations = [
        migrations.AlterField(
            model_name="dump",
            name="result",
            field=citeview.dumps.models.EncodedJSONField(
                default=citeview.dumps.models.unread_result,
                encoder=citeview.dumps.models.JSONTextEncoder,
                verbose_name="normalised JSON",
            ),
        ),
        migrations.AlterField(
            model_name="dump",
            name="rendered",
            field=citeview.dumps.models.EncodedJSONField(
                default=dict, encoder=citeview.dumps.models.JSONTextEncoder, verbose_name="rendered answers"
            ),
        ),
        migrations.AlterField(
            model_name="dumpresponse",
            name="rendered",
            field=citeview.dumps.models.EncodedJSONField(encoder=citeview.dumps.models.JSONTextEncoder),
        ),
        migrations.AlterField(
            model_name="dumpresponse",
            name="result",
            field=citeview.dumps.models.EncodedJSONField(encoder=citeview.dumps.models.JSONTextEncoder),
        ),
    ]
