"""Issue 33: a person signs in through the company's identity provider in the browser: the login page
offers it, the provider's own login page takes the password, and they come back to citeview as an
editor, in English and in Japanese; signing out ends the provider's session too."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("locale", "button", "home"),
    [("en-GB", "Sign in with Test IdP", "Dumps"), ("ja-JP", "Test IdP でサインイン", "回答一覧")],
)
def test_signing_in_through_the_provider_comes_back_as_an_editor(browser, live_server, provider, locale, button, home):
    provider.user("sakura", "provider-password", "editor")
    context = browser.new_context(base_url=live_server.url, locale=locale)
    page = context.new_page()
    try:
        page.goto("/")
        assert "/accounts/login/" in page.url
        page.get_by_role("link", name=button).click()
        page.wait_for_url(f"{provider.url}/accounts/login/**")
        page.fill("#id_username", "sakura")
        page.fill("#id_password", "provider-password")
        page.get_by_role("button", name="Sign in at the provider").click()
        page.wait_for_url(f"{live_server.url}/")
        assert home in page.locator("h1").first.inner_text() or home in page.title()
        user = User.objects.get(username="sakura")
        assert set(user.groups.values_list("name", flat=True)) == {"editor"}
        page.locator("form[action='/accounts/logout/'] button").click()
        page.wait_for_url(f"{live_server.url}/accounts/login/")
        page.get_by_role("link", name=button).click()
        page.wait_for_url(f"{provider.url}/accounts/login/**")  # the provider's session ended too: it asks again
    finally:
        context.close()
