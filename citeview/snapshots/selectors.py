"""Reads: the newest snapshot of a source's URL, its newest fetch, the fetches still to run, and the
passages kept of a snapshot.

A snapshot's text (millions of characters, for a long PDF) is read by the worker that finds its
passages and by nothing else: every read here leaves it in the database."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from citeview.core.common.url_keys import source_url_key, url_sha256
from citeview.core.common.version import PASSAGE_VERSION
from citeview.dumps.heartbeat import task_uuid, tasks_pending
from citeview.snapshots.models import PENDING_STATES, Snapshot, SnapshotFetch, SnapshotPassage

# Claims asked for in one query: within every database's limit of parameters.
_CLAIMS_ASKED_AT_ONCE = 500


def newest_snapshot(url: str) -> Snapshot | None:
    key = source_url_key(url)
    snapshots = Snapshot.objects.filter(url_sha256=url_sha256(key), url=key).defer("text")
    return snapshots.select_related("taken_by").first()


def newest_snapshots(urls: Iterable[str]) -> dict[str, Snapshot]:
    """The newest snapshot of each URL that has one, keyed by the URL as given: one query for a
    dump's sources, however many cite the same page."""
    keys = {url: source_url_key(url) for url in urls}
    newest: dict[str, Snapshot] = {}
    hashes = {url_sha256(key) for key in keys.values()}
    for snapshot in Snapshot.objects.filter(url_sha256__in=hashes).defer("text").select_related("taken_by"):
        newest.setdefault(snapshot.url, snapshot)  # newest first
    return {url: newest[key] for url, key in keys.items() if key in newest}


def snapshot_of_bytes(key: str, sha256: str) -> Snapshot | None:
    """The snapshot of the page (keyed: ``source_url_key``) whose bytes have this SHA-256, if one was taken."""
    same = Snapshot.objects.filter(url_sha256=url_sha256(key), url=key, sha256=sha256)
    return same.defer("text").select_related("taken_by").first()


def snapshot_count(url: str) -> int:
    key = source_url_key(url)
    return Snapshot.objects.filter(url_sha256=url_sha256(key), url=key).count()


def newest_fetch(url: str) -> SnapshotFetch | None:
    key = source_url_key(url)
    fetches = SnapshotFetch.objects.filter(url_sha256=url_sha256(key), url=key)
    return fetches.select_related("snapshot").defer("snapshot__text").first()


def passages_kept(snapshots: Iterable[Snapshot], claim_hashes: Iterable[str]) -> dict[tuple[int, str], SnapshotPassage]:
    """The passages found in ``snapshots`` for the claims (by SHA-256) by the code now running, keyed
    by snapshot id and claim; a claim missing is still being looked for."""
    ids, hashes = {snapshot.pk for snapshot in snapshots}, sorted(set(claim_hashes))
    kept: dict[tuple[int, str], SnapshotPassage] = {}
    for start in range(0, len(hashes) if ids else 0, _CLAIMS_ASKED_AT_ONCE):
        rows = SnapshotPassage.objects.filter(
            snapshot_id__in=ids, claim_sha256__in=hashes[start : start + _CLAIMS_ASKED_AT_ONCE], finder=PASSAGE_VERSION
        )
        kept.update(((row.snapshot_id, row.claim_sha256), row) for row in rows)
    return kept


def snapshot_entry(snapshot: Snapshot) -> dict[str, Any]:
    """A snapshot as the report writes it (codes and ISO times), and as ``snapshot_provenance`` reads it."""
    return {
        "url": snapshot.url,
        "final_url": snapshot.final_url,
        "method": snapshot.method,
        "taken_by": snapshot.taken_by.get_username() if snapshot.taken_by else None,
        "taken_at": snapshot.taken_at.isoformat(),
        "filename": snapshot.filename,
        "http_status": snapshot.http_status,
        "content_type": snapshot.content_type,
        "sha256": snapshot.sha256,
    }


def fetches_pending() -> list[SnapshotFetch]:
    """The requests (fetches, and uploads and pastes to read) that will still run: waiting for a
    worker, or being run by one that is alive (``citeview.dumps.heartbeat``), newest first. One left
    waiting by a task that failed or is gone holds nobody up, and is not among them."""
    waiting = list(
        SnapshotFetch.objects.filter(state__in=PENDING_STATES).only(
            "pk", "url", "url_sha256", "method", "content_sha256", "task_id", "requested_by_id", "state"
        )
    )
    alive = tasks_pending(fetch.task_id for fetch in waiting)
    return [fetch for fetch in waiting if task_uuid(fetch.task_id) in alive]


def fetches_lost(url: str) -> list[int]:
    """The ids of the requests of ``url``'s page marked waiting or running that will not run: their
    task finished or failed without ending them, or is gone. Asked afresh, not taken from an earlier
    ``fetches_pending``: a request another editor made since is not lost."""
    key = source_url_key(url)
    waiting = list(
        SnapshotFetch.objects.filter(url_sha256=url_sha256(key), url=key, state__in=PENDING_STATES).only(
            "pk", "task_id"
        )
    )
    alive = tasks_pending(fetch.task_id for fetch in waiting)
    return [fetch.pk for fetch in waiting if task_uuid(fetch.task_id) not in alive]
