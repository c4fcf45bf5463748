"""Fetching a source's page, run by a worker: a fetch waits on the network for up to 20 seconds,
which no request should. It can safely run again: a fetch done already is left as it is."""

from __future__ import annotations

from django.tasks import TaskContext, task


@task(takes_context=True)
def fetch_snapshot(context: TaskContext, fetch_id: int) -> str:
    """Fetch the page of the ``SnapshotFetch`` ``fetch_id`` and keep it; returns the fetch's state."""
    from citeview.snapshots.services import snapshot_fetch_run  # services queue this task

    return snapshot_fetch_run(fetch_id=fetch_id, task_id=str(context.task_result.id))
