"""The viewer's kept body (``DumpPage.html``) as UTF-8 bytes: served as it is read, never decoded.
The kept pages are dropped rather than converted: each is made again on its dump's next view, as
after any deploy (``running_code_fingerprint``)."""

from django.db import migrations, models


def drop_kept_pages(apps, schema_editor):
    apps.get_model("dumps", "DumpPage").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ("dumps", "0012_page_version_and_cache_table"),
    ]

    operations = [
        migrations.RunPython(drop_kept_pages, drop_kept_pages),
        migrations.RemoveField(model_name="dumppage", name="html"),
        migrations.AddField(
            model_name="dumppage",
            name="html",
            field=models.BinaryField(default=b""),
            preserve_default=False,
        ),
    ]
