"""Fetch presses are capped: an editor may have CITEVIEW_SNAPSHOT_FETCHES_PER_USER fetches waiting,
everyone together CITEVIEW_SNAPSHOT_FETCHES_PENDING. A press past either is answered with why, and
nothing is queued; a press for a page already waiting is the one fetch, never refused."""

from __future__ import annotations

import json

import pytest
from django.tasks import TaskResultStatus
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from citeview.dumps.services import dump_ingest
from citeview.snapshots.models import SnapshotFetch
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db

PAGES = [f"https://slow{number}.example/page" for number in range(6)]
CLAIM = " ".join(f"Claim number {number} is said here[{number + 1}]." for number in range(len(PAGES)))


@pytest.fixture
def fetching(settings, database_queue):
    """Fetching on, and its tasks left queued in the database, as when the workers are busy."""
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    return settings


@pytest.fixture
def dump(editor):
    return dump_ingest(raw=json.dumps(sonar_object(CLAIM, PAGES)).encode(), uploaded_by=editor)[0]


def press_fetch(client, dump, number: int) -> str:
    response = client.post(reverse("review:snapshot", args=[dump.pk, f"r0-c{number}"]), {"take": "fetch"}, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def test_a_flood_of_presses_by_one_editor_queues_up_to_the_cap_and_says_why(editor_client, dump, fetching):
    pages = [press_fetch(editor_client, dump, number) for number in range(6)]
    assert SnapshotFetch.objects.count() == 3 and DBTaskResult.objects.count() == 3
    assert "you have 3 pages waiting" not in pages[2]
    for page in pages[3:]:
        assert "you have 3 pages waiting to be fetched or read already, the most one editor may have" in page
        assert "Or upload or paste the page instead." in page
    japanese = editor_client.post(
        reverse("review:snapshot", args=[dump.pk, "r0-c4"]), {"take": "fetch"}, follow=True, HTTP_ACCEPT_LANGUAGE="ja"
    ).content.decode()
    assert "取得・読み込み待ちのページが既に 3 件" in japanese
    press_fetch(editor_client, dump, 0)  # a page already waiting: the same fetch, not refused
    assert SnapshotFetch.objects.count() == 3


def test_past_the_overall_cap_no_one_queues_more(client, editor, second_editor, dump, fetching):
    fetching.CITEVIEW_SNAPSHOT_FETCHES_PENDING = 4
    client.force_login(editor)
    for number in range(3):
        press_fetch(client, dump, number)
    client.force_login(second_editor)
    press_fetch(client, dump, 3)
    page = press_fetch(client, dump, 4)  # their first but one: everyone's cap is reached
    assert "4 pages are waiting to be fetched or read already, the most citeview queues for everyone at once" in page
    assert SnapshotFetch.objects.count() == 4 and DBTaskResult.objects.count() == 4


def test_a_fetch_whose_task_ended_without_it_holds_nobody_up(editor_client, dump, fetching):
    fetching.CITEVIEW_SNAPSHOT_FETCHES_PER_USER = 1
    press_fetch(editor_client, dump, 0)
    DBTaskResult.objects.update(status=TaskResultStatus.FAILED)  # the fetch is left "queued" for ever
    page = press_fetch(editor_client, dump, 1)
    assert "waiting to be fetched or read already" not in page and SnapshotFetch.objects.count() == 2
