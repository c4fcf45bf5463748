from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from citeview.accounts.tokens import token_create


def bearer_client(key: str) -> Client:
    """A client that has no session, only the token, and is held to the CSRF check like a browser."""
    return Client(enforce_csrf_checks=True, headers={"Authorization": f"Bearer {key}"})


@pytest.fixture
def editor_key(editor: Any) -> str:
    return token_create(user=editor, name="pipeline")[1]


@pytest.fixture
def reviewer_key(reviewer: Any) -> str:
    return token_create(user=reviewer, name="dashboard")[1]


@pytest.fixture
def editor_api(editor_key: str) -> Client:
    return bearer_client(editor_key)


@pytest.fixture
def reviewer_api(reviewer_key: str) -> Client:
    return bearer_client(reviewer_key)


@pytest.fixture
def no_api_rate_limits(settings: Any) -> None:
    """For a test that sends more than a minute's budget at once to test something else: a real
    script of that size waits as Retry-After says (tests/api/test_rate_limits.py)."""
    for name in (
        "CITEVIEW_API_RATE_TOKEN_READS",
        "CITEVIEW_API_RATE_TOKEN_WRITES",
        "CITEVIEW_API_RATE_ACCOUNT_READS",
        "CITEVIEW_API_RATE_ACCOUNT_WRITES",
    ):
        setattr(settings, name, "")
