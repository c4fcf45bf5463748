"""Writes a web request makes: asking for a snapshot of a source (uploaded, pasted or fetched).

A request answers at once: it queues a ``SnapshotFetch`` on the snapshots queue, under one cap for
fetches, uploads and pastes alike. A fetch's page is downloaded by the worker; an upload's or a paste's
bytes are stored by the request (in the blob storage, as a fetch's are) and read by the worker
(``citeview.snapshots.worker``, which only the tasks import), so that no web worker ever parses a PDF
or an HTML page: a 952-byte form-XObject PDF bomb held one for the whole 20 s reading budget."""

from __future__ import annotations

import hashlib
import mimetypes
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.tasks import Task
from django.utils import timezone

from citeview.core.common.phrases import Phrase, phrase
from citeview.core.common.url_keys import source_url_key, url_sha256
from citeview.core.evidence.extract import MAX_SNAPSHOT_BYTES, ExtractionError, checked_source_type
from citeview.dumps.blobs import blob_store
from citeview.snapshots.models import PENDING_STATES, FetchState, SnapshotFetch, SnapshotMethod
from citeview.snapshots.selectors import fetches_lost, fetches_pending, snapshot_of_bytes
from citeview.snapshots.tasks import fetch_snapshot, read_snapshot

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
    kept = snapshot_of_bytes(key, sha256)
    if kept is not None:
        done = {"state": FetchState.DONE, "snapshot": kept, "finished_at": timezone.now()}
        return SnapshotFetch.objects.create(**what, **done, content_sha256=sha256)
    pending = fetches_pending()
    same_bytes = next((r for r in pending if r.url == key and r.content_sha256 == sha256), None)
    if same_bytes is not None:
        return same_bytes
    _within_fetch_limits(pending, user)
    _end_lost_fetches(key)
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
    _end_lost_fetches(key)
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


def _end_lost_fetches(key: str) -> None:
    """End refused the requests of the page still marked waiting or running that will not run
    (``fetches_lost``): their task finished or failed without ending them (a worker that died in it,
    or code from before every failure ended the request), so the page says so rather than wait."""
    lost = SnapshotFetch.objects.filter(pk__in=fetches_lost(key), state__in=PENDING_STATES)
    ended = {"state": FetchState.REFUSED, "error_code": "lost", "finished_at": timezone.now()}
    lost.filter(method=SnapshotMethod.FETCH).update(**ended, error=lost_reason(SnapshotMethod.FETCH).to_json())
    lost.exclude(method=SnapshotMethod.FETCH).update(**ended, error=lost_reason(SnapshotMethod.UPLOAD).to_json())


def lost_reason(method: str) -> Phrase:
    """Why a request whose task ended without it will not finish: said by the panel at once (the
    request is ended so only when the page is next taken, as views only read)."""
    if method == SnapshotMethod.FETCH:
        return phrase("The fetch stopped before it was done; fetch the page again to try once more.")
    return phrase("The reading stopped before it was done; upload or paste the page again to try once more.")
