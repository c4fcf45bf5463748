"""The two blob storages the tests run on: a folder, and a bucket on an S3-compatible server (moto's
standalone server, started on loopback and spoken to over HTTP by django-storages and boto3, as a
deployment's object storage is). Import the fixtures into a test module to use them."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from citeview.dumps.blobs import blob_name

PREFIX = "blobs"  # BLOB_S3_PREFIX's default


@pytest.fixture(scope="session")
def s3_server() -> Iterator[str]:
    """moto's S3 server on a free loopback port for the session (each xdist worker has its own)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@dataclass
class Blobs:
    """A blob storage under test, with ways around citeview to see and damage what it holds."""

    kind: str  # "folder" or "bucket"
    folder: Path | None = None
    client: Any = None  # boto3's S3 client, for the bucket
    bucket: str = ""

    def names(self) -> list[str]:
        """Every blob stored, as its name in the storage (``ab/cd/<sha256>``)."""
        if self.folder is not None:
            return sorted(str(p.relative_to(self.folder)) for p in self.folder.rglob("*") if p.is_file())
        listing = self.client.list_objects_v2(Bucket=self.bucket, Prefix=f"{PREFIX}/")
        return sorted(o["Key"].removeprefix(f"{PREFIX}/") for o in listing.get("Contents", []))

    def read(self, sha256: str) -> bytes:
        if self.folder is not None:
            return (self.folder / blob_name(sha256)).read_bytes()
        return self.client.get_object(Bucket=self.bucket, Key=f"{PREFIX}/{blob_name(sha256)}")["Body"].read()

    def put(self, sha256: str, data: bytes) -> None:
        if self.folder is not None:
            (self.folder / blob_name(sha256)).write_bytes(data)
        else:
            self.client.put_object(Bucket=self.bucket, Key=f"{PREFIX}/{blob_name(sha256)}", Body=data)

    def remove(self, sha256: str) -> None:
        if self.folder is not None:
            (self.folder / blob_name(sha256)).unlink()
        else:
            self.client.delete_object(Bucket=self.bucket, Key=f"{PREFIX}/{blob_name(sha256)}")

    def back_up(self, to: Path) -> None:
        """What the backup in docs/deploying.md does: copy the folder, or every object of the bucket."""
        to.mkdir(parents=True)
        for name in self.names():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            (to / name).write_bytes(self.read(name.rsplit("/", 1)[-1]))

    def wipe(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        else:
            for name in self.names():
                self.remove(name.rsplit("/", 1)[-1])

    def restore(self, backup: Path) -> None:
        for path in backup.rglob("*"):
            if path.is_file():
                if self.folder is not None:
                    (self.folder / path.relative_to(backup)).parent.mkdir(parents=True, exist_ok=True)
                self.put(path.name, path.read_bytes())


def bucket_storage(settings: Any, endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Blobs:
    """A new bucket, and the blob storage pointed at it through the settings' own S3 options."""
    import boto3

    from citeview.settings import blob_bucket_options

    bucket = f"citeview-{uuid.uuid4().hex[:12]}"
    environment = {
        "BLOB_S3_ENDPOINT_URL": endpoint,
        "BLOB_S3_REGION": "us-east-1",
        "BLOB_S3_ACCESS_KEY_ID": "testing",
        "BLOB_S3_SECRET_ACCESS_KEY": "testing",
        "BLOB_S3_ADDRESSING_STYLE": "path",
    }
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    client.create_bucket(Bucket=bucket)
    options = blob_bucket_options(bucket)
    settings.STORAGES = {
        **settings.STORAGES,
        "blobs": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options},
    }
    return Blobs("bucket", client=client, bucket=bucket)


@pytest.fixture(params=["folder", "bucket"])
def blobs(request: pytest.FixtureRequest, settings: Any, blob_folder: Path) -> Blobs:
    """Each test that takes it runs twice: on the blob folder, and on a bucket of the S3 server."""
    if request.param == "folder":
        return Blobs("folder", folder=blob_folder)
    endpoint = request.getfixturevalue("s3_server")
    return bucket_storage(settings, endpoint, request.getfixturevalue("monkeypatch"))
