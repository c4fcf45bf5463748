"""The one place citeview writes and reads raw bytes: dumps, the requests and documents attached to them.

They live in the ``blobs`` storage (``STORAGES["blobs"]``: a folder under ``var/`` by default, an S3
bucket in a deployment), each named by its SHA-256 (``ab/cd/abcd…``). So the same bytes are stored once,
storing them again is harmless (a retried task does), and what is read is checked against its name: a
missing or changed blob is a :class:`BlobError` that says which, never other bytes shown as the dump's.
The database keeps only the names.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from django.core.files.base import ContentFile, File
from django.core.files.storage import FileSystemStorage, Storage, storages

BLOB_STORAGE = "blobs"  # the alias in settings.STORAGES


class BlobError(Exception):
    """Bytes the database names are missing from the blob storage, or are not the bytes it names."""


def blob_name(sha256: str) -> str:
    """Where bytes with this SHA-256 live in the blob storage: two levels of folders keep each folder small."""
    return f"{sha256[:2]}/{sha256[2:4]}/{sha256}"


def blob_storage() -> Storage:
    return storages[BLOB_STORAGE]


def blob_store(data: bytes, sha256: str | None = None) -> str:
    """Store the bytes unless they are stored already, and return their SHA-256 (``sha256`` when the
    caller has hashed them already). Written before any row names them, so no row names missing bytes."""
    sha256 = sha256 or hashlib.sha256(data).hexdigest()
    name = blob_name(sha256)
    storage = blob_storage()
    if _stored_size(storage, name) == len(data):
        return sha256
    saved = storage.save(name, ContentFile(data))  # read in chunks from the bytes themselves, never copied
    if saved != name:
        storage.delete(saved)
        raise BlobError(
            f"The blob storage {BLOB_STORAGE!r} saved {sha256} as {saved!r} instead of {name!r}: it must overwrite "
            "a file of the same name (the bytes are the same), e.g. S3Storage's file_overwrite=True."
        )
    return sha256


def blob_read(sha256: str, what: str = "") -> bytes:
    """The bytes stored under this SHA-256, checked against it. ``what`` names their owner for the error
    (``dump 12``, ``the request of dump 12``)."""
    with blob_opened(sha256, what) as blob:
        data: bytes = blob.read()
    blob_check(sha256, hashlib.sha256(data).hexdigest(), what)
    return data


@contextmanager
def blob_opened(sha256: str, what: str = "") -> Iterator[File[bytes]]:
    """The bytes stored under this SHA-256 as a file opened ``rb``, to be read a part at a time; whoever
    reads them hashes them as they go and checks the hash (``blob_check``) before trusting what was read."""
    name = blob_name(sha256)
    try:
        blob = blob_storage().open(name, "rb")
    except FileNotFoundError:
        owner = f"{what} " if what else ""
        raise BlobError(
            f"The bytes of {owner}(SHA-256 {sha256}) are missing from the blob storage {BLOB_STORAGE!r} at "
            f"{name}: restore that file from the backup of the blob folder or bucket."
        ) from None
    with blob:
        yield blob


def blob_check(sha256: str, actual: str, what: str = "") -> None:
    """Raise :class:`BlobError` unless the bytes read under this SHA-256 hash to it (``actual``)."""
    if actual != sha256:
        owner = f"{what} " if what else ""
        raise BlobError(
            f"The blob {blob_name(sha256)} in the blob storage {BLOB_STORAGE!r} holds other bytes than {owner}(SHA-256 "
            f"{sha256}): theirs hash to {actual}. It was changed or damaged: restore it from the backup."
        )


def blob_size(sha256: str) -> int | None:
    """How many bytes are stored under this SHA-256, without reading them; None if they are missing."""
    return _stored_size(blob_storage(), blob_name(sha256))


def blob_is_stored(sha256: str) -> bool:
    return blob_storage().exists(blob_name(sha256))


def _stored_size(storage: Storage, name: str) -> int | None:
    try:
        return storage.size(name)
    except FileNotFoundError:
        return None


class BlobFolderStorage(FileSystemStorage):
    """The blob folder (``BLOB_ROOT``): Django's file storage, but a blob is written beside its place and
    renamed into it, so that a reader never sees half a blob, two writers of the same bytes both succeed
    (the second replaces the first with the same bytes), and a worker killed mid-write leaves only a
    ``.incoming-`` file behind. With ``fsync`` (``BLOB_FSYNC``) the bytes are on disk before any row
    names them."""

    def __init__(self, *args: Any, fsync: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fsync = fsync

    def get_available_name(self, name: str, max_length: int | None = None) -> str:
        return name  # the name is the content's: it is always the right one to write

    def _save(self, name: str, content: File[Any]) -> str:
        path = Path(self.path(name))
        path.parent.mkdir(parents=True, exist_ok=True)
        incoming = path.parent / f".incoming-{secrets.token_hex(8)}"
        # 0o666 less the process's umask, as the folders above it and the SQLite database are made:
        # the operator decides who may read dumps (umask 077, or systemd's UMask=, for the owner alone;
        # backups copy them as that same user). A fixed 0o644 made every blob world-readable whatever
        # the umask. FILE_UPLOAD_PERMISSIONS, when set (settings.py leaves it None), is the mode.
        descriptor = os.open(incoming, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with os.fdopen(descriptor, "wb") as file:
                for chunk in content.chunks():
                    file.write(chunk)
                if self.fsync:
                    file.flush()
                    os.fsync(file.fileno())
            if self.file_permissions_mode is not None:
                os.chmod(incoming, self.file_permissions_mode)
            os.replace(incoming, path)
        except BaseException:
            with suppress(FileNotFoundError):
                os.unlink(incoming)
            raise
        if self.fsync:
            _fsync_folder(path.parent)
        return name


def _fsync_folder(folder: Path) -> None:
    """The new name on disk too: without it, a crash can lose the file though its bytes were written."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
