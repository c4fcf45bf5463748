"""Signing out clears the drafts (issue 41): the check form keeps its drafts in the browser, keyed by
user, for 30 days; on a shared machine the next person could read them in the developer tools. Logging
out removes every citeview draft on the browser, everyone's, and nothing else of the page's storage:
as the form is sent, and again on the page after (in case it was sent without the script). Through
the identity provider too. In English and in Japanese."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from citeview.dumps.services import dump_ingest
from tests.browser.conftest import PASSWORD
from tests.browser.test_check_queue import sign_in
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db(transaction=True)

CLAIM = "As of January 2024, the population of Tokyo was about 14.1 million[1]. It grew by 0.3%[2]."
SOURCES = ["https://stats.example/tokyo", "https://stats.example/growth"]
# Another person's draft on the same browser, and something of another page on the same origin.
THEIRS = "citeview:draft:999:1:r0-c0"
OTHER = "another-app:setting"
DRAFT_KEYS = "Object.keys(localStorage).filter((key) => key.startsWith('citeview:draft:'))"
SIGNED_OUT = {"en-US": "You are logged out", "ja-JP": "ログアウトしました"}


@pytest.fixture
def editor(django_user_model: Any) -> Any:
    user = django_user_model.objects.create_user(username="hanako", password=PASSWORD)
    user.groups.add(Group.objects.get(name="editor"))
    return user


@pytest.fixture
def dump(editor: Any) -> Any:
    raw = json.dumps(sonar_object(CLAIM, SOURCES)).encode()
    return dump_ingest(raw=raw, uploaded_by=editor)[0]


@pytest.fixture
def tabs(browser: Any, live_server: Any) -> Iterator[Any]:
    contexts = []

    def open_tab(user: Any, locale: str) -> Any:
        tab = sign_in(browser, live_server, user, locale, 1280)
        contexts.append(tab.context)
        return tab

    yield open_tab
    for context in contexts:
        context.close()


def _type_a_draft(page: Any, dump: Any) -> None:
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    page.click("label:has(input[name=verdict][value=partial])")
    page.fill("textarea[name=note]", "数字が違う：1390万人")
    assert len(page.evaluate(DRAFT_KEYS)) == 1  # the draft is kept as it is typed
    page.evaluate(f"localStorage.setItem('{THEIRS}', JSON.stringify({{at: Date.now(), values: {{note: 'x'}}}}))")
    page.evaluate(f"localStorage.setItem('{OTHER}', 'kept')")


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_logging_out_removes_every_draft_and_signing_in_again_shows_none(tabs, editor, dump, locale):
    page = tabs(editor, locale)
    _type_a_draft(page, dump)
    # Log out asks first, as any way off unsaved input does; leaving, the drafts go.
    page.click(".cv-logout-form button")
    page.click("#cv-leave .cv-leave-confirm")
    page.wait_for_url("**/accounts/login/")
    assert SIGNED_OUT[locale] in page.inner_text(".cv-messages")
    assert page.evaluate(DRAFT_KEYS) == []
    assert page.evaluate(f"localStorage.getItem('{OTHER}')") == "kept"  # not citeview's: left alone

    page.fill("#id_username", editor.username)
    page.fill("#id_password", PASSWORD)
    page.click(".cv-login button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    assert not page.locator("#cv-draft").is_visible()
    assert page.input_value("textarea[name=note]") == ""
    assert page.evaluate("document.getElementById('cv-check-form').elements.namedItem('verdict').value") == ""
    assert not page.console_errors, page.console_errors


def test_the_page_after_logging_out_removes_them_when_the_form_went_without_the_script(tabs, editor, dump):
    page = tabs(editor, "en-US")
    _type_a_draft(page, dump)
    page.goto("/")
    with page.expect_navigation():
        page.evaluate("document.querySelector('.cv-logout-form').submit()")  # no submit event: no script ran
    page.wait_for_url("**/accounts/login/")
    page.wait_for_load_state()
    assert page.evaluate(DRAFT_KEYS) == []
    # A login page that does not follow a log out (an expired session, a link) leaves them.
    page.evaluate(f"localStorage.setItem('{THEIRS}', '{{}}')")
    page.goto("/accounts/login/")
    assert page.evaluate(DRAFT_KEYS) == [THEIRS]


def test_the_drafts_go_as_log_out_is_pressed_before_any_page_answers(tabs, editor, dump):
    page = tabs(editor, "en-US")
    _type_a_draft(page, dump)
    page.goto("/")
    # No page answers (204: the browser stays where it is), as when the tab is closed at once.
    page.route("**/accounts/logout/", lambda route: route.fulfill(status=204))
    page.click(".cv-logout-form button")
    page.wait_for_function("!Object.keys(localStorage).some((key) => key.startsWith('citeview:draft:'))")
    assert page.evaluate(f"localStorage.getItem('{OTHER}')") == "kept"


@pytest.mark.parametrize("through_the_script", [True, False])
def test_signing_out_through_the_identity_provider_removes_them_too(browser, live_server, provider, through_the_script):
    provider.user("sakura", "provider-password", "editor")
    context = browser.new_context(base_url=live_server.url, locale="ja-JP")
    page = context.new_page()
    try:
        page.goto("/accounts/login/")
        page.click("a[href^='/oidc/authenticate/']")
        page.wait_for_url(f"{provider.url}/accounts/login/**")
        page.fill("#id_username", "sakura")
        page.fill("#id_password", "provider-password")
        page.get_by_role("button", name="Sign in at the provider").click()
        page.wait_for_url(f"{live_server.url}/")
        dump = dump_ingest(raw=json.dumps(sonar_object(CLAIM, SOURCES)).encode(), uploaded_by=User.objects.get())[0]
        page.console_errors = []
        _type_a_draft(page, dump)
        page.goto("/")
        if through_the_script:
            page.click(".cv-logout-form button")
        else:  # the page on the way to the provider removes them
            page.evaluate("document.querySelector('.cv-logout-form').submit()")
        page.wait_for_url(f"{live_server.url}/accounts/login/")
        assert page.evaluate(DRAFT_KEYS) == []
        assert page.evaluate(f"localStorage.getItem('{OTHER}')") == "kept"
    finally:
        context.close()
