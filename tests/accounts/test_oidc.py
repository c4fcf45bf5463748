"""Issue 33: signing in through the company's identity provider, against a real one
(django-oauth-toolkit's OpenID provider, run on loopback): the provider's groups map to citeview's
roles at every sign-in, a user with no mapped group gets no role and the page says so, signing out
ends the provider's session too, and none of it is there until it is configured."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.contrib.auth.models import User

from tests.accounts.oidc_provider import Provider, start_provider

pytestmark = pytest.mark.django_db

CALLBACK = "http://testserver/oidc/callback/"
BACK = "http://testserver/accounts/login/"


@pytest.fixture(scope="module")
def provider(tmp_path_factory) -> Iterator[Provider]:
    running = start_provider(tmp_path_factory.mktemp("oidc"), [CALLBACK], [BACK])
    yield running
    running.stop()


@pytest.fixture
def configured(settings, provider) -> Provider:
    for name, value in provider.settings().items():
        setattr(settings, name, value)
    return provider


def at_provider(browser: requests.Session, provider: Provider, start: str, name: str, password: str) -> str:
    """Through the provider's login page to the address it sends the user back to."""
    answer = browser.get(start, allow_redirects=False)
    if answer.headers["Location"].startswith("/accounts/login/"):
        login = provider.url + answer.headers["Location"]
        browser.get(login)
        form = {"username": name, "password": password, "csrfmiddlewaretoken": browser.cookies["provider_csrftoken"]}
        answer = browser.post(login, data=form, allow_redirects=False)
        assert answer.status_code == 302, answer.text[:500]
        answer = browser.get(provider.url + answer.headers["Location"], allow_redirects=False)
    return answer.headers["Location"]


def sign_in(client, provider: Provider, name: str, password: str = "provider-password", browser=None):
    browser = browser or requests.Session()
    start = client.get("/oidc/authenticate/")
    assert start.status_code == 302 and start["Location"].startswith(provider.url)
    back = at_provider(browser, provider, start["Location"], name, password)
    assert back.startswith(CALLBACK), back
    return client.get(back.removeprefix("http://testserver")), browser


def roles_of(name: str) -> set[str]:
    return set(User.objects.get(username=name).groups.values_list("name", flat=True))


def test_a_user_in_the_editors_group_signs_in_as_an_editor(client, configured):
    configured.user("sakura", "provider-password", "editor", "marketing")
    answer, _ = sign_in(client, configured, "sakura")
    assert answer.status_code == 302 and answer["Location"] == "/"
    user = User.objects.get(username="sakura")
    assert roles_of("sakura") == {"editor"} and not user.has_usable_password() and user.email == "sakura@example.com"
    assert client.get("/").status_code == 200


def test_a_role_changed_at_the_provider_holds_from_the_next_sign_in(client, configured):
    configured.user("kenji", "provider-password", "reviewer")
    sign_in(client, configured, "kenji")
    assert roles_of("kenji") == {"reviewer"} and not User.objects.get(username="kenji").is_staff
    configured.user("kenji", "provider-password", "editor", "staff")
    client.post("/accounts/logout/")
    sign_in(client, configured, "kenji")
    assert roles_of("kenji") == {"editor"} and User.objects.get(username="kenji").is_staff


def test_the_groups_map_as_the_setting_says(client, configured, settings):
    settings.CITEVIEW_OIDC_ROLE_GROUPS = {"lead": ["citeview-leads"], "editor": ["citeview-editors"]}
    configured.user("mei", "provider-password", "citeview-leads", "editor")
    sign_in(client, configured, "mei")
    assert roles_of("mei") == {"lead"}


def test_a_user_with_no_mapped_group_gets_no_role_and_the_page_says_so(client, configured):
    configured.user("taro", "provider-password", "marketing")
    sign_in(client, configured, "taro")
    assert roles_of("taro") == set()
    page = client.get("/")
    assert page.status_code == 403
    assert "none of your groups at your identity provider gives a citeview role" in page.content.decode()
    japanese = client.get("/", HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "IDプロバイダーでのグループ" in japanese


def test_signing_out_ends_the_providers_session_too(client, configured):
    configured.user("yui", "provider-password", "editor")
    _, browser = sign_in(client, configured, "yui")
    out = client.post("/accounts/logout/")
    # A page that goes on to the provider (a form's answer may redirect to citeview alone: CSP form-action).
    assert out.status_code == 200 and "You are signed out of citeview" in out.content.decode()
    there = html.unescape(re.search(r'href="([^"]+)" id="cv-provider-logout"', out.content.decode()).group(1))
    assert (
        there.startswith(f"{configured.url}/o/logout/")
        and f'content="0;url={html.escape(there)}"' in out.content.decode()
    )
    query = parse_qs(urlsplit(there).query)
    assert query["post_logout_redirect_uri"] == [BACK] and query["id_token_hint"][0].count(".") == 2
    ended = browser.get(there, allow_redirects=False)
    assert ended.status_code == 302 and ended.headers["Location"] == BACK
    assert client.get("/").status_code == 302  # citeview's session ended
    assert client.post("/accounts/logout/")["Location"] == "/accounts/login/"  # signed out already: no provider
    again = client.get("/oidc/authenticate/")
    asked = browser.get(again["Location"], allow_redirects=False)
    assert asked.headers["Location"].startswith("/accounts/login/")  # the provider asks for the password again


def test_a_local_accounts_name_does_not_open_it_unless_the_setting_says_they_are_the_same_person(
    client, configured, settings, editor
):
    configured.user("hanako", "provider-password", "editor", "staff")  # the name of a local account
    answer, _ = sign_in(client, configured, "hanako")
    assert answer["Location"] == "/accounts/login/?sign_in=failed"
    assert client.get("/").status_code == 302 and not User.objects.get(username="hanako").is_staff
    settings.CITEVIEW_OIDC_LINK_LOCAL_ACCOUNTS = True
    answer, _ = sign_in(client, configured, "hanako")
    assert answer["Location"] == "/" and User.objects.get(username="hanako").is_staff


def test_the_login_page_offers_the_provider_beside_the_password(client, configured):
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with Test IdP" in page and 'href="/oidc/authenticate/"' in page and 'name="password"' in page
    assert "Test IdP でサインイン" in client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="ja").content.decode()


def test_a_sign_in_the_provider_refused_says_so_on_the_login_page(client, configured):
    start = client.get("/oidc/authenticate/")
    state = parse_qs(urlsplit(start["Location"]).query)["state"][0]
    answer = client.get("/oidc/callback/", {"error": "access_denied", "state": state})
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/?sign_in=failed"
    assert "did not succeed" in client.get(answer["Location"]).content.decode()
    assert client.get("/").status_code == 302  # not signed in


def test_a_forged_answer_is_refused(client, configured):
    client.get("/oidc/authenticate/")
    assert client.get("/oidc/callback/", {"code": "forged", "state": "forged"}).status_code == 400
    assert client.get("/").status_code == 302


def test_nothing_of_it_is_there_until_it_is_configured(client, editor):
    page = client.get("/accounts/login/").content.decode()
    assert "oidc" not in page and "Sign in with" not in page
    assert client.get("/oidc/authenticate/").status_code == 404
    assert client.get("/oidc/callback/", {"code": "x", "state": "y"}).status_code == 404
    assert client.login(username="hanako", password="a-long-test-password")


# --- issue 42, finding 8: matched by the provider's subject, never by a name a user may change -----


def signed_in_as(client) -> User:
    return User.objects.get(pk=client.session["_auth_user_id"])


def test_a_user_who_takes_anothers_name_at_the_provider_still_signs_in_as_themselves(client, configured):
    configured.user("aiko", "aiko-password", "editor")
    configured.user("ren", "ren-password", "lead", "staff")
    sign_in(client, configured, "aiko", "aiko-password")
    aiko = signed_in_as(client)
    client.post("/accounts/logout/")
    sign_in(client, configured, "ren", "ren-password")
    ren = signed_in_as(client)
    client.post("/accounts/logout/")
    configured.rename("ren", "ren-away")
    configured.rename("aiko", "ren")  # aiko now calls herself ren at the provider
    answer, _ = sign_in(client, configured, "ren", "aiko-password")
    assert answer["Location"] == "/" and signed_in_as(client).pk == aiko.pk != ren.pk
    aiko.refresh_from_db()
    # The name is another account's: she keeps her own; her email follows the provider's.
    assert (aiko.username, aiko.email, aiko.is_staff) == ("aiko", "ren@example.com", False)
    assert roles_of("aiko") == {"editor"} and roles_of("ren") == {"lead"}
    client.post("/accounts/logout/")
    sign_in(client, configured, "ren-away", "ren-password")
    ren.refresh_from_db()  # ren's own rename is followed, the name being free
    assert signed_in_as(client).pk == ren.pk and (ren.username, ren.email) == ("ren-away", "ren-away@example.com")


def test_a_new_user_at_the_provider_with_an_existing_accounts_name_gets_an_account_of_their_own(client, configured):
    configured.user("kaito", "kaito-password", "lead")
    sign_in(client, configured, "kaito", "kaito-password")
    first = signed_in_as(client)
    client.post("/accounts/logout/")
    configured.rename("kaito", "kaito-left")
    configured.user("kaito", "new-password", "editor")  # another person, given the name at the provider
    answer, _ = sign_in(client, configured, "kaito", "new-password")
    newcomer = signed_in_as(client)
    assert answer["Location"] == "/" and newcomer.pk != first.pk and newcomer.username == "kaito-2"
    assert roles_of("kaito") == {"lead"} and roles_of("kaito-2") == {"editor"}
