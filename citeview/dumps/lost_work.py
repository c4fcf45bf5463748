"""Work a dead worker left: found and queued again. Every task of ours can safely run again
(``citeview.dumps.tasks``), so queueing one twice costs time, never data; but a fetch run twice is a
page fetched twice, so a task that is merely slow is never taken back.

A worker killed mid-task (``kill -9``, a crash, a lost machine) leaves its task marked running for
ever: django-tasks-db cannot tell a slow worker from a dead one, and workers' heartbeats
(``citeview.dumps.heartbeat``) can. A running task is lost when:

- **its worker starts again under its own id** (``manage.py worker --worker-id``; ``scripts/serve``
  gives its one a stable id): it is the only process with that id, so nothing it is marked as running
  still runs;
- **its worker is dead**: stopped, or silent for longer than ``CITEVIEW_WORKER_SILENT_AFTER_SECONDS``
  (or, for a worker that never beat, its task started longer ago than that). ``manage.py worker``
  looks for these as it starts and once per silence limit while it runs.

Such a task is set ready again, the same row (so it keeps its id and counts its attempts). And a dump
still waiting to be read whose task is gone (its row pruned, or the task ended without reading it)
gets a new task.
"""

from __future__ import annotations

import uuid

from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from citeview.dumps.heartbeat import Liveness, last_worker, task_uuid
from citeview.dumps.models import Dump, ReadState
from citeview.dumps.reading import dump_retry_read

OUR_TASKS = "citeview."  # the module path every task of ours starts with


def requeue_lost_work(*, worker_id: str = "") -> int:
    """Queue again the tasks that lost their worker, and read again the dumps whose task is gone.
    ``worker_id``: the worker starting now, whose running tasks are all lost. Returns how many."""
    return _requeue_lost_tasks(worker_id) + _requeue_orphaned_dumps()


def _requeue_lost_tasks(worker_id: str) -> int:
    running = list(
        DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, task_path__startswith=OUR_TASKS).only(
            "pk", "started_at", "worker_ids"
        )
    )
    liveness = Liveness({last_worker(result) for result in running})
    lost = [
        result.pk for result in running if (worker_id and last_worker(result) == worker_id) or not liveness.runs(result)
    ]
    # Only if still running: a task that finished meanwhile is left finished.
    return DBTaskResult.objects.filter(pk__in=lost, status=TaskResultStatus.RUNNING).update(
        status=TaskResultStatus.READY
    )


def _requeue_orphaned_dumps() -> int:
    waiting = Dump.objects.filter(read_state__in=[ReadState.QUEUED, ReadState.READING]).only(
        "pk", "read_state", "read_task_id"
    )
    alive: set[str | None] = {TaskResultStatus.READY, TaskResultStatus.RUNNING}
    task_states: dict[uuid.UUID | None, str | None] = dict(
        DBTaskResult.objects.filter(pk__in=[d.read_task_id for d in waiting if d.read_task_id]).values_list(
            "pk", "status"
        )
    )
    orphaned = [d for d in waiting if task_states.get(task_uuid(d.read_task_id)) not in alive]
    for dump in orphaned:
        dump_retry_read(dump=dump)
    return len(orphaned)
