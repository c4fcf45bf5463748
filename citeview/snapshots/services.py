"""Writes: taking a snapshot of a source (uploaded, pasted or fetched) and running a fetch.

Every way ends in :func:`snapshot_store`: bytes of the page taken before are that snapshot, kept once;
otherwise the text is extracted first (a file that yields none is an ``ExtractionError`` and nothing is
stored), then the bytes go to the blob storage, then the row that names them is written, and a worker
is asked to find the passages of every claim citing the page (``citeview.snapshots.kept_passages``)."""

from __future__ import annotations

import hashlib
import logging
import mimetypes
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from citeview.core.evidence.extract import MAX_SNAPSHOT_BYTES, ExtractionError
from citeview.core.evidence.isolated import extract_text_bounded
from citeview.core.phrases import Phrase, phrase
from citeview.core.url_keys import source_url_key, url_sha256
from citeview.dumps.blobs import blob_store
from citeview.snapshots.fetch import FetchError, fetch
from citeview.snapshots.kept_passages import snapshot_taken
from citeview.snapshots.models import FetchState, Snapshot, SnapshotFetch, SnapshotMethod
from citeview.snapshots.selectors import fetches_pending
from citeview.snapshots.tasks import fetch_snapshot

logger = logging.getLogger(__name__)

# A pasted text longer than this is refused (a saved page may be as large as an upload's limit).
MAX_PASTED_CHARS = 2_000_000
# Uploads named so but sent untyped (application/octet-stream) are read as what their name says.
_TYPES_BY_SUFFIX = {".html": "text/html", ".htm": "text/html", ".pdf": "application/pdf", ".txt": "text/plain"}


class FetchingDisabled(Exception):
    """This deployment does not fetch pages (``CITEVIEW_SNAPSHOT_FETCH`` is off)."""


class FetchLimitReached(Exception):
    """As many fetches are waiting as allowed: the editor's own (``per_user``,
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
    memory (``isolated``), so a hostile file is refused rather than run away."""
    key = source_url_key(url)
    same = Snapshot.objects.filter(url_sha256=url_sha256(key), url=key, sha256=hashlib.sha256(content).hexdigest())
    kept = same.defer("text").select_related("taken_by").first()
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


def snapshot_upload(*, url: str, upload: UploadedFile[Any], taken_by: Any) -> tuple[Snapshot, bool]:
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


def snapshot_paste(*, url: str, text: str, taken_by: Any) -> tuple[Snapshot, bool]:
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
    Fetch get one fetch). Raises ``FetchingDisabled`` where the deployment does not fetch, and
    ``FetchLimitReached`` when the editor, or everyone, has as many fetches waiting as the settings allow."""
    if not fetching_allowed():
        raise FetchingDisabled
    key = source_url_key(url)
    pending = fetches_pending()
    same_page = next((fetch for fetch in pending if fetch.url == key), None)
    if same_page is not None:
        return same_page
    _end_lost_fetches(key)
    user = requested_by if requested_by is not None and requested_by.is_authenticated else None
    _within_fetch_limits(pending, user)
    # The row and its task in one commit: no one sees a fetch without its task (taken for one whose
    # task is gone), nor a worker the task before its row.
    with transaction.atomic():
        request = SnapshotFetch.objects.create(url=key, url_sha256=url_sha256(key), requested_by=user)
        queued = fetch_snapshot.enqueue(request.pk)
        # The immediate backend (tests) has run it already: only the id is written, never over its state.
        SnapshotFetch.objects.filter(pk=request.pk, task_id="").update(task_id=str(queued.id)[:64])
    request.refresh_from_db()
    return request


def _within_fetch_limits(pending: list[SnapshotFetch], user: Any) -> None:
    """Each fetch may hold a worker for 20 s: a burst of presses (one editor's, or a team's) waits its
    turn, rather than keeping the snapshot workers busy for minutes ahead of everyone else."""
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
    started = SnapshotFetch.objects.filter(pk=fetch_id, state__in=[FetchState.QUEUED, FetchState.FETCHING]).update(
        state=FetchState.FETCHING, task_id=task_id[:64]
    )
    request = SnapshotFetch.objects.filter(pk=fetch_id).select_related("requested_by").first()
    if request is None or not started:
        return request.state if request else "gone"
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
    SnapshotFetch.objects.filter(pk=fetch_id).update(
        state=FetchState.DONE, snapshot=snapshot, finished_at=timezone.now()
    )
    return FetchState.DONE


def _fetch_refused(fetch_id: int, code: str, reason: Phrase) -> str:
    SnapshotFetch.objects.filter(pk=fetch_id).update(
        state=FetchState.REFUSED, error_code=code[:40], error=reason.to_json(), finished_at=timezone.now()
    )
    return FetchState.REFUSED


def _end_lost_fetches(key: str) -> None:
    """End refused the fetches of the page still marked waiting or running that will not run (none of
    ``fetches_pending``): their task finished or failed without ending them (a worker that died in
    it, or code from before every failure ended the fetch), so the page says so rather than wait."""
    reason = phrase("The fetch stopped before it was done; fetch the page again to try once more.")
    SnapshotFetch.objects.filter(
        url_sha256=url_sha256(key), url=key, state__in=[FetchState.QUEUED, FetchState.FETCHING]
    ).update(state=FetchState.REFUSED, error_code="lost", error=reason.to_json(), finished_at=timezone.now())
