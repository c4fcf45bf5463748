"""Every page that shows a time writes it the same way (``citeview/formats``): 2026/12/01 15:21 JST in
Japanese, 2026-12-01 15:21 JST in English, never 12/01/2026 3:17 p.m. nor UTC with microseconds."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.urls import reverse

from citeview.accounts.models import ApiToken
from citeview.accounts.tokens import token_create
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.models import Check, Comment
from citeview.review.services import comment_add
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

AT = datetime(2026, 12, 1, 6, 21, 42, 123456, tzinfo=UTC)  # 15:21 in Tokyo, the default TIME_ZONE
SHOWN = {"ja": "2026/12/01 15:21 JST", "en": "2026-12-01 15:21 JST"}
TIME_ELEMENT = re.compile(r"<time\b[^>]*>(.*?)</time>", re.S)
# The list and the viewer's header still add the zone themselves (`{{ t|date:"T" }}`) after
# SHORT_DATETIME_FORMAT, which now carries it: VIEWER's templates/pages/home.html and detail.html.


@pytest.fixture
def everything_at_one_time(client, editor):
    dump = dump_ingest(raw=own_fixture("agent-seed-incomplete.sse"), uploaded_by=editor)[0]
    client.force_login(editor)
    body = {"version": "0", "verdict": "complete", "verification_worthy": "yes"}
    assert client.post(reverse("review:item", args=[dump.pk, "r0-c0-1"]), body).status_code == 302
    comment_add(dump=dump, author=editor, text="確認済み", item_key="r0-c0-1")
    comment_add(dump=dump, author=editor, text="全体の確認")
    token_create(user=editor, name="pipeline", lifetime=timedelta(days=30))
    Dump.objects.update(created_at=AT)
    Check.objects.update(created_at=AT, updated_at=AT)
    with connection.cursor() as cursor:  # a revision is never changed by citeview: the test writes the time itself
        cursor.execute("UPDATE review_checkrevision SET created_at = %s", [AT])
    Comment.objects.update(created_at=AT)
    ApiToken.objects.update(created_at=AT, expires_at=AT, last_used_at=AT)
    return dump


PAGES = {
    "list": lambda dump: reverse("pages:home"),
    "viewer": lambda dump: dump.get_absolute_url(),
    "check history and comments": lambda dump: reverse("review:item", args=[dump.pk, "r0-c0-1"]),
    "report": lambda dump: reverse("review:report", args=[dump.pk]),
    "account": lambda dump: reverse("account"),
}


@pytest.mark.parametrize("language", ["ja", "en"])
@pytest.mark.parametrize(
    "name",
    [
        "list",
        "viewer",
        "check history and comments",
        "report",
        "account",
    ],
)
def test_every_time_on_the_page_is_written_one_way(client, everything_at_one_time, name, language):
    html = client.get(PAGES[name](everything_at_one_time), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    times = [" ".join(t.split()) for t in TIME_ELEMENT.findall(html)]
    assert times, f"{name} shows no time"
    assert set(times) == {SHOWN[language]}, times


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_markdown_report_writes_its_times_as_the_pages_do(client, everything_at_one_time, language):
    url = reverse("review:report_md", args=[everything_at_one_time.pk])
    text = client.get(url, {"lang": language}).content.decode()
    assert SHOWN[language] in text and "06:21" not in text and ".123456" not in text
