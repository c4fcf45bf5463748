"""Logging out leads to a page that removes the check drafts kept in the browser (issue 41; the
browser's side is tests/browser/test_sign_out_drafts.py), and only a log out does."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

MARK = "data-cv-forget-drafts"


@pytest.mark.parametrize(("language", "said"), [("en", "You are logged out."), ("ja", "ログアウトしました。")])
def test_logging_out_leads_to_the_login_page_that_says_so_and_removes_the_drafts(client, editor, language, said):
    client.force_login(editor)
    out = client.post("/accounts/logout/", HTTP_ACCEPT_LANGUAGE=language)
    assert out.status_code == 302 and out["Location"] == "/accounts/login/"
    page = client.get(out["Location"], HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert MARK in page and said in page
    # Said once: the next login page is only a login page.
    assert MARK not in client.get("/accounts/login/").content.decode()


def test_a_login_page_reached_otherwise_leaves_the_drafts(client, editor):
    # A session that ran out leads here too, with a draft perhaps not saved yet: it must stay.
    assert client.get("/").status_code == 302
    assert MARK not in client.get("/accounts/login/?next=/").content.decode()
