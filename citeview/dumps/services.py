"""Writes: storing dumps, what the team adds to them, and (re)building what is derived from their bytes."""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from citeview.core.parse import Attachment
from citeview.dumps.derived import derived_fields
from citeview.dumps.models import AttachedDocument, Dump, Tag


def dump_ingest(
    *,
    raw: bytes,
    uploaded_by: AbstractBaseUser | AnonymousUser | None,
    filename: str = "",
    provider: str | None = None,
    request: Attachment | None = None,
) -> tuple[Dump, bool]:
    """Store a dump unless the same bytes are stored already. Returns the dump and whether it is new.

    ``request`` is what the reviewer attached: the request's bytes, or the documents it sent on their
    own (``citeview.core.parse.read_attachment``), each stored verbatim. Given with bytes already
    stored, it is attached to that dump if it has nothing attached yet and :func:`can_attach_request`
    lets the uploader attach it; otherwise the dump is left as it was.
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
                size=len(raw),
                filename=filename[:255],
                uploaded_by=user,
                **_attached_fields(request, user, derived["derived_at"]),
                **derived,
            )
            _store_documents(dump, request)
    except IntegrityError:  # the same bytes stored by a concurrent request a moment ago
        return _stored_already(Dump.objects.get(sha256=sha256), request, uploaded_by), False
    return dump, True


def _attached_fields(request: Attachment | None, user: Any, when: Any) -> dict[str, Any]:
    """The dump's own record of an attachment: the request's bytes, and who attached it and when."""
    if not request:
        return {"request_raw": None, "request_attached_by": None, "request_attached_at": None}
    return {
        "request_raw": request if isinstance(request, bytes) else None,
        "request_attached_by": user,
        "request_attached_at": when,
    }


def _store_documents(dump: Dump, request: Attachment | None) -> None:
    if request and not isinstance(request, bytes):
        AttachedDocument.objects.bulk_create(
            AttachedDocument(dump=dump, position=position, name=attached.name[:255], raw=attached.data)
            for position, attached in enumerate(request)
        )


def _stored_already(dump: Dump, request: Attachment | None, user: AbstractBaseUser | AnonymousUser | None) -> Dump:
    if request and not dump.has_attachment and can_attach_request(user, dump):
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


def dump_attach_request(
    *, dump: Dump, request: Attachment, attached_by: AbstractBaseUser | AnonymousUser | None
) -> Dump:
    """Attach the request that produced a stored response (or the documents it sent), check its
    quotes against it, and record who attached it and when. A dump that has something attached keeps
    it; the dump is returned as stored. Raises ``PermissionDenied`` unless :func:`can_attach_request`
    allows it."""
    if not can_attach_request(attached_by, dump):
        raise PermissionDenied("Only the dump's uploader or staff may attach a request to it.")
    derived = derived_fields(bytes(dump.raw), None, request)
    attachment = {**_attached_fields(request, attached_by, derived["derived_at"]), **derived}
    with transaction.atomic():
        # Only a dump with nothing attached takes it: of two attachments at once, the first is kept.
        unattached = Dump.objects.filter(pk=dump.pk, request_raw__isnull=True, request_attached_at__isnull=True)
        if not unattached.update(**attachment):
            return Dump.objects.get(pk=dump.pk)
        _store_documents(dump, request)
    for name, value in attachment.items():
        setattr(dump, name, value)
    return dump


def attachment_kept(dump: Dump, request: Attachment) -> bool:
    """Whether what the reviewer sent is what the dump has attached (so nothing needs saying)."""
    kept = dump.attachment()
    if isinstance(request, bytes) or isinstance(kept, bytes):
        return kept == request
    return kept is not None and [(f.name[:255], f.data) for f in request] == [(f.name, f.data) for f in kept]


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
    for name, value in derived_fields(bytes(dump.raw), None, dump.attachment()).items():
        setattr(dump, name, value)
    dump.save(update_fields=[*Dump.DERIVED_FIELDS])
    return dump
