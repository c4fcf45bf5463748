"""Review's slow work, run by a worker: rebuilding a dump's result after the code changed, its checks
recounted. Running it again does nothing more: a result that is current is left as it is."""

from __future__ import annotations

from django.tasks import task


@task
def rebuild_dump(dump_id: int, everything: bool = False) -> bool:
    """Rebuild a dump whose result is out of date (or, with ``everything``, any ready one); returns
    whether it was rebuilt."""
    from citeview.review.services import dump_rebuild_stored  # services queue this task: imported when run

    return dump_rebuild_stored(pk=dump_id, everything=everything)
