"""Reads: the evidence behind each citation of a dump, as the figures count it and the handover report
lists it: the text the dump holds for it (a quote, a snippet, a retrieved passage), the newest snapshot
of its source's page, and the passage of that snapshot found for the claim."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

from citeview.core.evidence.found import PassageFound, passage_for_claim
from citeview.core.evidence.held import held_evidence
from citeview.core.links import is_safe_http_url
from citeview.core.rendering.evidence import claim_words
from citeview.dumps.models import Dump
from citeview.review.selectors import dump_check_items
from citeview.snapshots.models import Snapshot
from citeview.snapshots.selectors import newest_snapshots

# Counted once per dump and kept while neither the dump's result nor any snapshot changes.
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
    """Per source cited, its evidence and each of its citations with its marker, quote and statement."""
    responses = dump.result["responses"]
    items = [item for item in dump_check_items(dump) if item.kind == "citation" and item.citation is not None]
    sources_of = [{source["key"]: source for source in response["sources"]} for response in responses]
    urls = {
        source["url"]
        for item in items
        if (source := sources_of[item.response].get(item.source_key or "")) and is_safe_http_url(source["url"])
    }
    snapshots = newest_snapshots(urls)
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
                "snapshot": _snapshot_entry(snapshot) if snapshot else None,
                "passages": [],  # one per statement citing the source: the passage found for it
                "citations": [],
                "_snapshot": snapshot,
                "_statements": set(),
            }
        held = held_evidence(citation, item.source_key, sources_of[item.response]) if item.source_key else None
        if held is not None and not held.is_quote and group["evidence"] is None:
            group["evidence"] = {"kind": held.kind, "text": held.text}
        quote = {"kind": held.kind, "text": held.text} if held is not None and held.is_quote else None
        group["citations"].append({"item_key": item.key, "marker": citation["marker"], "quote": quote,
                                   "statement_key": item.statement_key})  # fmt: skip
        snapshot = group["_snapshot"]
        if snapshot is not None and item.statement_key not in group["_statements"]:
            group["_statements"].add(item.statement_key)
            found = passage_for_claim(claim_words(item.statement.text), snapshot.text, snapshot.pages)
            group["passages"].append({"statement_key": item.statement_key, **_passage_entry(found)})
    for group in groups.values():
        del group["_snapshot"], group["_statements"]
    return list(groups.values())


def _snapshot_entry(snapshot: Snapshot) -> dict[str, Any]:
    return {
        "url": snapshot.url,
        "final_url": snapshot.final_url,
        "method": snapshot.method,
        "taken_at": snapshot.taken_at.isoformat(),
        "http_status": snapshot.http_status,
        "content_type": snapshot.content_type,
        "sha256": snapshot.sha256,
    }


def _passage_entry(found: PassageFound) -> dict[str, Any]:
    passage = found.passage
    return {
        "found": passage is not None,
        "text": passage.text if passage else None,
        "score": passage.score if passage else None,
        "page": passage.page if passage else None,
        "differs": found.differs,
        "figure_or_date_differs": found.figure_or_date_differs,
    }


def snapshot_version() -> int:
    """Moves on with every snapshot taken: what was counted before it may count otherwise now."""
    return Snapshot.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def evidence_counts(dump: Dump, newest: int | None = None) -> dict[str, int]:
    """What the figures count of a dump's citations: how many there are, how many have evidence text
    in the dump, a snapshot, a passage found in it, and a figure or date the passage does not say.
    ``newest``: ``snapshot_version()``, read once for many dumps."""
    newest = snapshot_version() if newest is None else newest
    key = f"citeview:evidence-counts:{dump.pk}:{dump.sha256}:{dump.derived_at.isoformat()}:{newest}"
    counts: dict[str, int] | None = cache.get(key)
    if counts is None:
        counts = {"citations": 0, "with_evidence": 0, "with_snapshot": 0, "passage_found": 0}
        counts["figure_or_date_differs"] = 0
        for group in _evidence_groups(dump):
            passages = {p["statement_key"]: p for p in group["passages"]}
            for citation in group["citations"]:
                passage = passages.get(citation["statement_key"])
                counts["citations"] += 1
                counts["with_evidence"] += bool(group["evidence"] or citation["quote"])
                counts["with_snapshot"] += bool(group["snapshot"])
                counts["passage_found"] += bool(passage and passage["found"])
                counts["figure_or_date_differs"] += bool(passage and passage["figure_or_date_differs"])
        cache.set(key, counts, COUNTS_CACHE_SECONDS)
    return counts
