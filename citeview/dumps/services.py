"""Writes: storing dumps, what the team adds to them, and (re)building what is derived from their bytes."""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import F
from django.tasks import Task
from django.utils import timezone

from citeview.accounts import roles
from citeview.core.errors import DumpError
from citeview.core.evidence.request_documents import check_attached_documents
from citeview.core.parse import Attachment, may_read_pdf
from citeview.core.pdf import PdfReadRefused, pdf_reads_refused
from citeview.core.phrases import phrase
from citeview.dumps.blobs import blob_check, blob_opened, blob_read, blob_store
from citeview.dumps.derived import derived_fields, fields_of_result, normalised_result
from citeview.dumps.models import Assignment, AttachedDocument, Dump, EncodedJSON, ReadState, Tag
from citeview.dumps.selectors import dump_read_pending
from citeview.dumps.signals import dump_read_failed, dump_stored, result_written
from citeview.dumps.tasks import read_dump, read_dump_attached

# The derived fields written as JSON encoded beforehand (``_encoded``): the large ones.
ENCODED_FIELDS = ("rendered", "result")  # (in the order they are encoded: see ``_encoded``)


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
    own (``citeview.core.parse.read_attachment``), each stored verbatim. Given with bytes already
    stored, it is attached to that dump if it has nothing attached yet and :func:`can_attach_request`
    lets the uploader attach it; otherwise the dump is left as it was.
    Raises :class:`citeview.core.errors.DumpError` for a dump that cannot be read; nothing is stored then.
    """
    sha256 = hashlib.sha256(raw).hexdigest()
    existing = Dump.objects.filter(sha256=sha256).first()
    if existing is not None:
        return _stored_already(existing, request, uploaded_by), False
    derived = None if read_by_a_worker(raw, request) else _derived_in_request(raw, provider, request)
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
        _result_written(dump.pk, derived)
        pk = dump.pk
        transaction.on_commit(lambda: dump_stored.send(sender=Dump, pk=pk))
    return _written(dump), True


def read_by_a_worker(raw: bytes, request: Attachment | None = None) -> bool:
    """Whether a dump is read by a worker rather than in the web request: one larger than
    ``CITEVIEW_READ_IN_TASK_ABOVE``, and one that may carry a PDF (a request's document, a fetched PDF,
    one attached), whatever its size, as reading a dump's PDFs may take ``citeview.core.pdf.BUDGET_SECONDS``
    (20 s): a web worker never waits on a PDF."""
    return len(raw) > settings.CITEVIEW_READ_IN_TASK_ABOVE or may_read_pdf(raw, request)


def _derived_in_request(raw: bytes, provider: str | None, request: Attachment | None) -> dict[str, Any] | None:
    """The derived fields, read in the web request; None when the reading came to a PDF after all (one
    that ``read_by_a_worker`` cannot see: a base64 text a stream joins from pieces), which no web
    request reads: the dump is then read by a worker. Raises :class:`DumpError`."""
    try:
        with pdf_reads_refused():
            return _encoded(derived_fields(raw, provider, request))
    except PdfReadRefused:
        return None


def _check_attachment(request: Attachment | None) -> None:
    """Raise the :class:`DumpError` a worker's reading would for the documents attached on their own (a
    file neither text nor PDF), without reading their PDFs. (An attached request is checked when the
    form or the API reads it: ``citeview.core.parse.read_attachment``.)"""
    if request and not isinstance(request, bytes):
        check_attached_documents(request)


def _queued_fields(provider: str | None) -> dict[str, Any]:
    """A dump stored to be read by a worker: nothing derived yet, the provider the uploader named kept."""
    return {"read_state": ReadState.QUEUED, "read_provider": provider or "", "derived_at": timezone.now()}


def dump_queue_read(*, dump: Dump, task: Task[..., str] = read_dump, again: bool = False) -> Dump:
    """Queue the reading of a stored dump's bytes (in the transaction that writes its row, or once it is
    written: the task reads the row). Also how a failed dump is tried again. ``again``: a dump read already is read
    again by ``task`` (its result made by older code, ``citeview.review.services.dump_refresh_if_stale``),
    and its pages show the progress meanwhile, as a new dump's do."""
    unread = Dump.objects.filter(pk=dump.pk)
    with transaction.atomic():  # one commit, not one per write
        if again:
            unread.update(read_state=ReadState.QUEUED, read_error=None, read_task_id="")
        else:
            unread.exclude(read_state=ReadState.READY).update(read_state=ReadState.QUEUED, read_error=None)
        queued = task.enqueue(dump.pk)
        # In the tests' immediate backend the task has run already: only the task's id is written,
        # never the state over what the task wrote.
        Dump.objects.filter(pk=dump.pk, read_task_id="").update(read_task_id=str(queued.id))
    dump.refresh_from_db(fields=[*READ_FIELDS])
    return dump


READ_FIELDS = ("read_state", "read_error", "read_task_id", "read_attempts", "read_started_at")


def dump_read_begin(*, pk: int, task_id: str) -> bool:
    """Mark a dump as being read by the task ``task_id``; False if it is read already or gone."""
    return bool(
        Dump.objects.filter(pk=pk)
        .exclude(read_state=ReadState.READY)
        .update(
            read_state=ReadState.READING,
            read_started_at=timezone.now(),
            read_attempts=F("read_attempts") + 1,
            read_task_id=task_id,
        )
    )


def dump_read_stored(*, pk: int) -> str:
    """Read a dump's stored bytes into its derived fields (the task ``read_dump``). Reading the same
    bytes again makes the same result, so a task run twice (its worker killed, or a retry) does no
    harm; a dump read already is left alone. Returns the state the dump is left in."""
    dump = Dump.objects.defer(*ENCODED_FIELDS, "search_text").filter(pk=pk).first()
    if dump is None or dump.read_state == ReadState.READY:
        return ReadState.READY if dump else "gone"
    try:
        attachment = dump.attachment()
        # The stored blob is read a part at a time as it is parsed: a stream's bytes are never all held,
        # nor held beside its values, the renderings and the row's write (bench/README.md, memory).
        try:
            with blob_opened(dump.sha256, f"dump {pk}") as raw:
                result = normalised_result(raw, dump.read_provider or None, attachment)
        except DumpError:
            blob_read(dump.sha256, f"dump {pk}")  # bytes changed since they were stored are said so
            raise
        blob_check(dump.sha256, result["dump"]["sha256"], f"dump {pk}")
        derived = fields_of_result(result)
        del result  # (held by ``derived`` alone, it is let go once encoded)
        _encoded(derived)
    except DumpError as error:
        return _read_failed(pk, error)
    except Exception:  # a fault of ours: the page says so, the log and the task's record say what
        _read_failed(pk, DumpError("internal_error", phrase("citeview failed to read this dump; the error is logged.")))
        raise
    Dump.objects.filter(pk=pk).update(read_state=ReadState.READY, read_error=None, **derived)
    _result_written(pk, derived)
    return ReadState.READY


def _read_failed(pk: int, error: DumpError) -> str:
    reason = {"code": error.code, "message": error.message, "phrase": error.phrase.to_json()}
    failed = (
        Dump.objects.filter(pk=pk)
        .exclude(read_state=ReadState.READY)
        .update(read_state=ReadState.FAILED, read_error=reason)
    )
    if failed:
        transaction.on_commit(lambda: dump_read_failed.send(sender=Dump, pk=pk, code=error.code))
    return ReadState.FAILED


def dump_retry_read(*, dump: Dump) -> Dump:
    """Try a dump that could not be read (or whose reading was lost with its worker) again, as a new
    task. A dump read already, or whose read is still to run (``dump_read_pending``), is left as it is:
    pressing **Try again** ten times queues one read, not eleven."""
    if dump.is_ready or dump_read_pending(dump):
        return dump
    # Only the press that finds the task it saw: of two at once, one queues the read.
    if not Dump.objects.filter(pk=dump.pk, read_task_id=dump.read_task_id).update(read_task_id=""):
        return dump
    return dump_queue_read(dump=dump)


def can_retry_read(user: User | AnonymousUser | None, dump: Dump) -> bool:
    """Whether the user may press **Try again** on a dump that could not be read: only its uploader, or
    staff. Each press queues a read of the whole dump for a worker, so nobody else's may. The view that
    queues it and the page that offers the button ask this, and nothing else decides it."""
    if user is None or not user.is_authenticated or not user.has_perm(roles.STORE):
        return False
    if getattr(user, "is_staff", False):
        return True
    return dump.uploaded_by_id is not None and dump.uploaded_by_id == user.pk


def _encoded(derived: dict[str, Any]) -> dict[str, Any]:
    """The derived fields, the result and renderings encoded as JSON now, in place: each field's
    objects are let go once its text is made, the result's (the largest) last, so that their objects
    and all their texts are not held together. Given the only holder of their objects, writing the
    row holds their text alone (the objects beside it made most of the peak of storing a large dump:
    bench/README.md)."""
    for name in ENCODED_FIELDS:
        if name in derived:
            derived[name] = EncodedJSON(derived[name])
    return derived


def _written(dump: Dump) -> Dump:
    """The dump as written: its result and renderings are read back from its row when first used."""
    for name in ENCODED_FIELDS:
        if name in dump.__dict__:
            delattr(dump, name)  # deferred now: the next read loads it
    return dump


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
    derived = None if read_by_a_worker(raw, request) else _derived_in_request(raw, None, request)
    if derived is None:
        return _attach_for_a_worker(dump, request, attached_by)
    attachment = {**_attached_fields(request, attached_by, derived["derived_at"]), **derived}
    documents = _documents(request)
    with transaction.atomic():
        if not _attach_first(dump, attachment, documents):
            return Dump.objects.get(pk=dump.pk)
    _result_written(dump.pk, derived)
    for name, value in attachment.items():
        setattr(dump, name, value)
    return _written(dump)


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
    return _written(dump)


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
    returns the names of those removed. Review's ``dump_assign`` calls this, having said who could
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


def dump_refresh_result(*, dump: Dump) -> Dump:
    """Rebuild the parsed and rendered result from the stored bytes after the parsers changed.

    The checks are not recounted here, since counting them is review's: callers rebuild through
    ``citeview.review.services.dump_refresh``, which does both."""
    raw, attachment = dump.raw, dump.attachment()
    _written(dump)  # the old result and renderings let go before the new ones are made
    derived = _encoded(derived_fields(raw, None, attachment))
    for name, value in derived.items():
        setattr(dump, name, value)
    dump.save(update_fields=[*Dump.DERIVED_FIELDS])
    _result_written(dump.pk, derived)
    return _written(dump)


def _result_written(pk: int, derived: dict[str, Any]) -> None:
    result_written.send(sender=Dump, pk=pk, cited_url_hashes=derived["cited_url_hashes"])
