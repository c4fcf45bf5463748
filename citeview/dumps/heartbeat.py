"""Which workers are alive, and so which queued or running tasks still have someone to run them.

django-tasks-db records the workers that claimed a task (``DBTaskResult.worker_ids``) but cannot tell a
worker that is slow from one that is dead. ``manage.py worker`` writes a ``WorkerHeartbeat`` every
``CITEVIEW_WORKER_HEARTBEAT_SECONDS`` from a thread of its own (so a task that holds its worker for
minutes does not silence it), and marks it stopped when it stops cleanly. A worker is dead once it
stopped or has been silent for longer than ``CITEVIEW_WORKER_SILENT_AFTER_SECONDS``.

A worker with no heartbeat at all (one started before heartbeats existed, or whose row was pruned) is
given the same silence from when its task started: such a task is taken back only once it has run for
longer than the limit.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from citeview.dumps.models import WorkerHeartbeat

# A stopped or silent worker's row is removed after this long (workers started without --worker-id
# get a new id each time): by then no task of it is left running that its row would explain.
FORGET_AFTER = timedelta(days=7)


def worker_started(*, worker_id: str, queues: list[str]) -> None:
    """A worker starting under ``worker_id`` (a restart keeps its row, beating again)."""
    now = timezone.now()
    WorkerHeartbeat.objects.update_or_create(
        worker_id=worker_id,
        defaults={"started_at": now, "beat_at": now, "stopped_at": None, "queues": ",".join(queues)[:255]},
    )
    WorkerHeartbeat.objects.filter(beat_at__lt=now - FORGET_AFTER).delete()


def worker_beat(*, worker_id: str) -> None:
    """The worker is alive. A worker marked stopped stays stopped (a beat late after the stop)."""
    WorkerHeartbeat.objects.filter(worker_id=worker_id, stopped_at=None).update(beat_at=timezone.now())


def worker_stopped(*, worker_id: str) -> None:
    """The worker stops cleanly: it runs nothing any more, so whatever it was running is lost at once."""
    WorkerHeartbeat.objects.filter(worker_id=worker_id).update(stopped_at=timezone.now())


def silent_since() -> datetime:
    """A worker whose last beat is older than this is dead."""
    return timezone.now() - timedelta(seconds=settings.CITEVIEW_WORKER_SILENT_AFTER_SECONDS)


class Liveness:
    """Which of some workers are alive, read at once (one query, however many)."""

    def __init__(self, worker_ids: set[str]) -> None:
        self.since = silent_since()
        rows = list(
            WorkerHeartbeat.objects.filter(worker_id__in=worker_ids).values_list("worker_id", "beat_at", "stopped_at")
        )
        self.known = {worker_id for worker_id, _, _ in rows}
        self.beating = {
            worker_id for worker_id, beat_at, stopped_at in rows if stopped_at is None and beat_at >= self.since
        }

    def runs(self, task: DBTaskResult[Any, Any]) -> bool:
        """Whether a running task's worker (the last to claim it) is alive to finish it."""
        worker_id = last_worker(task)
        if worker_id in self.known:
            return worker_id in self.beating
        # Never beat: an older worker, alive as long as its task is younger than the silence limit.
        return task.started_at is not None and task.started_at >= self.since


def last_worker(task: DBTaskResult[Any, Any]) -> str:
    """The worker that claimed the task last: the one running it, if it runs."""
    return task.worker_ids[-1] if task.worker_ids else ""


def tasks_pending(task_ids: Iterable[str]) -> set[uuid.UUID]:
    """Of the tasks named, those that will still run or finish: waiting for a worker, or running on a
    worker that is alive. A task finished, gone (pruned, or never written) or left by a dead worker is
    not among them. Two queries, however many are named."""
    pks = {pk for pk in map(task_uuid, task_ids) if pk is not None}
    tasks = list(
        DBTaskResult.objects.filter(pk__in=pks, status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]).only(
            "pk", "status", "started_at", "worker_ids"
        )
    )
    liveness = Liveness({last_worker(task) for task in tasks if task.status == TaskResultStatus.RUNNING})
    return {task.pk for task in tasks if task.status == TaskResultStatus.READY or liveness.runs(task)}


def task_is_pending(task_id: str) -> bool:
    """Whether the task ``task_id`` will still run or finish (``tasks_pending``)."""
    pk = task_uuid(task_id)
    return pk is not None and pk in tasks_pending([task_id])


def task_uuid(task_id: str) -> uuid.UUID | None:
    """A task's id as our rows keep it (text), as django-tasks-db's rows do; None for no task."""
    try:
        return uuid.UUID(task_id)
    except ValueError:
        return None
