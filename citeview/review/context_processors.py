"""What every page's header needs from review: the link to the disagreements waiting to be settled,
for those who may settle them, with how many there are."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.http import HttpRequest

from citeview.accounts import roles
from citeview.review import selectors


class SettleLink:
    """The header's link to the settle queue. Nothing is asked of the database until a template reads
    it, and the number waiting only for a user who may settle: any other page pays nothing for it."""

    def __init__(self, user: Any) -> None:
        self._user = user

    @cached_property
    def shown(self) -> bool:
        # The settle queue's own guards: one who may settle and may read dumps.
        user = self._user
        return bool(user is not None and user.is_authenticated and roles.can_settle(user) and user.has_perm(roles.READ))

    @cached_property
    def waiting(self) -> int:
        """The disagreements this user may settle (never one they judged, nor one of a dump they check)."""
        return selectors.settle_waiting_count(self._user) if self.shown else 0


def settle_link(request: HttpRequest) -> dict[str, Any]:
    return {"settle_link": SettleLink(getattr(request, "user", None))}
