"""Migration 0008 moves the bytes of stored dumps, attached requests and attached documents out of their
rows into the blob storage, and its reverse brings them back, on a folder and on an S3 bucket alike."""

from __future__ import annotations

import hashlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from citeview.dumps.blobs import blob_name
from citeview.dumps.models import AttachedDocument, Dump

IN_ROWS = [("dumps", "0007_attached_documents")]
IN_BLOBS = [("dumps", "0008_bytes_in_blob_storage")]

ANSWER = '{"type": "message", "content": [{"type": "text", "text": "三十日以内に返品できます。"}]}'.encode()
WITH_REQUEST = b'{"id": "msg_2", "type": "message", "content": []}'
REQUEST = b'{"model": "claude", "messages": [{"role": "user", "content": "\xe8\xbf\x94\xe5\x93\x81\xe3\x81\xaf\xef\xbc\x9f"}]}'
DOCUMENTS = [("policy.txt", "返品は三十日以内です。".encode()), ("scan.pdf", b"%PDF-1.7 \x00\xff\x01 not text")]


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def migrate(to: list[tuple[str, str]]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(to)
    return executor.loader.project_state(to).apps


def store_in_rows(apps) -> None:
    """Dumps as citeview stored them before 0008: the bytes in the rows."""
    old_dump = apps.get_model("dumps", "Dump")
    old_document = apps.get_model("dumps", "AttachedDocument")
    common = {"framing": "json", "apis": "", "status": "completed", "result": {}, "rendered": {}}
    old_dump.objects.create(sha256=sha256_of(ANSWER), raw=ANSWER, size=len(ANSWER), **common)
    with_request = old_dump.objects.create(
        sha256=sha256_of(WITH_REQUEST), raw=WITH_REQUEST, size=len(WITH_REQUEST), request_raw=REQUEST, **common
    )
    for position, (name, data) in enumerate(DOCUMENTS):
        old_document.objects.create(dump_id=with_request.pk, position=position, name=name, raw=data)


@pytest.mark.django_db(transaction=True)
def test_the_bytes_move_into_the_blob_storage_and_back_into_the_rows(blobs):
    store_in_rows(migrate(IN_ROWS))

    migrate(IN_BLOBS)
    every = sorted(sha256_of(b) for b in (ANSWER, WITH_REQUEST, REQUEST, *(d for _, d in DOCUMENTS)))
    assert blobs.names() == sorted(blob_name(s) for s in every)
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    assert Dump.objects.get(sha256=sha256_of(ANSWER)).raw == ANSWER
    moved = Dump.objects.get(sha256=sha256_of(WITH_REQUEST))
    assert moved.raw == WITH_REQUEST and moved.request_raw == REQUEST and moved.has_attachment
    assert [(d.name, d.raw) for d in AttachedDocument.objects.order_by("position")] == DOCUMENTS

    old = migrate(IN_ROWS)
    old_dump, old_document = old.get_model("dumps", "Dump"), old.get_model("dumps", "AttachedDocument")
    assert {d.sha256: bytes(d.raw) for d in old_dump.objects.all()} == {
        sha256_of(ANSWER): ANSWER,
        sha256_of(WITH_REQUEST): WITH_REQUEST,
    }
    assert bytes(old_dump.objects.get(sha256=sha256_of(WITH_REQUEST)).request_raw) == REQUEST
    assert old_dump.objects.get(sha256=sha256_of(ANSWER)).request_raw is None
    assert [(d.name, bytes(d.raw)) for d in old_document.objects.order_by("position")] == DOCUMENTS
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())  # the test database as the others expect it


@pytest.mark.django_db(transaction=True)
def test_a_row_whose_bytes_do_not_match_its_sha256_stops_the_move_and_names_the_dump(blobs):
    apps = migrate(IN_ROWS)
    old_dump = apps.get_model("dumps", "Dump")
    common = {"framing": "json", "apis": "", "status": "completed", "result": {}, "rendered": {}}
    wrong = old_dump.objects.create(sha256="0" * 64, raw=ANSWER, size=len(ANSWER), **common)
    with pytest.raises(RuntimeError, match=f"Dump {wrong.pk}'s bytes do not hash to its SHA-256"):
        migrate(IN_BLOBS)
    assert blobs.names() == []
    old_dump.objects.all().delete()
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
