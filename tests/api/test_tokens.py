"""API tokens: made and shown once on the account page, kept only as a hash, revoked for good."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from citeview.accounts.models import ApiToken
from citeview.accounts.tokens import token_create
from citeview.review.roles import REVIEWER
from tests.api.conftest import bearer_client
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db


def make_token(client, name: str = "nightly batch") -> str:
    page = client.post("/accounts/", {"name": name}).content.decode()
    return page.split('id="new-token" class="cv-token-key" type="text" value="')[1].split('"')[0]


def test_a_token_is_shown_once_and_only_its_hash_is_kept(editor_client):
    key = make_token(editor_client)
    assert key.startswith("cv_") and len(key) > 40
    token = ApiToken.objects.get()
    assert token.name == "nightly batch" and key not in (token.key_hash, token.prefix) and key.startswith(token.prefix)
    listing = editor_client.get("/accounts/")
    assert key not in listing.content.decode() and token.prefix in listing.content.decode()
    assert listing["Cache-Control"] == "no-store"


def test_a_token_reads_and_writes_without_a_session_or_csrf_token(editor_client):
    client = bearer_client(make_token(editor_client))
    stored = client.generic(
        "POST", "/api/dumps", own_fixture("agent-seed-incomplete.sse"), content_type="text/event-stream"
    )
    assert stored.status_code == 201
    assert client.get("/api/dumps").json()["count"] == 1
    assert ApiToken.objects.get().last_used_at is not None


def test_a_revoked_token_is_refused(editor_client):
    key = make_token(editor_client)
    token = ApiToken.objects.get()
    response = editor_client.post(f"/accounts/tokens/{token.pk}/revoke", follow=True)
    assert "revoked" in response.content.decode() and not ApiToken.objects.exists()
    refused = bearer_client(key).get("/api/dumps")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "invalid_token"
    assert refused["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize("header", ["Bearer cv_not-a-real-token", "Bearer ", "Token abc", "Basic dXNlcjpwYXNz"])
def test_a_wrong_authorization_is_refused_even_with_a_session(editor_client, header):
    response = editor_client.get("/api/dumps", headers={"Authorization": header})
    assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_token"


def test_no_token_and_no_session_is_401(client):
    response = client.get("/api/dumps")
    assert response.status_code == 401 and response.json()["error"]["code"] == "not_authenticated"


def test_a_reviewer_token_reads_but_does_not_write(reviewer_api, editor_api):
    created = editor_api.generic(
        "POST", "/api/dumps", own_fixture("claude-ja-documents-exchange.json"), content_type="application/json"
    ).json()
    assert reviewer_api.get(f"/api/dumps/{created['id']}").status_code == 200
    store = reviewer_api.generic("POST", "/api/dumps", b"{}", content_type="application/json")
    assert store.status_code == 403 and store.json()["error"]["code"] == "forbidden"
    item = reviewer_api.get(f"/api/dumps/{created['id']}/checks").json()["items"][0]
    check = reviewer_api.post(
        f"/api/dumps/{created['id']}/checks",
        {"item": item["key"], "version": 0, "verdict": "complete"},
        "application/json",
    )
    assert check.status_code == 403


def test_a_token_follows_its_user_role_and_account(django_user_model):
    user = django_user_model.objects.create_user("ayaka", password="x")
    key = token_create(user=user, name="t")[1]
    assert bearer_client(key).get("/api/dumps").status_code == 403  # no role yet
    store = bearer_client(key).generic("POST", "/api/dumps", b"{}", content_type="application/json")
    assert store.status_code == 403 and "no role yet" in store.json()["error"]["message"]
    user.groups.add(Group.objects.get(name=REVIEWER))
    assert bearer_client(key).get("/api/dumps").status_code == 200
    user.is_active = False
    user.save()
    assert bearer_client(key).get("/api/dumps").status_code == 401


def test_nobody_revokes_another_users_token(editor_client, reviewer):
    token, _key = token_create(user=reviewer, name="theirs")
    assert editor_client.post(f"/accounts/tokens/{token.pk}/revoke").status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_a_token_needs_a_name(editor_client):
    response = editor_client.post("/accounts/", {"name": ""})
    assert response.status_code == 400 and not ApiToken.objects.exists()
