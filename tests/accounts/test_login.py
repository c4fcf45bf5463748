"""Logins pause after repeated failures; sessions end; the admin is for staff."""

from __future__ import annotations

import re
from datetime import timedelta
from ipaddress import ip_network

import pytest
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory
from django.utils import timezone

from citeview.accounts.checks import trusted_proxies_check
from citeview.accounts.models import LoginFailure
from citeview.accounts.throttle import client_address, login_name
from citeview.settings import env_networks

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


# One name, however it is typed: the pause is looked up and counted under the name the login form reads.

SPELLINGS_OF_HANAKO = [" hanako", "hanako\t", "\u3000hanako", "ｈａｎａｋｏ", " ｈａｎａｋｏ "]


@pytest.mark.parametrize("typed", SPELLINGS_OF_HANAKO)
def test_a_paused_name_stays_paused_however_it_is_typed(client, editor, typed):
    for _ in range(settings.LOGIN_FAILURES_PER_NAME):
        log_in(client, "hanako", "wrong-guess")
    paused = log_in(client, typed, PASSWORD)
    assert paused.status_code == 429 and "_auth_user_id" not in client.session


@pytest.mark.parametrize("typed", SPELLINGS_OF_HANAKO)
def test_guesses_typed_another_way_pause_the_name_for_every_spelling(client, editor, typed):
    for _ in range(settings.LOGIN_FAILURES_PER_NAME):
        assert log_in(client, typed, "wrong-guess").status_code == 200
    for spelling in ["hanako", typed, *SPELLINGS_OF_HANAKO]:
        assert log_in(client, spelling, PASSWORD).status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize(
    "typed",
    ["hanako", " hanako ", "ｈａｎａｋｏ", "\u3000ｈａｎａｋｏ", "ＨＡＮＡＫＯ", "¨hanako", "ﬀ", "", "  ", "x" * 151],
)
def test_the_pause_counts_a_name_as_the_login_form_reads_it(typed):
    read_by_the_form = AuthenticationForm().fields["username"].to_python(typed)
    assert login_name(typed) == login_name(read_by_the_form)
    if read_by_the_form == read_by_the_form.strip():
        assert login_name(typed) == read_by_the_form


# User names are case-sensitive: Django's ModelBackend looks the name up exactly, and the user
# model's unique constraint lets "Hanako" and "hanako" be two accounts. So letter case is not folded.


@pytest.mark.parametrize("typed", ["Hanako", "HANAKO", "ＨＡＮＡＫＯ"])
def test_a_name_in_other_letters_case_is_another_name_and_never_logs_in(client, editor, typed):
    for _ in range(settings.LOGIN_FAILURES_PER_NAME):
        log_in(client, "hanako", "wrong-guess")
    assert log_in(client, typed, PASSWORD).status_code == 200 and "_auth_user_id" not in client.session
    assert log_in(client, "hanako", PASSWORD).status_code == 429


def test_two_accounts_whose_names_differ_only_in_case_are_paused_apart(client, editor, django_user_model):
    django_user_model.objects.create_user(username="Hanako", password="another-long-password")
    for _ in range(settings.LOGIN_FAILURES_PER_NAME):
        log_in(client, "hanako", "wrong-guess")
    assert log_in(client, "hanako", PASSWORD).status_code == 429
    assert log_in(client, "Hanako", "another-long-password").status_code == 302


def test_the_admin_login_is_paused_with_the_same_count(client, django_user_model):
    django_user_model.objects.create_superuser(username="admin", password=PASSWORD)
    for _ in range(settings.LOGIN_FAILURES_PER_NAME):
        client.post("/admin/login/", {"username": "admin", "password": "wrong-guess"}, REMOTE_ADDR="192.0.2.1")
    refused = client.post("/admin/login/", {"username": " ａｄｍｉｎ", "password": PASSWORD}, REMOTE_ADDR="192.0.2.1")
    assert "_auth_user_id" not in client.session and refused.status_code == 200
    assert log_in(client, "admin", PASSWORD).status_code == 429
    assert LoginFailure.objects.count() == settings.LOGIN_FAILURES_PER_NAME  # a paused try is not counted


# The address: X-Forwarded-For is believed only from a configured proxy, and only as far as proxies wrote it.

PROXY = "10.0.0.2"


def log_in_through(client, forwarded_for: str, remote_addr: str = PROXY, username: str = "name"):
    return client.post(
        "/accounts/login/",
        {"username": username, "password": "wrong-guess"},
        REMOTE_ADDR=remote_addr,
        HTTP_X_FORWARDED_FOR=forwarded_for,
    )


@pytest.fixture
def few_failures_per_address(settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 3


@pytest.mark.parametrize("proxies", [[], [ip_network("10.0.0.0/24")]])
def test_a_client_reaching_the_app_server_directly_is_paused_whatever_it_forwards(
    client, settings, few_failures_per_address, proxies
):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")  # BEHIND_TLS_PROXY=true
    settings.TRUSTED_PROXIES = proxies
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS):
        log_in_through(client, f"198.51.100.{n}", remote_addr="203.0.113.9", username=f"name-{n}")
    assert log_in_through(client, "198.51.100.200", remote_addr="203.0.113.9").status_code == 429
    assert set(LoginFailure.objects.values_list("address", flat=True)) == {"203.0.113.9"}


def test_through_a_configured_proxy_each_visitor_is_paused_by_their_own_address(
    client, settings, few_failures_per_address
):
    settings.TRUSTED_PROXIES = [ip_network("10.0.0.0/24")]
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS):
        log_in_through(client, "198.51.100.7", username=f"name-{n}")
    assert log_in_through(client, "198.51.100.7").status_code == 429
    assert log_in_through(client, "198.51.100.8").status_code == 200


def test_a_forged_chain_through_a_proxy_cannot_choose_its_address(client, settings, few_failures_per_address):
    settings.TRUSTED_PROXIES = [ip_network("10.0.0.0/24")]
    for n in range(settings.LOGIN_FAILURES_PER_ADDRESS):
        log_in_through(client, f"192.0.2.{n}, 198.51.100.7", username=f"name-{n}")
    assert log_in_through(client, "192.0.2.99, 198.51.100.7").status_code == 429
    assert set(LoginFailure.objects.values_list("address", flat=True)) == {"198.51.100.7"}


@pytest.mark.parametrize(
    ("remote_addr", "forwarded_for", "client"),
    [
        ("203.0.113.9", "", "203.0.113.9"),
        ("203.0.113.9", "198.51.100.7", "203.0.113.9"),  # not a proxy: its header proves nothing
        ("10.0.0.2", "", "10.0.0.2"),  # the proxy's own request
        ("10.0.0.2", "198.51.100.7", "198.51.100.7"),
        ("10.0.0.2", "192.0.2.1, 198.51.100.7", "198.51.100.7"),  # the rightmost untrusted entry
        ("10.0.0.2", "192.0.2.1, 198.51.100.7, 10.0.0.3", "198.51.100.7"),  # through two proxies
        ("10.0.0.2", "192.0.2.1,198.51.100.7 , 10.0.0.3", "198.51.100.7"),
        ("10.0.0.2", "10.0.0.5", "10.0.0.5"),  # every hop a proxy: the farthest one
        ("10.0.0.2", "192.0.2.1, unknown, 10.0.0.3", "10.0.0.3"),  # not an address: nothing left of it counts
        ("10.0.0.2", "192.0.2.1, ", "10.0.0.2"),
        ("::ffff:10.0.0.2", "198.51.100.7", "198.51.100.7"),  # IPv4 as an IPv6 socket reports it
        ("2001:db8::2", "2001:db8:1::7", "2001:db8:1::7"),
        ("fe80::7%eth0", "", "fe80::7"),  # the zone is one of our interfaces (and no database column takes it)
        ("", "198.51.100.7", None),
    ],
)
def test_the_client_address_is_the_first_one_no_trusted_proxy_wrote(settings, remote_addr, forwarded_for, client):
    settings.TRUSTED_PROXIES = [ip_network("10.0.0.0/24"), ip_network("2001:db8::2/128")]
    request = RequestFactory().post("/accounts/login/", REMOTE_ADDR=remote_addr, HTTP_X_FORWARDED_FOR=forwarded_for)
    assert client_address(request) == client


def test_trusted_proxies_are_read_from_the_environment_and_a_malformed_one_is_refused(monkeypatch):
    monkeypatch.setenv("TRUSTED_PROXIES", " 10.0.0.0/8, 192.0.2.7 ,::1")
    assert env_networks("TRUSTED_PROXIES", "") == [ip_network("10.0.0.0/8"), ip_network("192.0.2.7"), ip_network("::1")]
    monkeypatch.delenv("TRUSTED_PROXIES")
    assert env_networks("TRUSTED_PROXIES", "") == []
    for malformed in ("10.0.0.300", "10.0.0.1/8", "proxy.example.org"):
        monkeypatch.setenv("TRUSTED_PROXIES", f"127.0.0.1,{malformed}")
        with pytest.raises(ImproperlyConfigured, match=f"TRUSTED_PROXIES .*{re.escape(repr(malformed))}"):
            env_networks("TRUSTED_PROXIES", "")


def test_check_deploy_warns_when_a_tls_proxy_is_in_front_but_no_proxy_is_trusted(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.TRUSTED_PROXIES = []
    assert [warning.id for warning in trusted_proxies_check(None)] == ["accounts.W001"]
    settings.TRUSTED_PROXIES = [ip_network("127.0.0.1")]
    assert trusted_proxies_check(None) == []
