"""``python manage.py importdumps PATH... [--user NAME] [--tags a,b]``: store many dumps, one line of progress each.

A PATH is a ``.zip`` of dump files, a JSON Lines file (``.jsonl``, ``.ndjson``: one whole response per
line), a folder (each file in it, by name), or one dump file. Files are read one at a time, each when
its turn comes. One that cannot be stored is reported with the reason, and the others are stored all
the same; the command then exits with status 1. Each .zip or JSON Lines file is one import, held to the
import limits of the settings (``CITEVIEW_MAX_IMPORT_*``) as on the page and through the API.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from citeview.core.common.errors import DumpError, too_large_error
from citeview.core.common.phrases import phrase
from citeview.core.framing.import_entries import ImportEntry
from citeview.dumps.bulk import ALREADY_STORED, ERROR, STORED, ImportResult, import_entries, import_results
from citeview.dumps.forms import tag_names
from citeview.dumps.services import tags_named

SPLIT_SUFFIXES = {".zip", ".jsonl", ".ndjson"}


class Command(BaseCommand):
    help = "Store many dumps: .zip archives of dump files, JSON Lines files of responses, folders or single files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH", help="a .zip, a .jsonl, a folder or a dump file")
        parser.add_argument("--user", help="the user the dumps are stored as uploaded by")
        parser.add_argument("--tags", default="", help="tags for every dump of the import, separated by commas")

    def handle(self, *args: Any, **options: Any) -> None:
        user = self._user(options["user"])
        try:
            tags = tags_named(tag_names(options["tags"]))
        except ValidationError as error:
            raise CommandError(f"--tags: {' '.join(error.messages)}") from None
        files = [file for path in options["paths"] for file in _files(Path(path))]
        counts = dict.fromkeys((STORED, ALREADY_STORED, ERROR), 0)
        for number, file in enumerate(files, 1):
            place = f"[{number}/{len(files)}]"
            if file.suffix.lower() not in SPLIT_SUFFIXES:
                entry = ImportEntry(str(file), file.name, partial(_read, file, settings.CITEVIEW_MAX_DUMP_BYTES))
                for result in import_results([entry], uploaded_by=user, tags=tags):
                    counts[result.outcome] += 1
                    self._report(place, result)
                continue
            try:
                entries = import_entries(str(file), _read(file, settings.CITEVIEW_MAX_IMPORT_BYTES))
            except DumpError as error:
                counts[ERROR] += 1
                self._report(place, ImportResult(str(file), ERROR, error=error))
                continue
            self.stdout.write(f"{place} {file}: {len(entries)} dumps")
            for inner, result in enumerate(import_results(entries, uploaded_by=user, tags=tags), 1):
                counts[result.outcome] += 1
                self._report(f"  [{inner}/{len(entries)}]", result)
        summary = (
            f"{counts[STORED]} stored, {counts[ALREADY_STORED]} already stored, {counts[ERROR]} could not be stored"
        )
        if counts[ERROR]:
            raise CommandError(summary)
        self.stdout.write(self.style.SUCCESS(summary))

    def _user(self, name: str | None) -> Any:
        if name is None:
            return None
        try:
            return get_user_model().objects.get_by_natural_key(name)
        except get_user_model().DoesNotExist:
            raise CommandError(f"There is no user {name!r}.") from None

    def _report(self, place: str, result: ImportResult) -> None:
        line = f"{place} {result.name}: "
        if result.dump is not None:
            stored = "stored" if result.outcome == STORED else "already stored"
            self.stdout.write(f"{line}{stored} as dump {result.dump.pk}")
        else:
            message = result.error.message if result.error is not None else result.outcome
            self.stdout.write(self.style.ERROR(f"{line}{message}"))


def _files(path: Path) -> list[Path]:
    """A folder's files by name (without hidden ones), or the path itself."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    return [path]


def _read(path: Path, limit: int) -> bytes:
    """A file's bytes, refused unread beyond ``limit``."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise too_large_error(size, limit)
        return path.read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        raise DumpError("unreadable", phrase("The file cannot be read: {reason}.", reason=reason)) from None
