"""Real workers as processes of their own: one killed mid-task loses nothing, and on PostgreSQL two
share the queue."""

from __future__ import annotations

import json
import signal
import zipfile
from io import BytesIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from citeview.dumps.models import Dump, ImportedEntry
from tests.builders import sonar_object
from tests.tasks.workers import start_worker, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def sonar(text: str) -> bytes:
    return json.dumps(sonar_object(text, ["https://example.jp/a"]), ensure_ascii=False).encode()


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
    assert DBTaskResult.objects.get().status == TaskResultStatus.SUCCESSFUL
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


def test_a_task_running_for_longer_than_any_should_is_queued_again(editor_client, settings, database_queue):
    from datetime import timedelta

    from django.utils import timezone

    from citeview.dumps.queue import requeue_lost_work

    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100
    editor_client.post("/", {"file": SimpleUploadedFile("big.json", sonar("長すぎる[1]"))})
    running = {"status": TaskResultStatus.RUNNING, "worker_ids": ["gone"]}
    DBTaskResult.objects.update(**running, started_at=timezone.now() - timedelta(minutes=1))
    assert requeue_lost_work() == 0  # a minute is not long: it may be running still
    DBTaskResult.objects.update(started_at=timezone.now() - timedelta(hours=1))
    assert requeue_lost_work() == 1
    assert DBTaskResult.objects.get().status == TaskResultStatus.READY


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
