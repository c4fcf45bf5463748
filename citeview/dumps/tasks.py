"""The dumps' slow work, run by a worker (``manage.py db_worker``) through Django's tasks framework:
reading a large dump's stored bytes, rebuilding a result older code made, keeping a dump's viewer
pages, and storing a piece of a bulk import.

Every task here can safely run again: its bytes were stored before it was queued, and running it twice
makes what running it once does (a worker killed mid-task leaves its task to be run again,
``citeview.dumps.lost_work``). The work itself is in ``reading`` and ``bulk``; the tasks only name it.
"""

from __future__ import annotations

import os
import time
from typing import Any

from django.tasks import TaskContext, task
from django.tasks.base import DEFAULT_TASK_PRIORITY

# Keeping a read dump's viewer pages only spares its later views a render (a view with none kept
# renders its own): a dump waiting to be read goes first.
KEEP_PAGES_PRIORITY = DEFAULT_TASK_PRIORITY - 5  # (still above the snapshots' work: test_queues)


@task(takes_context=True)
def read_dump(context: TaskContext[Any, Any], dump_id: int) -> str:
    """Read a stored dump's bytes into its result; returns the dump's state afterwards."""
    from citeview.dumps.models import Dump, ReadState
    from citeview.dumps.reading import dump_read_begin, dump_read_stored  # reading queues this
    from citeview.dumps.signals import dump_stored

    if not dump_read_begin(pk=dump_id, task_id=str(context.task_result.id)):
        return "ready"  # read already (this is a second run) or gone
    _pause_for_tests()
    state = dump_read_stored(pk=dump_id)
    if state == ReadState.READY:
        dump_stored.send(sender=Dump, pk=dump_id)
        keep_dump_pages.enqueue(dump_id)  # its first view finds them kept
    return state


@task(takes_context=True)
def read_dump_attached(context: TaskContext[Any, Any], dump_id: int) -> str:
    """Read a stored dump again with the request (or documents) just attached to it, when that reading
    may read a PDF (``citeview.dumps.services.dump_attach_request``); returns the dump's state
    afterwards. The dump is not new: nothing says it was stored."""
    from citeview.dumps.models import ReadState
    from citeview.dumps.reading import dump_read_begin, dump_read_stored

    if not dump_read_begin(pk=dump_id, task_id=str(context.task_result.id)):
        return "ready"  # read already (this is a second run) or gone
    _pause_for_tests()
    state = dump_read_stored(pk=dump_id)
    if state == ReadState.READY:
        keep_dump_pages.enqueue(dump_id)
    return state


@task
def rebuild_dump(dump_id: int, everything: bool = False) -> bool:
    """Rebuild a dump whose result older code made (or, with ``everything``, any read one), queued by
    ``refresh_dumps`` or by its first page after a deploy; returns whether it was rebuilt. Running it
    again does nothing more: a result that is current is left as it is."""
    from citeview.dumps.reading import dump_rebuild_stored

    return dump_rebuild_stored(pk=dump_id, everything=everything)


@task(priority=KEEP_PAGES_PRIORITY)
def keep_dump_pages(dump_id: int) -> None:
    """Keep a read dump's viewer pages in each language, queued by the task that read or rebuilt it, or
    by a page that found them not kept."""
    from citeview.dumps.reading import dump_pages_keep

    dump_pages_keep(pk=dump_id)


@task
def import_piece(import_id: int, start: int, stop: int) -> int:
    """Store the entries ``start`` to ``stop`` (counted from 0) of a bulk import; returns how many it
    stored now (those recorded by an earlier run are left as they are)."""
    from citeview.dumps.bulk import import_store_piece

    _pause_for_tests()
    return import_store_piece(import_id=import_id, start=start, stop=stop)


def _pause_for_tests() -> None:
    """Test-only: how a test catches a worker in the middle of a task to kill it (tests/tasks). Never
    set in a deployment; ``CITEVIEW_TEST_TASK_PAUSE_FILE`` names a file that, while it exists, keeps
    the task waiting."""
    pause_file = os.environ.get("CITEVIEW_TEST_TASK_PAUSE_FILE")
    while pause_file and os.path.exists(pause_file):
        time.sleep(0.05)
