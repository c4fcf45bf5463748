"""``python manage.py requeue_lost_work``: queue again the tasks a dead worker left (``citeview.dumps.lost_work``).
``manage.py worker`` does this itself as it starts and once per ``CITEVIEW_WORKER_SILENT_AFTER_SECONDS``;
this is for a cron or by hand."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from citeview.dumps.lost_work import requeue_lost_work


class Command(BaseCommand):
    help = "Queue again the tasks whose worker died, and read again the dumps whose task is gone."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--worker-id", default="", help="A worker about to start: all it was running is lost.")

    def handle(self, *args: Any, **options: Any) -> None:
        count = requeue_lost_work(worker_id=options["worker_id"])
        self.stdout.write(f"Queued again {count} task(s).")
