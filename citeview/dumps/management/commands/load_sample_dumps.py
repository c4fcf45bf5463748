"""``python manage.py load_sample_dumps``: store the sample dumps written for citeview (once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from citeview.dumps.services import dump_ingest

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "samples"


class Command(BaseCommand):
    help = "Store the sample dumps in citeview/dumps/samples (bytes already stored are skipped)."

    def handle(self, *args: Any, **options: Any) -> None:
        owner = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
        added = 0
        paths = sorted(SAMPLES_DIR.iterdir())
        for path in paths:
            _, created = dump_ingest(raw=path.read_bytes(), uploaded_by=owner, filename=path.name)
            added += created
        self.stdout.write(f"Sample dumps: {added} added, {len(paths) - added} already there.")
