"""Attaching the request on the page, and the side-by-side evidence view."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.dumps.models import Dump
from tests.conftest import OWN_FIXTURES, own_fixture
from tests.dumps.test_commands import parsedump

pytestmark = pytest.mark.django_db

RESPONSE = "claude-content-blocks-search-results.json"
REQUEST = "claude-content-blocks-search-results.request.json"


def test_a_pasted_exchange_shows_evidence_side_by_side_with_changed_numbers(editor_client):
    editor_client.post("/", {"text": own_fixture("claude-ja-documents-exchange.json").decode()})
    page = editor_client.get(Dump.objects.get().get_absolute_url()).content.decode()
    assert "Evidence, side by side" in page
    assert '<mark class="cv-number-diff">80</mark>' in page and '<mark class="cv-number-diff">62</mark>' in page
    assert "quote differs from the document" in page and "quote matches the document" in page
    assert "chars 16–46" in page and "In its paragraph of the document" in page


def test_the_request_can_be_uploaded_beside_the_response(editor_client):
    editor_client.post(
        "/",
        {
            "file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE)),
            "request_file": SimpleUploadedFile(REQUEST, own_fixture(REQUEST)),
        },
    )
    dump = Dump.objects.get()
    assert bytes(dump.request_raw) == own_fixture(REQUEST)
    page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert page.count("quote matches the document") == 3 and page.count("Attached request") == 1
    title = page.split("<title>")[1].split("</title>")[0]
    assert "messages" not in title
    title = page.split("<title>")[1].split("</title>")[0]
    assert "Attached request" not in title and "messages" not in title
    assert "The cited blocks of the document" in page and "blocks 0–1" in page


def test_a_request_given_later_is_attached_to_the_stored_response(editor_client):
    editor_client.post("/", {"file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE))})
    assert Dump.objects.get().request_raw is None
    editor_client.post(
        "/",
        {"file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE)), "request_text": own_fixture(REQUEST).decode()},
    )
    dump = Dump.objects.get()
    assert dump.request_raw and dump.result["responses"][0]["citations"][0]["quote_check"]["result"] == "match"


def test_an_unreadable_request_is_an_error_that_keeps_both_pastes(editor_client):
    response = editor_client.post("/", {"text": own_fixture(RESPONSE).decode(), "request_text": "{not json"})
    assert response.status_code == 400 and "The attached request cannot be read" in response.content.decode()
    assert response.context["form"]["request_text"].value() == "{not json"
    assert Dump.objects.count() == 0


def test_the_api_takes_an_exchange_dump(editor_client):
    body = json.dumps({"request": json.loads(own_fixture(REQUEST)), "response": json.loads(own_fixture(RESPONSE))})
    created = editor_client.generic("POST", "/api/dumps", body.encode(), content_type="application/json").json()
    assert [c["quote_check"]["result"] for c in created["responses"][0]["citations"]] == ["match"] * 3


def test_parsedump_takes_the_request_as_an_option():
    result = parsedump(str(OWN_FIXTURES / RESPONSE), "--request", str(OWN_FIXTURES / REQUEST))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["responses"][0]["citations"][0]["context"]["blocks"]


def test_another_request_for_a_stored_response_is_not_silently_dropped(editor_client):
    editor_client.post(
        "/",
        {"file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE)), "request_text": own_fixture(REQUEST).decode()},
    )
    other = json.loads(own_fixture(REQUEST))
    other["model"] = "another"
    page = editor_client.post(
        "/",
        {"file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE)), "request_text": json.dumps(other)},
        follow=True,
    )
    assert "another request attached; it was kept" in page.content.decode()
    assert bytes(Dump.objects.get().request_raw) == own_fixture(REQUEST)
