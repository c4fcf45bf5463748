"""Writes: taking a snapshot of a source (uploaded, pasted or fetched) and running a fetch.

Every way ends in :func:`snapshot_store`: the text is extracted first (a file that yields none is an
``ExtractionError`` and nothing is stored), then the bytes go to the blob storage, then the row that
names them is written."""

from __future__ import annotations

import mimetypes
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils import timezone

from citeview.core.evidence.extract import MAX_SNAPSHOT_BYTES, ExtractionError, extract_text
from citeview.core.phrases import phrase
from citeview.dumps.blobs import blob_store
from citeview.snapshots.fetch import FetchError, fetch
from citeview.snapshots.keys import source_url_key, url_sha256
from citeview.snapshots.models import FetchState, Snapshot, SnapshotFetch, SnapshotMethod
from citeview.snapshots.tasks import fetch_snapshot

# A pasted text longer than this is refused (a saved page may be as large as an upload's limit).
MAX_PASTED_CHARS = 2_000_000
# Uploads named so but sent untyped (application/octet-stream) are read as what their name says.
_TYPES_BY_SUFFIX = {".html": "text/html", ".htm": "text/html", ".pdf": "application/pdf", ".txt": "text/plain"}


class FetchingDisabled(Exception):
    """This deployment does not fetch pages (``CITEVIEW_SNAPSHOT_FETCH`` is off)."""


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
) -> Snapshot:
    """Keep ``content`` as the newest snapshot of ``url``'s page. Raises ``ExtractionError`` when it
    yields no text; nothing is stored then."""
    extraction = extract_text(content, content_type)
    sha256 = blob_store(content)
    key = source_url_key(url)
    user = taken_by if taken_by is not None and taken_by.is_authenticated else None
    return Snapshot.objects.create(
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


def snapshot_upload(*, url: str, upload: UploadedFile, taken_by: Any) -> Snapshot:
    """A saved page (HTML, PDF or plain text) the editor uploads. Read to one byte past the limit, so
    an oversized file is refused without being held whole."""
    content = upload.read(MAX_SNAPSHOT_BYTES + 1)
    name = upload.name or ""
    content_type = upload.content_type or ""
    if content_type in ("", "application/octet-stream"):
        suffix = name[name.rfind(".") :].lower() if "." in name else ""
        content_type = _TYPES_BY_SUFFIX.get(suffix) or mimetypes.guess_type(name)[0] or ""
    if upload.charset and "charset" not in content_type:
        content_type = f"{content_type}; charset={upload.charset}"
    return snapshot_store(
        url=url, content=content, content_type=content_type, method=SnapshotMethod.UPLOAD, taken_by=taken_by,
        filename=name,
    )  # fmt: skip


def snapshot_paste(*, url: str, text: str, taken_by: Any) -> Snapshot:
    """The page's text, pasted by the editor: kept as plain UTF-8 text."""
    if len(text) > MAX_PASTED_CHARS:
        raise ExtractionError(
            "too_large",
            phrase(
                "The pasted text has {size:,} characters; the limit is {limit:,}.",
                size=len(text),
                limit=MAX_PASTED_CHARS,
            ),
        )
    return snapshot_store(
        url=url,
        content=text.encode("utf-8", "replace"),
        content_type="text/plain; charset=utf-8",
        method=SnapshotMethod.PASTE,
        taken_by=taken_by,
    )


def fetching_allowed() -> bool:
    return bool(settings.CITEVIEW_SNAPSHOT_FETCH)


def snapshot_fetch_request(*, url: str, requested_by: Any) -> SnapshotFetch:
    """Queue a fetch of ``url``'s page, unless one is waiting or running already (two editors pressing
    Fetch get one fetch). Raises ``FetchingDisabled`` where the deployment does not fetch."""
    if not fetching_allowed():
        raise FetchingDisabled
    key = source_url_key(url)
    pending = SnapshotFetch.objects.filter(
        url_sha256=url_sha256(key), url=key, state__in=[FetchState.QUEUED, FetchState.FETCHING]
    ).first()
    if pending is not None:
        return pending
    user = requested_by if requested_by is not None and requested_by.is_authenticated else None
    request = SnapshotFetch.objects.create(url=key, url_sha256=url_sha256(key), requested_by=user)
    queued = fetch_snapshot.enqueue(request.pk)
    # The immediate backend (tests) has run it already: only the id is written, never over its state.
    SnapshotFetch.objects.filter(pk=request.pk, task_id="").update(task_id=str(queued.id)[:64])
    request.refresh_from_db()
    return request


def snapshot_fetch_run(*, fetch_id: int, task_id: str = "") -> str:
    """Run a queued fetch (the task ``fetch_snapshot``): the page is fetched (``fetch.fetch``: only
    public addresses unless ``CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS`` holds them), its text extracted
    and kept as a snapshot, or the reason it could not be is recorded. Returns the fetch's state."""
    started = SnapshotFetch.objects.filter(pk=fetch_id, state__in=[FetchState.QUEUED, FetchState.FETCHING]).update(
        state=FetchState.FETCHING, task_id=task_id[:64]
    )
    request = SnapshotFetch.objects.filter(pk=fetch_id).select_related("requested_by").first()
    if request is None or not started:
        return request.state if request else "gone"
    try:
        page = fetch(request.url, allow_networks=settings.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS)
        snapshot = snapshot_store(
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
        SnapshotFetch.objects.filter(pk=fetch_id).update(
            state=FetchState.REFUSED, error_code=error.code, error=error.phrase.to_json(), finished_at=timezone.now()
        )
        return FetchState.REFUSED
    SnapshotFetch.objects.filter(pk=fetch_id).update(
        state=FetchState.DONE, snapshot=snapshot, finished_at=timezone.now()
    )
    return FetchState.DONE
