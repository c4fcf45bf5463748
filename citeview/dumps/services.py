"""Writes: storing dumps and what the team adds to them. Reading their bytes (in the request that
stores one, or by a worker), reading again and rebuilding is ``citeview.dumps.reading``'s."""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from citeview.accounts import roles
from citeview.core.parsing.parse import Attachment
from citeview.core.parsing.request_documents import check_attached_documents
from citeview.dumps.blobs import blob_store
from citeview.dumps.models import Assignment, AttachedDocument, Dump, ReadState, Tag
from citeview.dumps.reading import (
    dump_queue_read,
    fields_read_in_request,
    read_by_a_worker,
    result_kept,
    written,
)
from citeview.dumps.signals import dump_stored
from citeview.dumps.tasks import read_dump_attached


def dump_ingest(
    *,
    raw: bytes,
    uploaded_by: User | AnonymousUser | None,
    filename: str = "",
    provider: str | None = None,
    request: Attachment | None = None,
) -> tuple[Dump, bool]:
    """Store a dump unless the same bytes are stored already. Returns the dump and whether it is new.

    ``request`` is what the reviewer attached: the request's bytes, or the documents it sent on their
    own (``citeview.core.parsing.parse.read_attachment``), each stored verbatim. Given with bytes already
    stored, it is attached to that dump if it has nothing attached yet and :func:`can_attach_request`
    lets the uploader attach it; otherwise the dump is left as it was.
    Raises :class:`citeview.core.common.errors.DumpError` for a dump that cannot be read; nothing is stored then.
    """
    sha256 = hashlib.sha256(raw).hexdigest()
    existing = Dump.objects.filter(sha256=sha256).first()
    if existing is not None:
        return _stored_already(existing, request, uploaded_by), False
    derived = None if read_by_a_worker(raw, request) else fields_read_in_request(raw, provider, request)
    in_task = derived is None
    if derived is None:
        _check_attachment(request)  # what the worker's reading would refuse, said now: nothing stored then
        derived = _queued_fields(provider)
    user = uploaded_by if uploaded_by is not None and uploaded_by.is_authenticated else None
    # The bytes go to the blob storage first, outside the transaction: a row never names bytes that are
    # not stored, and the database holds only the names and what was read from them. So a queued dump's
    # task always finds its bytes, whatever happened to the request that stored them.
    blob_store(raw, sha256)
    attached = _attached_fields(request, user, derived["derived_at"])
    documents = _documents(request)
    try:
        with transaction.atomic():
            dump = Dump.objects.create(
                sha256=sha256,
                size=len(raw),
                filename=filename[:255],
                uploaded_by=user,
                **attached,
                **derived,
            )
            _store_documents(dump, documents)
            if in_task:
                # With the row, in one commit (each is a sync to disk, most of what the 202 took): a
                # worker sees the task only once the row it reads is there.
                dump_queue_read(dump=dump)
    except IntegrityError:  # the same bytes stored by a concurrent request a moment ago
        return _stored_already(Dump.objects.get(sha256=sha256), request, uploaded_by), False
    if not in_task:
        result_kept(dump.pk, derived)
        pk = dump.pk
        transaction.on_commit(lambda: dump_stored.send(sender=Dump, pk=pk))
    return written(dump), True


def _check_attachment(request: Attachment | None) -> None:
    """Raise the :class:`DumpError` a worker's reading would for the documents attached on their own (a
    file neither text nor PDF), without reading their PDFs. (An attached request is checked when the
    form or the API reads it: ``citeview.core.parsing.parse.read_attachment``.)"""
    if request and not isinstance(request, bytes):
        check_attached_documents(request)


def _queued_fields(provider: str | None) -> dict[str, Any]:
    """A dump stored to be read by a worker: nothing derived yet, the provider the uploader named kept."""
    return {"read_state": ReadState.QUEUED, "read_provider": provider or "", "derived_at": timezone.now()}


def can_retry_read(user: User | AnonymousUser | None, dump: Dump) -> bool:
    """Whether the user may press **Try again** on a dump that could not be read: only its uploader, or
    staff. Each press queues a read of the whole dump for a worker, so nobody else's may. The view that
    queues it and the page that offers the button ask this, and nothing else decides it."""
    if user is None or not user.is_authenticated or not user.has_perm(roles.STORE):
        return False
    if getattr(user, "is_staff", False):
        return True
    return dump.uploaded_by_id is not None and dump.uploaded_by_id == user.pk


def _attached_fields(request: Attachment | None, user: Any, when: Any) -> dict[str, Any]:
    """The dump's own record of an attachment: the request's bytes (stored now, as a name), and who
    attached it and when."""
    if not request:
        return {"request_sha256": "", "request_attached_by": None, "request_attached_at": None}
    return {
        "request_sha256": blob_store(request) if isinstance(request, bytes) else "",
        "request_attached_by": user,
        "request_attached_at": when,
    }


def _documents(request: Attachment | None) -> list[AttachedDocument]:
    """The documents attached on their own, their bytes stored now (rows to be written with the dump's)."""
    if not request or isinstance(request, bytes):
        return []
    return [
        AttachedDocument(position=position, name=attached.name[:255], sha256=blob_store(attached.data))
        for position, attached in enumerate(request)
    ]


def _store_documents(dump: Dump, documents: list[AttachedDocument]) -> None:
    for document in documents:
        document.dump = dump
    AttachedDocument.objects.bulk_create(documents)


def _attach_first(dump: Dump, attachment: dict[str, Any], documents: list[AttachedDocument]) -> bool:
    """Write the attachment and its documents to a dump with nothing attached; False, writing nothing,
    when it has something already. Of two attachments at once the first is kept: the update is
    conditional, so only one writer finds the dump unattached. Called inside the caller's transaction."""
    unattached = Dump.objects.filter(pk=dump.pk, request_sha256="", request_attached_at__isnull=True)
    if not unattached.update(**attachment):
        return False
    _store_documents(dump, documents)
    return True


def _stored_already(dump: Dump, request: Attachment | None, user: User | AnonymousUser | None) -> Dump:
    # A dump still being read takes its attachment once it is read (its worker reads what is attached).
    if request and dump.is_ready and not dump.has_attachment and can_attach_request(user, dump):
        return dump_attach_request(dump=dump, request=request, attached_by=user)
    return dump


def can_attach_request(user: User | AnonymousUser | None, dump: Dump) -> bool:
    """Whether the user may attach a request to a stored dump: only its uploader, or staff.

    Attaching re-checks every quote the team's checks rely on, so nobody else may do it to a dump
    that is not theirs. Every path that attaches a request asks this, and nothing else decides it.
    """
    if user is None or not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False):
        return True
    return dump.uploaded_by_id is not None and dump.uploaded_by_id == user.pk


def dump_attach_request(*, dump: Dump, request: Attachment, attached_by: User | AnonymousUser | None) -> Dump:
    """Attach the request that produced a stored response (or the documents it sent), check its
    quotes against it, and record who attached it and when. A dump that has something attached keeps
    it; the dump is returned as stored. Raises ``PermissionDenied`` unless :func:`can_attach_request`
    allows it. A dump that :func:`read_by_a_worker` with what is attached (a PDF to read) is read
    again by a worker: it is returned not ready, and its pages show the progress meanwhile."""
    if not can_attach_request(attached_by, dump):
        raise PermissionDenied("Only the dump's uploader or staff may attach a request to it.")
    raw = dump.raw
    derived = None if read_by_a_worker(raw, request) else fields_read_in_request(raw, None, request)
    if derived is None:
        return _attach_for_a_worker(dump, request, attached_by)
    attachment = {**_attached_fields(request, attached_by, derived["derived_at"]), **derived}
    documents = _documents(request)
    with transaction.atomic():
        if not _attach_first(dump, attachment, documents):
            return Dump.objects.get(pk=dump.pk)
    result_kept(dump.pk, derived)
    for name, value in attachment.items():
        setattr(dump, name, value)
    return written(dump)


def _attach_for_a_worker(dump: Dump, request: Attachment, attached_by: User | AnonymousUser | None) -> Dump:
    """What is attached stored now, and the dump queued to be read again with it by a worker (in the
    same commit: the worker reads what is attached). A document that is neither text nor a PDF is said
    now, and nothing is attached; the first of two attachments at once is kept, as in the request."""
    _check_attachment(request)
    attachment = _attached_fields(request, attached_by, timezone.now())
    documents = _documents(request)
    with transaction.atomic():
        if not _attach_first(dump, attachment, documents):
            return Dump.objects.get(pk=dump.pk)
        dump_queue_read(dump=dump, task=read_dump_attached, again=True)
    dump.refresh_from_db()  # the state, and (had the task run at once) what it read
    return written(dump)


def attachment_kept(dump: Dump, request: Attachment) -> bool:
    """Whether what the reviewer sent is what the dump has attached (so nothing needs saying). Compared by
    SHA-256: the blobs are not read."""
    if isinstance(request, bytes) or dump.request_sha256:
        return isinstance(request, bytes) and dump.request_sha256 == hashlib.sha256(request).hexdigest()
    if dump.request_attached_at is None:
        return False
    kept = [(d.name, d.sha256) for d in dump.documents.order_by("position")]
    return bool(kept) and [(f.name[:255], hashlib.sha256(f.data).hexdigest()) for f in request] == kept


def tags_named(names: list[str]) -> list[Tag]:
    """The tags with these names, made as needed."""
    return [Tag.objects.get_or_create(name=name)[0] for name in dict.fromkeys(names)]


def dump_organise(*, dump: Dump, title: str, tag_names: list[str]) -> Dump:
    """Set a dump's title and tags (made as needed)."""
    with transaction.atomic():
        dump.title = title
        dump.save(update_fields=["title"])
        dump.tags.set(tags_named(tag_names))
        dump_changed(dump=dump)
    return dump


def dump_assignments_set(*, dump: Dump, add: list[Any], remove: set[int], by: Any) -> list[str]:
    """Assign ``dump`` to the editors ``add`` and no longer to the users whose ids are ``remove``;
    returns the names of those removed. Review's ``editors_assign`` calls this, having said who could
    already read the verdicts."""
    removed = Assignment.objects.filter(dump=dump, editor_id__in=remove).select_related("editor")
    names = [assignment.editor.get_username() for assignment in removed]
    removed.delete()
    Assignment.objects.bulk_create(
        [Assignment(dump=dump, editor=editor, assigned_by=by) for editor in add], ignore_conflicts=True
    )
    return names


def dump_changed(*, dump: Dump) -> None:
    """Say that what a page shows of the dump changed (its title, tags or editors, a check, a comment):
    every fragment kept of it is then keyed by a version no longer current. Every such write calls this."""
    Dump.objects.filter(pk=dump.pk).update(page_version=F("page_version") + 1)
    dump.refresh_from_db(fields=["page_version"])
