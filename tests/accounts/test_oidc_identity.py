"""Issue 42, finding 8: a sign-in through the identity provider is matched by the ID token's issuer and
subject, stored at the first sign-in, never by a user name or email a user may change there. Driven
through the backend with the provider's answers given (the loopback provider's tests are in
``test_oidc.py``): accounts made before subjects were stored, claims that disagree, other issuers."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.test import RequestFactory
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from citeview.accounts.models import OidcIdentity
from citeview.accounts.oidc import RoleMappingBackend

pytestmark = pytest.mark.django_db

ISSUER = "https://idp.example/realms/newsroom"


@pytest.fixture(autouse=True)
def configured(settings):
    settings.OIDC_RP_CLIENT_ID = "citeview"
    settings.OIDC_RP_CLIENT_SECRET = "secret"
    settings.OIDC_OP_AUTHORIZATION_ENDPOINT = f"{ISSUER}/authorize"
    settings.OIDC_OP_TOKEN_ENDPOINT = f"{ISSUER}/token"
    settings.OIDC_OP_USER_ENDPOINT = f"{ISSUER}/userinfo"
    settings.OIDC_OP_JWKS_ENDPOINT = f"{ISSUER}/jwks"
    return settings


def sign_in(monkeypatch, subject: str, name: str, *, issuer: str = ISSUER, userinfo: dict[str, Any] | None = None):
    """The user citeview signs in for an ID token of ``issuer`` and ``subject`` naming ``name`` (in the
    editors' group), the user info endpoint answering ``userinfo`` (by default, the same name)."""
    token = {"iss": issuer, "sub": subject, "preferred_username": name, "email": f"{name}@example.com"}
    answer = {"sub": subject, "groups": ["editor"], **(userinfo or {})}
    backend = RoleMappingBackend()
    monkeypatch.setattr(backend, "get_token", lambda payload: {"id_token": "id", "access_token": "access"})
    monkeypatch.setattr(backend, "verify_token", lambda token_text, **kwargs: token)
    monkeypatch.setattr(OIDCAuthenticationBackend, "get_userinfo", lambda self, access, id_token, payload: answer)
    request = RequestFactory().get("/oidc/callback/", {"code": "code", "state": "state"})
    request.session = SessionStore()
    return backend.authenticate(request)


def earlier_provider_account(name: str) -> User:
    """An account a sign-in through the provider made before citeview stored subjects."""
    user = User.objects.create_user(name, email=f"{name}@example.com")
    user.set_unusable_password()
    user.save()
    return user


def test_an_account_made_before_subjects_were_stored_is_not_opened_by_its_name_alone(monkeypatch, caplog):
    sora = earlier_provider_account("sora")
    with caplog.at_level(logging.WARNING, logger="citeview.accounts.oidc"):
        assert sign_in(monkeypatch, "subject-1", "sora") is None
    assert not OidcIdentity.objects.exists() and User.objects.count() == 1
    said = next(record.getMessage() for record in caplog.records if record.name == "citeview.accounts.oidc")
    assert "'sora'" in said and "CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS" in said and "'subject-1'" in said
    assert sora.groups.count() == 0


def test_the_upgrade_setting_links_an_earlier_account_once_then_its_subject_alone_opens_it(monkeypatch, settings):
    sora = earlier_provider_account("sora")
    settings.CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS = True
    assert sign_in(monkeypatch, "subject-1", "sora") == sora
    assert OidcIdentity.objects.get(user=sora).subject == "subject-1"
    stranger = sign_in(monkeypatch, "subject-2", "sora")  # the setting still on: the name is linked now
    assert stranger != sora and stranger.username == "sora-2"
    assert sign_in(monkeypatch, "subject-1", "sora-renamed") == sora


def test_a_user_info_answer_about_another_subject_is_refused(monkeypatch):
    assert sign_in(monkeypatch, "subject-1", "yuki", userinfo={"sub": "subject-2"}) is None
    assert not User.objects.exists()


def test_the_issuer_and_subject_stored_are_the_signed_tokens_not_the_user_infos(monkeypatch):
    user = sign_in(monkeypatch, "subject-1", "yuki", userinfo={"iss": "https://elsewhere.example"})
    assert (user.oidc_identity.issuer, user.oidc_identity.subject) == (ISSUER, "subject-1")


def test_the_same_subject_at_another_issuer_is_another_person(monkeypatch):
    first = sign_in(monkeypatch, "subject-1", "yuki")
    other = sign_in(monkeypatch, "subject-1", "yuki", issuer="https://other-idp.example")
    assert other != first and other.username == "yuki-2"


def test_a_token_of_another_issuer_than_the_settings_is_refused(monkeypatch, settings):
    settings.CITEVIEW_OIDC_ISSUER = ISSUER
    assert sign_in(monkeypatch, "subject-1", "yuki", issuer="https://other-idp.example") is None
    assert sign_in(monkeypatch, "subject-1", "yuki").username == "yuki"


def test_a_name_another_account_holds_in_another_case_is_not_taken(monkeypatch, editor):
    yuki = sign_in(monkeypatch, "subject-1", "yuki")
    assert sign_in(monkeypatch, "subject-1", "HANAKO") == yuki  # the editor's name, in capitals
    yuki.refresh_from_db()
    assert (yuki.username, yuki.email) == ("yuki", "HANAKO@example.com")
    editor.refresh_from_db()
    assert editor.username == "hanako" and editor.email != "HANAKO@example.com"


def test_staff_link_an_earlier_account_to_the_subject_the_log_names_and_cannot_move_a_link(
    monkeypatch, client, django_user_model
):
    sora = earlier_provider_account("sora")
    assert sign_in(monkeypatch, "subject-1", "sora") is None  # refused; the log names the subject
    client.force_login(django_user_model.objects.create_superuser(username="admin", password="an-admin-password"))
    added = client.post(
        "/admin/accounts/oidcidentity/add/", {"user": sora.pk, "issuer": ISSUER, "subject": "subject-1"}
    )
    assert added.status_code == 302
    assert sign_in(monkeypatch, "subject-1", "sora") == sora
    link = OidcIdentity.objects.get()
    moved = client.post(
        f"/admin/accounts/oidcidentity/{link.pk}/change/", {"user": link.user_id, "issuer": ISSUER, "subject": "x"}
    )
    assert moved.status_code == 403 and OidcIdentity.objects.get().subject == "subject-1"
