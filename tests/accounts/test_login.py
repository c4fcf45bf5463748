"""Logins pause after repeated failures; sessions end; the admin is for staff."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from citeview.accounts.models import LoginFailure

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"


def log_in(client, username: str, password: str, address: str = "192.0.2.1"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_a_name_is_paused_after_repeated_failures_even_with_the_right_password(client, editor):
    for _ in range(settings.LOGIN_FAILURES_PER_NAME):
        assert log_in(client, "hanako", "wrong-guess").status_code == 200
    paused = log_in(client, "hanako", PASSWORD)
    assert paused.status_code == 429 and int(paused["Retry-After"]) > 0
    assert "Too many failed logins. Try again in 15 minutes." in paused.content.decode()
    assert "_auth_user_id" not in client.session
    assert LoginFailure.objects.count() == settings.LOGIN_FAILURES_PER_NAME  # a paused try is not even counted


def test_the_pause_ends_and_a_good_login_clears_the_count(client, editor):
    for _ in range(settings.LOGIN_FAILURES_PER_NAME):
        log_in(client, "hanako", "wrong-guess")
    LoginFailure.objects.update(created_at=timezone.now() - timedelta(seconds=settings.LOGIN_PAUSE_SECONDS + 1))
    assert log_in(client, "hanako", PASSWORD).status_code == 302
    assert not LoginFailure.objects.filter(username="hanako").exists()


def test_other_names_are_not_paused_but_one_address_trying_many_names_is(client, editor, second_editor):
    for _ in range(settings.LOGIN_FAILURES_PER_NAME):
        log_in(client, "hanako", "wrong-guess")
    assert log_in(client, "taro", PASSWORD, address="198.51.100.7").status_code == 302
    client.logout()
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS):
        log_in(client, f"name-{n}", "wrong-guess", address="203.0.113.9")
    assert log_in(client, "taro", PASSWORD, address="203.0.113.9").status_code == 429


def test_sessions_expire_after_a_working_day(client, editor):
    log_in(client, "hanako", PASSWORD)
    assert client.session.get_expiry_age() == settings.SESSION_COOKIE_AGE == 8 * 60 * 60


def test_the_admin_is_only_for_staff(client, editor, django_user_model):
    client.force_login(editor)
    assert client.get("/admin/").status_code == 302
    staff = django_user_model.objects.create_superuser(username="admin", password="an-admin-password")
    client.force_login(staff)
    assert client.get("/admin/auth/user/").status_code == 200
