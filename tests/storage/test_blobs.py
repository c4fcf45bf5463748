"""The bytes of dumps and of what is attached to them live in the blob storage, named by their SHA-256,
on a folder and on an S3 bucket alike: stored once, written again harmlessly, and a missing or changed
blob is an error that says which (never other bytes shown as the dump's)."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from storages.backends.s3 import S3Storage

from citeview.dumps.blobs import BlobError, BlobFolderStorage, blob_name, blob_read, blob_storage, blob_store
from citeview.dumps.models import AttachedDocument, Dump
from citeview.dumps.reading import dump_rebuild
from citeview.dumps.services import dump_ingest
from tests.conftest import own_fixture
from tests.documents import POLICY, REPORT_PAGES, pdf_of, policy_and_report_answer

pytestmark = pytest.mark.django_db

STREAM = "agent-seed-incomplete.sse"
RESPONSE = "claude-content-blocks-search-results.json"
REQUEST = "claude-content-blocks-search-results.request.json"


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_the_bucket_is_django_storages_s3_over_http_on_loopback_and_the_folder_is_ours(blobs):
    storage = blob_storage()
    if blobs.kind == "bucket":
        assert isinstance(storage, S3Storage) and storage.endpoint_url.startswith("http://127.0.0.1:")
        assert storage.location == "blobs" and storage.file_overwrite
    else:
        assert isinstance(storage, BlobFolderStorage) and str(blobs.folder) == storage.location


def test_bytes_are_stored_under_their_sha256_once_however_often_they_are_stored(blobs):
    data = "東京の人口は1400万人です。".encode() * 1000
    assert blob_store(data) == blob_store(data) == blob_store(data, sha256_of(data)) == sha256_of(data)
    digest = sha256_of(data)
    assert blobs.names() == [f"{digest[:2]}/{digest[2:4]}/{digest}"]
    assert blobs.read(digest) == data == blob_read(digest)


def test_storing_again_replaces_a_blob_cut_short(blobs):
    # A retried task writes again; a blob of the wrong size (a write cut off) is written whole.
    data = own_fixture(STREAM)
    digest = blob_store(data)
    blobs.put(digest, data[:100])
    assert blob_store(data) == digest
    assert blobs.read(digest) == data


def test_a_stored_dump_keeps_only_names_in_its_row_and_shows_its_bytes(blobs, editor_client):
    raw = own_fixture(STREAM)
    response = editor_client.post("/", {"file": SimpleUploadedFile(STREAM, raw)})
    dump = Dump.objects.get()
    assert response.status_code == 302 and blobs.names() == [f"{dump.sha256[:2]}/{dump.sha256[2:4]}/{dump.sha256}"]
    assert blobs.read(dump.sha256) == raw == Dump.objects.get().raw
    assert {"raw", "request_raw"}.isdisjoint(f.name for f in Dump._meta.get_fields())
    download = editor_client.get(reverse("dumps:raw", args=[dump.pk]))
    assert download.status_code == 200 and download.content == raw
    page = editor_client.get(dump.get_absolute_url())
    assert page.status_code == 200 and "resp_0b6c2f9e-3a71-4c55-9d0e-2f1a7b8c9d00" in page.content.decode()


def test_an_attached_request_and_documents_are_blobs_read_again_when_the_result_is_rebuilt(blobs, editor_client):
    editor_client.post(
        "/",
        {"file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE)), "request_text": own_fixture(REQUEST).decode()},
    )
    with_request = Dump.objects.get()
    assert with_request.request_sha256 == sha256_of(own_fixture(REQUEST))
    assert blobs.read(with_request.request_sha256) == own_fixture(REQUEST) == with_request.request_raw

    documents = [
        SimpleUploadedFile("policy.txt", POLICY.encode(), content_type="text/plain"),
        SimpleUploadedFile("heat-report.pdf", pdf_of(*REPORT_PAGES), content_type="application/pdf"),
    ]
    answer = SimpleUploadedFile("answer.json", policy_and_report_answer())
    editor_client.post("/", {"file": answer, "request_file": documents})
    dump = Dump.objects.exclude(pk=with_request.pk).get()
    stored = [(d.name, d.sha256) for d in AttachedDocument.objects.filter(dump=dump).order_by("position")]
    assert stored == [("policy.txt", sha256_of(POLICY.encode())), ("heat-report.pdf", sha256_of(pdf_of(*REPORT_PAGES)))]
    assert blobs.read(stored[1][1]) == pdf_of(*REPORT_PAGES)

    rebuilt = dump_rebuild(dump=Dump.objects.get(pk=dump.pk))
    assert [c["quote_check"]["result"] for c in rebuilt.result["responses"][0]["citations"]] == ["match", "match"]


def test_a_missing_blob_is_an_error_that_names_the_dump_and_where_its_bytes_were(blobs, editor):
    dump, _ = dump_ingest(raw=own_fixture(STREAM), uploaded_by=editor)
    blobs.remove(dump.sha256)
    with pytest.raises(BlobError) as error:
        Dump.objects.get().raw  # noqa: B018
    message = str(error.value)
    assert f"dump {dump.pk}" in message and "missing" in message
    assert f"{dump.sha256[:2]}/{dump.sha256[2:4]}/{dump.sha256}" in message


def test_a_changed_blob_is_an_error_and_its_bytes_are_never_shown(blobs, editor):
    raw = own_fixture(STREAM)
    dump, _ = dump_ingest(raw=raw, uploaded_by=editor)
    blobs.put(dump.sha256, bytes([raw[0] ^ 1]) + raw[1:])  # one bit, the size unchanged
    with pytest.raises(BlobError) as error:
        Dump.objects.get().raw  # noqa: B018
    assert f"dump {dump.pk}" in str(error.value) and "changed or damaged" in str(error.value)


def test_a_missing_document_names_its_index_and_its_dump(blobs, editor):
    dump, _ = dump_ingest(raw=policy_and_report_answer(), uploaded_by=editor, request=_attached())
    document = AttachedDocument.objects.get(dump=dump, position=1)
    blobs.remove(document.sha256)
    with pytest.raises(BlobError, match=f"document 1 attached to dump {dump.pk}"):
        Dump.objects.get().attachment()


def _attached():
    from citeview.core.parsing.attached import AttachedFile

    return [AttachedFile("policy.txt", POLICY.encode()), AttachedFile("heat-report.pdf", pdf_of(*REPORT_PAGES))]


def test_a_blob_written_halfway_leaves_nothing_under_its_name(blobs):
    # A write that fails midway (a full disk) leaves nothing, and never half a blob under its name.
    if blobs.kind == "bucket":
        pytest.skip("an S3 object appears whole or not at all")

    class CutOff(ContentFile):
        def chunks(self, chunk_size=None):
            yield b"half"
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        blob_storage().save(blob_name("ab" * 32), CutOff(b"half and the rest"))
    assert blobs.names() == []


def test_a_dump_made_with_its_bytes_stores_them_first_and_a_stored_dumps_bytes_never_change(blobs):
    raw = own_fixture(STREAM)
    dump = Dump(raw=raw, framing="sse", apis="", status="completed", result={}, rendered={})
    assert dump.sha256 == sha256_of(raw) and dump.size == len(raw) and blobs.read(dump.sha256) == raw
    dump.save()
    with pytest.raises(AttributeError, match="never change"):
        Dump.objects.get().raw = b"{}"


def test_the_folder_syncs_each_blob_and_its_name_to_disk(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr("os.fsync", lambda descriptor: synced.append(descriptor))
    BlobFolderStorage(location=tmp_path).save(blob_name("cd" * 32), ContentFile(b"{}"))
    assert len(synced) == 2 and (tmp_path / blob_name("cd" * 32)).read_bytes() == b"{}"


@pytest.fixture
def umask_077():
    before = os.umask(0o077)
    yield
    os.umask(before)


def test_a_blob_and_its_folders_are_for_the_owner_alone_under_umask_077(umask_077):
    sha256 = blob_store(b"{}")  # with the project's settings: FILE_UPLOAD_PERMISSIONS left None
    path = Path(blob_storage().path(blob_name(sha256)))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_configured_file_mode_is_the_blobs_mode(tmp_path, settings, umask_077):
    settings.FILE_UPLOAD_PERMISSIONS = 0o640
    BlobFolderStorage(location=tmp_path).save(blob_name("ef" * 32), ContentFile(b"{}"))
    assert stat.S_IMODE((tmp_path / blob_name("ef" * 32)).stat().st_mode) == 0o640
