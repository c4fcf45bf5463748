"""Review's slow work, run by a worker: rebuilding a dump's result after the code changed, its checks
recounted. Running it again does nothing more: a result that is current is left as it is."""

from __future__ import annotations

from typing import Any

from django.tasks import TaskContext, task


@task
def rebuild_dump(dump_id: int, everything: bool = False) -> bool:
    """Rebuild a dump whose result is out of date (or, with ``everything``, any ready one); returns
    whether it was rebuilt."""
    from citeview.review.services import dump_rebuild_stored  # services queue this task: imported when run

    return dump_rebuild_stored(pk=dump_id, everything=everything)


@task(takes_context=True)
def read_dump_again(context: TaskContext[Any, Any], dump_id: int) -> str:
    """Read again a dump too large to rebuild in a request, queued by its first view after the code
    changed (``dump_refresh_if_stale``); returns the dump's state afterwards."""
    from citeview.review.services import dump_read_again_stored

    return dump_read_again_stored(pk=dump_id, task_id=str(context.task_result.id))
