"""``python manage.py compile_translations``: the .po files under locale/ to .mo, with no GNU gettext needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polib
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile the interface translations (locale/*/LC_MESSAGES/*.po) for Django to use."

    def handle(self, *args: Any, **options: Any) -> None:
        for folder in settings.LOCALE_PATHS:
            for po_path in Path(folder).glob("*/LC_MESSAGES/*.po"):
                mo_path = po_path.with_suffix(".mo")
                if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
                    continue
                polib.pofile(str(po_path)).save_as_mofile(str(mo_path))
                self.stdout.write(f"Compiled {po_path.relative_to(settings.BASE_DIR)}")
