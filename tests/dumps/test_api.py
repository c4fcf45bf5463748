"""POST /api/dumps and GET /api/dumps/<id>."""

from __future__ import annotations

import json

import pytest

from citeview.dumps.models import Dump
from tests.builders import sonar_object
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db


def post(client, body: bytes, content_type: str = "text/event-stream"):
    return client.generic("POST", "/api/dumps", body, content_type=content_type)


def test_posting_a_dump_answers_201_with_the_normalised_json_then_200(editor_client):
    raw = own_fixture("agent-seed-incomplete.sse")
    first = post(editor_client, raw)
    body = first.json()
    dump = Dump.objects.get()
    assert first.status_code == 201
    assert body["id"] == dump.pk and body["url"].endswith(f"/dumps/{dump.pk}/")
    assert body["citeview"] == 1 and body["responses"][0]["unresolved"][0]["marker"] == "[8]"
    again = post(editor_client, raw)
    assert again.status_code == 200 and again.json()["id"] == dump.pk


def test_getting_a_dump_returns_the_same_json(editor_client):
    created = post(editor_client, own_fixture("agent-two-responses.jsonl"), "application/x-ndjson").json()
    fetched = editor_client.get(f"/api/dumps/{created['id']}")
    assert fetched.status_code == 200 and fetched.json() == created
    assert len(fetched.json()["responses"]) == 2


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [
        (b"", "application/json", 400, "empty"),
        (b"\xff\xfe{\x00}\x00", "application/json", 415, "not_utf8"),
        (b"<html></html>", "application/json", 415, "html"),
        (b'{"a": [1, 2', "application/json", 400, "truncated_json"),
        (b"[" * 50_000, "application/json", 400, "too_deep"),
        (b'{"a": 1}', "application/json", 400, "unknown_provider"),
        (b"a=1", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
    ],
)
def test_bad_dumps_get_a_4xx_with_code_and_message(editor_client, body, content_type, status, code):
    response = post(editor_client, body, content_type)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    assert Dump.objects.count() == 0


def test_a_dump_over_the_limit_is_413(editor_client, settings):
    raw = json.dumps(sonar_object("x", [])).encode()
    settings.CITEVIEW_MAX_DUMP_BYTES = len(raw) - 1
    response = post(editor_client, raw, "application/json")
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"


def test_the_api_needs_a_token_or_a_session(client, editor_client):
    client.logout()
    anonymous = post(client, b"{}")
    assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "not_authenticated"


def test_wrong_methods_get_405_with_allow(editor_client):
    response = editor_client.put("/api/dumps")
    assert response.status_code == 405 and response["Allow"] == "GET, POST"
    response = editor_client.delete("/api/dumps/1")
    assert response.status_code == 405 and response["Allow"] == "GET"


def test_an_unknown_id_is_a_json_404(editor_client):
    response = editor_client.get("/api/dumps/12345")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_a_nonsense_content_length_is_not_a_server_error(editor_client):
    response = editor_client.generic("POST", "/api/dumps", b"{}", content_type="application/json", CONTENT_LENGTH="abc")
    assert response.status_code < 500


def test_a_csrf_failure_is_answered_in_the_api_shape(editor):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(editor)
    response = post(strict, own_fixture("agent-seed-incomplete.sse"))
    assert response.status_code == 403 and response.json()["error"]["code"] == "csrf_failed"
