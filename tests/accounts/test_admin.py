"""API tokens in the admin: staff list, search, filter and revoke them; nobody adds or edits one, and
the key's hash is never shown."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from citeview.accounts.models import ApiToken
from citeview.accounts.tokens import token_create
from tests.api.conftest import bearer_client

pytestmark = pytest.mark.django_db

LIST = "/admin/accounts/apitoken/"


@pytest.fixture
def staff_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser(username="admin", password="an-admin-password"))
    return client


@pytest.fixture
def tokens(editor, reviewer):
    made = {
        "nightly": token_create(user=editor, name="nightly batch"),
        "dashboard": token_create(user=reviewer, name="dashboard", lifetime=None),
        "old": token_create(user=editor, name="old script"),
    }
    ApiToken.objects.filter(pk=made["old"][0].pk).update(expires_at=timezone.now() - timedelta(days=1))
    return made


def names_listed(response) -> set[str]:
    page = response.content.decode()
    return {name for name in ("nightly batch", "dashboard", "old script") if name in page}


def test_staff_see_every_token_with_its_user_prefix_and_dates_but_never_its_hash(staff_client, tokens):
    response = staff_client.get(LIST)
    assert response.status_code == 200
    page = response.content.decode()
    for column in ("User", "Name", "Starts with", "Created", "Expires", "Last used"):
        assert f">{column}<" in page or f">{column}</a>" in page
    for token, key in tokens.values():
        assert token.prefix in page and token.key_hash not in page and key not in page
    assert names_listed(response) == {"nightly batch", "dashboard", "old script"}


def test_staff_search_tokens_by_user_and_name(staff_client, tokens):
    assert names_listed(staff_client.get(LIST, {"q": "yuki"})) == {"dashboard"}
    assert names_listed(staff_client.get(LIST, {"q": "nightly"})) == {"nightly batch"}


@pytest.mark.parametrize(
    ("state", "listed"),
    [("expired", {"old script"}), ("valid", {"nightly batch", "dashboard"}), ("never", {"dashboard"})],
)
def test_staff_filter_tokens_by_whether_they_expired(staff_client, tokens, state, listed):
    assert names_listed(staff_client.get(LIST, {"state": state})) == listed


def test_a_tokens_page_in_the_admin_shows_it_without_its_hash_and_changes_nothing(staff_client, tokens):
    token, _key = tokens["nightly"]
    page = staff_client.get(f"{LIST}{token.pk}/change/")
    assert page.status_code == 200 and token.key_hash not in page.content.decode()
    assert 'name="name"' not in page.content.decode()
    staff_client.post(f"{LIST}{token.pk}/change/", {"name": "renamed", "expires_at": ""})
    token.refresh_from_db()
    assert token.name == "nightly batch" and token.expires_at is not None


def test_no_token_is_added_in_the_admin(staff_client, tokens):
    assert staff_client.get(f"{LIST}add/").status_code == 403
    assert staff_client.post(f"{LIST}add/", {"name": "sneaky"}).status_code == 403
    assert ApiToken.objects.count() == 3


def test_staff_revoke_one_token(staff_client, tokens):
    token, key = tokens["nightly"]
    assert staff_client.post(f"{LIST}{token.pk}/delete/", {"post": "yes"}).status_code == 302
    assert bearer_client(key).get("/api/dumps").status_code == 401
    assert bearer_client(tokens["dashboard"][1]).get("/api/dumps").status_code == 200


def test_staff_revoke_many_tokens_at_once(staff_client, tokens):
    chosen = [tokens["nightly"][0].pk, tokens["old"][0].pk]
    response = staff_client.post(LIST, {"action": "delete_selected", "_selected_action": chosen, "post": "yes"})
    assert response.status_code == 302
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["dashboard"]


def test_the_token_admin_is_only_for_staff(editor_client, tokens):
    assert editor_client.get(LIST).status_code == 302
    token, _key = tokens["nightly"]
    editor_client.post(f"{LIST}{token.pk}/delete/", {"post": "yes"})
    assert ApiToken.objects.filter(pk=token.pk).exists()
