"""The size limit holds the same way on every way in: paste, file and API, just below, at and above it."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.dumps.models import Dump
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db

LIMIT = 4096


def dump_of_size(size: int) -> bytes:
    """A readable Sonar dump of exactly ``size`` bytes (JSON allows trailing white space)."""
    body = json.dumps(sonar_object("東京は日本の首都です[1]。", ["https://example.org/tokyo"]), ensure_ascii=False)
    raw = body.encode()
    assert len(raw) <= size
    return raw + b" " * (size - len(raw))


def send(client, way: str, raw: bytes):
    if way == "paste":
        return client.post("/", {"text": raw.decode()})
    if way == "file":
        return client.post("/", {"file": SimpleUploadedFile("answer.json", raw, content_type="application/json")})
    return client.post("/api/dumps", raw, content_type="application/json")


@pytest.mark.parametrize("way", ["paste", "file", "api"])
@pytest.mark.parametrize(("size", "stored"), [(LIMIT - 1, True), (LIMIT, True), (LIMIT + 1, False)])
def test_the_limit_is_inclusive_on_every_way_in(editor_client, settings, way, size, stored):
    settings.CITEVIEW_MAX_DUMP_BYTES = LIMIT
    response = send(editor_client, way, dump_of_size(size))
    if stored:
        assert response.status_code in (201, 302) and Dump.objects.get().size == size
        return
    assert response.status_code == 413 and not Dump.objects.exists()
    text = response.content.decode()
    assert f"{size:,} bytes" in text and "the limit is 4 KiB" in text  # says what is wrong, in the form's units


@pytest.mark.parametrize("way", ["paste", "file", "api"])
def test_far_over_the_limit_is_refused_unread_with_the_limit_named(editor_client, settings, way):
    settings.CITEVIEW_MAX_DUMP_BYTES = LIMIT
    response = send(editor_client, way, dump_of_size(3 * LIMIT))
    assert response.status_code == 413 and "the limit is 4 KiB" in response.content.decode()
    assert not Dump.objects.exists()
