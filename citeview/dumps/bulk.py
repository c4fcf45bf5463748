"""Storing a bulk import entry by entry: the web page, the API and ``importdumps`` all use this."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import phrase
from citeview.core.framing.import_entries import ImportEntries, ImportEntry, ImportLimits, split_import
from citeview.dumps.blobs import blob_read, blob_store
from citeview.dumps.models import Dump, Import, ImportedEntry, Tag
from citeview.dumps.services import dump_ingest
from citeview.dumps.tasks import import_piece

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
        failed = DumpError("internal_error", phrase("citeview failed to store this entry; the error is logged."))
        return ImportResult(entry.name, ERROR, error=failed)
    return ImportResult(entry.name, STORED if created else ALREADY_STORED, dump=dump)


# --- Through the queue: the web page's imports -------------------------------------------------------


def import_queue(*, name: str, data: bytes, uploaded_by: Any, tags: list[Tag]) -> Import:
    """Store an import file and queue the storing of its dumps, a piece of ``CITEVIEW_IMPORT_PIECE``
    entries per task so that several workers share one file. The file is checked against the limits
    first (a DumpError then, and nothing is stored), and stored before any task is queued."""
    total = len(import_entries(name, data))
    sha256 = blob_store(data)
    user = uploaded_by if uploaded_by is not None and uploaded_by.is_authenticated else None
    with transaction.atomic():
        batch = Import.objects.create(name=name[:255], sha256=sha256, total=total, uploaded_by=user)
        batch.tags.set(tags)
    piece = max(settings.CITEVIEW_IMPORT_PIECE, 1)
    for start in range(0, total, piece):
        import_piece.enqueue(batch.pk, start, min(start + piece, total))
    return batch


def import_store_piece(*, import_id: int, start: int, stop: int) -> int:
    """Store the entries ``start`` to ``stop`` of a queued import (the task ``import_piece``): each
    recorded as it is stored, those recorded already (an earlier run of this piece) skipped. The file is
    read again from the blob storage; the entries before ``start`` are passed over, not read."""
    batch = Import.objects.filter(pk=import_id).first()
    if batch is None:
        return 0
    done = set(batch.entries.filter(number__gt=start, number__lte=stop).values_list("number", flat=True))
    entries = import_entries(batch.name, blob_read(batch.sha256, f"import {batch.pk}"))
    tags = list(batch.tags.all())
    stored = 0
    for number, entry in enumerate(entries, 1):
        if number > stop:
            break
        if number <= start or number in done:
            continue
        stored += _record(batch, number, _import_one(entry, batch.uploaded_by, tags))
    return stored


def _record(batch: Import, number: int, result: ImportResult) -> int:
    error = result.error
    reason = {"code": error.code, "message": error.message, "phrase": error.phrase.to_json()} if error else None
    try:
        with transaction.atomic():
            ImportedEntry.objects.create(
                batch=batch,
                number=number,
                name=result.name[:500],
                outcome=result.outcome,
                dump=result.dump,
                error=reason,
            )
    except IntegrityError:  # recorded by another run of this piece meanwhile
        return 0
    return 1


def import_progress(batch: Import, after: int = 0) -> list[ImportedEntry]:
    """The entries of an import stored since the ``after``-th, in order and without a gap: pieces
    stored side by side finish in any order, and a row is shown once those before it are."""
    shown: list[ImportedEntry] = []
    for entry in batch.entries.select_related("dump").filter(number__gt=after).order_by("number"):
        if entry.number != after + len(shown) + 1:
            break
        shown.append(entry)
    return shown


def import_counts(batch: Import) -> dict[str, int]:
    counts = dict.fromkeys((STORED, ALREADY_STORED, ERROR), 0)
    for outcome in batch.entries.values_list("outcome", flat=True):
        counts[outcome] += 1
    return counts
