from __future__ import annotations

import json
from typing import Any, cast

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.parse import Attachment
from citeview.dumps.blobs import blob_read, blob_store
from citeview.dumps.derived import BATCH_RESPONSES, batch_title


class EncodedJSON:
    """A JSON field's value encoded already, written as it is (``JSONTextEncoder``): a large dump's
    result is encoded before its row is written and its objects let go, so that writing does not hold
    both (``citeview.dumps.services``)."""

    __slots__ = ("text",)

    def __init__(self, value: Any) -> None:
        self.text = json.dumps(value, separators=(",", ":"))


class JSONTextEncoder(json.JSONEncoder):
    """The JSON fields' encoder: an ``EncodedJSON`` is its text, anything else is encoded as usual."""

    def encode(self, o: Any) -> str:
        return o.text if isinstance(o, EncodedJSON) else super().encode(o)


class EncodedJSONField(models.JSONField):
    """A JSON field citeview writes only as ``EncodedJSON`` (json's own encoding) or through
    ``JSONTextEncoder``: its text is valid JSON by construction, so SQLite is not asked to prove it
    again. Django's JSONField has SQLite check ``JSON_VALID`` on every write, which parses the text
    into a tree several times its size: writing a 50 MB dump's result peaked at over 3× the dump
    (bench/README.md, memory). PostgreSQL's jsonb reads it in the server, as before."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("encoder", JSONTextEncoder)
        super().__init__(*args, **kwargs)

    def db_check(self, connection: Any) -> None:
        return None


class KeepsBlobs:
    """Bytes read from the blob storage, kept by the instance that read them: keyed by their SHA-256, so
    that a row read again never shows the bytes it named before; never pickled with the instance."""

    def _blob(self, sha256: str, what: str) -> bytes:
        kept: dict[str, bytes] = self.__dict__.setdefault("_kept_blobs", {})
        if sha256 not in kept:
            kept[sha256] = blob_read(sha256, what)
        return kept[sha256]

    def _keep_blob(self, sha256: str, data: bytes) -> str:
        self.__dict__.setdefault("_kept_blobs", {})[sha256] = data
        return sha256

    def __getstate__(self) -> dict[str, Any]:
        state = cast(dict[str, Any], super().__getstate__())
        state.pop("_kept_blobs", None)
        return state


class Tag(models.Model):
    """A team's label for dumps (a project, a topic, a batch)."""

    name = models.CharField(_("name"), max_length=50, unique=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("tag")
        verbose_name_plural = _("tags")

    def __str__(self) -> str:
        return self.name


def unread_result() -> dict[str, Any]:
    """The result of a dump whose bytes are stored but not read yet: no responses, so every reader
    (the list, the queue, the figures, the exports) counts nothing for it rather than failing."""
    return {"responses": []}


CHECKS_NEEDED_CHOICES = [
    (1, _("one editor checks each item")),
    (2, _("two editors check each item, independently")),
]


def default_checks_needed() -> int:
    """How many independent checks a new dump's items need, as the team set it (``CITEVIEW_CHECKS_PER_ITEM``)."""
    return int(settings.CITEVIEW_CHECKS_PER_ITEM)


class ReadState(models.TextChoices):
    """How far reading a dump's stored bytes has come. A small dump is read in the request and is
    ``ready`` when its row is written; a large one is written ``queued`` and read by a worker."""

    QUEUED = "queued", _("waiting for a worker")
    READING = "reading", _("being read")
    READY = "ready", _("ready")
    FAILED = "failed", _("could not be read")


class Dump(KeepsBlobs, models.Model):
    """A saved API response, stored verbatim, with what citeview read from it.

    Its bytes (``raw``) are in the blob storage under its ``sha256`` (``citeview.dumps.blobs``) and never
    change; ``result`` and ``rendered`` are derived from them and rebuilt whenever what derives them
    changes: the parsers, the renderer, the catalogue (``result_version``).
    """

    # Also the name of its bytes in the blob storage.
    sha256 = models.CharField(_("SHA-256"), max_length=64, unique=True)
    # The request that produced the response, when a reviewer attached it (its bytes are in the blob
    # storage too, under this SHA-256; empty for none). A reviewer may attach the documents the request
    # sent instead, without the request: they are its ``documents`` (``AttachedDocument``), and
    # ``attachment()`` reads either.
    request_sha256 = models.CharField(_("request SHA-256"), max_length=64, blank=True, default="")
    # Who attached it (or the documents) and when: it changes every quote check the team relies on.
    # Empty for a dump with nothing attached, and for requests attached before citeview recorded this.
    request_attached_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("request attached by"),
    )
    request_attached_at = models.DateTimeField(_("request attached at"), null=True, blank=True)
    size = models.PositiveIntegerField(_("size in bytes"))
    filename = models.CharField(_("file name"), max_length=255, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="dumps"
    )
    created_at = models.DateTimeField(_("stored at"), auto_now_add=True, db_index=True)

    # What the team adds: a title, tags, the editors it is assigned to, and how many of them check each item.
    title = models.CharField(_("title"), max_length=200, blank=True)
    tags = models.ManyToManyField(Tag, blank=True, related_name="dumps", verbose_name=_("tags"))
    assignees = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="Assignment",
        through_fields=("dump", "editor"),
        blank=True,
        related_name="assigned_dumps",
        verbose_name=_("assigned to"),
    )
    checks_needed = models.PositiveSmallIntegerField(
        _("independent checks per item"), choices=CHECKS_NEEDED_CHOICES, default=default_checks_needed
    )
    # Items with at least one finished check, and items with the checks they need (``checks_needed``),
    # kept up to date by every save (the list filters on them; ``dump.fully_checked`` fires on the second).
    checked_item_count = models.PositiveIntegerField(default=0)
    complete_item_count = models.PositiveIntegerField(default=0)
    # Items whose editors gave different verdicts that nobody has settled: the settle queue and the
    # header's count look only in the dumps that have some.
    disputed_item_count = models.PositiveIntegerField(default=0, db_index=True)
    # Counts the writes that change what a page shows of the dump besides its result (title, tags,
    # editors, checks, comments): the pages' kept fragments are keyed by it (``citeview.dumps.kept_fragments``).
    page_version = models.PositiveIntegerField(default=0)
    # Counts the changes to the evidence behind its citations kept outside it: a snapshot of a page it
    # cites, the passages found in one for its statements. What is counted of that evidence (the
    # figures) is kept by it, so a snapshot of another page changes nothing kept of this dump.
    evidence_version = models.PositiveIntegerField(default=0)

    # Reading the bytes (``citeview.dumps.tasks``): until it is ``ready`` the derived fields below are
    # empty. ``read_error`` is why it failed (a DumpError's code and phrase); ``read_task_id`` the
    # task now queued for it (whether it is alive is the task's and its worker's business:
    # ``citeview.dumps.heartbeat``); ``read_started_at`` when a worker last began it;
    # ``read_provider`` the provider the uploader named.
    read_state = models.CharField(
        _("reading"), max_length=16, choices=ReadState.choices, default=ReadState.READY, db_index=True
    )
    read_error = models.JSONField(_("reading error"), null=True, blank=True)
    read_task_id = models.CharField(max_length=64, blank=True)
    read_attempts = models.PositiveSmallIntegerField(default=0)
    read_started_at = models.DateTimeField(null=True, blank=True)
    read_provider = models.CharField(max_length=64, blank=True)

    framing = models.CharField(_("framing"), max_length=16, blank=True)
    apis = models.CharField(_("detected APIs"), max_length=200, blank=True)
    status = models.CharField(_("status"), max_length=16, db_index=True, blank=True)  # the worst of its responses
    providers = models.CharField(_("providers"), max_length=100, blank=True, db_index=True)
    model_names = models.CharField(_("models"), max_length=300, blank=True)
    response_count = models.PositiveIntegerField(default=1)
    incomplete_response_count = models.PositiveIntegerField(default=0)  # responses that did not complete
    headline = models.CharField(_("headline"), max_length=200, blank=True)
    citation_count = models.PositiveIntegerField(default=0)
    unresolved_count = models.PositiveIntegerField(default=0)
    source_count = models.PositiveIntegerField(default=0)
    item_count = models.PositiveIntegerField(default=0)  # what editors check: citations and uncited statements
    # Per response: [provider, API, model, citations, markers without a source, statements citing nothing]
    # (``citeview.dumps.derived``): what a figure of a provider's, an API's or a model's part of it counts.
    response_items = models.JSONField(default=list, blank=True)
    # The answers' text and the sources' URLs and titles, for the list's search.
    search_text = models.TextField(blank=True)
    # The digests of the http(s) pages its sources name (``citeview.core.common.url_keys.cited_url_hashes``):
    # a snapshot of a page finds the dumps it is evidence for by its digest.
    cited_url_hashes = models.TextField(blank=True)
    result = EncodedJSONField(_("normalised JSON"), default=unread_result)
    # Per interface language, one per response: {"answer": sanitised HTML, "evidence": rows of sanitised HTML}.
    rendered = EncodedJSONField(_("rendered answers"), default=dict)
    # What made them besides the bytes, as a digest (``citeview.dumps.derived.result_version``).
    result_version = models.CharField(max_length=64, blank=True)
    # When the derived fields were last built: a kept viewer page is used only if made from this build.
    derived_at = models.DateTimeField(default=timezone.now)

    # What is derived from the bytes, rebuilt together whenever the parsers change.
    DERIVED_FIELDS = (
        "framing",
        "apis",
        "providers",
        "model_names",
        "response_count",
        "incomplete_response_count",
        "status",
        "headline",
        "citation_count",
        "unresolved_count",
        "source_count",
        "item_count",
        "response_items",
        "search_text",
        "cited_url_hashes",
        "result",
        "rendered",
        "result_version",
        "derived_at",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("dump")
        verbose_name_plural = _("dumps")

    def __str__(self) -> str:
        return self.title or self.filename or self.headline or self.sha256[:12]

    @property
    def raw(self) -> bytes:
        """The dump's bytes, read from the blob storage once (``BlobError`` if missing or changed)."""
        return self._blob(self.sha256, f"dump {self.pk}")

    @raw.setter
    def raw(self, data: bytes) -> None:
        # Stored at once, before any row names them. A stored dump's bytes never change.
        if not self._state.adding:
            raise AttributeError("A stored dump's bytes never change.")
        self.sha256, self.size = self._keep_blob(blob_store(data), data), len(data)

    @property
    def request_raw(self) -> bytes | None:
        """The attached request's bytes, read from the blob storage once; None without one."""
        if not self.request_sha256:
            return None
        return self._blob(self.request_sha256, f"the request attached to dump {self.pk}")

    @request_raw.setter
    def request_raw(self, data: bytes | None) -> None:
        self.request_sha256 = self._keep_blob(blob_store(data), data) if data else ""

    @property
    def display_title(self) -> str:
        """The title someone gave it; else a batch named as one, in the reader's language (its headline
        holds its providers); else its answer's first line."""
        if self.title:
            return self.title
        if self.response_count > BATCH_RESPONSES:
            return batch_title(self.response_count, self.headline)
        return self.headline or self.filename or self.sha256[:12]

    @property
    def is_ready(self) -> bool:
        """Whether its bytes have been read: only then has it a result to show, check or export."""
        return self.read_state == ReadState.READY

    def get_absolute_url(self) -> str:
        return reverse("pages:detail", args=[self.pk])

    @property
    def has_attachment(self) -> bool:
        """Whether a request, or the documents it sent, is attached: documents are always attached with
        the time, and a request attached before citeview recorded the time has its bytes."""
        return self.request_attached_at is not None or bool(self.request_sha256)

    def attachment(self) -> Attachment | None:
        """What is attached beside the response, as ``parse_dump`` reads it: the request's bytes, or its
        documents in their order (one query, then their bytes from the blob storage), or None."""
        if self.request_raw is not None:
            return self.request_raw
        if self.request_attached_at is None:
            return None
        return [AttachedFile(d.name, d.raw) for d in self.documents.order_by("position")] or None

    @property
    def checkable_item_count(self) -> int:
        """The items editors can check: all of them, up to CITEVIEW_MAX_ITEMS_PER_DUMP."""
        return min(self.item_count, settings.CITEVIEW_MAX_ITEMS_PER_DUMP)

    @property
    def uncheckable_item_count(self) -> int:
        return self.item_count - self.checkable_item_count


class Assignment(models.Model):
    """An editor assigned to check a dump: a dump has any number of them, and each sees it in their queue.
    ``assigned_at`` also says which checks were there to be read before the editor was assigned: a lead
    who was not assigned read every verdict (``citeview.review.selectors.checks_visible_to``)."""

    dump = models.ForeignKey(Dump, on_delete=models.CASCADE, related_name="assignments")
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    assigned_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["dump", "editor__username"]
        constraints = [models.UniqueConstraint(fields=["dump", "editor"], name="one_assignment_per_editor")]
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")

    def __str__(self) -> str:
        return f"{self.dump_id} → {self.editor_id}"


class AttachedDocument(KeepsBlobs, models.Model):
    """A document the request behind a dump's response sent, attached on its own (plain text or a PDF),
    stored verbatim in the blob storage under its ``sha256``. Its ``position`` is the document index the
    answer cites it by: 0, 1, … in the order the reviewer gave the files."""

    dump = models.ForeignKey(Dump, on_delete=models.CASCADE, related_name="documents")
    position = models.PositiveSmallIntegerField(_("document index"))
    name = models.CharField(_("file name"), max_length=255, blank=True)
    sha256 = models.CharField(_("SHA-256"), max_length=64)

    class Meta:
        ordering = ["dump", "position"]
        verbose_name = _("attached document")
        verbose_name_plural = _("attached documents")
        constraints = [models.UniqueConstraint(fields=["dump", "position"], name="one_document_per_index")]

    def __str__(self) -> str:
        return f"{self.position}: {self.name}" if self.name else str(self.position)

    @property
    def raw(self) -> bytes:
        """The document's bytes, read from the blob storage once."""
        return self._blob(self.sha256, f"document {self.position} attached to dump {self.dump_id}")

    @raw.setter
    def raw(self, data: bytes) -> None:
        self.sha256 = self._keep_blob(blob_store(data), data)


class DumpPage(models.Model):
    """The body of a dump's viewer in one interface language, rendered once and kept.

    The answers, sources, evidence and raw text a viewer shows never change for a stored result, and
    rendering them was most of a view's time (a 100 KB dump's page is 600 KB of HTML). A kept page is
    used only while it was made from the dump's current result (``derived_at``) by the code, templates
    and translations now running (``made_by``); otherwise the next view makes it again.
    """

    dump = models.ForeignKey(Dump, on_delete=models.CASCADE, related_name="pages")
    language = models.CharField(max_length=16)
    derived_at = models.DateTimeField()
    made_by = models.CharField(max_length=64)
    html = models.BinaryField()  # UTF-8: served as it is read, never decoded (dumps.viewer_body.dump_body)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["dump", "language"], name="one_page_per_dump_and_language")]


class DumpResponse(models.Model):
    """One response of a batch (a dump of many responses), kept apart so that its page reads only its
    own result and renderings, and the batch's navigator only these rows' counts. Made from the dump's
    result on the batch's first view and again whenever that result is rebuilt (``derived_at``)."""

    dump = models.ForeignKey(Dump, on_delete=models.CASCADE, related_name="response_rows")
    index = models.PositiveIntegerField()  # its place among the dump's responses, from 0
    derived_at = models.DateTimeField()  # the dump's ``derived_at`` it was made from
    status = models.CharField(max_length=16)
    api = models.CharField(max_length=64)
    model = models.CharField(max_length=100, blank=True)
    headline = models.CharField(max_length=200, blank=True)  # the answer's first words
    citation_count = models.PositiveIntegerField(default=0)
    unresolved_count = models.PositiveIntegerField(default=0)
    source_count = models.PositiveIntegerField(default=0)
    problem_count = models.PositiveIntegerField(default=0)  # diagnostics that are warnings or errors
    item_count = models.PositiveIntegerField(default=0)  # what editors check in it
    result = EncodedJSONField()  # the response's normalised JSON
    rendered = EncodedJSONField()  # its rendering, per interface language

    # What the navigator reads of each row: never the result or the renderings.
    LISTED_FIELDS = (
        "index",
        "status",
        "api",
        "model",
        "headline",
        "citation_count",
        "unresolved_count",
        "source_count",
        "problem_count",
        "item_count",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["dump", "index"], name="one_row_per_response")]


class Import(models.Model):
    """A bulk import whose file is stored (in the blob storage, under ``sha256``) and whose dumps workers
    store, a piece at a time (``citeview.dumps.tasks.import_piece``). Its page lists each as it is stored."""

    name = models.CharField(_("file name"), max_length=255)
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    total = models.PositiveIntegerField(_("dumps"))
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    tags = models.ManyToManyField(Tag, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def get_absolute_url(self) -> str:
        return reverse("dumps:import_progress", args=[self.pk])


class ImportedEntry(models.Model):
    """What became of one entry of an import: stored, stored already, or the reason it was not. One row
    per entry (``number``, from 1): a piece run again finds it written and leaves it."""

    batch = models.ForeignKey(Import, on_delete=models.CASCADE, related_name="entries")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=500)
    outcome = models.CharField(max_length=16)
    dump = models.ForeignKey(Dump, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    error = models.JSONField(null=True, blank=True)  # a DumpError's code, message and phrase

    class Meta:
        ordering = ["batch", "number"]
        constraints = [models.UniqueConstraint(fields=["batch", "number"], name="one_record_per_import_entry")]


class WorkerHeartbeat(models.Model):
    """A task worker (``manage.py worker``) saying it is alive: it writes ``beat_at`` every few seconds
    from a thread of its own, and ``stopped_at`` when it stops cleanly. django-tasks-db records which
    worker claimed a task but not whether that worker still lives; this does, so that a task is taken
    back only from a worker that went silent, never for running long (``citeview.dumps.lost_work``)."""

    worker_id = models.CharField(max_length=64, unique=True)  # db_worker's --worker-id (at most 64)
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()
    stopped_at = models.DateTimeField(null=True, blank=True)
    queues = models.CharField(max_length=255, blank=True)  # the queues it takes, comma-separated

    class Meta:
        ordering = ["worker_id"]

    def __str__(self) -> str:
        return self.worker_id
