"""Writes: asking for a snapshot of a source (uploaded, pasted or fetched), and running what was asked.

A request answers at once: it queues a ``SnapshotFetch`` on the snapshots queue, under one cap for
fetches, uploads and pastes alike. A fetch's page is downloaded by the worker; an upload's or a paste's
bytes are stored by the request (in the blob storage, as a fetch's are) and read by the worker, so that
no web worker ever parses a PDF or an HTML page (a form-XObject PDF bomb held one for 20 s).

Every way ends, in the worker, in :func:`snapshot_store`: bytes of the page taken before are that
snapshot, kept once; otherwise the text is extracted first (a file that yields none is an
``ExtractionError`` and no snapshot is made), then the bytes go to the blob storage, then the row that
names them is written, and a worker is asked to find the passages of every claim citing the page
(``citeview.snapshots.kept_passages``)."""

from __future__ import annotations

import hashlib
import logging
import mimetypes
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.tasks import Task
from django.utils import timezone

from citeview.core.evidence.extract import MAX_SNAPSHOT_BYTES, ExtractionError, checked_source_type
from citeview.core.evidence.isolated import extract_text_bounded
from citeview.core.phrases import Phrase, phrase
from citeview.core.url_keys import source_url_key, url_sha256
from citeview.dumps.blobs import blob_read, blob_store
from citeview.snapshots.fetch import FetchError, fetch
from citeview.snapshots.kept_passages import snapshot_taken
from citeview.snapshots.models import PENDING_STATES, FetchState, Snapshot, SnapshotFetch, SnapshotMethod
from citeview.snapshots.selectors import fetches_pending
from citeview.snapshots.tasks import fetch_snapshot, read_snapshot

logger = logging.getLogger(__name__)

# A pasted text longer than this is refused (a saved page may be as large as an upload's limit).
MAX_PASTED_CHARS = 2_000_000
# Uploads named so but sent untyped (application/octet-stream) are read as what their name says.
_TYPES_BY_SUFFIX = {".html": "text/html", ".htm": "text/html", ".pdf": "application/pdf", ".txt": "text/plain"}


class FetchingDisabled(Exception):
    """This deployment does not fetch pages (``CITEVIEW_SNAPSHOT_FETCH`` is off)."""


class FetchLimitReached(Exception):
    """As many fetches, uploads and pastes are waiting as allowed: the editor's own (``per_user``,
    ``CITEVIEW_SNAPSHOT_FETCHES_PER_USER``) or everyone's (``CITEVIEW_SNAPSHOT_FETCHES_PENDING``)."""

    def __init__(self, *, per_user: bool, limit: int) -> None:
        super().__init__(per_user, limit)
        self.per_user = per_user
        self.limit = limit


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
    memory (``isolated``), so a hostile file is refused rather than run away. Run by the snapshots'
    worker only (``snapshot_fetch_run``, ``snapshot_read_run``), never in a web request."""
    key = source_url_key(url)
    kept = _kept_already(key, hashlib.sha256(content).hexdigest())
    if kept is not None:
        return kept, False
    extraction = extract_text_bounded(
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


def _kept_already(key: str, sha256: str) -> Snapshot | None:
    """The snapshot of the page (``key``) whose bytes are these, if one was taken."""
    same = Snapshot.objects.filter(url_sha256=url_sha256(key), url=key, sha256=sha256)
    return same.defer("text").select_related("taken_by").first()


def snapshot_upload(*, url: str, upload: UploadedFile[Any], taken_by: Any) -> SnapshotFetch:
    """A saved page (HTML, PDF or plain text) the editor uploads, queued to be read
    (``snapshot_read_request``). Read to one byte past the limit, so an oversized file is refused
    without being held whole."""
    content = upload.read(MAX_SNAPSHOT_BYTES + 1)
    name = upload.name or ""
    content_type = upload.content_type or ""
    if content_type in ("", "application/octet-stream"):
        suffix = name[name.rfind(".") :].lower() if "." in name else ""
        content_type = _TYPES_BY_SUFFIX.get(suffix) or mimetypes.guess_type(name)[0] or ""
    if upload.charset and "charset" not in content_type:
        content_type = f"{content_type}; charset={upload.charset}"
    return snapshot_read_request(
        url=url, content=content, content_type=content_type, method=SnapshotMethod.UPLOAD, taken_by=taken_by,
        filename=name,
    )  # fmt: skip


def snapshot_paste(*, url: str, text: str, taken_by: Any) -> SnapshotFetch:
    """The page's text, pasted by the editor, queued to be kept as plain UTF-8 text (``snapshot_read_request``)."""
    if len(text) > MAX_PASTED_CHARS:
        raise ExtractionError(
            "too_large",
            phrase(
                "The pasted text has {size:,} characters; the limit is {limit:,}.",
                size=len(text),
                limit=MAX_PASTED_CHARS,
            ),
        )
    return snapshot_read_request(
        url=url,
        content=text.encode("utf-8", "replace"),
        content_type="text/plain; charset=utf-8",
        method=SnapshotMethod.PASTE,
        taken_by=taken_by,
    )


def snapshot_read_request(
    *, url: str, content: bytes, content_type: str, method: str, taken_by: Any, filename: str = ""
) -> SnapshotFetch:
    """Store the bytes an editor uploaded or pasted and queue their reading (the task ``read_snapshot``)
    on the snapshots queue, under the fetches' caps: the request answers at once, and a web worker never
    parses the page. Before anything is stored, bytes that are empty, too large or of a type that cannot
    be read are refused (``ExtractionError``: ``checked_source_type`` parses nothing), and a request past
    the caps (``FetchLimitReached``). Bytes taken of the page before are that snapshot: the request is
    done at once and names it. Bytes of the page waiting to be read already are that request."""
    checked_source_type(content, content_type)
    key = source_url_key(url)
    sha256 = hashlib.sha256(content).hexdigest()
    user = _user(taken_by)
    what = {"url": key, "url_sha256": url_sha256(key), "method": method, "requested_by": user}
    kept = _kept_already(key, sha256)
    if kept is not None:
        done = {"state": FetchState.DONE, "snapshot": kept, "finished_at": timezone.now()}
        return SnapshotFetch.objects.create(**what, **done, content_sha256=sha256)
    pending = fetches_pending()
    same_bytes = next((r for r in pending if r.url == key and r.content_sha256 == sha256), None)
    if same_bytes is not None:
        return same_bytes
    _within_fetch_limits(pending, user)
    _end_lost_fetches(key, pending)
    blob_store(content, sha256)  # before the row that names them
    stored = {"content_sha256": sha256, "content_type": content_type[:200], "filename": filename[:255]}
    return _queued(SnapshotFetch(**what, **stored), read_snapshot)


def fetching_allowed() -> bool:
    return bool(settings.CITEVIEW_SNAPSHOT_FETCH)


def snapshot_fetch_request(*, url: str, requested_by: Any) -> SnapshotFetch:
    """Queue a fetch of ``url``'s page, unless one is waiting or running already (two editors pressing
    Fetch get one fetch). Raises ``FetchingDisabled`` where the deployment does not fetch, and
    ``FetchLimitReached`` when the editor, or everyone, has as many fetches waiting as the settings allow."""
    if not fetching_allowed():
        raise FetchingDisabled
    key = source_url_key(url)
    pending = fetches_pending()
    same_page = next((request for request in pending if request.url == key and request.is_fetch), None)
    if same_page is not None:
        return same_page
    _end_lost_fetches(key, pending)
    user = _user(requested_by)
    _within_fetch_limits(pending, user)
    return _queued(SnapshotFetch(url=key, url_sha256=url_sha256(key), requested_by=user), fetch_snapshot)


def _user(user: Any) -> Any:
    return user if user is not None and user.is_authenticated else None


def _queued(request: SnapshotFetch, task: Task[[int], str]) -> SnapshotFetch:
    """Write the request and queue its task. The row and its task in one commit: no one sees a request
    without its task (taken for one whose task is gone), nor a worker the task before its row."""
    with transaction.atomic():
        request.save(force_insert=True)
        queued = task.enqueue(request.pk)
        # The immediate backend (tests) has run it already: only the id is written, never over its state.
        SnapshotFetch.objects.filter(pk=request.pk, task_id="").update(task_id=str(queued.id)[:64])
    request.refresh_from_db()
    return request


def _within_fetch_limits(pending: list[SnapshotFetch], user: Any) -> None:
    """Each fetch, upload or paste may hold a worker for 20 s: a burst of them (one editor's, or a
    team's) waits its turn, rather than keeping the snapshot workers busy for minutes ahead of everyone
    else."""
    per_user = settings.CITEVIEW_SNAPSHOT_FETCHES_PER_USER
    if user is not None and sum(fetch.requested_by_id == user.pk for fetch in pending) >= per_user:
        raise FetchLimitReached(per_user=True, limit=per_user)
    if len(pending) >= settings.CITEVIEW_SNAPSHOT_FETCHES_PENDING:
        raise FetchLimitReached(per_user=False, limit=settings.CITEVIEW_SNAPSHOT_FETCHES_PENDING)


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


def _end_lost_fetches(key: str, pending: list[SnapshotFetch]) -> None:
    """End refused the requests of the page still marked waiting or running that will not run (none of
    ``fetches_pending``): their task finished or failed without ending them (a worker that died in
    it, or code from before every failure ended the request), so the page says so rather than wait."""
    lost = SnapshotFetch.objects.filter(url_sha256=url_sha256(key), url=key, state__in=PENDING_STATES).exclude(
        pk__in=[request.pk for request in pending]
    )
    ended = {"state": FetchState.REFUSED, "error_code": "lost", "finished_at": timezone.now()}
    fetch_lost = phrase("The fetch stopped before it was done; fetch the page again to try once more.")
    read_lost = phrase("The reading stopped before it was done; upload or paste the page again to try once more.")
    lost.filter(method=SnapshotMethod.FETCH).update(**ended, error=fetch_lost.to_json())
    lost.exclude(method=SnapshotMethod.FETCH).update(**ended, error=read_lost.to_json())
