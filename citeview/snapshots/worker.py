"""What the snapshots' worker runs: fetching a page, reading one uploaded or pasted, and keeping it as
a snapshot. Imported by ``citeview.snapshots.tasks`` alone, inside the tasks: no web request reaches
the parsers (a request queues its work: ``citeview.snapshots.services``).

Every way ends in :func:`snapshot_store`: bytes of the page taken before are that snapshot, kept once;
otherwise the text is extracted first, its HTML or PDF in a child process held to the settings' time
and memory (a file that yields none is an ``ExtractionError`` and no snapshot is made), then the bytes
go to the blob storage, then the row that names them is written, and a worker is asked to find the
passages of every claim citing the page (``citeview.snapshots.kept_passages``). Whatever fails, the
request ends done or refused, never left pending."""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone

from citeview.core.common.phrases import Phrase, phrase
from citeview.core.common.url_keys import source_url_key, url_sha256
from citeview.core.evidence.extract import ExtractionError, extract_text
from citeview.dumps.blobs import blob_read, blob_store
from citeview.snapshots.fetch import FetchError, fetch
from citeview.snapshots.kept_passages import snapshot_taken
from citeview.snapshots.models import PENDING_STATES, FetchState, Snapshot, SnapshotFetch, SnapshotMethod
from citeview.snapshots.selectors import snapshot_of_bytes

logger = logging.getLogger(__name__)


def snapshot_store(
    *,
    url: str,
    content: bytes,
    content_type: str,
    method: str,
    taken_by: Any,
    requested_url: str | None = None,
    final_url: str | None = None,
    http_status: int | None = None,
    filename: str = "",
    taken_at: datetime | None = None,
) -> tuple[Snapshot, bool]:
    """Keep ``content`` as the newest snapshot of ``url``'s page; returns it and whether it is new. The
    same bytes taken of the same page before are that snapshot, kept once: it is returned as it was
    (its time and who took it unchanged). Raises ``ExtractionError`` when the content yields no text;
    nothing is stored then. HTML and PDF are read in a child process held to the settings' time and
    memory (``extract_text``), so a hostile file is refused rather than run away. Run by the snapshots'
    worker only (``snapshot_fetch_run``, ``snapshot_read_run``), never in a web request."""
    key = source_url_key(url)
    kept = snapshot_of_bytes(key, hashlib.sha256(content).hexdigest())
    if kept is not None:
        return kept, False
    extraction = extract_text(
        content,
        content_type,
        max_chars=settings.CITEVIEW_SNAPSHOT_MAX_TEXT_CHARS,
        seconds=settings.CITEVIEW_SNAPSHOT_EXTRACT_SECONDS,
        megabytes=settings.CITEVIEW_SNAPSHOT_EXTRACT_MEGABYTES,
    )
    sha256 = blob_store(content)
    user = taken_by if taken_by is not None and taken_by.is_authenticated else None
    snapshot = Snapshot.objects.create(
        url=key,
        url_sha256=url_sha256(key),
        method=method,
        requested_url=requested_url or url,
        final_url=final_url or requested_url or url,
        taken_at=taken_at or timezone.now(),
        taken_by=user,
        http_status=http_status,
        content_type=content_type[:200],
        sha256=sha256,
        size=len(content),
        filename=filename[:255],
        text=extraction.text,
        extraction=extraction.to_json(),
    )
    snapshot_taken(snapshot)
    return snapshot, True


def snapshot_fetch_run(*, fetch_id: int, task_id: str = "") -> str:
    """Run a queued fetch (the task ``fetch_snapshot``): the page is fetched (``fetch.fetch``: only
    public addresses unless ``CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS`` holds them), its text extracted
    and kept as a snapshot, or the reason it could not be is recorded: whatever fails, the fetch ends
    done or refused, never left pending. Returns the fetch's state."""
    request, state = _started(fetch_id, FetchState.FETCHING, task_id)
    if request is None:
        return state
    try:
        page = fetch(request.url, allow_networks=settings.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS)
        snapshot, _new = snapshot_store(
            url=request.url,
            content=page.content,
            content_type=page.content_type,
            method=SnapshotMethod.FETCH,
            taken_by=request.requested_by,
            requested_url=page.requested_url,
            final_url=page.final_url,
            http_status=page.status,
            taken_at=page.fetched_at,
        )
    except (FetchError, ExtractionError) as error:
        return _fetch_refused(fetch_id, error.code, error.phrase)
    except Exception as error:  # the blob storage, a bug: the editor is told, the row never stays pending
        logger.exception("The fetch %s of %s failed", fetch_id, request.url)
        reason = phrase("{url} could not be fetched: {reason}.", url=request.url, reason=type(error).__name__)
        return _fetch_refused(fetch_id, "failed", reason)
    return _fetch_done(fetch_id, snapshot)


def snapshot_read_run(*, fetch_id: int, task_id: str = "") -> str:
    """Read a queued upload or paste (the task ``read_snapshot``): the bytes the request stored are read
    (HTML and PDF in a child process held to the settings' time and memory) and kept as a snapshot,
    taken when they were sent, or the reason they could not be is recorded: whatever fails, the request
    ends done or refused, never left pending. Returns its state."""
    request, state = _started(fetch_id, FetchState.READING, task_id)
    if request is None:
        return state
    try:
        snapshot, _new = snapshot_store(
            url=request.url,
            content=blob_read(request.content_sha256, f"the upload {fetch_id}"),
            content_type=request.content_type,
            method=request.method,
            taken_by=request.requested_by,
            filename=request.filename,
            taken_at=request.requested_at,
        )
    except ExtractionError as error:
        return _fetch_refused(fetch_id, error.code, error.phrase)
    except Exception as error:  # the blob storage, a bug: the editor is told, the row never stays pending
        logger.exception("The reading %s of a page of %s failed", fetch_id, request.url)
        return _fetch_refused(
            fetch_id, "failed", phrase("The page could not be read: {reason}.", reason=type(error).__name__)
        )
    return _fetch_done(fetch_id, snapshot)


def _started(fetch_id: int, state: str, task_id: str) -> tuple[SnapshotFetch | None, str]:
    """The request, marked ``state`` (running) by this task; None and its state when it has ended
    already (its task run again) or is gone."""
    started = SnapshotFetch.objects.filter(pk=fetch_id, state__in=PENDING_STATES).update(
        state=state, task_id=task_id[:64]
    )
    request = SnapshotFetch.objects.filter(pk=fetch_id).select_related("requested_by").first()
    if request is None:
        return None, "gone"
    return (request, state) if started else (None, request.state)


def _fetch_done(fetch_id: int, snapshot: Snapshot) -> str:
    SnapshotFetch.objects.filter(pk=fetch_id).update(
        state=FetchState.DONE, snapshot=snapshot, finished_at=timezone.now()
    )
    return FetchState.DONE


def _fetch_refused(fetch_id: int, code: str, reason: Phrase) -> str:
    SnapshotFetch.objects.filter(pk=fetch_id).update(
        state=FetchState.REFUSED, error_code=code[:40], error=reason.to_json(), finished_at=timezone.now()
    )
    return FetchState.REFUSED
