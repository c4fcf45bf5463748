"""API tokens: made and shown once on the account page, kept only as a hash, expiring when chosen,
revoked for good."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone

from citeview.accounts.models import ApiToken
from citeview.accounts.roles import EDITOR, REVIEWER
from citeview.accounts.tokens import token_create
from tests.api.conftest import bearer_client
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db


def make_token(client, name: str = "nightly batch", **lifetime: str) -> str:
    page = client.post("/accounts/", {"name": name, **lifetime}, follow=True).content.decode()
    return shown_key(page)


def shown_key(page: str) -> str:
    return page.split('id="new-token" class="cv-token-key" type="text" value="')[1].split('"')[0]


def test_a_token_is_shown_once_and_only_its_hash_is_kept(editor_client):
    key = make_token(editor_client)
    assert key.startswith("cv_") and len(key) > 40
    token = ApiToken.objects.get()
    assert token.name == "nightly batch" and key not in (token.key_hash, token.prefix) and key.startswith(token.prefix)
    listing = editor_client.get("/accounts/")
    assert key not in listing.content.decode() and token.prefix in listing.content.decode()
    assert listing["Cache-Control"] == "no-store"


def test_making_a_token_posts_then_redirects_so_a_reload_makes_no_second_token(editor_client):
    made = editor_client.post("/accounts/", {"name": "nightly batch"})
    assert made.status_code == 302 and made["Location"] == "/accounts/"  # the key is in no URL
    assert "cv_" not in made["Location"] and not made.content
    shown = editor_client.get("/accounts/")
    key = shown_key(shown.content.decode())
    assert key.startswith("cv_") and shown["Cache-Control"] == "no-store"
    reloaded = editor_client.get("/accounts/").content.decode()
    assert key not in reloaded and 'id="new-token"' not in reloaded  # shown once: the reload shows it no more
    assert ApiToken.objects.count() == 1


def test_a_new_key_is_shown_only_to_the_session_that_made_it(editor_client, editor):
    editor_client.post("/accounts/", {"name": "nightly batch"})
    other = Client()
    other.force_login(editor)  # the same account, another browser
    assert 'id="new-token"' not in other.get("/accounts/").content.decode()
    assert shown_key(editor_client.get("/accounts/").content.decode()).startswith("cv_")


def test_a_token_form_with_an_error_stays_on_the_page_with_it(editor_client):
    response = editor_client.post("/accounts/", {"name": "x" * 101})
    assert response.status_code == 400 and "at most 100 characters" in response.content.decode()
    assert 'id="new-token"' not in response.content.decode() and not ApiToken.objects.exists()


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


@pytest.mark.parametrize(
    ("chosen", "days"), [({}, 90), ({"lifetime": "30"}, 30), ({"lifetime": "90"}, 90), ({"lifetime": "365"}, 365)]
)
def test_a_new_token_lasts_90_days_unless_another_lifetime_is_chosen(editor_client, chosen, days):
    make_token(editor_client, **chosen)
    token = ApiToken.objects.get()
    assert abs(token.expires_at - (timezone.now() + timedelta(days=days))) < timedelta(minutes=1)


def test_a_token_may_never_expire(editor_client):
    key = make_token(editor_client, lifetime="never")
    ApiToken.objects.update(created_at=timezone.now() - timedelta(days=5 * 365))
    assert ApiToken.objects.get().expires_at is None
    assert bearer_client(key).get("/api/dumps").status_code == 200
    assert "never expires" in editor_client.get("/accounts/").content.decode()


@pytest.mark.parametrize("lifetime", ["7", "forever", "-1", "36500"])
def test_a_lifetime_that_is_not_offered_is_refused(editor_client, lifetime):
    response = editor_client.post("/accounts/", {"name": "nightly batch", "lifetime": lifetime})
    assert response.status_code == 400 and not ApiToken.objects.exists()


def test_the_account_page_offers_the_lifetimes_and_says_when_each_token_expires(editor_client):
    form = editor_client.get("/accounts/").content.decode()
    for label in ("30 days", "90 days", "1 year", "Never expires"):
        assert label in form
    assert '<option value="90" selected>' in form
    make_token(editor_client, name="soon", lifetime="30")
    make_token(editor_client, name="old", lifetime="30")
    ApiToken.objects.filter(name="old").update(expires_at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC))
    rows = editor_client.get("/accounts/").content.decode().split("<tr>")[2:]
    soon, old = (next(row for row in rows if f"<td>{name}</td>" in row) for name in ("soon", "old"))
    assert 'datetime="2026-01-02T12:04:00+09:00"' in old and "expired" in old  # shown in Tokyo's time
    assert "expired" not in soon and timezone.localdate(timezone.now() + timedelta(days=30)).isoformat() in soon
    assert "A password change revokes every token you have" in editor_client.get("/accounts/").content.decode()


@pytest.fixture
def frozen_now(monkeypatch):
    now = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
    monkeypatch.setattr("citeview.accounts.tokens.timezone.now", lambda: now)
    return now


@pytest.mark.parametrize(
    ("expires_in", "status"), [(timedelta(microseconds=-1), 401), (timedelta(0), 401), (timedelta(microseconds=1), 200)]
)
def test_a_token_is_refused_from_the_moment_it_expires(editor, frozen_now, expires_in, status):
    token, key = token_create(user=editor, name="t")
    ApiToken.objects.filter(pk=token.pk).update(expires_at=frozen_now + expires_in)
    assert bearer_client(key).get("/api/dumps").status_code == status


def test_an_expired_token_is_refused_saying_when_even_with_a_session(editor_client, editor):
    token, key = token_create(user=editor, name="t")
    ApiToken.objects.filter(pk=token.pk).update(expires_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    for client in (bearer_client(key), editor_client):
        refused = client.get("/api/dumps", headers={"Authorization": f"Bearer {key}"})
        assert refused.status_code == 401 and refused["WWW-Authenticate"].startswith("Bearer")
        error = refused.json()["error"]
        assert error["code"] == "token_expired" and error["expired_at"] == "2026-01-02T03:04:05+00:00"
        assert "expired on 2026-01-02T03:04:05+00:00" in error["message"]
    assert ApiToken.objects.get().last_used_at is None


def test_a_role_change_applies_to_the_tokens_next_request(editor, editor_api):
    def store():
        return editor_api.generic(
            "POST", "/api/dumps", own_fixture("agent-seed-incomplete.sse"), content_type="text/event-stream"
        )

    assert store().status_code == 201
    editor.groups.set([Group.objects.get(name=REVIEWER)])
    refused = store()
    assert refused.status_code == 403 and "this account is a reviewer" in refused.json()["error"]["message"]
    assert editor_api.get("/api/dumps").status_code == 200
    editor.groups.clear()
    assert store().status_code == 403 and editor_api.get("/api/dumps").status_code == 403
    editor.groups.add(Group.objects.get(name=EDITOR))
    assert editor_api.get("/api/dumps").status_code == 200
