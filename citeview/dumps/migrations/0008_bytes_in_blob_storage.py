"""The bytes of dumps, attached requests and attached documents move out of their rows into the blob
storage (``citeview.dumps.blobs``), each under its SHA-256; the rows keep the names. Reversed, the bytes
are read back into the rows (the blobs stay where they are: other rows may name the same bytes).

A dump's row already names its bytes (``sha256``); the move checks they hash to it, and stops, naming the
dump, if they do not, rather than file bytes under another's name.
"""

import hashlib

from django.db import migrations, models

from citeview.dumps.blobs import blob_read, blob_store

BATCH = 20  # rows read at once: a dump may be tens of MB


def bytes_to_blobs(apps, schema_editor):
    Dump = apps.get_model("dumps", "Dump")
    AttachedDocument = apps.get_model("dumps", "AttachedDocument")
    for dump in Dump.objects.only("pk", "sha256", "raw", "request_raw").iterator(chunk_size=BATCH):
        raw = bytes(dump.raw)
        if hashlib.sha256(raw).hexdigest() != dump.sha256:
            raise RuntimeError(
                f"Dump {dump.pk}'s bytes do not hash to its SHA-256 {dump.sha256}: nothing was moved. "
                "Restore its row from a backup before migrating."
            )
        blob_store(raw, dump.sha256)
        request_sha256 = blob_store(bytes(dump.request_raw)) if dump.request_raw else ""
        Dump.objects.filter(pk=dump.pk).update(request_sha256=request_sha256)
    for document in AttachedDocument.objects.only("pk", "raw").iterator(chunk_size=BATCH):
        AttachedDocument.objects.filter(pk=document.pk).update(sha256=blob_store(bytes(document.raw)))


def blobs_to_bytes(apps, schema_editor):
    Dump = apps.get_model("dumps", "Dump")
    AttachedDocument = apps.get_model("dumps", "AttachedDocument")
    for dump in Dump.objects.only("pk", "sha256", "request_sha256").iterator(chunk_size=BATCH):
        request = blob_read(dump.request_sha256, f"the request attached to dump {dump.pk}") if dump.request_sha256 else None
        Dump.objects.filter(pk=dump.pk).update(raw=blob_read(dump.sha256, f"dump {dump.pk}"), request_raw=request)
    for document in AttachedDocument.objects.only("pk", "dump_id", "position", "sha256").iterator(chunk_size=BATCH):
        what = f"document {document.position} attached to dump {document.dump_id}"
        AttachedDocument.objects.filter(pk=document.pk).update(raw=blob_read(document.sha256, what))


class Migration(migrations.Migration):

    dependencies = [
        ("dumps", "0007_attached_documents"),
    ]

    operations = [
        migrations.AddField(
            model_name="dump",
            name="request_sha256",
            field=models.CharField(blank=True, default="", max_length=64, verbose_name="request SHA-256"),
        ),
        migrations.AddField(
            model_name="attacheddocument",
            name="sha256",
            field=models.CharField(default="", max_length=64, verbose_name="SHA-256"),
            preserve_default=False,
        ),
        # Nullable while the bytes move, so that reversing the removal below can add the columns back
        # to rows that have none yet.
        migrations.AlterField(
            model_name="dump",
            name="raw",
            field=models.BinaryField(null=True, verbose_name="raw bytes"),
        ),
        migrations.AlterField(
            model_name="attacheddocument",
            name="raw",
            field=models.BinaryField(null=True, verbose_name="document bytes"),
        ),
        migrations.RunPython(bytes_to_blobs, blobs_to_bytes, elidable=False),
        migrations.RemoveField(model_name="dump", name="raw"),
        migrations.RemoveField(model_name="dump", name="request_raw"),
        migrations.RemoveField(model_name="attacheddocument", name="raw"),
    ]
