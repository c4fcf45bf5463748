"""How often the API may be called: reads and writes each have a budget per token and a larger one per
account (its tokens and its browser session together), so that a runaway script is stopped while
the account's other tools keep working. The limits are ``CITEVIEW_API_RATE_*`` in settings.

django-ratelimit counts, in fixed windows kept in the ``rates`` cache that every app server shares
(``RATELIMIT_USE_CACHE``); this module only says what is counted under which key, and why a request
was refused."""

from __future__ import annotations

import logging
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Literal

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.db import DatabaseCache
from django.db import DatabaseError, connections, router, transaction
from django.http import HttpRequest
from django_ratelimit.core import get_usage

from citeview.api.rate_spec import Rate, parse_rate

logger = logging.getLogger(__name__)

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

Kind = Literal["reads", "writes"]
Whose = Literal["token", "account"]
KINDS: tuple[Kind, ...] = ("reads", "writes")
WHOSE: tuple[Whose, ...] = ("token", "account")


@dataclass(frozen=True)
class RateRefusal:
    kind: Kind
    whose: Whose
    rate: Rate
    retry_after: int

    @property
    def message(self) -> str:
        who = "this token" if self.whose == "token" else "this account (its tokens and its session together)"
        return (
            f"Too many {self.kind}: at most {self.rate.count} {self.rate.per} for {who}; "
            f"try again in {self.retry_after} s."
        )


def api_rate_refusal(request: HttpRequest, token: str | None) -> RateRefusal | None:
    """Counts the request against its token's budget (``token``: the token's digest; None for the
    session) and then its account's; the first budget it exceeds, or None. A request refused by its
    token's budget is not counted against the account's, so that a runaway script locks out only
    itself."""
    kind: Kind = "reads" if request.method in READ_METHODS else "writes"
    budgets: list[tuple[Whose, str]] = [("account", f"user:{request.user.pk}")]
    if token is not None:
        budgets.insert(0, ("token", f"token:{token}"))
    # One commit for all the counting when the counters are in the database: SQLite writes each
    # commit to disk, and a commit per add and per incr made an API request 10 ms slower.
    in_database = isinstance(caches[settings.RATELIMIT_USE_CACHE], DatabaseCache)
    try:
        with transaction.atomic() if in_database else nullcontext():
            return _first_exceeded(request, kind, budgets)
    except DatabaseError:
        # A counter that cannot be written (SQLite busy past its timeout) lets the request through, as
        # RATELIMIT_FAIL_OPEN does for a cache that is down: the limit guards the site, it must not break it.
        logger.warning("API rate not counted for user %s: the counters could not be written", request.user.pk)
        return None


def counted_in_its_commit(request: HttpRequest) -> bool:
    """Whether an API write that asks for it is counted in the same commit as what it writes: on SQLite,
    where each commit is a sync to disk, a commit of its own for the count made a 10 MB upload's 202 1.5×
    to 1.8× its floor rather than 1.2× (bench/README.md, "The queue"). SQLite lets one writer in at a
    time anyway; the request's work until its commit then holds the write lock (the upload: hashing and
    storing the bytes, and reading a dump small enough to be read in the request). On PostgreSQL, Redis
    or memcached the count keeps its own commit: a row lock held through the work would make an
    account's writes wait for each other."""
    if request.method in READ_METHODS:
        return False
    counters = caches[settings.RATELIMIT_USE_CACHE]
    if not isinstance(counters, DatabaseCache):
        return False
    return bool(connections[router.db_for_write(counters.cache_model_class)].vendor == "sqlite")


def _first_exceeded(request: HttpRequest, kind: Kind, budgets: list[tuple[Whose, str]]) -> RateRefusal | None:
    for whose, counted_as in budgets:
        rate = parse_rate(rate_setting(whose, kind))
        if rate is None:
            continue
        usage = get_usage(
            request,
            group=f"citeview.api.{kind}.{whose}",
            key=lambda _group, _request, value=counted_as: value,
            rate=str(rate),
            increment=True,
        )
        if usage is not None and usage["should_limit"]:
            # The window ending at second w still holds w itself: the next one starts a second later.
            return RateRefusal(kind, whose, rate, retry_after=max(1, usage["time_left"] + 1))
    return None


def rate_setting(whose: Whose, kind: Kind) -> str:
    name = f"CITEVIEW_API_RATE_{whose.upper()}_{kind.upper()}"
    return str(getattr(settings, name))
