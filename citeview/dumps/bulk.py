"""Storing a bulk import entry by entry: the web page, the API and ``importdumps`` all use this."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from citeview.core.bulk import ImportEntries, ImportEntry, ImportLimits, split_import
from citeview.core.errors import DumpError
from citeview.core.phrases import phrase
from citeview.dumps.models import Dump, Tag
from citeview.dumps.services import dump_ingest

logger = logging.getLogger(__name__)

STORED = "stored"
ALREADY_STORED = "already_stored"
ERROR = "error"


@dataclass
class ImportResult:
    name: str
    outcome: str  # STORED, ALREADY_STORED or ERROR
    dump: Dump | None = None
    error: DumpError | None = None

    def to_json(self, absolute_url: Callable[[str], str]) -> dict[str, Any]:
        result: dict[str, Any] = {"name": self.name, "outcome": self.outcome}
        if self.dump is not None:
            result.update(id=self.dump.pk, url=absolute_url(self.dump.get_absolute_url()))
        if self.error is not None:
            result["error"] = self.error.to_json()["error"]
        return result


def import_limits() -> ImportLimits:
    return ImportLimits(
        dump_bytes=settings.CITEVIEW_MAX_DUMP_BYTES,
        dumps=settings.CITEVIEW_MAX_IMPORT_ENTRIES,
        unpacked_bytes=settings.CITEVIEW_MAX_IMPORT_UNPACKED_BYTES,
    )


def import_entries(name: str, data: bytes) -> ImportEntries:
    """The dumps an import file holds, within the limits of the settings; read as they are stored."""
    return split_import(name, data, import_limits())


def import_results(
    entries: Iterable[ImportEntry], *, uploaded_by: Any, tags: list[Tag] | None = None
) -> Iterator[ImportResult]:
    """Each entry stored in turn, as it is stored (so that a page or a command can show progress).
    The tags are added to every dump of the import, those stored before included, so that the
    batch can be found again; no tag a dump has is taken away."""
    for entry in entries:
        yield _import_one(entry, uploaded_by, tags or [])


def _import_one(entry: ImportEntry, uploaded_by: Any, tags: list[Tag]) -> ImportResult:
    try:
        dump, created = dump_ingest(raw=entry.read(), uploaded_by=uploaded_by, filename=entry.filename)
        if tags:
            dump.tags.add(*tags)
    except DumpError as error:
        return ImportResult(entry.name, ERROR, error=error)
    except Exception:  # a fault of ours in one entry must not cost the others theirs
        logger.exception("Storing %s of a bulk import failed", entry.name)
        error = DumpError("internal_error", phrase("citeview failed to store this entry; the error is logged."))
        return ImportResult(entry.name, ERROR, error=error)
    return ImportResult(entry.name, STORED if created else ALREADY_STORED, dump=dump)
