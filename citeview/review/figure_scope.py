"""What every figure of checks is computed on, for one reader: the items whose checks they may read,
of all the items the dumps hold (``FigureScope``).

Blind first (``checks_visible_to``) keeps other editors' checks of an item from an editor until they
have checked it, so the figures an editor reads count fewer items than the dump holds. Each figure
must say so inside it ("on the 2 of 14 items visible to you") and never pass for the dump's. This is
the one place that decides it, for the report (page, Markdown, JSON), the figures (page, JSON, the
API's metrics) and every slice of them: an item is hidden from the reader when any check of it by
another editor is, whatever ``checks_visible_to`` decides that by. Items are counted as items, not as
check rows (an item hides its statement's answers with it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from citeview.accounts import roles
from citeview.core.checking.items import checkable_per_response
from citeview.core.checking.metrics import FigureScope
from citeview.dumps.models import Dump
from citeview.review.models import RECORDED, Check
from citeview.review.selectors import checks_visible_to


@dataclass(frozen=True)
class HiddenItem:
    """An item some check of which blind first keeps from the reader, with what the figures slice by."""

    dump_id: int
    item_key: str
    provider: str
    api: str
    model: str


class ReaderScope:
    """The items of ``checks`` that blind first keeps from ``user`` (read in one query), and the scope
    of any figure over some of the dumps: the dumps' items, less those hidden."""

    def __init__(self, user: Any, checks: QuerySet[Check]) -> None:
        self.hidden: list[HiddenItem] = []
        if not roles.can_record(user):
            return  # a reviewer reads every check (``checks_visible_to``): nothing to ask the database
        items = checks.filter(RECORDED, is_item=True)  # a check an undo emptied hides nothing
        visible = checks_visible_to(user, items).values("pk")
        rows = (
            items.exclude(pk__in=visible)
            .order_by()
            .values_list("dump_id", "item_key", "provider", "api", "model")
            .distinct()
        )
        self.hidden = [HiddenItem(*row) for row in rows]

    def hidden_keys(self) -> list[str]:
        """The hidden items' keys (of one dump's checks): what the report counts as hidden."""
        return sorted({item.item_key for item in self.hidden})

    def of(self, dumps: Iterable[Dump], where: Callable[[Any], bool] | None = None) -> FigureScope:
        """The scope of a figure over ``dumps`` (each counted by the items it offers for checking), or,
        for a figure of part of their responses (a provider's, an API's, a model's: the responses and
        hidden items ``where`` takes), over those responses' items alone."""
        chosen = list(dumps)
        ids = {dump.pk for dump in chosen}
        hidden = {(h.dump_id, h.item_key) for h in self.hidden if h.dump_id in ids and (where is None or where(h))}
        return FigureScope.of(sum(_offered(dump, where) for dump in chosen), len(hidden))


@dataclass(frozen=True)
class _ResponsePart:
    """What a slice's ``where`` reads of a response, as it reads a check: its provider, API and model."""

    provider: str
    api: str
    model: str


def _offered(dump: Dump, where: Callable[[Any], bool] | None) -> int:
    """The items ``dump`` offers for checking, of the responses ``where`` takes (all without it). A dump
    whose items per response were not derived yet (stored before they were) counts whole."""
    if where is None or not dump.response_items:
        return dump.checkable_item_count
    parts = [(r[3], r[4], r[5]) for r in dump.response_items]
    offered = checkable_per_response(parts, settings.CITEVIEW_MAX_ITEMS_PER_DUMP)
    return sum(n for r, n in zip(dump.response_items, offered, strict=True) if where(_ResponsePart(*r[:3])))
