"""Every view against the access matrix: editor, reviewer, an account without a role, anonymous, wrong method."""

from __future__ import annotations

import pytest
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from tests.conftest import own_fixture
from tests.dumps.test_suggestions_frame import IN_OUR_FRAME

pytestmark = pytest.mark.django_db


@pytest.fixture
def dump_pk(editor) -> int:
    return dump_ingest(raw=own_fixture("agent-seed-incomplete.sse"), uploaded_by=editor)[0].pk


def pages(pk: int) -> dict[str, str]:
    """What everyone with a role may read (GET)."""
    return {
        "home": reverse("pages:home"),
        "detail": reverse("pages:detail", args=[pk]),
        "normalized": reverse("pages:normalized", args=[pk]),
        "raw": reverse("dumps:raw", args=[pk]),
        "check start": reverse("review:start", args=[pk]),
        "check item": reverse("review:item", args=[pk, "r0-c0-1"]),
        "report": reverse("review:report", args=[pk]),
        "report md": reverse("review:report_md", args=[pk]),
        "report json": reverse("review:report_json", args=[pk]),
        "figures": reverse("review:figures"),
        "figures json": reverse("review:figures_json"),
        "verdicts csv": reverse("review:verdicts_csv"),
        "verdicts jsonl": reverse("review:verdicts_jsonl"),
    }


def writes(pk: int) -> dict[str, tuple[str, dict[str, str]]]:
    """What only editors may do (POST), with a valid body."""
    return {
        "store a dump": (reverse("pages:home"), {"text": own_fixture("sonar-stream-full-mode-crlf.sse").decode()}),
        "record a check": (reverse("review:item", args=[pk, "r0-c0-1"]), {"version": "0", "verdict": "complete"}),
        "edit details": (reverse("dumps:details", args=[pk]), {"title": "x", "tags": ""}),
    }


def test_anonymous_visitors_are_sent_to_the_login_page_everywhere(client, dump_pk):
    for name, url in pages(dump_pk).items():
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), name
    for name, (url, body) in writes(dump_pk).items():
        response = client.post(url, body)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/"), name
    assert client.post(reverse("review:comment", args=[dump_pk]), {"text": "x"}).status_code == 302


@pytest.mark.parametrize("role", ["editor", "reviewer"])
def test_editors_and_reviewers_read_every_page(client, role, request, dump_pk):
    client.force_login(request.getfixturevalue(role))
    for name, url in pages(dump_pk).items():
        response = client.get(url, follow=name == "check start")
        assert response.status_code == 200, (name, response.status_code)


def test_only_editors_store_dumps_record_checks_and_edit_details(client, editor, reviewer, dump_pk):
    client.force_login(reviewer)
    for name, (url, body) in writes(dump_pk).items():
        assert client.post(url, body).status_code == 403, name
    client.force_login(editor)
    for name, (url, body) in writes(dump_pk).items():
        assert client.post(url, body).status_code == 302, name


def test_reviewers_and_editors_comment(client, editor, reviewer, dump_pk):
    for user in (reviewer, editor):
        client.force_login(user)
        assert client.post(reverse("review:comment", args=[dump_pk]), {"text": "確認済み"}).status_code == 302


def test_an_account_without_a_role_is_refused_with_an_explanation(client, django_user_model, dump_pk):
    client.force_login(django_user_model.objects.create_user(username="newcomer", password="a-long-password-1"))
    for name, url in pages(dump_pk).items():
        response = client.get(url)
        assert response.status_code == 403, name
    assert "no role yet" in client.get(reverse("pages:home")).content.decode()
    assert client.get(f"/api/dumps/{dump_pk}").status_code == 403


def test_wrong_methods_are_refused(client, editor, dump_pk):
    client.force_login(editor)
    for name, url in pages(dump_pk).items():
        if name in ("home", "check item"):
            continue  # these take POST too
        assert client.post(url).status_code == 405, name
    for url in (reverse("review:comment", args=[dump_pk]), reverse("dumps:details", args=[dump_pk])):
        assert client.get(url).status_code == 405
    assert client.put(reverse("pages:home")).status_code == 405
    assert client.delete(reverse("review:item", args=[dump_pk, "r0-c0-1"])).status_code == 405


def test_the_remaining_views_follow_the_same_matrix(client, editor, reviewer, django_user_model, dump_pk):
    suggestions = reverse("pages:suggestions", args=[dump_pk, 0])
    done = reverse("review:done", args=[dump_pk])
    assert client.get(suggestions).status_code == 302 and client.get(done).status_code == 302  # to the login
    for user in (editor, reviewer):
        client.force_login(user)
        assert client.get(suggestions, **IN_OUR_FRAME).status_code == 404  # readable, but this response has none
        assert client.get(done).status_code == 302
        assert client.get("/admin/").status_code == 302  # the admin is for staff only
    client.force_login(django_user_model.objects.create_user(username="newcomer", password="a-long-password-1"))
    assert client.get(suggestions, **IN_OUR_FRAME).status_code == 403 and client.get(done).status_code == 403


def test_the_api_refuses_to_store_for_a_reviewer(client, reviewer):
    client.force_login(reviewer)
    response = client.post("/api/dumps", own_fixture("agent-seed-incomplete.sse"), content_type="text/event-stream")
    assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
