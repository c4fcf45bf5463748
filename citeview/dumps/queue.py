"""Work a dead worker left: found and queued again. Every task of ours can safely run again
(``citeview.dumps.tasks``), so queueing one twice costs time, never data.

A worker killed mid-task (``kill -9``, a crash, a lost machine) leaves its task marked running for
ever: django-tasks-db cannot tell a slow worker from a dead one. Two rules find them:

- **A worker starting under its own id** (``manage.py worker --worker-id``; ``scripts/serve`` gives its one a stable id) knows that no
  task it is marked as running is still running: it is the only process with that id.
- **Any task running for longer than** ``CITEVIEW_TASK_LOST_AFTER_SECONDS`` (ten minutes; reading the
  largest dump takes seconds) is taken for lost, for workers that never come back. ``manage.py worker``
  checks this every few minutes.

Such a task is set ready again, the same row (so it keeps its id and counts its attempts). And a dump
still waiting to be read whose task is gone (its row pruned, or the task ended without reading it)
gets a new task.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from citeview.dumps.models import Dump, ReadState
from citeview.dumps.services import dump_retry_read

OUR_TASKS = "citeview."  # the module path every task of ours starts with


def requeue_lost_work(*, worker_id: str = "") -> int:
    """Queue again the tasks that lost their worker, and read again the dumps whose task is gone.
    ``worker_id``: the worker starting now, whose running tasks are all lost. Returns how many."""
    return _requeue_lost_tasks(worker_id) + _requeue_orphaned_dumps()


def _requeue_lost_tasks(worker_id: str) -> int:
    running = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, task_path__startswith=OUR_TASKS)
    long_ago = timezone.now() - timedelta(seconds=settings.CITEVIEW_TASK_LOST_AFTER_SECONDS)
    lost = [
        result.pk
        for result in running.only("pk", "started_at", "worker_ids")
        if (worker_id and result.worker_ids[-1:] == [worker_id])
        or (result.started_at is not None and result.started_at < long_ago)
    ]
    # Only if still running: a task that finished meanwhile is left finished.
    return DBTaskResult.objects.filter(pk__in=lost, status=TaskResultStatus.RUNNING).update(
        status=TaskResultStatus.READY
    )


def _requeue_orphaned_dumps() -> int:
    waiting = Dump.objects.filter(read_state__in=[ReadState.QUEUED, ReadState.READING]).only(
        "pk", "read_state", "read_task_id"
    )
    alive = {TaskResultStatus.READY, TaskResultStatus.RUNNING}
    task_states = dict(
        DBTaskResult.objects.filter(pk__in=[d.read_task_id for d in waiting if d.read_task_id]).values_list(
            "pk", "status"
        )
    )
    orphaned = [d for d in waiting if task_states.get(_uuid(d.read_task_id)) not in alive]
    for dump in orphaned:
        dump_retry_read(dump=dump)
    return len(orphaned)


def _uuid(text: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(text)
    except ValueError:
        return None
