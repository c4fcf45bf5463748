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
        return bool(self._user is not None and self._user.is_authenticated and roles.can_settle(self._user))

    @cached_property
    def waiting(self) -> int:
        if not self.shown:
            return 0
        # One count, and no disagreement read (limit 0). The one call to change when the count
        # becomes the reader's own (the disagreements this user may settle).
        _none, total = selectors.disputes_waiting(limit=0)
        return total


def settle_link(request: HttpRequest) -> dict[str, Any]:
    return {"settle_link": SettleLink(getattr(request, "user", None))}
