from tests.storage.blob_stores import blobs, s3_server  # noqa: F401 (fixtures)
