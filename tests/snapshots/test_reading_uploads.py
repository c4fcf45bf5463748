"""Uploaded and pasted pages are read by a worker, as fetched ones are (issue 42, finding 2): the request
stores the bytes and answers at once, the panel says it is reading and waits, and the reading ends in
a snapshot or a refusal said in words. Uploads and pastes wait in the fetches' queue, under their cap.
No web request parses a PDF or an HTML page."""

from __future__ import annotations

import json
from typing import Any

import pypdf
import pytest
import trafilatura
from django.core.files.uploadedfile import SimpleUploadedFile
from django.tasks import TaskResultStatus
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from citeview.core.common import limited
from citeview.core.evidence import extract
from citeview.dumps.blobs import blob_read
from citeview.dumps.services import dump_ingest
from citeview.snapshots import services, worker
from citeview.snapshots.kept_passages import snapshot_passages_find
from citeview.snapshots.models import Snapshot, SnapshotFetch
from citeview.snapshots.worker import snapshot_read_run
from tests.builders import sonar_object
from tests.core.pdfs import pdf_with_filter, pdf_with_pages
from tests.snapshots.pages import POPULATION_PAGE

pytestmark = pytest.mark.django_db

TOKYO = "https://www.metro.tokyo.example/population"
PAGES = [f"https://stats{number}.example/page" for number in range(5)]
CLAIM = "As of January 2024, the population of Tokyo was about 14.1 million[1]."
SENTENCE = "As of January 1, 2024, the population of Tokyo was estimated at 13.9 million."


@pytest.fixture
def dump(editor):
    return dump_ingest(raw=json.dumps(sonar_object(CLAIM, [TOKYO])).encode(), uploaded_by=editor)[0]


def take(client, dump, key: str = "r0-c0", **data: Any) -> str:
    response = client.post(reverse("review:snapshot", args=[dump.pk, key]), data, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def status(client, dump, key: str = "r0-c0") -> dict[str, Any]:
    return client.get(reverse("review:snapshot_status", args=[dump.pk, key])).json()


def panel(client, dump, key: str = "r0-c0", **headers: str) -> str:
    return client.get(reverse("review:item", args=[dump.pk, key]), **headers).content.decode()


def upload(name: str, content: bytes, content_type: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type=content_type)


def test_an_upload_is_stored_and_queued_the_panel_says_reading_and_then_shows_the_passage(
    editor_client, dump, database_queue
):
    page = take(editor_client, dump, take="upload", page=upload("tokyo.html", POPULATION_PAGE, "text/html"))
    assert "Reading the uploaded page…" in page and "data-status-url" in page and "Snapshot kept" not in page
    assert not Snapshot.objects.exists()  # not read in the request
    reading = SnapshotFetch.objects.get()
    assert (reading.method, reading.state, reading.filename) == ("upload", "queued", "tokyo.html")
    assert blob_read(reading.content_sha256) == POPULATION_PAGE  # stored, as a fetch stores what it downloads
    task = DBTaskResult.objects.get()
    assert (task.task_path, task.queue_name) == ("citeview.snapshots.tasks.read_snapshot", "snapshots")
    assert status(editor_client, dump) == {"state": "queued", "pending": True, "label": "waiting for a worker"}

    assert snapshot_read_run(fetch_id=reading.pk, task_id=str(task.pk)) == "done"  # what the worker runs
    snapshot = Snapshot.objects.get()
    assert (snapshot.method, snapshot.filename, snapshot.source_type) == ("upload", "tokyo.html", "html")
    assert snapshot.taken_at == reading.requested_at
    snapshot_passages_find(snapshot_id=snapshot.pk)  # the passages, queued in turn
    assert status(editor_client, dump)["pending"] is False
    shown = panel(editor_client, dump)
    assert '<mark class="cv-number-diff">13.9 million</mark>' in shown and "Reading the uploaded page" not in shown


def test_a_paste_waits_for_a_worker_too_and_the_panel_says_so_in_japanese(editor_client, dump, database_queue):
    page = take(editor_client, dump, take="paste", text=SENTENCE)
    assert "Reading the pasted text…" in page and not Snapshot.objects.exists()
    assert SnapshotFetch.objects.get().method == "paste"
    japanese = panel(editor_client, dump, HTTP_ACCEPT_LANGUAGE="ja")
    assert "貼り付けられた本文を読み込んでいます…" in japanese and "ワーカーの順番待ち" in japanese
    assert '<span class="cv-fetch-late" hidden>読み込みに予想より時間がかかっています' in japanese


def test_the_web_request_never_parses_a_page(editor_client, dump, database_queue, monkeypatch):
    """Every way into a parser raises in the request; the three ways of taking a page still answer, and
    a worker reads them afterwards."""
    calls: list[str] = []

    def parsed_in_the_request(name: str) -> Any:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            raise AssertionError(f"{name} was called in a web request")

        return refuse

    for module, name in [
        (worker, "extract_text"),
        (extract, "extract_text"),
        (extract, "_read_in_process"),
        (extract, "_extract_html"),
        (extract, "_extract_pdf"),
        (limited, "run_limited"),
        (pypdf, "PdfReader"),
        (trafilatura, "extract"),
    ]:
        monkeypatch.setattr(module, name, parsed_in_the_request(f"{module.__name__}.{name}"))
    pdf = pdf_with_pages(["Annual report.", SENTENCE])
    take(editor_client, dump, take="upload", page=upload("report.pdf", pdf, "application/pdf"))
    take(editor_client, dump, take="upload", page=upload("tokyo.html", POPULATION_PAGE, "text/html"))
    take(editor_client, dump, take="paste", text=SENTENCE)
    assert calls == []
    assert [r.method for r in SnapshotFetch.objects.order_by("pk")] == ["upload", "upload", "paste"]
    monkeypatch.undo()
    assert [snapshot_read_run(fetch_id=r.pk) for r in SnapshotFetch.objects.order_by("pk")] == ["done"] * 3
    assert sorted(Snapshot.objects.values_list("extraction__source_type", flat=True)) == ["html", "pdf", "text"]


def test_uploads_and_pastes_share_the_cap_and_the_queue_of_fetches(client, editor, database_queue, settings):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    claims = " ".join(f"Claim {number} is said here[{number + 1}]." for number in range(len(PAGES)))
    dump = dump_ingest(raw=json.dumps(sonar_object(claims, PAGES)).encode(), uploaded_by=editor)[0]
    client.force_login(editor)
    take(client, dump, "r0-c0", take="fetch")
    take(client, dump, "r0-c1", take="upload", page=upload("a.txt", b"A saved page.", "text/plain"))
    take(client, dump, "r0-c2", take="paste", text="A pasted page.")
    refusal = (
        "you have 3 pages waiting to be fetched or read already, the most one editor may have. Wait for one to finish."
    )
    assert refusal in take(client, dump, "r0-c3", take="paste", text="Another page.")
    assert refusal in take(client, dump, "r0-c3", take="upload", page=upload("b.txt", b"Another.", "text/plain"))
    assert refusal in take(client, dump, "r0-c4", take="fetch")
    assert "upload or paste" not in take(client, dump, "r0-c3", take="paste", text="Another page.")
    assert SnapshotFetch.objects.count() == 3
    assert sorted(DBTaskResult.objects.values_list("queue_name", "task_path")) == [
        ("snapshots", "citeview.snapshots.tasks.fetch_snapshot"),
        ("snapshots", "citeview.snapshots.tasks.read_snapshot"),
        ("snapshots", "citeview.snapshots.tasks.read_snapshot"),
    ]


def test_a_fetch_and_an_upload_of_one_page_both_wait_and_the_same_upload_twice_is_one(
    editor_client, dump, database_queue, settings
):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    for _ in range(2):
        take(editor_client, dump, take="upload", page=upload("a.txt", SENTENCE.encode(), "text/plain"))
    take(editor_client, dump, take="fetch")
    readings = SnapshotFetch.objects.order_by("pk")
    assert [(r.method, r.state) for r in readings] == [("upload", "queued"), ("fetch", "queued")]


def test_an_upload_a_worker_cannot_read_ends_refused_and_the_panel_says_why(editor_client, dump, database_queue):
    take(editor_client, dump, take="upload", page=upload("report.pdf", pdf_with_filter(b"/Foo"), "application/pdf"))
    reading = SnapshotFetch.objects.get()
    assert snapshot_read_run(fetch_id=reading.pk) == "refused"
    reading.refresh_from_db()
    assert (reading.error_code, reading.finished_at is not None) == ("damaged_pdf", True)
    assert status(editor_client, dump) == {"state": "refused", "pending": False, "label": "refused"}
    shown = panel(editor_client, dump)
    assert "The snapshot was not kept: The PDF cannot be read (" in shown
    assert "Upload another copy of the page, or paste its text." in shown and "data-status-url" not in shown
    assert "スナップショットは保存されませんでした：PDF を読み込めません" in panel(
        editor_client, dump, HTTP_ACCEPT_LANGUAGE="ja"
    )
    assert not Snapshot.objects.exists()


def test_a_reading_whose_task_is_gone_ends_refused_when_the_page_is_taken_again(editor_client, dump, database_queue):
    take(editor_client, dump, take="paste", text=SENTENCE)
    lost = SnapshotFetch.objects.get()
    DBTaskResult.objects.update(status=TaskResultStatus.FAILED)  # its worker died, its task is over
    take(editor_client, dump, take="paste", text=SENTENCE + " Updated.")
    lost.refresh_from_db()
    assert (lost.state, lost.error_code) == ("refused", "lost")
    assert lost.error["template"].startswith("The reading stopped before it was done")
    assert SnapshotFetch.objects.latest("pk").state == "queued"


def test_a_reading_whose_task_died_is_said_to_have_stopped_not_left_reading(editor_client, dump, database_queue):
    """A worker that died outside the reading's own error handling leaves it marked "reading": the panel
    and its status say it stopped (the row is ended only when the page is next taken: views only read)."""
    take(editor_client, dump, take="upload", page=upload("tokyo.html", POPULATION_PAGE, "text/html"))
    assert status(editor_client, dump)["pending"] is True
    SnapshotFetch.objects.update(state="reading")
    DBTaskResult.objects.update(status=TaskResultStatus.FAILED)
    assert status(editor_client, dump) == {"state": "refused", "pending": False, "label": "refused"}
    shown = panel(editor_client, dump)
    assert "The reading stopped before it was done; upload or paste the page again to try once more." in shown
    assert "Reading the uploaded page" not in shown and "data-status-url" not in shown
    assert "読み込みが完了する前に止まりました" in panel(editor_client, dump, HTTP_ACCEPT_LANGUAGE="ja")
    assert SnapshotFetch.objects.get().state == "reading"  # nothing written by a GET


def test_a_reading_that_fails_in_an_unforeseen_way_ends_refused_with_its_kind(
    editor_client, dump, database_queue, blob_folder
):
    take(editor_client, dump, take="paste", text=SENTENCE)
    reading = SnapshotFetch.objects.get()
    for blob in blob_folder.rglob(reading.content_sha256):
        blob.unlink()  # the blob storage lost it
    assert snapshot_read_run(fetch_id=reading.pk) == "refused"
    reading.refresh_from_db()
    assert (reading.error_code, reading.finished_at is not None) == ("failed", True)
    assert "The snapshot was not kept: The page could not be read: BlobError." in panel(editor_client, dump)
    japanese = panel(editor_client, dump, HTTP_ACCEPT_LANGUAGE="ja")
    assert "スナップショットは保存されませんでした：ページを読み込めませんでした（BlobError）。" in japanese


def test_a_request_written_meanwhile_by_another_upload_is_not_taken_for_lost(
    editor_client, dump, database_queue, monkeypatch
):
    """Two uploads of one page at once: the second read the waiting requests before the first was
    written, and took the first for one whose task was gone (two of three runs of the bomb test)."""
    take(editor_client, dump, take="paste", text=SENTENCE)
    monkeypatch.setattr(services, "fetches_pending", lambda: [])  # read before the first was written
    take(editor_client, dump, take="paste", text=SENTENCE + " Updated.")
    assert [r.state for r in SnapshotFetch.objects.order_by("pk")] == ["queued", "queued"]
