"""Real workers as processes of their own: one killed mid-task loses nothing, one alive keeps its task
however long it runs (its heartbeat), the dumps' reads go before fetches, and on PostgreSQL two share
the queue."""

from __future__ import annotations

import json
import signal
import time
import zipfile
from datetime import timedelta
from io import BytesIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.tasks import TaskResultStatus
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from citeview.dumps.lost_work import requeue_lost_work
from citeview.dumps.models import Dump, ImportedEntry, WorkerHeartbeat
from citeview.dumps.services import dump_ingest
from citeview.snapshots.models import SnapshotFetch
from tests.builders import sonar_object
from tests.conftest import PROJECT_DIR
from tests.tasks.workers import start_worker, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def sonar(text: str, url: str = "https://example.jp/a") -> bytes:
    return json.dumps(sonar_object(text, [url]), ensure_ascii=False).encode()


def test_a_worker_killed_mid_task_loses_nothing_and_its_restart_finishes_the_dump(
    editor_client, settings, database_queue, blob_folder, tmp_path
):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    pause = tmp_path / "pause"
    pause.touch()  # the task waits, in the middle of its work, while this file exists
    editor_client.post("/", {"file": SimpleUploadedFile("big.json", sonar("途中で止まった回答[1]"))})
    dump = Dump.objects.get()
    first = start_worker("worker-1", blob_folder, pause_file=pause)
    try:
        wait_for(lambda: Dump.objects.get().read_state == "reading")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert Dump.objects.get().read_state == "reading"  # what the dead worker left
    assert DBTaskResult.objects.get().status == TaskResultStatus.RUNNING
    pause.unlink()
    again = start_worker("worker-1", blob_folder, "--batch")  # the same worker, restarted
    assert again.wait(timeout=120) == 0
    dump.refresh_from_db()
    assert dump.read_state == "ready" and dump.read_attempts == 2
    # The read, and the keeping of its pages it queued: both done.
    assert [task.status for task in DBTaskResult.objects.all()] == [TaskResultStatus.SUCCESSFUL] * 2
    assert "途中で止まった回答" in editor_client.get(dump.get_absolute_url()).content.decode()


def test_a_dump_whose_task_is_gone_is_read_again_by_the_next_worker(
    editor_client, settings, database_queue, blob_folder
):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    editor_client.post("/", {"file": SimpleUploadedFile("big.json", sonar("消えたタスク[1]"))})
    DBTaskResult.objects.all().delete()  # its task pruned, or never written
    worker = start_worker("worker-2", blob_folder, "--batch")
    assert worker.wait(timeout=120) == 0
    assert Dump.objects.get().read_state == "ready"


def running_read(editor_client, worker_id: str, started_ago: timedelta) -> DBTaskResult:
    """A large dump's read, marked as being run by ``worker_id`` since ``started_ago``."""
    editor_client.post("/", {"file": SimpleUploadedFile("big.json", sonar("長く読んでいる[1]"))})
    Dump.objects.update(read_state="reading")
    DBTaskResult.objects.update(
        status=TaskResultStatus.RUNNING, worker_ids=[worker_id], started_at=timezone.now() - started_ago
    )
    return DBTaskResult.objects.get()


def heartbeat(worker_id: str, silent_for: timedelta = timedelta(0), stopped: bool = False) -> None:
    beat_at = timezone.now() - silent_for
    WorkerHeartbeat.objects.update_or_create(
        worker_id=worker_id,
        defaults={"started_at": beat_at, "beat_at": beat_at, "stopped_at": timezone.now() if stopped else None},
    )


def test_a_running_task_is_taken_back_only_when_its_worker_went_silent_however_long_it_runs(
    editor_client, settings, database_queue
):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    settings.CITEVIEW_WORKER_SILENT_AFTER_SECONDS = 60
    running_read(editor_client, "busy", started_ago=timedelta(hours=3))
    heartbeat("busy", silent_for=timedelta(seconds=5))
    assert requeue_lost_work() == 0  # three hours, and its worker still beats: it is running still
    assert DBTaskResult.objects.get().status == TaskResultStatus.RUNNING
    assert Dump.objects.get().read_state == "reading"
    heartbeat("busy", silent_for=timedelta(minutes=2))  # silent for longer than the limit: dead
    assert requeue_lost_work() == 1
    assert DBTaskResult.objects.get().status == TaskResultStatus.READY


def test_a_worker_that_stopped_or_never_beat_has_its_task_taken_back(editor_client, settings, database_queue):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    settings.CITEVIEW_WORKER_SILENT_AFTER_SECONDS = 60
    task = running_read(editor_client, "stopped", started_ago=timedelta(seconds=5))
    heartbeat("stopped", stopped=True)
    assert requeue_lost_work() == 1  # it said it stopped: nothing of it runs
    # A worker from before heartbeats: given the silence limit from when its task started.
    DBTaskResult.objects.filter(pk=task.pk).update(status=TaskResultStatus.RUNNING, worker_ids=["older"])
    assert requeue_lost_work() == 0
    DBTaskResult.objects.filter(pk=task.pk).update(started_at=timezone.now() - timedelta(minutes=2))
    assert requeue_lost_work() == 1


def test_a_worker_beats_while_a_task_holds_it_and_falls_silent_when_killed(
    editor_client, settings, database_queue, blob_folder, tmp_path
):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    settings.CITEVIEW_WORKER_SILENT_AFTER_SECONDS = 3  # it beats every second
    pause = tmp_path / "pause"
    pause.touch()
    editor_client.post("/", {"file": SimpleUploadedFile("big.json", sonar("止まらない作業[1]"))})
    worker = start_worker("beating", blob_folder, pause_file=pause, CITEVIEW_WORKER_HEARTBEAT_SECONDS="1")
    try:
        wait_for(lambda: Dump.objects.get().read_state == "reading")
        DBTaskResult.objects.update(started_at=timezone.now() - timedelta(hours=1))  # as if it ran an hour
        time.sleep(3.5)  # longer than the silence limit: only its beats keep it alive
        assert requeue_lost_work() == 0
        assert (
            WorkerHeartbeat.objects.get(worker_id="beating").queues == "default,snapshots,webhooks"
        )  # every queue, unless told
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait()
    wait_for(lambda: requeue_lost_work() == 1, seconds=10)  # silent now: its task is taken back
    assert DBTaskResult.objects.get().status == TaskResultStatus.READY


def test_a_worker_stopped_cleanly_says_so(editor_client, settings, database_queue, blob_folder):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    editor_client.post("/", {"file": SimpleUploadedFile("big.json", sonar("一件読んでから止まる[1]"))})
    worker = start_worker("leaving", blob_folder)
    wait_for(lambda: Dump.objects.get().read_state == "ready")  # it runs its loop, its signals taken
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=60) == 0
    assert WorkerHeartbeat.objects.get(worker_id="leaving").stopped_at is not None


def test_a_worker_taking_both_queues_reads_a_dump_before_a_fetch_queued_earlier(
    editor_client, editor, settings, database_queue, blob_folder
):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    cited = dump_ingest(raw=sonar("取得する頁[1]", url="http://127.0.0.1:9/slow"), uploaded_by=editor)[0]
    editor_client.post(reverse("review:snapshot", args=[cited.pk, "r0-c0"]), {"take": "fetch"})
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    editor_client.post("/", {"file": SimpleUploadedFile("big.json", sonar("後から来た読み込み[1]"))})
    waiting = Dump.objects.get(read_state="queued")
    queued = {result.task_path.rsplit(".", 1)[1]: result for result in DBTaskResult.objects.all()}
    assert (queued["fetch_snapshot"].queue_name, queued["read_dump"].queue_name) == ("snapshots", "default")
    assert queued["read_dump"].priority > queued["fetch_snapshot"].priority
    first = start_worker("both", blob_folder, "--batch", "--max-tasks", "1")  # every queue, unless told
    assert first.wait(timeout=120) == 0
    waiting.refresh_from_db()
    assert waiting.read_state == "ready" and SnapshotFetch.objects.get().state == "queued"
    reads_only = start_worker("reads", blob_folder, "--batch", "--queue-name", "default")
    assert reads_only.wait(timeout=120) == 0 and SnapshotFetch.objects.get().state == "queued"
    fetches = start_worker("fetches", blob_folder, "--batch", "--queue-name", "snapshots")
    assert fetches.wait(timeout=120) == 0
    assert SnapshotFetch.objects.get().state == "refused"  # loopback, not allow-listed in the worker: at once


def test_two_workers_share_an_import_on_postgresql(editor_client, settings, database_queue, blob_folder):
    if connection.vendor == "sqlite":
        pytest.skip("SQLite lets one writer in at a time; several workers share the queue on PostgreSQL")
    settings.CITEVIEW_IMPORT_PIECE = 5
    archive = BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        for number in range(60):
            bundle.writestr(f"run/{number}.json", sonar(f"回答その{number}[1]"))
    response = editor_client.post("/imports/", {"file": SimpleUploadedFile("batch.zip", archive.getvalue())})
    assert response.status_code == 302 and DBTaskResult.objects.count() == 12
    workers = [start_worker(f"pg-{n}", blob_folder, "--batch") for n in (1, 2)]
    assert [worker.wait(timeout=300) for worker in workers] == [0, 0]
    assert ImportedEntry.objects.filter(outcome="stored").count() == 60 and Dump.objects.count() == 60
    ran = {worker for result in DBTaskResult.objects.all() for worker in result.worker_ids}
    assert ran == {"pg-1", "pg-2"}  # both took pieces
    assert all(len(result.worker_ids) == 1 for result in DBTaskResult.objects.all())  # none taken twice
    page = editor_client.get(response["Location"]).content.decode()
    assert "60 / 60" in page and "60 stored" in page


def test_a_real_worker_refuses_a_fetched_pdf_form_bomb_within_the_budget_and_leaves_no_child(
    editor_client, editor, settings, database_queue, blob_folder, monkeypatch
):
    """The worker (which has threads) reads the fetched page in a forkserver's child: the bomb that
    held a worker for 151 s is refused at the budget, the fetch ends refused, the worker exits."""
    from citeview.dumps.services import dump_ingest
    from citeview.snapshots.models import SnapshotFetch
    from tests.core.pdfs import pdf_form_bomb
    from tests.snapshots.pages import page_server

    settings.CITEVIEW_SNAPSHOT_FETCH = True
    for name, value in (("CITEVIEW_SNAPSHOT_FETCH", "true"), ("CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS", "127.0.0.0/8"),
                        ("CITEVIEW_SNAPSHOT_EXTRACT_SECONDS", "2")):  # fmt: skip
        monkeypatch.setenv(name, value)
    with page_server({"/report.pdf": (200, "application/pdf", pdf_form_bomb(), {})}) as base:
        url = f"{base}/report.pdf"
        dump = dump_ingest(raw=json.dumps(sonar_object("A claim[1].", [url])).encode(), uploaded_by=editor)[0]
        editor_client.post(f"/dumps/{dump.pk}/check/r0-c0/snapshot/", {"take": "fetch"})
        assert SnapshotFetch.objects.get().state == "queued"
        worker = start_worker("fetcher", blob_folder, "--batch")
        try:
            assert worker.wait(timeout=120) == 0
        finally:
            worker.kill()  # if it still runs: before issue 29 it read the bomb for minutes
            worker.wait()
    fetch = SnapshotFetch.objects.get()
    assert (fetch.state, fetch.error_code) == ("refused", "too_slow")
    assert DBTaskResult.objects.get(pk=fetch.task_id).status == TaskResultStatus.SUCCESSFUL
    wait_for(lambda: not orphaned_forkservers(), seconds=20)  # its forkserver ended with it


def orphaned_forkservers() -> list[int]:
    """This checkout's forkservers whose parent process has ended (adopted by init)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rpartition(")")[2].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
            cwd = (stat.parent / "cwd").resolve()
        except OSError:  # gone meanwhile
            continue
        if parent == 1 and b"forkserver" in command and cwd == PROJECT_DIR:
            found.append(int(stat.parent.name))
    return found
