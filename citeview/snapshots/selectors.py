"""Reads: the newest snapshot of a source's URL, and its newest fetch."""

from __future__ import annotations

from collections.abc import Iterable

from citeview.snapshots.keys import source_url_key, url_sha256
from citeview.snapshots.models import Snapshot, SnapshotFetch


def newest_snapshot(url: str) -> Snapshot | None:
    key = source_url_key(url)
    return Snapshot.objects.filter(url_sha256=url_sha256(key), url=key).select_related("taken_by").first()


def newest_snapshots(urls: Iterable[str]) -> dict[str, Snapshot]:
    """The newest snapshot of each URL that has one, keyed by the URL as given: one query for a
    dump's sources, however many cite the same page."""
    keys = {url: source_url_key(url) for url in urls}
    newest: dict[str, Snapshot] = {}
    hashes = {url_sha256(key) for key in keys.values()}
    for snapshot in Snapshot.objects.filter(url_sha256__in=hashes).select_related("taken_by"):  # newest first
        newest.setdefault(snapshot.url, snapshot)
    return {url: newest[key] for url, key in keys.items() if key in newest}


def snapshot_count(url: str) -> int:
    key = source_url_key(url)
    return Snapshot.objects.filter(url_sha256=url_sha256(key), url=key).count()


def newest_fetch(url: str) -> SnapshotFetch | None:
    key = source_url_key(url)
    return SnapshotFetch.objects.filter(url_sha256=url_sha256(key), url=key).select_related("snapshot").first()
