"""Writes: the passages found in a snapshot for the claims that cite its page, once, by a worker.

Finding a passage reads the whole snapshot (up to millions of characters), so no page does it: when a
snapshot is taken, a worker finds the passage for every statement citing its page, in every dump, and
keeps them (``SnapshotPassage``); when a dump is stored or rebuilt, a worker finds those of its
statements in the snapshots its pages already have. The check panel, the report and the figures read
what was kept. The text is cut into sentences once per run, however many claims cite the page, and a
claim several dumps make is looked for once (passages are keyed by the claim's SHA-256).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.cache import cache
from django.db import transaction
from django.db.models import F

from citeview.core.checking.items import CheckItem
from citeview.core.checking.side_by_side import claim_words
from citeview.core.common.links import is_safe_http_url
from citeview.core.common.url_keys import source_url_key
from citeview.core.common.version import PASSAGE_VERSION
from citeview.core.evidence.found import PassageFound, passages_for_claims
from citeview.dumps.models import Dump, ReadState
from citeview.dumps.selectors import dump_check_items
from citeview.snapshots.models import Snapshot, SnapshotPassage
from citeview.snapshots.tasks import find_passages

# How long a request to find a snapshot's passages for a dump stands before another may be queued:
# the panel asks again if a worker lost the first, but a page viewed often queues one, not one a view.
WANTED_AGAIN_AFTER_SECONDS = 5 * 60
# A task finding passages stops after this long and queues the rest as a task of its own, so that the
# passages of 1,000 statements in a 10 MB page never hold the snapshot work queued behind them for long.
PASSAGES_TASK_SECONDS = 60
_ROWS_WRITTEN_AT_ONCE = 500
_DUMPS_READ_AT_ONCE = 20


@dataclass(frozen=True)
class CitingClaim:
    """A citation item whose source is an http(s) page: the page's key and the claim it supports."""

    item: CheckItem
    url: str  # as the source gives it
    url_key: str  # as snapshots are keyed (``source_url_key``)
    claim: str  # the statement as a reader sees it: what a passage is looked for with
    claim_sha256: str


def statement_claim(statement_text: str) -> str:
    """What a passage is looked for with: the statement as a reader sees it (no markers, no link
    addresses), as the check panel shows it beside the passage."""
    return claim_words(statement_text)


def claim_sha256(claim: str) -> str:
    return hashlib.sha256(claim.encode("utf-8", "surrogatepass")).hexdigest()


def citing_claims(dump: Dump) -> list[CitingClaim]:
    """The dump's citation items whose source is an http(s) page, in reading order, each with its claim."""
    responses = dump.result["responses"]
    sources_of = [{source["key"]: source for source in response["sources"]} for response in responses]
    claims: dict[str, str] = {}  # a statement's text to its claim: a statement cites several sources
    citing = []
    for item in dump_check_items(dump):
        source = sources_of[item.response].get(item.source_key or "") if item.kind == "citation" else None
        if source is None or item.citation is None or not is_safe_http_url(source["url"] or ""):
            continue
        text = item.statement.text
        if text not in claims:
            claims[text] = statement_claim(text)
        claim = claims[text]
        citing.append(CitingClaim(item, source["url"], source_url_key(source["url"]), claim, claim_sha256(claim)))
    return citing


def snapshot_passages_find(*, snapshot_id: int, dump_ids: Iterable[int] | None = None) -> int:
    """Find and keep the passages of the snapshot for every claim that cites its page (in the dumps
    ``dump_ids``, or in every dump citing it), unless kept already; returns how many were found now.
    Only the newest snapshot of a page is read by anyone, so an older one is left alone."""
    snapshot = Snapshot.objects.filter(pk=snapshot_id).first()
    if snapshot is None or _newer_snapshot_exists(snapshot):
        return 0
    claims, dumps = _claims_of_citing_dumps(snapshot, dump_ids)
    kept = set(
        SnapshotPassage.objects.filter(snapshot=snapshot, finder=PASSAGE_VERSION).values_list("claim_sha256", flat=True)
    )
    wanted = {sha256: claim for sha256, claim in claims.items() if sha256 not in kept}
    found_now, finished = _find_and_keep(snapshot, wanted) if wanted else (0, True)
    if found_now or dump_ids is None:
        evidence_changed(dumps)
    if not finished:  # the rest in a task of its own, queued behind the snapshot work waiting already
        find_passages.enqueue(snapshot.pk, None if dump_ids is None else sorted(set(dumps)))
    elif dump_ids is None:
        Snapshot.objects.filter(pk=snapshot.pk).update(passages_found_by=PASSAGE_VERSION)
    return found_now


def _find_and_keep(snapshot: Snapshot, wanted: dict[str, str]) -> tuple[int, bool]:
    """Find the passages of ``wanted`` (claims by their SHA-256), keeping them as they come, for at
    most PASSAGES_TASK_SECONDS; returns how many were found and whether all were."""
    text = Snapshot.objects.values_list("text", flat=True).get(pk=snapshot.pk)
    found = passages_for_claims(list(wanted.values()), text, snapshot.pages)
    deadline = time.monotonic() + PASSAGES_TASK_SECONDS
    rows, count = [], 0
    for sha256, passage in zip(wanted, found, strict=True):
        rows.append(_row(snapshot, sha256, passage))
        count += 1
        if len(rows) == _ROWS_WRITTEN_AT_ONCE:
            _keep(snapshot, rows)
            rows = []
            if time.monotonic() > deadline and count < len(wanted):
                return count, False
    _keep(snapshot, rows)
    return count, True


def passages_refresh() -> int:
    """Queue the finding of the passages of every page's newest snapshot whose passages other code
    found (or none yet: snapshots from before passages were kept); returns how many were queued."""
    stale = Snapshot.objects.exclude(passages_found_by=PASSAGE_VERSION).defer("text").order_by("-taken_at", "-pk")
    newest: dict[str, Snapshot] = {}
    for snapshot in stale.iterator():
        newest.setdefault(snapshot.url, snapshot)
    queued = 0
    for snapshot in newest.values():
        if not _newer_snapshot_exists(snapshot):
            queued += passages_wanted(snapshot)
    return queued


def passages_wanted(
    snapshot: Snapshot, dump_ids: Iterable[int] | None = None, *, unless_asked_lately: bool = False
) -> bool:
    """Queue the finding of the snapshot's passages for ``dump_ids`` (or for every dump citing it).
    ``unless_asked_lately``: not if the same was asked within ``WANTED_AGAIN_AFTER_SECONDS`` (a page
    that finds a passage missing asks again, in case a worker lost the first task, but a page viewed
    often queues one, not one a view). Returns whether it was queued."""
    dumps = sorted(set(dump_ids)) if dump_ids is not None else None
    key = f"citeview:passages-wanted:{snapshot.pk}:{PASSAGE_VERSION[:16]}:{','.join(map(str, dumps)) if dumps is not None else '*'}"
    if unless_asked_lately and not cache.add(key, True, WANTED_AGAIN_AFTER_SECONDS):
        return False
    find_passages.enqueue(snapshot.pk, dumps)  # with the database's queue, seen once this commits
    return True


def dump_passages_wanted(*, pk: int, cited_url_hashes: str) -> int:
    """Queue the finding of a dump's passages in the newest snapshot of each page it cites that has
    one; returns how many snapshots. The dump's result was just written (``dumps.signals``)."""
    hashes = cited_url_hashes.split()
    if not hashes:
        return 0
    newest: dict[str, Snapshot] = {}
    for snapshot in Snapshot.objects.filter(url_sha256__in=hashes).defer("text"):  # newest first
        newest.setdefault(snapshot.url, snapshot)
    for snapshot in newest.values():
        passages_wanted(snapshot, [pk])
    if newest:
        evidence_changed([pk])
    return len(newest)


def evidence_changed(dump_ids: Iterable[int]) -> None:
    """Say that the evidence behind these dumps' citations changed (a snapshot of a page they cite, or
    passages found in one): what is kept of it (``Dump.evidence_version``) is made again when next read."""
    ids = list(dump_ids)
    for start in range(0, len(ids), _ROWS_WRITTEN_AT_ONCE):
        Dump.objects.filter(pk__in=ids[start : start + _ROWS_WRITTEN_AT_ONCE]).update(
            evidence_version=F("evidence_version") + 1
        )


def citing_dump_ids(snapshot: Snapshot) -> list[int]:
    """The dumps whose sources name the snapshot's page (read ones; the others are told when read)."""
    citing = Dump.objects.filter(read_state=ReadState.READY, cited_url_hashes__contains=snapshot.url_sha256)
    return list(citing.values_list("pk", flat=True))


def _newer_snapshot_exists(snapshot: Snapshot) -> bool:
    same_page = Snapshot.objects.filter(url_sha256=snapshot.url_sha256, url=snapshot.url)
    return (
        same_page.filter(taken_at__gt=snapshot.taken_at).exists()
        or same_page.filter(taken_at=snapshot.taken_at, pk__gt=snapshot.pk).exists()
    )


def _claims_of_citing_dumps(snapshot: Snapshot, dump_ids: Iterable[int] | None) -> tuple[dict[str, str], list[int]]:
    """Each claim citing the snapshot's page (by its SHA-256), and the dumps they are in. The dumps are
    read a few at a time: what is held is their claims, not their results."""
    ids = citing_dump_ids(snapshot) if dump_ids is None else list(dump_ids)
    claims: dict[str, str] = {}
    for start in range(0, len(ids), _DUMPS_READ_AT_ONCE):
        dumps = Dump.objects.filter(pk__in=ids[start : start + _DUMPS_READ_AT_ONCE], read_state=ReadState.READY)
        for dump in dumps.only("pk", "result"):
            claims.update((c.claim_sha256, c.claim) for c in citing_claims(dump) if c.url_key == snapshot.url)
    return claims, ids


def _keep(snapshot: Snapshot, rows: list[SnapshotPassage]) -> None:
    with transaction.atomic():
        # Passages other code found are read by no one (``passages_kept``): they go, and each is found
        # again by the run for its dump. One kept meanwhile by another run of this code is left.
        SnapshotPassage.objects.filter(snapshot=snapshot).exclude(finder=PASSAGE_VERSION).delete()
        SnapshotPassage.objects.bulk_create(rows, batch_size=_ROWS_WRITTEN_AT_ONCE, ignore_conflicts=True)


def _row(snapshot: Snapshot, sha256: str, found: PassageFound) -> SnapshotPassage:
    passage = found.passage
    return SnapshotPassage(
        snapshot=snapshot,
        claim_sha256=sha256,
        finder=PASSAGE_VERSION,
        found=passage is not None,
        start=passage.start if passage else None,
        end=passage.end if passage else None,
        text=passage.text if passage else "",
        score=passage.score if passage else None,
        page=passage.page if passage else None,
        differs=found.differs,
        figure_or_date_differs=found.figure_or_date_differs,
        candidates=[candidate.to_json() for candidate in found.candidates],
    )


def snapshot_taken(snapshot: Snapshot) -> None:
    """A snapshot was kept: the dumps citing its page have new evidence, and its passages are wanted."""
    evidence_changed(citing_dump_ids(snapshot))
    passages_wanted(snapshot)
