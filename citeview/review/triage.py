"""Reads: the signals of real items, for "likely problems first" (``citeview.core.checking.triage``), of
one dump, of the dumps in an editor's queue, or of a given list of (dump, item key) (a check plan's
sample: ``items_ranked``). Nothing is fetched or looked for here: the signals come from what is kept
(the check page's comparisons, ``kept_item_evidence``; the passages a worker found in snapshots,
``passages_kept``) and from the dump's result. A dump's signals are kept while its result and its
evidence (``Dump.evidence_version``) stay as they are. No verdict is read: blind first is not touched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count

from citeview.core.checking.items import DIFFERS, CheckItem
from citeview.core.checking.items import NEGATION_DIFFERS as NEGATION_FLAG
from citeview.core.checking.side_by_side import hint_words
from citeview.core.checking.triage import (
    MODEL_COPY_DIFFERS,
    NEGATION_DIFFERS,
    NEVER_FETCHED,
    QUOTE_NOT_IN_DOCUMENT,
    SIGNALS,
    UNRESOLVED_MARKER,
    VALUE_DIFFERS,
    Ranked,
    passage_signals,
    rank,
)
from citeview.core.common.links import is_safe_http_url
from citeview.core.common.shortening import shortened
from citeview.core.common.version import RESULT_VERSION
from citeview.core.evidence.found import found_with
from citeview.core.evidence.page_copies import copies_compared, model_copy_sentences
from citeview.core.evidence.passages import SnapshotSentences
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_check_items
from citeview.review.check_page import NAV_SHOWN_CHARS, NAV_TEXT_CHARS, kept_item_evidence, plain_statement
from citeview.review.models import FINISHED, Check
from citeview.review.selectors import independent_checks, work_queue
from citeview.snapshots.kept_passages import claim_sha256, statement_claim
from citeview.snapshots.models import Snapshot, SnapshotPassage
from citeview.snapshots.selectors import newest_snapshots, passages_kept

SIGNALS_CACHE_SECONDS = 24 * 60 * 60
# The queue in this order lists this many items at most, and counts the rest.
QUEUE_ITEMS_SHOWN = 200
_ATTENTION = ("differs", "negation_differs")


@dataclass(frozen=True)
class ItemSignals:
    """One item and what says it may be a problem: its signals, and what the chips need to say them
    (the hint words of what differs, the weak passage's score, the marker that points at no source)."""

    dump: Dump
    item_key: str
    number: int  # its place in the dump's check order, from 1
    text: str  # the start of its statement
    signals: tuple[str, ...]
    hints: tuple[dict[str, str], ...] = ()
    score: int | None = None
    marker: str = ""


def signals_of_items(dump: Dump, keys: Iterable[str] | None = None) -> list[ItemSignals]:
    """The signals of the dump's items in check order (of those of ``keys`` only, when given)."""
    kept = kept_signals(dump)
    wanted = None if keys is None else set(keys)
    return [
        ItemSignals(dump, key, number, **fields)
        for number, (key, fields) in enumerate(kept.items(), 1)
        if wanted is None or key in wanted
    ]


def items_ranked(pairs: Iterable[tuple[Dump, str]]) -> list[Ranked[ItemSignals]]:
    """The items named by (dump, item key), likely problems first; ties in the order given. What a check
    plan orders its sample's items by: it never chooses them. A key the dump does not have is left out."""
    keys_of: dict[int, set[str]] = {}
    dumps: dict[int, Dump] = {}
    order: list[tuple[int, str]] = []
    for dump, key in pairs:
        dumps.setdefault(dump.pk, dump)
        keys_of.setdefault(dump.pk, set()).add(key)
        order.append((dump.pk, key))
    found = {(s.dump.pk, s.item_key): s for pk, dump in dumps.items() for s in signals_of_items(dump, keys_of[pk])}
    return rank((found[place], found[place].signals) for place in order if place in found)


def ranked_items_of(dump: Dump, signal: str = "") -> list[Ranked[ItemSignals]]:
    """The dump's items, likely problems first; only those carrying ``signal`` when given."""
    chosen = [s for s in signals_of_items(dump) if not signal or signal in s.signals]
    return rank((s, s.signals) for s in chosen)


def signal_counts(dump: Dump) -> dict[str, int]:
    """How many of the dump's items carry each signal, strongest first (every signal, 0 included):
    kept apart from the signals, so that a batch's page reads a few numbers, not every item's."""
    key = f"{_kept_key(dump)}:counts"
    counts: dict[str, int] | None = cache.get(key)
    if counts is None:
        counts = dict.fromkeys(SIGNALS, 0)
        for fields in kept_signals(dump).values():
            for signal in fields["signals"]:
                counts[signal] += 1
        cache.set(key, counts, SIGNALS_CACHE_SECONDS)
    return counts


def queue_ranked(user: Any) -> tuple[list[Ranked[ItemSignals]], int]:
    """The items waiting for ``user`` in the dumps assigned to them (the work queue's dumps), likely
    problems first, ties in the queue's order (the longest waiting dump first, then check order): the
    first QUEUE_ITEMS_SHOWN, and how many wait in all. An item waits as the work queue counts it: the
    user has not finished it and it lacks the independent checks it needs."""
    entries = work_queue(user)
    if not entries:
        return [], 0
    dumps = [entry.dump for entry in entries]  # without their results: read only to make their signals
    done = _not_waiting(user, dumps)
    waiting = [s for dump in dumps for s in signals_of_items(dump) if (dump.pk, s.item_key) not in done]
    ranked = rank((s, s.signals) for s in waiting)
    return ranked[:QUEUE_ITEMS_SHOWN], len(ranked)


def _not_waiting(user: Any, dumps: list[Dump]) -> set[tuple[int, str]]:
    """The items of ``dumps`` not waiting for ``user``: finished by them, or checked independently by
    as many others as the dump needs. Two queries, however many dumps."""
    ids = [dump.pk for dump in dumps]
    needed = {dump.pk: dump.checks_needed for dump in dumps}
    mine = Check.objects.filter(FINISHED, dump_id__in=ids, editor=user, is_item=True)
    done = set(mine.values_list("dump_id", "item_key"))
    others = independent_checks().filter(dump_id__in=ids).exclude(editor=user).order_by()
    for row in others.values("dump_id", "item_key").annotate(n=Count("id")):
        if row["n"] >= needed[row["dump_id"]]:
            done.add((row["dump_id"], row["item_key"]))
    return done


def kept_signals(dump: Dump) -> dict[str, dict[str, Any]]:
    """Per item key, in check order, what ``ItemSignals`` holds besides the dump, the key and the place:
    made from the dump's result, the check page's kept comparisons and the passages kept of its pages'
    snapshots, and kept while they stay as they are."""
    key = _kept_key(dump)
    kept: dict[str, dict[str, Any]] | None = cache.get(key)
    if kept is None:
        if "result" in dump.get_deferred_fields():
            dump = Dump.objects.get(pk=dump.pk)
        kept = _signals_made(dump)
        cache.set(key, kept, SIGNALS_CACHE_SECONDS)
    return kept


def _kept_key(dump: Dump) -> str:
    """What a dump's signals are kept by: its result (``derived_at`` moves when it is rebuilt), its
    evidence (``evidence_version``: a snapshot of a page it cites, passages found), the core's code, and
    how many items it offers."""
    return (
        f"citeview:triage:{dump.pk}:{dump.sha256}:{dump.derived_at.isoformat()}:{dump.evidence_version}:"
        f"{RESULT_VERSION[:16]}:{settings.CITEVIEW_MAX_ITEMS_PER_DUMP}"
    )


def _signals_made(dump: Dump) -> dict[str, dict[str, Any]]:
    items = dump_check_items(dump)
    flags, hints, _marks = kept_item_evidence(dump, items)
    pages = _Pages(dump, items)
    made: dict[str, dict[str, Any]] = {}
    for item in items:
        signals: list[str] = []
        words = [hint for hint in hints.get(item.key, []) if hint["outcome"] in _ATTENTION]
        if NEGATION_FLAG in flags.get(item.key, []):
            signals.append(NEGATION_DIFFERS)
        if DIFFERS in flags.get(item.key, []):
            signals.append(VALUE_DIFFERS)
        if item.kind == "unresolved":
            signals.append(UNRESOLVED_MARKER)
        if _quote_not_in_document(dump, item):
            signals.append(QUOTE_NOT_IN_DOCUMENT)
        score = pages.signals(item, signals, words)
        made[item.key] = {
            "text": shortened(plain_statement(item.statement.text[:NAV_TEXT_CHARS]), NAV_SHOWN_CHARS),
            "signals": tuple(signal for signal in SIGNALS if signal in signals),
            "hints": _unique(words),
            "score": score,
            "marker": _marker(dump, item),
        }
    return made


def _unique(words: list[dict[str, str]]) -> tuple[dict[str, str], ...]:
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for word in words:
        seen.setdefault((word["outcome"], word["kind"]), {"outcome": word["outcome"], "kind": word["kind"]})
    return tuple(seen.values())


def _quote_not_in_document(dump: Dump, item: CheckItem) -> bool:
    """The provider's quote was checked against the document the request sent, and is not in it."""
    if item.citation is None:
        return False
    citation = dump.result["responses"][item.response]["citations"][item.citation]
    first = citation["source_keys"][0] if citation["source_keys"] else None
    check = citation.get("quote_check") or {}
    return citation["cited_text"] is not None and item.source_key == first and check.get("result") == "mismatch"


def _marker(dump: Dump, item: CheckItem) -> str:
    if item.unresolved is None:
        return ""
    return str(dump.result["responses"][item.response]["unresolved"][item.unresolved]["marker"])


class _Pages:
    """What is kept of the pages the dump's items cite: the newest snapshot of each (one query) and the
    passage a worker found in it for each claim (one query per 500 claims). The model's copy of a page
    (Claude's web fetch) is cut into sentences once per text."""

    def __init__(self, dump: Dump, items: list[CheckItem]) -> None:
        self.sources = [{s["key"]: s for s in response["sources"]} for response in dump.result["responses"]]
        self.urls = {item.key: url for item in items if (url := self._url(item))}
        self.snapshots: dict[str, Snapshot] = newest_snapshots(set(self.urls.values()))
        self.claims = {
            item.key: claim_sha256(statement_claim(item.statement.text))
            for item in items
            if self.urls.get(item.key) in self.snapshots
        }
        self.kept = passages_kept(self.snapshots.values(), self.claims.values())
        self.copies: dict[str, SnapshotSentences] = {}

    def _url(self, item: CheckItem) -> str | None:
        source = self._source(item)
        return source["url"] if source is not None and is_safe_http_url(source["url"]) else None

    def _source(self, item: CheckItem) -> dict[str, Any] | None:
        if item.citation is None or item.source_key is None:
            return None
        source: dict[str, Any] | None = self.sources[item.response].get(item.source_key)
        return source

    def signals(self, item: CheckItem, signals: list[str], words: list[dict[str, str]]) -> int | None:
        """Add the item's signals of its page to ``signals`` (and the words of what differs from the
        snapshot's passage to ``words``); the passage's score, when one was found."""
        url = self.urls.get(item.key)
        if url is None:
            return None
        snapshot = self.snapshots.get(url)
        if snapshot is None:
            signals.append(NEVER_FETCHED)
            return None
        passage = self.kept.get((snapshot.pk, self.claims[item.key]))
        if passage is None:  # still being looked for: nothing known yet
            return None
        signals.extend(passage_signals(passage.found, passage.score))
        if passage.differs:
            self._differs(item, passage, signals, words)
        if passage.found and self._model_copy_differs(item, passage):
            signals.append(MODEL_COPY_DIFFERS)
        return passage.score if passage.found else None

    def _differs(
        self, item: CheckItem, passage: SnapshotPassage, signals: list[str], words: list[dict[str, str]]
    ) -> None:
        """The claim against the snapshot's passage, as the snapshot panel compares them (the comparison
        costs only the two texts' length, and is made only where the worker found they differ)."""
        found = found_with(statement_claim(item.statement.text), passage.passages)
        if found.comparison is None:
            return
        words.extend(w for w in hint_words(found.comparison) if w["outcome"] in _ATTENTION)
        if found.comparison.negation_differs:
            signals.append(NEGATION_DIFFERS)
        if found.comparison.differs_in(("figure", "date", "qualifier")):
            signals.append(VALUE_DIFFERS)

    def _model_copy_differs(self, item: CheckItem, passage: SnapshotPassage) -> bool:
        """The page as the model read it has the snapshot's passage in other words, or not at all."""
        source = self._source(item)
        text = source["extra"].get("snippet") if source is not None else None
        if source is None or source["extra"].get("snippet_kind") != "fetched_page" or not isinstance(text, str):
            return False
        if text not in self.copies:
            self.copies[text] = model_copy_sentences(text)
        return not copies_compared(passage.text, self.copies[text]).same


# The queue's orders ("order" in its address): the dumps, longest waiting first (as ever), or the items.
ORDER_WAITING, ORDER_PROBLEMS = "", "problems"


def queue_order(asked: str) -> str:
    return ORDER_PROBLEMS if asked == ORDER_PROBLEMS else ORDER_WAITING


def problems_page(dump: Dump, signal: str) -> dict[str, Any]:
    """What the page of a dump's items in this order shows: the counts per signal, then the items (those
    carrying ``signal``, when it is one), the first QUEUE_ITEMS_SHOWN."""
    signal = signal if signal in SIGNALS else ""
    ranked = ranked_items_of(dump, signal)
    return {
        "dump": dump,
        "signal": signal,
        "counts": list(signal_counts(dump).items()),
        "entries": ranked[:QUEUE_ITEMS_SHOWN],
        "total": len(ranked),
        "more": len(ranked) > QUEUE_ITEMS_SHOWN,
    }
