"""A dump waiting for a worker, being read, or that could not be read has no result yet: every page,
export and API answer says so rather than showing nothing as if it were an empty answer, or failing."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.test import override_settings
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.reading import dump_read_begin
from citeview.dumps.services import dump_ingest, dump_organise
from citeview.review.selectors import dump_check_items
from citeview.review.services import editors_assign
from tests.conftest import own_fixture
from tests.tasks.test_reading import big_dump, run_the_queue

pytestmark = pytest.mark.django_db

JA = {"HTTP_ACCEPT_LANGUAGE": "ja"}
STATES = ["failed", "queued", "reading"]  # failed first: making it runs the queue


@pytest.fixture(autouse=True)
def read_in_task(settings, database_queue):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100


def unread_dump(state: str, editor) -> Dump:
    """A dump in ``state`` as the services leave it: stored and queued, begun by a worker, or failed."""
    raw = b'{"choices": [' + b" " * 200 if state == "failed" else big_dump()
    dump, _ = dump_ingest(raw=raw, uploaded_by=editor, filename=f"{state}.json")
    if state == "reading":
        dump_read_begin(pk=dump.pk, task_id=dump.read_task_id)
    elif state == "failed":
        run_the_queue()
    dump.refresh_from_db()
    assert dump.read_state == state
    return dump


def read_dump_of(editor) -> Dump:
    with override_settings(CITEVIEW_READ_IN_TASK_ABOVE=1024 * 1024):  # read in the request
        dump, _ = dump_ingest(raw=own_fixture("claude-ja-documents-exchange.json"), uploaded_by=editor)
    assert dump.is_ready
    return dump


def row_of(page: str, dump: Dump) -> str:
    start = page.index(f'href="{dump.get_absolute_url()}"')
    return page[start : page.index("</tr>", start)]


@pytest.mark.parametrize("state", STATES)
def test_the_list_shows_a_chip_instead_of_counts(editor_client, editor, state):
    dump = unread_dump(state, editor)
    expected = {"failed": ("Could not be read", "読み込めませんでした")}.get(state, ("Reading…", "読み込み中…"))
    for headers, label in zip(({}, JA), expected, strict=True):
        row = row_of(editor_client.get("/", **headers).content.decode(), dump)
        assert label in row and "cv-read-chip" in row
        assert "<progress" not in row and "0 / 0" not in row and "incomplete" not in row


def test_a_read_dump_beside_them_keeps_its_counts(editor_client, editor):
    unread_dump("queued", editor)
    dump = read_dump_of(editor)
    row = row_of(editor_client.get("/").content.decode(), dump)
    assert "cv-read-chip" not in row and f"/ {dump.checkable_item_count}" in row


@pytest.mark.parametrize("state", STATES)
def test_every_page_of_its_result_sends_the_reader_to_its_progress_page(editor_client, editor, state):
    dump = unread_dump(state, editor)
    pages = [
        ("get", reverse("review:start", args=[dump.pk])),
        ("get", reverse("review:item", args=[dump.pk, "r0-c0"])),
        ("get", reverse("review:done", args=[dump.pk])),
        ("get", reverse("review:report", args=[dump.pk])),
        ("get", reverse("review:report_md", args=[dump.pk])),
        ("get", reverse("review:report_json", args=[dump.pk])),
        ("get", reverse("pages:normalized", args=[dump.pk])),
        ("post", reverse("review:item", args=[dump.pk, "r0-c0"])),
        ("post", reverse("review:undo", args=[dump.pk])),
        ("post", reverse("review:not_claims", args=[dump.pk])),
        ("post", reverse("review:comment", args=[dump.pk])),
    ]
    for method, address in pages:
        response = getattr(editor_client, method)(address)
        assert response.status_code == 302 and response["Location"] == dump.get_absolute_url(), address
    page = editor_client.get(reverse("review:start", args=[dump.pk]), follow=True).content.decode()
    assert "nothing to check" not in page and 'class="cv-card cv-reading"' in page


def test_the_pages_of_an_unknown_dump_still_answer_404(editor_client):
    assert editor_client.get(reverse("review:start", args=[999])).status_code == 404
    assert editor_client.get(reverse("review:report", args=[999])).status_code == 404


@pytest.mark.parametrize("state", STATES)
def test_the_queue_lists_an_assigned_dump_apart_until_it_is_read(editor_client, editor, state):
    dump = unread_dump(state, editor)
    dump_organise(dump=dump, title="大きな回答", tag_names=[])
    editors_assign(dump=dump, editors=[editor], by=editor)
    expected = "Could not be read" if state == "failed" else "Reading…"
    page = editor_client.get(reverse("review:queue")).content.decode()
    assert "Nothing assigned to you is waiting to be checked." in page  # nothing to check yet
    unread = page[page.index("Assigned to you, not read yet") :]
    assert "大きな回答" in unread and expected in unread and f'href="{dump.get_absolute_url()}"' in unread
    assert reverse("review:start", args=[dump.pk]) not in page
    japanese = editor_client.get(reverse("review:queue"), **JA).content.decode()
    assert "担当のうち、まだ読み込まれていないもの" in japanese and "ダンプ" not in japanese


def test_once_read_the_dump_moves_into_the_queue_to_check(editor_client, editor):
    dump = unread_dump("queued", editor)
    dump_organise(dump=dump, title="大きな回答", tag_names=[])
    editors_assign(dump=dump, editors=[editor], by=editor)
    run_the_queue()
    page = editor_client.get(reverse("review:queue")).content.decode()
    assert reverse("review:start", args=[dump.pk]) in page and "not read yet" not in page


def test_the_figures_count_no_dump_that_is_not_read(editor_client, editor):
    read_dump_of(editor)
    for state in STATES:
        unread_dump(state, editor)
    figures = editor_client.get(reverse("review:figures_json")).json()
    assert figures["overall"]["dumps"] == 1
    assert editor_client.get(reverse("review:figures")).status_code == 200


def test_the_verdict_exports_skip_dumps_not_read(editor_client, editor):
    for state in STATES:
        unread_dump(state, editor)
    read = read_dump_of(editor)
    key = dump_check_items(read)[0].key
    saved = editor_client.post(reverse("review:item", args=[read.pk, key]), {"version": "0", "verdict": "complete"})
    assert saved.status_code == 302
    rows = list(
        csv.DictReader(io.StringIO(b"".join(editor_client.get("/verdicts.csv").streaming_content).decode("utf-8-sig")))
    )
    lines = b"".join(editor_client.get("/verdicts.jsonl").streaming_content).decode().splitlines()
    assert {row["dump_id"] for row in rows} == {str(read.pk)}
    assert {json.loads(line)["dump_id"] for line in lines} == {read.pk}


@pytest.mark.parametrize("state", STATES)
def test_the_api_says_where_each_stands(editor_api, editor, state):
    dump = unread_dump(state, editor)
    listed = editor_api.get("/api/dumps").json()["results"][0]
    assert listed["state"] == state and listed["item_count"] == 0
    item = editor_api.get(f"/api/dumps/{dump.pk}")
    assert item.status_code == 202 and item.json()["state"] == state and "responses" not in item.json()
    for address in [f"/api/dumps/{dump.pk}/checks", f"/api/dumps/{dump.pk}/report", f"/api/dumps/{dump.pk}/report.md"]:
        answer = editor_api.get(address)
        assert answer.status_code == 409 and answer.json()["error"]["state"] == state, address
    message = editor_api.get(f"/api/dumps/{dump.pk}/checks").json()["error"]["message"]
    assert ("could not be read" in message) == (state == "failed")
    assert editor_api.get("/api/metrics").json()["overall"]["dumps"] == 0
