"""``python manage.py importdumps PATH... [--user NAME]``: store many dumps, one line of progress each.

A PATH is a ``.zip`` of dump files, a JSON Lines file (``.jsonl``, ``.ndjson``: one whole response per
line), a folder (each file in it, by name), or one dump file. One that cannot be stored is reported
with the reason, and the others are stored all the same; the command then exits with status 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from citeview.core.bulk import ImportEntry
from citeview.core.errors import DumpError
from citeview.core.phrases import phrase
from citeview.dumps.bulk import ALREADY_STORED, ERROR, STORED, ImportResult, import_entries, import_results

SPLIT_SUFFIXES = {".zip", ".jsonl", ".ndjson"}


class Command(BaseCommand):
    help = "Store many dumps: .zip archives of dump files, JSON Lines files of responses, folders or single files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH", help="a .zip, a .jsonl, a folder or a dump file")
        parser.add_argument("--user", help="the user the dumps are stored as uploaded by")

    def handle(self, *args: Any, **options: Any) -> None:
        user = self._user(options["user"])
        entries, unreadable = self._entries([Path(p) for p in options["paths"]])
        results = list(unreadable)
        for result in unreadable:
            self._report(result, len(results), len(entries) + len(unreadable))
        total = len(entries) + len(unreadable)
        for result in import_results(entries, uploaded_by=user):
            results.append(result)
            self._report(result, len(results), total)
        counts = {
            outcome: sum(1 for r in results if r.outcome == outcome) for outcome in (STORED, ALREADY_STORED, ERROR)
        }
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

    def _entries(self, paths: list[Path]) -> tuple[list[ImportEntry], list[ImportResult]]:
        """Every dump the paths hold, and a failed result for each path that cannot be read at all."""
        entries: list[ImportEntry] = []
        unreadable: list[ImportResult] = []
        for path in paths:
            files = (
                sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
                if path.is_dir()
                else [path]
            )
            for file in files:
                try:
                    entries.extend(_file_entries(file))
                except OSError as error:
                    reason = DumpError(
                        "unreadable", phrase("The file cannot be read: {reason}.", reason=error.strerror or str(error))
                    )
                    unreadable.append(ImportResult(str(file), ERROR, error=reason))
                except DumpError as error:
                    unreadable.append(ImportResult(str(file), ERROR, error=error))
        return entries, unreadable

    def _report(self, result: ImportResult, number: int, total: int) -> None:
        width = len(str(total))
        place = f"[{number:>{width}}/{total}] {result.name}: "
        if result.outcome == STORED:
            self.stdout.write(f"{place}stored as dump {result.dump.pk}")
        elif result.outcome == ALREADY_STORED:
            self.stdout.write(f"{place}already stored as dump {result.dump.pk}")
        else:
            self.stdout.write(self.style.ERROR(f"{place}{result.error.message}"))


def _file_entries(path: Path) -> list[ImportEntry]:
    data = path.read_bytes()
    if path.suffix.lower() in SPLIT_SUFFIXES:
        return import_entries(str(path), data)
    return [ImportEntry(str(path), path.name, lambda: data)]
