"""A worker reads a stored dump from its blob's file a part at a time, never the whole blob at once
(issue 43), and a blob changed or gone since it was stored is still said so, never read as the dump."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.base import File

from citeview.core.framing.source import PART_BYTES
from citeview.dumps import blobs, models
from citeview.dumps.blobs import BlobError, blob_name, blob_storage
from citeview.dumps.models import Dump, ReadState
from citeview.dumps.reading import dump_read_begin, dump_read_stored
from citeview.dumps.services import dump_ingest
from tests.conftest import sse
from tests.core.framing.test_streamed_reading import large

pytestmark = pytest.mark.django_db


class PartsOnlyStorage:
    """The blob storage, but a blob opened for reading refuses to be read whole: every read asks for a
    part, ``PART_BYTES`` at most."""

    def __init__(self, storage: Any) -> None:
        self._storage = storage
        self.reads: list[int] = []

    def open(self, name: str, mode: str = "rb") -> File[bytes]:
        return File(_PartsOnly(self._storage.open(name, mode).file, self.reads), name=name)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._storage, name)


class _PartsOnly:
    def __init__(self, file: Any, reads: list[int]) -> None:
        self._file = file
        self._reads = reads

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > PART_BYTES:
            raise AssertionError(f"read({size}): a stored dump is read a part at a time")
        self._reads.append(size)
        data: bytes = self._file.read(size)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


@pytest.fixture
def queued(settings, database_queue) -> Dump:
    """A stream of about three parts, stored to be read by a worker."""
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    dump, _ = dump_ingest(raw=sse(*large()), uploaded_by=None, filename="stream.sse")
    assert dump.read_state == ReadState.QUEUED
    dump_read_begin(pk=dump.pk, task_id="test")
    return dump


def read_whole(*args: Any, **kwargs: Any) -> bytes:
    raise AssertionError("a worker read the whole blob at once")


def test_a_worker_reads_a_stored_stream_from_its_blob_a_part_at_a_time(queued, monkeypatch):
    storage = PartsOnlyStorage(blob_storage())
    monkeypatch.setattr(blobs, "blob_storage", lambda: storage)
    monkeypatch.setattr(models, "blob_read", read_whole)
    assert dump_read_stored(pk=queued.pk) == ReadState.READY
    read = Dump.objects.get(pk=queued.pk)
    assert read.framing == "sse" and read.result["responses"][0]["text"].startswith("東京の0番。東京の1番。")
    assert len(storage.reads) >= 3


def test_a_blob_changed_since_it_was_stored_is_said_so_by_the_worker(queued, blob_folder):
    path = blob_folder / blob_name(queued.sha256)
    raw = path.read_bytes()
    path.write_bytes(raw.replace("東京の1番".encode(), "大阪の1番".encode(), 1))  # the size unchanged
    with pytest.raises(BlobError, match="changed or damaged"):
        dump_read_stored(pk=queued.pk)
    assert Dump.objects.get(pk=queued.pk).read_state == ReadState.FAILED


def test_a_blob_changed_so_that_it_cannot_be_read_is_said_changed_not_unreadable(queued, blob_folder):
    path = blob_folder / blob_name(queued.sha256)
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"data: {", b"data: [", 1))
    with pytest.raises(BlobError, match="changed or damaged"):
        dump_read_stored(pk=queued.pk)


def test_a_missing_blob_is_said_missing_by_the_worker(queued, blob_folder):
    (blob_folder / blob_name(queued.sha256)).unlink()
    with pytest.raises(BlobError, match="missing"):
        dump_read_stored(pk=queued.pk)
