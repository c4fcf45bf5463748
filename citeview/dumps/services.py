"""Writes: storing dumps, what the team adds to them, and (re)building what is derived from their bytes."""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from citeview.dumps.derived import derived_fields
from citeview.dumps.models import Dump, Tag


def dump_ingest(
    *,
    raw: bytes,
    uploaded_by: AbstractBaseUser | AnonymousUser | None,
    filename: str = "",
    provider: str | None = None,
    request: bytes | None = None,
) -> tuple[Dump, bool]:
    """Store a dump unless the same bytes are stored already. Returns the dump and whether it is new.

    A request given with bytes already stored is attached to that dump if it has none yet and
    :func:`can_attach_request` lets the uploader attach it; otherwise the dump is left as it was.
    Raises :class:`citeview.core.errors.DumpError` for a dump that cannot be read; nothing is stored then.
    """
    sha256 = hashlib.sha256(raw).hexdigest()
    existing = Dump.objects.filter(sha256=sha256).first()
    if existing is not None:
        return _stored_already(existing, request, uploaded_by), False
    derived = derived_fields(raw, provider, request)
    user = uploaded_by if uploaded_by is not None and uploaded_by.is_authenticated else None
    try:
        with transaction.atomic():
            dump = Dump.objects.create(
                sha256=sha256,
                raw=raw,
                request_raw=request or None,
                request_attached_by=user if request else None,
                request_attached_at=derived["derived_at"] if request else None,
                size=len(raw),
                filename=filename[:255],
                uploaded_by=user,
                **derived,
            )
    except IntegrityError:  # the same bytes stored by a concurrent request a moment ago
        return _stored_already(Dump.objects.get(sha256=sha256), request, uploaded_by), False
    return dump, True


def _stored_already(dump: Dump, request: bytes | None, user: AbstractBaseUser | AnonymousUser | None) -> Dump:
    if request and not dump.request_raw and can_attach_request(user, dump):
        return dump_attach_request(dump=dump, request=request, attached_by=user)
    return dump


def can_attach_request(user: AbstractBaseUser | AnonymousUser | None, dump: Dump) -> bool:
    """Whether the user may attach a request to a stored dump: only its uploader, or staff.

    Attaching re-checks every quote the team's checks rely on, so nobody else may do it to a dump
    that is not theirs. Every path that attaches a request asks this, and nothing else decides it.
    """
    if user is None or not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False):
        return True
    return dump.uploaded_by_id is not None and dump.uploaded_by_id == user.pk


def dump_attach_request(*, dump: Dump, request: bytes, attached_by: AbstractBaseUser | AnonymousUser | None) -> Dump:
    """Attach the request that produced a stored response, check its quotes against it, and record
    who attached it and when. A dump that has a request keeps it; the dump is returned as stored.
    Raises ``PermissionDenied`` unless :func:`can_attach_request` allows it."""
    if not can_attach_request(attached_by, dump):
        raise PermissionDenied("Only the dump's uploader or staff may attach a request to it.")
    derived = derived_fields(bytes(dump.raw), None, request)
    attachment = {
        "request_raw": request,
        "request_attached_by": attached_by,
        "request_attached_at": derived["derived_at"],
        **derived,
    }
    # Only a dump without a request takes one: of two attachments at once, the first is kept.
    if not Dump.objects.filter(pk=dump.pk, request_raw__isnull=True).update(**attachment):
        return Dump.objects.get(pk=dump.pk)
    for name, value in attachment.items():
        setattr(dump, name, value)
    return dump


def tags_named(names: list[str]) -> list[Tag]:
    """The tags with these names, made as needed."""
    return [Tag.objects.get_or_create(name=name)[0] for name in dict.fromkeys(names)]


def dump_organise(*, dump: Dump, title: str, tag_names: list[str], assignee: Any) -> Dump:
    """Set a dump's title, tags (made as needed) and assigned editor."""
    with transaction.atomic():
        dump.title = title
        dump.assignee = assignee
        dump.save(update_fields=["title", "assignee"])
        dump.tags.set(tags_named(tag_names))
    return dump


def dump_refresh_result(*, dump: Dump) -> Dump:
    """Rebuild the parsed and rendered result from the stored bytes after the parsers changed.

    The checks are not recounted here, since counting them is review's: callers rebuild through
    ``citeview.review.services.dump_refresh``, which does both."""
    request = bytes(dump.request_raw) if dump.request_raw else None
    for name, value in derived_fields(bytes(dump.raw), None, request).items():
        setattr(dump, name, value)
    dump.save(update_fields=[*Dump.DERIVED_FIELDS])
    return dump
