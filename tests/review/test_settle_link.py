"""The header's link to the disagreements waiting (issue 41): leads and staff, who may settle, see it
on every page with how many wait; no one else sees it, and no one else's page asks for the number."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from citeview.review.services import check_save
from tests.conftest import own_fixture, user_with_role

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"  # [2] with two URLs (r0-c0-1, r0-c0-2), [9] (r0-c1)
SETTLE_LINK = re.compile(r'<a class="cv-settle-link[^"]*" href="/settle/"[^>]*>(.*?)</a>', re.S)


@pytest.fixture
def two_disagreements(editor, second_editor) -> Dump:
    """hanako and taro give different verdicts on two items, and the same one on a third."""
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]
    items = {item.key: item for item in dump_check_items(dump)}
    verdicts = {"r0-c0-1": ("complete", "none"), "r0-c0-2": ("complete", "complete"), "r0-c1": ("partial", "none")}
    for key, pair in verdicts.items():
        for version, (person, verdict) in enumerate(zip((editor, second_editor), pair, strict=True)):
            values = {"verdict": verdict, "subject": "", "time": "", "conditions": "", "evidence_quote": "", "note": ""}
            check_save(
                dump=dump, item=items[key], editor=person, values=values, statement_values={}, seen_version=version
            )
    return dump


def settle_link(client, url: str = "/", language: str = "en") -> str | None:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    found = SETTLE_LINK.search(response.content.decode())
    return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split()) if found else None


@pytest.mark.parametrize(("language", "words"), [("en", "⚖ Settle 2"), ("ja", "⚖ 裁定 2")])
def test_a_lead_sees_the_settle_link_with_the_number_waiting_on_every_page(
    client, lead, two_disagreements, language, words
):
    client.force_login(lead)
    for url in ("/", reverse("review:figures"), reverse("review:queue"), two_disagreements.get_absolute_url()):
        assert settle_link(client, url, language) == words, url


def test_the_number_is_what_waits_a_settled_disagreement_leaves_it(client, lead, two_disagreements):
    client.force_login(lead)
    body = {"settle-version": "2", "settle-verdict": "none", "settle-reason": "出典を確認した"}
    assert client.post(reverse("review:settle", args=[two_disagreements.pk, "r0-c1"]), body).status_code == 302
    assert settle_link(client) == "⚖ Settle 1"


def test_staff_see_it_too_for_they_may_settle(client, django_user_model, two_disagreements):
    staff = user_with_role(django_user_model, "kanri", "reviewer")
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    assert settle_link(client) == "⚖ Settle 2"


def test_with_nothing_waiting_a_lead_still_has_the_way_there(client, lead):
    client.force_login(lead)
    assert settle_link(client) == "⚖ Settle 0"


@pytest.mark.parametrize("role", ["editor", "reviewer"])
def test_no_one_else_sees_it_nor_pays_a_query_for_it(client, django_user_model, two_disagreements, monkeypatch, role):
    def never(*args, **kwargs):
        raise AssertionError("the number waiting was asked for a user who may not settle")

    monkeypatch.setattr("citeview.review.selectors.disputes_waiting", never)
    client.force_login(user_with_role(django_user_model, "dareka", role))
    for url in ("/", reverse("review:figures"), two_disagreements.get_absolute_url()):
        assert settle_link(client, url) is None, url


def test_the_signed_out_login_page_has_no_settle_link(client, monkeypatch):
    monkeypatch.setattr("citeview.review.selectors.disputes_waiting", lambda *a, **k: pytest.fail("asked"))
    response = client.get(reverse("login"))
    assert response.status_code == 200 and "cv-settle-link" not in response.content.decode()
