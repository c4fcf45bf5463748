"""The check panel's snapshot of a citation's source, as the check page shows it: how it was taken and
by whom, the passages a worker found for the claim, the model's own copy of the page, and how the newest
request for it stands. A presenter: the check page's (``citeview.review.check_page``) and the panel's
views (``citeview.review.snapshot_views``) read it; the work is in ``citeview.snapshots``."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from citeview.core.checking.items import CheckItem
from citeview.core.checking.report import snapshot_provenance
from citeview.core.checking.side_by_side import CUT_HINT, hint_words
from citeview.core.common.links import is_safe_http_url
from citeview.core.common.phrases import phrase_text
from citeview.core.evidence.compare import Comparison, compare
from citeview.core.evidence.found import PassageFound, claims_kinds_in, found_with
from citeview.core.evidence.page_copies import copies_compared, model_copy_sentences
from citeview.core.evidence.passages import Passage, passage_fragment_url, passages_of_claims
from citeview.dumps.models import Dump
from citeview.review.exports import shown_time
from citeview.review.forms import SnapshotPasteForm, SnapshotUploadForm
from citeview.snapshots.kept_passages import claim_sha256, passages_wanted, statement_claim
from citeview.snapshots.models import Snapshot, SnapshotFetch, SnapshotPassage
from citeview.snapshots.selectors import (
    fetches_lost,
    newest_fetch,
    newest_snapshot,
    passages_kept,
    snapshot_count,
    snapshot_entry,
)
from citeview.snapshots.services import fetching_allowed, lost_reason


def item_source(dump: Dump, item: CheckItem) -> dict[str, Any] | None:
    """The source the item's citation points at, as the dump's result has it; None for a statement
    or a marker without a source."""
    if item.citation is None or item.source_key is None:
        return None
    response = dump.result["responses"][item.response]
    return next((s for s in response["sources"] if s["key"] == item.source_key), None)


def item_source_url(dump: Dump, item: CheckItem) -> str | None:
    """The http(s) URL of the item's source, the one its snapshots belong to; None for an item with no
    such source (a file, a marker without a source, a statement)."""
    source = item_source(dump, item)
    # As the panel links it: only an explicit http(s) URL with a host (core.common.links).
    return source["url"] if source is not None and is_safe_http_url(source["url"]) else None


def snapshot_panel(request: HttpRequest, dump: Dump, item: CheckItem, url: str) -> dict[str, Any]:
    """What the check panel shows of the source's snapshot: how it was taken and by whom, the passages a
    worker found for the claim (up to three, best first, each with its score, page, the figures and
    dates it holds and a link to it on the live page; the first beside the claim, what differs marked),
    or that they are still being looked for; the forms to take one; the newest fetch when it is
    waiting, or was refused after the newest snapshot."""
    snapshot = newest_snapshot(url)
    fetch = newest_fetch(url)
    panel: dict[str, Any] = {
        "url": url,
        "snapshot": snapshot,
        "count": snapshot_count(url) if snapshot else 0,
        "fetch_allowed": fetching_allowed(),
        "fetch": _fetch_view(fetch, snapshot, url),
        "status_url": reverse("review:snapshot_status", args=[dump.pk, item.key]),
        "action_url": reverse("review:snapshot", args=[dump.pk, item.key]),
        "upload_form": SnapshotUploadForm(auto_id="cv-snapshot-%s"),
        "paste_form": SnapshotPasteForm(auto_id="cv-snapshot-%s"),
        "model_copy": model_copy_view(item_source(dump, item), item.statement.text),
    }
    if snapshot is not None:
        panel["provenance"] = provenance_text(snapshot)
        panel["notes"] = [phrase_text(note, _) for note in snapshot.notes]
        kept = kept_passage(snapshot, item)
        if kept is None:
            passages_wanted(snapshot, [dump.pk], unless_asked_lately=True)  # a worker may have lost the task
            panel["finding"] = True
        else:
            panel.update(passage_view(item.statement.text, kept, url))
            if panel["model_copy"] and panel["found"].passage:
                panel["model_copy"]["compared"] = copies_compared(
                    panel["found"].passage.text, panel["model_copy"]["sentences"]
                )
    return panel


def model_copy_view(source: dict[str, Any] | None, statement: str) -> dict[str, Any] | None:
    """The page as the model fetched and read it, when the dump holds it (Claude's web fetch): a
    snapshot of its own for passage finding (the passage that best matches the claim, what differs
    marked), and what the panel holds citeview's snapshot against. None for any other source."""
    if source is None or source["extra"].get("snippet_kind") != "fetched_page":
        return None
    text = source["extra"].get("snippet")
    if not isinstance(text, str) or not text.strip():
        return None
    claim = statement_claim(statement)
    sentences = model_copy_sentences(text)  # cut once, for the claim's passage and the snapshot's
    found = found_with(claim, next(passages_of_claims([claim], sentences)))
    return {
        "sentences": sentences,
        "retrieved_at": source["extra"].get("retrieved_at"),
        "retrieved_shown": shown_time(str(source["extra"]["retrieved_at"]))
        if source["extra"].get("retrieved_at")
        else "",
        "found": found,
        # The texts escaped by mark_findings, with our own <mark>s only: safe as built.
        "claim_html": found.claim_html(),
        "passage_html": found.passage_html(),
    }


def provenance_text(snapshot: Snapshot) -> str:
    """How the snapshot was taken and by whom, in the page's language, as the reports say it."""
    return snapshot_provenance(snapshot_entry(snapshot), shown_time).text(_)


def kept_passage(snapshot: Snapshot, item: CheckItem) -> SnapshotPassage | None:
    """The passage a worker found in the snapshot for the item's claim; None while it is looked for."""
    claim = claim_sha256(statement_claim(item.statement.text))
    return passages_kept([snapshot], [claim]).get((snapshot.pk, claim))


def passage_view(statement: str, kept: SnapshotPassage, url: str) -> dict[str, Any]:
    """The kept passages beside the claim, best first, each with its score and the figures and dates
    it holds; the first compared again with the claim (the comparison costs only the two texts)."""
    claim = statement_claim(statement)
    candidates = kept.passages if kept.found else ()
    found = found_with(claim, candidates)
    return {
        "found": found,
        # Both are the texts escaped by mark_findings, with our own <mark>s only: safe as built.
        "claim_html": found.claim_html(),
        "passage_html": found.passage_html(),
        "fragment_url": passage_fragment_url(url, found.passage.text) if found.passage else None,
        "hints": _hints(found),
        "candidates": [
            candidate_view(number, passage, url, claim, found.comparison if number == 1 else None)
            for number, passage in enumerate(found.candidates, 1)
        ],
    }


def candidate_view(
    number: int, passage: Passage, url: str, claim: str, comparison: Comparison | None = None
) -> dict[str, Any]:
    """One candidate as the panel lists it: its place, score, page, text, the figures and dates it holds
    of the kinds the claim states (as the comparison reads them), the chips of the claim held against
    it (the candidate's own: they follow the passage, never the first candidate's or the dump's
    evidence's), and a link to it on the live page. ``comparison``: the first's, made already."""
    return {
        "number": number,
        "passage": passage,
        "figures": [finding.text for finding in claims_kinds_in(claim, passage.text)],
        "hints": hint_words(comparison or compare(claim, passage.text)),
        "fragment_url": passage_fragment_url(url, passage.text),
    }


def _hints(found: PassageFound) -> list[dict[str, Any]]:
    """The comparison's findings, one row each (as the viewer's chips and the check page's flags say
    them: ``compare``): what differs, what the passage does not state, a negation that differs."""
    if found.comparison is None:
        return []
    return [
        {
            "hints": [{"outcome": hint.outcome, "kind": hint.kind}],
            "claim": [f.text for f in hint.claim],
            "passage": [f.text for f in hint.passage],
        }
        for hint in found.comparison.hints
    ] + ([{"hints": [dict(CUT_HINT)], "claim": [], "passage": []}] if found.comparison.cut else [])


def _fetch_view(fetch: SnapshotFetch | None, snapshot: Snapshot | None, url: str) -> dict[str, Any] | None:
    """The newest request (a fetch, or an upload or a paste being read), when the panel has something
    to say of it: waiting or running, or refused after the newest snapshot was taken (a refusal before
    it is old news); one whose task ended without it is said to have stopped, never left "reading…".
    ``method`` tells a fetch from a reading, which the panel words apart."""
    if fetch is None:
        return None
    if fetch_lost(fetch, url):
        reason = lost_reason(fetch.method).text(_)
        return {"refused": True, "reason": reason, "code": "lost", "at": fetch.requested_at, "method": fetch.method}
    if fetch.pending:
        return {"pending": True, "state": fetch.state, "label": fetch.get_state_display(), "method": fetch.method}
    if (
        fetch.is_fetch
        and fetch.state == "done"
        and snapshot is not None
        and fetch.snapshot_id == snapshot.pk
        and snapshot.taken_at < fetch.requested_at
    ):
        return {"unchanged": True, "at": fetch.finished_at or fetch.requested_at}
    if fetch.state == "refused" and (snapshot is None or fetch.requested_at > snapshot.taken_at):
        return {
            "refused": True,
            "reason": phrase_text(fetch.error, _),
            "code": fetch.error_code,
            "at": fetch.requested_at,
            "method": fetch.method,
        }
    return None


def fetch_lost(fetch: SnapshotFetch, url: str) -> bool:
    """Whether a request marked waiting or running will not run: its task finished, failed or is gone."""
    return fetch.pending and fetch.pk in fetches_lost(url)
