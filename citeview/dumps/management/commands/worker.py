"""``python manage.py worker``: django-tasks-db's ``db_worker`` (every option of it), which first takes
back the work a dead worker left and keeps looking for it while it runs (``citeview.dumps.queue``).

Give each worker of a deployment an id of its own that it keeps across restarts (``--worker-id
web1-1``): restarted, it then knows at once that what it was running died with it.
"""

from __future__ import annotations

import threading
from typing import Any

from django.db import close_old_connections, connection
from django_tasks_db.management.commands import db_worker

from citeview.dumps.queue import requeue_lost_work

LOOK_AGAIN_SECONDS = 300  # how often a running worker looks for work a dead one left


class Command(db_worker.Command):
    help = "Run the task queue (db_worker), taking back the work a dead worker left first and every few minutes."

    def handle(self, *args: Any, **options: Any) -> None:
        self._requeue(options["worker_id"])
        watcher = threading.Thread(target=self._keep_looking, name="requeue-lost-work", daemon=True)
        watcher.start()
        super().handle(*args, **options)

    def _requeue(self, worker_id: str = "") -> None:
        count = requeue_lost_work(worker_id=worker_id)
        if count:
            self.stdout.write(f"Queued again {count} task(s) a stopped worker left.")

    def _keep_looking(self) -> None:
        stop = threading.Event()
        while not stop.wait(LOOK_AGAIN_SECONDS):
            close_old_connections()
            self._requeue()
        connection.close()
