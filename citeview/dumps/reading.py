"""A dump's reading, in one place: reading its stored bytes into its result (in the request that stores
it, or by a worker), reading it again when it could not be read, rebuilding a result older code made,
and keeping what its viewer shows of a result (the pages a worker renders once per language).

Every write here runs in a POST or in a worker's task, never in a page's GET: a GET that finds a result
older code made shows it as stored and queues its rebuild (:func:`dump_queue_rebuild`), and one that
finds its viewer's pages not kept renders them for itself and queues their keeping
(:func:`dump_queue_pages_keep`), each queued once however many GETs ask. What is counted from a result
by the apps above (review's checked items) is theirs: they learn of a result made again from the
signal ``result_rebuilt``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.tasks import Task
from django.utils import timezone, translation

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import phrase
from citeview.core.parsing.parse import Attachment, may_read_pdf
from citeview.core.parsing.pdf import PdfReadRefused, pdf_reads_refused
from citeview.dumps.batches import BATCH_RESPONSES, batch_rows_ensure, batch_rows_made, is_batch
from citeview.dumps.blobs import blob_check, blob_opened, blob_read
from citeview.dumps.code_fingerprint import running_code_fingerprint
from citeview.dumps.derived import derived_fields, fields_of_result, normalised_result, result_version
from citeview.dumps.models import Dump, EncodedJSON, ReadState
from citeview.dumps.selectors import dump_read_pending, dump_result_is_current, dumps_outdated
from citeview.dumps.signals import dump_read_failed, result_rebuilt, result_written
from citeview.dumps.tasks import keep_dump_pages, read_dump, rebuild_dump
from citeview.dumps.viewer_body import body_keep, kept_body

# The derived fields written as JSON encoded beforehand (``encoded``): the large ones.
ENCODED_FIELDS = ("rendered", "result")  # (in the order they are encoded: see ``encoded``)
READ_FIELDS = ("read_state", "read_error", "read_task_id", "read_attempts", "read_started_at")
# A GET queues a rebuild or the keeping of pages once: the next GETs find it queued (a mark in the
# shared cache) and queue nothing. A task lost with its worker is queued again by a GET after this.
QUEUED_MARK_SECONDS = 10 * 60


def read_by_a_worker(raw: bytes, request: Attachment | None = None) -> bool:
    """Whether a dump is read by a worker rather than in the web request: one larger than
    ``CITEVIEW_READ_IN_TASK_ABOVE``, and one that may carry a PDF (a request's document, a fetched PDF,
    one attached), whatever its size, as reading a dump's PDFs may take ``citeview.core.parsing.pdf.BUDGET_SECONDS``
    (20 s): a web worker never waits on a PDF."""
    return len(raw) > settings.CITEVIEW_READ_IN_TASK_ABOVE or may_read_pdf(raw, request)


def fields_read_in_request(raw: bytes, provider: str | None, request: Attachment | None) -> dict[str, Any] | None:
    """The derived fields, read in the web request that stores the dump (or attaches its request); None
    when the reading came to a PDF after all (one that ``read_by_a_worker`` cannot see: a base64 text a
    stream joins from pieces), which no web request reads: the dump is then read by a worker. Raises
    :class:`DumpError`."""
    try:
        with pdf_reads_refused():
            return encoded(derived_fields(raw, provider, request))
    except PdfReadRefused:
        return None


def dump_queue_read(*, dump: Dump, task: Task[..., str] = read_dump, again: bool = False) -> Dump:
    """Queue the reading of a stored dump's bytes (in the transaction that writes its row, or once it is
    written: the task reads the row). Also how a failed dump is tried again. ``again``: a dump read
    already is read again by ``task`` (with a request just attached), and its pages show the progress
    meanwhile, as a new dump's do."""
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
        encoded(derived)
    except DumpError as error:
        return _read_failed(pk, error)
    except Exception:  # a fault of ours: the page says so, the log and the task's record say what
        _read_failed(pk, DumpError("internal_error", phrase("citeview failed to read this dump; the error is logged.")))
        raise
    with transaction.atomic():  # a batch is ready with its rows: its page never finds them missing
        Dump.objects.filter(pk=pk).update(read_state=ReadState.READY, read_error=None, **derived)
        result_kept(pk, derived)
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


def dump_rebuild(*, dump: Dump) -> Dump:
    """Rebuild the parsed and rendered result from the stored bytes after the code changed (a worker's
    task: ``rebuild_dump``). ``result_rebuilt`` is sent once it is written: review recounts the checked
    items, as a rebuilt result may have other items."""
    attachment = dump.attachment()
    written(dump)  # the old result and renderings let go before the new ones are made
    with blob_opened(dump.sha256, f"dump {dump.pk}") as raw:  # read a part at a time, as a first reading is
        result = normalised_result(raw, None, attachment)
    blob_check(dump.sha256, result["dump"]["sha256"], f"dump {dump.pk}")
    derived = encoded(fields_of_result(result))
    del result
    for name, value in derived.items():
        setattr(dump, name, value)
    with transaction.atomic():
        dump.save(update_fields=[*Dump.DERIVED_FIELDS])
        result_kept(dump.pk, derived)
    result_rebuilt.send(sender=Dump, pk=dump.pk)
    return written(dump)


def dump_rebuild_stored(*, pk: int, everything: bool = False) -> bool:
    """The task ``rebuild_dump``: the dump rebuilt unless it is current (or gone, or not read yet), and
    its viewer's pages kept. Returns whether it was rebuilt."""
    dump = Dump.objects.filter(pk=pk, read_state=ReadState.READY).first()
    if dump is None or (not everything and dump_result_is_current(dump)):
        return False
    dump_rebuild(dump=dump)
    keep_dump_pages.enqueue(pk)
    return True


def dump_queue_rebuild(*, dump: Dump) -> bool:
    """Queue the rebuild of a dump whose result older code made, unless one is queued already; what a
    page's GET calls, showing the stored result meanwhile. Returns whether the result is out of date
    (a rebuild is then queued, now or by an earlier GET)."""
    if dump_result_is_current(dump):
        return False
    if _mark_queued("rebuild", dump.pk, result_version()):
        rebuild_dump.enqueue(dump.pk)
    return True


def dump_rebuild_outdated(*, everything: bool = False) -> int:
    """Queue a rebuild of every dump whose result older code made (or ``everything``), one task per dump
    so that every worker takes a share; returns how many were queued. (``refresh_dumps``, at a deploy.)"""
    outdated = Dump.objects.filter(read_state=ReadState.READY) if everything else dumps_outdated()
    count = 0
    for pk in outdated.values_list("pk", flat=True).iterator():
        _mark_queued("rebuild", pk, result_version())  # the pages find it queued
        rebuild_dump.enqueue(pk, everything)
        count += 1
    return count


def dump_pages_keep(*, pk: int) -> None:
    """Keep the viewer's body of a read dump in each interface language (``DumpPage``) unless a current
    one is kept, and a batch's rows: what a worker does once it has read or rebuilt a dump, and the
    task a page queues when it found them not kept (after a deploy changed the templates)."""
    dump = Dump.objects.filter(pk=pk, read_state=ReadState.READY).first()
    if dump is None:
        return
    if is_batch(dump):
        batch_rows_ensure(dump=dump, whole=lambda: dump)
        return  # a batch's page shows one response at a time: it has no body of the whole
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            body_keep(dump)


def dump_queue_pages_keep(*, dump: Dump) -> None:
    """Queue the keeping of a read dump's viewer pages, unless queued already: what a page's GET calls
    when it found them not kept (it renders its own meanwhile, and keeps nothing)."""
    if _mark_queued("pages", dump.pk, f"{dump.derived_at.timestamp()}.{running_code_fingerprint()[:16]}"):
        keep_dump_pages.enqueue(dump.pk)


def dump_pages_kept(dump: Dump) -> bool:
    """Whether what the viewer shows of a read dump is kept for the current language (a batch: its rows)."""
    return batch_rows_made(dump) if is_batch(dump) else kept_body(dump) is not None


def _mark_queued(work: str, pk: int, version: str) -> bool:
    """Mark ``work`` on a dump as queued for ``version`` of it; False if it was marked already (by
    another GET: ``cache.add`` adds a key once, across the app servers sharing the cache)."""
    return bool(cache.add(f"cv:queued:{work}:{pk}:{version}", True, QUEUED_MARK_SECONDS))


def encoded(derived: dict[str, Any]) -> dict[str, Any]:
    """The derived fields, the result and renderings encoded as JSON now, in place: each field's
    objects are let go once its text is made, the result's (the largest) last, so that their objects
    and all their texts are not held together. Given the only holder of their objects, writing the
    row holds their text alone (the objects beside it made most of the peak of storing a large dump:
    bench/README.md)."""
    for name in ENCODED_FIELDS:
        if name in derived:
            derived[name] = EncodedJSON(derived[name])
    return derived


def written(dump: Dump) -> Dump:
    """The dump as written: its result and renderings are read back from its row when first used."""
    for name in ENCODED_FIELDS:
        if name in dump.__dict__:
            delattr(dump, name)  # deferred now: the next read loads it
    return dump


def result_kept(pk: int, derived: dict[str, Any]) -> None:
    """Once a result is written: a batch's rows made from it (in the writer's transaction), and the apps
    above told (``result_written``)."""
    if derived["response_count"] > BATCH_RESPONSES:
        made = Dump(pk=pk, derived_at=derived["derived_at"])  # what the rows are keyed by
        batch_rows_ensure(dump=made, whole=lambda: Dump.objects.get(pk=pk))
    result_written.send(sender=Dump, pk=pk, cited_url_hashes=derived["cited_url_hashes"])
