"""``python manage.py refresh_dumps``: rebuild what older parsers made from the stored bytes, as tasks
a worker runs (``manage.py worker``; ``make run`` starts one), and find again the passages of the
snapshots whose passages other code found.

Each rebuilt result is signalled (``result_rebuilt``), and review counts its checked items again: a
rebuilt result may have other items. (The command stays review's, as it finds the snapshots' passages too.)
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from citeview.dumps.reading import dump_rebuild_outdated
from citeview.snapshots.kept_passages import passages_refresh


class Command(BaseCommand):
    help = (
        "Re-parse and re-render every stored dump whose result is out of date: made by other parsers, renderer, "
        "translations or CITEVIEW_MAX_CITATIONS_DRAWN."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--all",
            action="store_true",
            dest="everything",
            help="Rebuild every dump, even those whose result is current.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count = dump_rebuild_outdated(everything=options["everything"])
        if count:
            self.stdout.write(f"Queued the rebuilding of {count} dump(s) with the current parsers; a worker does it.")
        snapshots = passages_refresh()
        if snapshots:
            self.stdout.write(f"Queued the finding of passages in {snapshots} snapshot(s) with the current code.")
