"""A Bedrock stream's binary body (AWS event stream) cannot be pasted, so it must go in as a file:
through the upload form and through the API, stored byte for byte and read as its events."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.dumps.models import Dump
from tests.conftest import SHARED_FIXTURES
from tests.core.framing.test_eventstream import converse_events, event_stream

pytestmark = pytest.mark.django_db

HOME = "/"
RECORDED = SHARED_FIXTURES / "bedrock" / "bedrock-converse-document-char-sonnet45-stream.eventstream"


def binary_body() -> bytes:
    """The recorded body when it is beside the project; else one built like it."""
    return RECORDED.read_bytes() if RECORDED.is_file() else event_stream(*converse_events())


@pytest.mark.parametrize("name", ["converse-stream.eventstream", "body.BIN"])
def test_the_binary_body_uploads_through_the_form_and_opens_in_the_viewer(editor_client, name: str):
    raw = binary_body()
    response = editor_client.post(HOME, {"file": SimpleUploadedFile(name, raw, "application/vnd.amazon.eventstream")})
    dump = Dump.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/dumps/{dump.pk}/"
    assert bytes(dump.raw) == raw and dump.filename == name
    assert (dump.framing, dump.apis, dump.status) == ("eventstream", "bedrock.converse", "completed")
    page = editor_client.get(response["Location"])
    assert page.status_code == 200
    text = dump.result["responses"][0]["text"]
    assert text and text in page.content.decode()


def test_a_damaged_message_in_an_uploaded_body_is_said_on_the_page(editor_client):
    raw = bytearray(event_stream(*converse_events()))
    second = int.from_bytes(raw[:4], "big")
    raw[second + 30] ^= 0x01  # inside the second message: its checksum fails
    editor_client.post(HOME, {"file": SimpleUploadedFile("damaged.eventstream", bytes(raw))})
    dump = Dump.objects.get()
    (note,) = [d for d in dump.result["responses"][0]["diagnostics"] if d["code"] == "damaged_message"]
    assert note["details"]["message_number"] == 2 and note["details"]["byte_offset"] == second
    page = editor_client.get(f"/dumps/{dump.pk}/").content.decode()
    assert f"Message 2 of the AWS event stream (at byte {second})" in page


def test_a_file_of_another_kind_is_refused_with_the_kinds_citeview_reads(editor_client):
    response = editor_client.post(HOME, {"file": SimpleUploadedFile("answer.pdf", b"{}")})
    assert response.status_code == 415 and ".eventstream or .bin" in response.content.decode()


def test_the_binary_body_pasted_as_text_is_refused_not_misread(editor_client):
    response = editor_client.post(HOME, {"text": binary_body().decode("latin-1")})
    assert response.status_code in (400, 415) and Dump.objects.count() == 0  # a box holds no NUL characters


@pytest.mark.parametrize("content_type", ["application/vnd.amazon.eventstream", "application/octet-stream"])
def test_the_binary_body_is_stored_through_the_api(editor_client, content_type: str):
    raw = binary_body()
    response = editor_client.generic(
        "POST", "/api/dumps", raw, content_type=content_type, headers={"X-Filename": "stream.eventstream"}
    )
    assert response.status_code == 201
    body = response.json()
    assert body["dump"]["framing"] == "eventstream" and body["responses"][0]["api"] == "bedrock.converse"
    assert bytes(Dump.objects.get().raw) == raw


def test_the_openapi_document_names_the_event_stream_media_type(client):
    document = client.get("/api/openapi.json").json()
    assert "application/vnd.amazon.eventstream" in document["paths"]["/api/dumps"]["post"]["requestBody"]["content"]
