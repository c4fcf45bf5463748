"""A password change, by any path, and a deactivation revoke the user's API tokens; nothing else does."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password
from django.contrib.auth.management.commands.changepassword import Command as ChangePassword
from django.core.management import call_command

from citeview.accounts.models import ApiToken
from citeview.accounts.tokens import token_create
from tests.api.conftest import bearer_client

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"
NEW_PASSWORD = "another-long-password-for-hanako"


@pytest.fixture
def tokens(editor, reviewer):
    """Two tokens of the editor's, one of someone else's that must survive."""
    return {
        "editor": [token_create(user=editor, name=name)[1] for name in ("nightly", "dashboard")],
        "other": token_create(user=reviewer, name="theirs")[1],
    }


def assert_revoked(tokens):
    for key in tokens["editor"]:
        assert bearer_client(key).get("/api/dumps").status_code == 401
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["theirs"]


def assert_kept(tokens):
    assert ApiToken.objects.count() == 3
    for key in tokens["editor"]:
        assert bearer_client(key).get("/api/dumps").status_code == 200


def test_setting_a_password_revokes_the_users_tokens(editor, tokens):
    editor.set_password(NEW_PASSWORD)
    editor.save()
    assert_revoked(tokens)


def test_saving_only_the_password_revokes_too(editor, tokens):
    editor.set_password(NEW_PASSWORD)
    editor.save(update_fields=["password"])
    assert_revoked(tokens)


def test_a_password_hash_written_directly_revokes_too(editor, tokens):
    editor.password = make_password(NEW_PASSWORD)
    editor.save()
    assert_revoked(tokens)


def test_a_password_written_by_a_queryset_update_revokes_at_the_tokens_next_use(editor, tokens, django_user_model):
    django_user_model.objects.filter(pk=editor.pk).update(password=make_password(NEW_PASSWORD))  # no save, no signal
    response = bearer_client(tokens["editor"][0]).get("/api/dumps")
    assert response.status_code == 401 and response.json()["error"]["code"] == "invalid_token"
    assert_revoked(tokens)


def test_an_unusable_password_revokes_too(editor, tokens):
    editor.set_unusable_password()
    editor.save()
    assert_revoked(tokens)


def test_the_changepassword_command_revokes(editor, tokens, monkeypatch):
    monkeypatch.setattr(ChangePassword, "_get_pass", lambda self, prompt="": NEW_PASSWORD)
    call_command("changepassword", "hanako", stdout=None)
    assert_revoked(tokens)


def test_a_password_set_in_the_admin_revokes(client, editor, tokens, django_user_model):
    client.force_login(django_user_model.objects.create_superuser(username="admin", password="an-admin-password"))
    changed = client.post(
        f"/admin/auth/user/{editor.pk}/password/",
        {"usable_password": "true", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert changed.status_code == 302
    assert_revoked(tokens)


def test_changing_ones_own_password_in_the_admin_revokes(client, editor, tokens):
    editor.is_staff = True
    editor.save()
    client.force_login(editor)
    client.post(
        "/admin/password_change/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    editor.refresh_from_db()
    assert editor.check_password(NEW_PASSWORD)
    assert_revoked(tokens)


def test_deactivating_an_account_revokes_its_tokens_for_good(editor, tokens):
    editor.is_active = False
    editor.save()
    editor.is_active = True
    editor.save()
    assert_revoked(tokens)


def test_a_deactivation_in_the_admin_revokes(client, editor, tokens, django_user_model):
    client.force_login(django_user_model.objects.create_superuser(username="admin", password="an-admin-password"))
    form = {"username": "hanako", "is_staff": "", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00"}
    changed = client.post(f"/admin/auth/user/{editor.pk}/change/", {**form, "is_active": ""})
    assert changed.status_code == 302
    assert_revoked(tokens)


def test_logging_in_and_other_changes_keep_the_tokens(client, editor, tokens):
    assert client.post("/accounts/login/", {"username": "hanako", "password": PASSWORD}).status_code == 302
    editor.refresh_from_db()
    editor.first_name = "Hanako"
    editor.save()
    assert_kept(tokens)


class OneIterationPBKDF2(PBKDF2PasswordHasher):
    """A fast stand-in for the stronger hasher a Django upgrade brings."""

    iterations = 1


def test_a_hash_upgraded_at_login_keeps_the_tokens(client, editor, tokens, settings):
    settings.PASSWORD_HASHERS = [
        "tests.accounts.test_token_revocation.OneIterationPBKDF2",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    old_hash = editor.password
    assert client.post("/accounts/login/", {"username": "hanako", "password": PASSWORD}).status_code == 302
    editor.refresh_from_db()
    assert editor.password != old_hash and editor.password.startswith("pbkdf2_sha256$1$")  # re-hashed
    assert_kept(tokens)
