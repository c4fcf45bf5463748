"""Reads: the evidence behind each citation of a dump, as the figures count it and the handover report
lists it: the text the dump holds for it (a quote, a snippet, a retrieved passage), the newest snapshot
of its source's page, and the passage of that snapshot found for the claim."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

from citeview.core.common.links import is_safe_http_url
from citeview.core.evidence.held import held_evidence
from citeview.dumps.models import Dump
from citeview.review.selectors import dump_check_items
from citeview.snapshots.kept_passages import claim_sha256, statement_claim
from citeview.snapshots.models import SnapshotPassage
from citeview.snapshots.selectors import newest_snapshots, passages_kept, snapshot_entry

# Counted once per dump and kept while neither its result nor its evidence changes.
COUNTS_CACHE_SECONDS = 24 * 60 * 60


def citation_evidence(dump: Dump) -> list[dict[str, Any]]:
    """The evidence behind the dump's citation items (citation × source), grouped by the source they
    cite, in reading order, as the handover report lists it: what is the source's (its URL, the text the
    dump holds of it, its snapshot, the passage found for each statement citing it) is written once,
    and of its citations only their keys, their markers (each once) and the provider's quotes. A dump
    of nothing but markers stays in proportion."""
    report = []
    for group in _evidence_groups(dump):
        citations = group.pop("citations")
        group["item_keys"] = [c["item_key"] for c in citations]
        group["markers"] = list(dict.fromkeys(c["marker"] for c in citations if c["marker"]))
        group["quotes"] = [
            {"item_key": c["item_key"], "marker": c["marker"], **c["quote"]} for c in citations if c["quote"]
        ]
        report.append(group)
    return report


def _evidence_groups(dump: Dump) -> list[dict[str, Any]]:
    """Per source cited, its evidence and each of its citations with its marker, quote and statement.
    The passages are those a worker found and kept (``citeview.snapshots.kept_passages``), read in one
    query: none is looked for here, however large the snapshot."""
    responses = dump.result["responses"]
    items = [item for item in dump_check_items(dump) if item.kind == "citation" and item.citation is not None]
    sources_of = [{source["key"]: source for source in response["sources"]} for response in responses]
    urls = {
        source["url"]
        for item in items
        if (source := sources_of[item.response].get(item.source_key or "")) and is_safe_http_url(source["url"])
    }
    snapshots = newest_snapshots(urls)
    claims: dict[str, str] = {}  # a statement's text to its claim's SHA-256 (a statement cites several sources)
    groups: dict[tuple[int, str], dict[str, Any]] = {}
    for item in items:
        assert item.citation is not None
        citation = responses[item.response]["citations"][item.citation]
        source = sources_of[item.response].get(item.source_key or "")
        group = groups.get((item.response, item.source_key or ""))
        if group is None:
            url = source["url"] if source else None
            snapshot = snapshots.get(url) if url and is_safe_http_url(url) else None
            group = groups[(item.response, item.source_key or "")] = {
                "response_index": item.response,
                "source_key": item.source_key,
                "source_url": url,
                "evidence": None,  # the text the dump holds of the source: a snippet, a retrieved passage
                "snapshot": snapshot_entry(snapshot) if snapshot else None,
                "passages": [],  # one per statement citing the source: the passage found for it
                "citations": [],
                "_snapshot": snapshot,
                "_statements": {},
            }
        held = held_evidence(citation, item.source_key, sources_of[item.response]) if item.source_key else None
        if held is not None and not held.is_quote and group["evidence"] is None:
            group["evidence"] = {"kind": held.kind, "text": held.text}
        quote = {"kind": held.kind, "text": held.text} if held is not None and held.is_quote else None
        group["citations"].append({"item_key": item.key, "marker": citation["marker"], "quote": quote,
                                   "statement_key": item.statement_key})  # fmt: skip
        if group["_snapshot"] is not None and item.statement_key not in group["_statements"]:
            text = item.statement.text
            if text not in claims:
                claims[text] = claim_sha256(statement_claim(text))
            group["_statements"][item.statement_key] = claims[text]
    kept = passages_kept(snapshots.values(), claims.values())
    for group in groups.values():
        snapshot = group.pop("_snapshot")
        for statement_key, claim in group.pop("_statements").items():
            group["passages"].append({"statement_key": statement_key, **_passage_entry(kept.get((snapshot.pk, claim)))})
    return list(groups.values())


def _passage_entry(passage: SnapshotPassage | None) -> dict[str, Any]:
    """A kept passage as the report writes it; None: still being looked for (``pending``)."""
    found = passage is not None and passage.found
    return {
        "found": passage.found if passage is not None else None,
        "pending": passage is None,
        "text": passage.text if passage is not None and found else None,
        "score": passage.score if passage is not None and found else None,
        "page": passage.page if passage is not None and found else None,
        "differs": bool(passage and passage.differs),
        "figure_or_date_differs": bool(passage and passage.figure_or_date_differs),
        # The candidates the check panel shows, best first (the first is the passage above).
        "candidates": [
            {"text": candidate.text, "score": candidate.score, "page": candidate.page}
            for candidate in (passage.passages if passage is not None and found else ())
        ],
    }


def evidence_counts(dump: Dump) -> dict[str, int]:
    """What the figures count of a dump's citations: how many there are, how many have evidence text
    in the dump, a snapshot, a passage found in it, a figure or date the passage does not say, and
    a passage still being looked for. Kept while the dump's result and evidence
    (``Dump.evidence_version``) stay as they are: a snapshot of a page it does not cite changes
    nothing kept of it."""
    key = f"citeview:evidence-counts:{dump.pk}:{dump.sha256}:{dump.derived_at.isoformat()}:{dump.evidence_version}"
    counts: dict[str, int] | None = cache.get(key)
    if counts is None:
        counts = dict.fromkeys(
            (
                "citations",
                "with_evidence",
                "with_snapshot",
                "passage_found",
                "figure_or_date_differs",
                "passage_pending",
            ),
            0,
        )
        for group in _evidence_groups(dump):
            passages = {p["statement_key"]: p for p in group["passages"]}
            for citation in group["citations"]:
                passage = passages.get(citation["statement_key"])
                counts["citations"] += 1
                counts["with_evidence"] += bool(group["evidence"] or citation["quote"])
                counts["with_snapshot"] += bool(group["snapshot"])
                counts["passage_found"] += bool(passage and passage["found"])
                counts["figure_or_date_differs"] += bool(passage and passage["figure_or_date_differs"])
                counts["passage_pending"] += bool(passage and passage["pending"])
        cache.set(key, counts, COUNTS_CACHE_SECONDS)
    return counts


# The viewer lists this many of a dump's cited pages that have a snapshot, and counts the rest.
MAX_SNAPSHOTS_LISTED = 50


def cited_page_snapshots(dump: Dump) -> dict[str, Any]:
    """The pages the dump's sources name (http(s) only) that have a snapshot, in the order the sources
    come, each with how its newest snapshot was taken and by whom: what the viewer lists."""
    urls = dict.fromkeys(
        source["url"]
        for response in dump.result["responses"]
        for source in response["sources"]
        if source["url"] and is_safe_http_url(source["url"])
    )
    snapshots = newest_snapshots(urls)
    pages = [{"url": url, "snapshot": snapshots[url]} for url in urls if url in snapshots]
    return {"pages": pages[:MAX_SNAPSHOTS_LISTED], "more": max(len(pages) - MAX_SNAPSHOTS_LISTED, 0)}
