"""``python manage.py worker``: django-tasks-db's ``db_worker`` (every option of it), which says it is
alive while it runs (``citeview.dumps.heartbeat``), first takes back the work a dead worker left and
keeps looking for it (``citeview.dumps.lost_work``).

Without ``--queue-name`` it takes every queue citeview declares (``TASKS``' ``QUEUES``: ``default``,
``snapshots`` and ``webhooks``), the dumps' work first (their tasks' priority is higher);
``--queue-name snapshots`` gives a worker to fetching pages alone, ``--queue-name webhooks`` one to
webhook deliveries (``scripts/serve`` starts one, so that a slow receiver never holds up a read). Give
each worker of a deployment an id of its own that it keeps across restarts (``--worker-id web1-1``):
restarted, it then knows at once that what it was running died with it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection
from django.tasks import DEFAULT_TASK_BACKEND_ALIAS
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from citeview.dumps.heartbeat import worker_beat, worker_started, worker_stopped
from citeview.dumps.lost_work import requeue_lost_work

logger = logging.getLogger(__name__)


def declared_queues() -> list[str]:
    """The queues citeview's tasks go to, as the settings declare them for the default backend."""
    return list(settings.TASKS[DEFAULT_TASK_BACKEND_ALIAS].get("QUEUES") or ["default"])


class Command(db_worker.Command):
    help = (
        "Run the task queue (db_worker): say it is alive while it runs, take back the work a dead worker "
        "left first and while it runs. Takes every queue citeview declares unless --queue-name narrows it."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        # db_worker takes the queue "default" alone unless told: ours take every queue citeview
        # declares, so that a deployment that ran `manage.py worker` before the queues keeps running all.
        parser.set_defaults(queue_name=",".join(declared_queues()))

    def handle(self, *args: Any, **options: Any) -> None:
        worker_id = options["worker_id"]
        try:
            if self._runs_tasks(options):
                self._run_beating(*args, **options)
            else:  # the autoreloader's parent: its child runs the tasks (under the same --worker-id, if given)
                super().handle(*args, **options)
        finally:
            # Said by the parent too: stopping, it kills its child (subprocess.run), which cannot say it.
            self._stopped(worker_id)

    def _run_beating(self, *args: Any, **options: Any) -> None:
        worker_id = options["worker_id"]
        worker_started(worker_id=worker_id, queues=options["queue_name"].split(","))
        self._requeue(worker_id)
        stop = threading.Event()
        beating = threading.Thread(target=self._beat, args=(worker_id, stop), name="worker-heartbeat", daemon=True)
        beating.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
            beating.join(timeout=5)

    @staticmethod
    def _runs_tasks(options: dict[str, Any]) -> bool:
        """Whether this process runs tasks: without --reload it does; with it, only the reloader's child."""
        reloads = options["reload"] and not options["batch"]  # db_worker turns --reload off for --batch
        return not reloads or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true"

    @staticmethod
    def _stopped(worker_id: str) -> None:
        try:
            worker_stopped(worker_id=worker_id)
        except DatabaseError:  # it falls silent instead, and is taken for dead a little later
            logger.warning("Worker %s could not record that it stopped.", worker_id, exc_info=True)

    def _requeue(self, worker_id: str = "") -> None:
        count = requeue_lost_work(worker_id=worker_id)
        if count:
            self.stdout.write(f"Queued again {count} task(s) a stopped worker left.")

    def _beat(self, worker_id: str, stop: threading.Event) -> None:
        """Beat every few seconds, and once per silence limit look for the work a dead worker left. A
        failed beat (the database busy or away) is tried again at the next; only a worker silent for
        the whole limit is taken for dead, and its task run again, which every task of ours allows."""
        looked_at = time.monotonic()
        while not stop.wait(settings.CITEVIEW_WORKER_HEARTBEAT_SECONDS):
            try:
                close_old_connections()
                worker_beat(worker_id=worker_id)
                if time.monotonic() - looked_at >= settings.CITEVIEW_WORKER_SILENT_AFTER_SECONDS:
                    looked_at = time.monotonic()
                    self._requeue()
            except Exception:  # never ends the thread: a worker that stops beating is taken for dead
                logger.warning("Worker %s could not record its heartbeat; trying again.", worker_id, exc_info=True)
        connection.close()
