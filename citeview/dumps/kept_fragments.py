"""Pieces of pages kept in Django's cache (the database's by default, shared by every app server): a
row of the list, the list as it first shows, and the viewer's page around its body.

A fragment's key names everything it shows, so a kept fragment is never stale: the dump, its result
(``derived_at``) and whether it is read yet (``read_state``), what the team recorded about it
(``page_version``, bumped by every write a page shows: :func:`citeview.dumps.services.dump_changed`),
the code, templates and translations that made
it (as for the viewer's body: ``running_code_fingerprint``), the language and time zone, and who it is
for (``citeview.accounts.roles.fragment_audience``). A page of the list, made from 25 dumps, is kept
in one entry per place with what it was made from, and used only while that is unchanged
(``checked_fragment``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, NamedTuple, cast

from django.core.cache import cache
from django.utils import timezone
from django.utils.translation import get_language

from citeview.dumps.code_fingerprint import running_code_fingerprint
from citeview.dumps.models import Dump


class DumpVersion(NamedTuple):
    """What a dump's fragments are keyed by, read without the rest of its row (``dump_list().values(...)``)."""

    pk: int
    derived_at: datetime
    page_version: int
    read_state: str  # queued, reading and failed show as such until the result is there


def fragment_key(name: str, dump: Dump | DumpVersion, audience: str, made_by: str | None = None) -> str:
    made_by = made_by or running_code_fingerprint()
    page = f"{dump.pk}.{dump.derived_at.timestamp()}.{dump.page_version}.{dump.read_state}"
    return f"cv:{name}:{page}:{get_language()}:{timezone.get_current_timezone_name()}:{audience}:{made_by[:16]}"


def cached_fragments[D: (Dump, DumpVersion)](
    name: str, dumps: list[D], audience: str, make: Callable[[list[D]], dict[int, Any]]
) -> dict[int, Any]:
    """Per dump, its fragment ``name`` for ``audience``: kept ones read in one round trip, the rest made
    together by ``make`` (a dump's id to its fragment) and kept."""
    made_by = running_code_fingerprint()  # taken once: in development it reads every template
    keys = {dump.pk: fragment_key(name, dump, audience, made_by) for dump in dumps}
    kept = cache.get_many(list(keys.values()))
    fragments = {pk: kept[key] for pk, key in keys.items() if key in kept}
    missing = [dump for dump in dumps if dump.pk not in fragments]
    if missing:
        made = make(missing)
        cache.set_many({keys[pk]: fragment for pk, fragment in made.items()})
        fragments.update(made)
    return fragments


def kept_fragment_key(name: str, shown: Iterable[object]) -> str:
    """The key of a piece of a page that is not one dump's (a form's fields): ``shown`` is every value it
    is made from (their ``repr``), besides the language, time zone and code. Never anything of one user."""
    made_by = running_code_fingerprint()[:16]
    digest = hashlib.sha256(repr(list(shown)).encode()).hexdigest()[:32]
    return f"cv:{name}:{get_language()}:{timezone.get_current_timezone_name()}:{made_by}:{digest}"


def kept_fragment[T](name: str, shown: Iterable[object], make: Callable[[], T]) -> T:
    """A piece of a page that is not one dump's, kept by ``kept_fragment_key``."""
    key = kept_fragment_key(name, shown)
    return cast(T, fragments_kept({key: make})[key])


def fragments_kept(makers: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    """Each key's fragment: the kept ones read in one round trip, the others made by their maker and
    kept together, so that a page of several fragments pays one query for them all."""
    kept = cache.get_many(list(makers))
    made = {key: make() for key, make in makers.items() if key not in kept}
    if made:
        cache.set_many(made)
    return {**kept, **made}


def checked_fragment[T](name: str, where: Iterable[object], made_from: Iterable[object], make: Callable[[], T]) -> T:
    """A piece kept in one entry per place it is shown (``where``, besides the language, time zone and
    code: ``kept_fragment_key``), holding what it was made from (``made_from``, every value it shows
    besides): it is used only while that is what it would be made from now, else made again and kept
    in its place. For a piece made from many things that each change often (a page of the list, from
    its 25 dumps' versions), keying by all of them would keep another copy at every change."""
    key = kept_fragment_key(name, where)
    made = hashlib.sha256(repr(list(made_from)).encode()).hexdigest()
    kept = cache.get(key)
    if kept is not None and kept[0] == made:
        return cast(T, kept[1])
    fragment = make()
    cache.set(key, (made, fragment))
    return fragment
