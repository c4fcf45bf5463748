"""Snapshot work, run by a worker: fetching a source's page (a fetch waits on the network for up to 20
seconds, which no request should), reading a page an editor uploaded or pasted (a PDF or an HTML page
is parsed in a child process for up to 20 seconds: a web worker never parses one), and finding a
snapshot's passages for the claims citing its page (which reads all of its text). Each can safely run
again: a fetch or a reading done already is left as it is, and a passage kept already is not looked
for again.

Snapshot work has a queue of its own, so that a deployment can give it workers of its own and a burst
of fetches never holds up the dumps' reading (docs/deploying.md, "Slow work and workers"). A worker that takes
both queues runs the dumps' work first: snapshot tasks rank below it. Every task on this queue is
declared with both: ``@task(queue_name=SNAPSHOT_QUEUE, priority=SNAPSHOT_PRIORITY)``.
"""

from __future__ import annotations

from typing import Any

from django.tasks import TaskContext, task
from django.tasks.base import DEFAULT_TASK_PRIORITY

SNAPSHOT_QUEUE = "snapshots"  # declared in settings.TASKS["default"]["QUEUES"]
# Below the dumps' reads, imports and rebuilds (Django's default priority): of two ready tasks, a worker
# taking both queues starts the read first, however long the fetch has waited.
SNAPSHOT_PRIORITY = DEFAULT_TASK_PRIORITY - 10


@task(takes_context=True, queue_name=SNAPSHOT_QUEUE, priority=SNAPSHOT_PRIORITY)
def fetch_snapshot(context: TaskContext[Any, Any], fetch_id: int) -> str:
    """Fetch the page of the ``SnapshotFetch`` ``fetch_id`` and keep it; returns the fetch's state."""
    from citeview.snapshots.worker import snapshot_fetch_run  # the parsers: imported by the tasks alone

    return snapshot_fetch_run(fetch_id=fetch_id, task_id=str(context.task_result.id))


@task(takes_context=True, queue_name=SNAPSHOT_QUEUE, priority=SNAPSHOT_PRIORITY)
def read_snapshot(context: TaskContext[Any, Any], fetch_id: int) -> str:
    """Read the page uploaded or pasted for the ``SnapshotFetch`` ``fetch_id`` and keep it; returns its state."""
    from citeview.snapshots.worker import snapshot_read_run  # the parsers: imported by the tasks alone

    return snapshot_read_run(fetch_id=fetch_id, task_id=str(context.task_result.id))


@task(queue_name=SNAPSHOT_QUEUE, priority=SNAPSHOT_PRIORITY)
def find_passages(snapshot_id: int, dump_ids: list[int] | None = None) -> int:
    """Find the passages of the snapshot ``snapshot_id`` for the claims citing its page (in ``dump_ids``,
    or in every dump); returns how many were found now. Running it again finds nothing more."""
    from citeview.snapshots.kept_passages import snapshot_passages_find  # it queues this task

    return snapshot_passages_find(snapshot_id=snapshot_id, dump_ids=dump_ids)
