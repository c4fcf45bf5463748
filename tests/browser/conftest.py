"""Real-browser tests: Playwright driving Debian's Chromium against a live server.

They never skip: without a browser the run fails and says how to install one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group

from tests.accounts.oidc_provider import Provider, start_provider

# Playwright's sync API keeps an event loop in the test thread; the ORM calls the tests make are
# ordinary blocking calls, made before and after the browser acts.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "a-browser-test-password"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"The browser tests need Chromium at {CHROMIUM}. Install it with `apt-get install chromium` "
            "(`make test` does this when run as root), or point CHROMIUM at another Chromium binary."
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900}, locale="ja-JP")
    tab = context.new_page()
    tab.console_errors = []
    tab.on("console", lambda message: tab.console_errors.append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda error: tab.console_errors.append(str(error)))
    yield tab
    context.close()


@pytest.fixture
def account(django_user_model: Any) -> Any:
    user = django_user_model.objects.create_user(username="hanako", password=PASSWORD)
    user.groups.add(Group.objects.get(name="editor"))
    return user


@pytest.fixture
def signed_in(page: Any, account: Any) -> Any:
    page.goto("/accounts/login/")
    page.fill("#id_username", account.username)
    page.fill("#id_password", PASSWORD)
    page.click(".cv-login button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page


@pytest.fixture
def provider(live_server: Any, tmp_path: Any, settings: Any) -> Iterator[Provider]:
    """An OpenID Connect provider on loopback (django-oauth-toolkit), citeview set up to sign in through it."""
    running = start_provider(tmp_path, [f"{live_server.url}/oidc/callback/"], [f"{live_server.url}/accounts/login/"])
    for name, value in running.settings().items():
        setattr(settings, name, value)
    yield running
    running.stop()
