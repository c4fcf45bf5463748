from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from citeview.core.attached import AttachedFile
from citeview.core.parse import Attachment


class Tag(models.Model):
    """A team's label for dumps (a project, a topic, a batch)."""

    name = models.CharField(_("name"), max_length=50, unique=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("tag")
        verbose_name_plural = _("tags")

    def __str__(self) -> str:
        return self.name


class Dump(models.Model):
    """A saved API response, stored verbatim, with what citeview read from it.

    ``raw`` is never modified; ``result`` and ``rendered`` are derived from it and rebuilt whenever
    what derives them changes: the parsers, the renderer, the catalogue (``result_version``).
    """

    sha256 = models.CharField(_("SHA-256"), max_length=64, unique=True)
    raw = models.BinaryField(_("raw bytes"))
    # The request that produced the response, when a reviewer attached it (also stored verbatim). A
    # reviewer may attach the documents the request sent instead, without the request: they are its
    # ``documents`` (``AttachedDocument``), and ``attachment()`` reads either.
    request_raw = models.BinaryField(_("request bytes"), null=True, blank=True)
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

    # What the team adds: a title, tags, the editor it is assigned to.
    title = models.CharField(_("title"), max_length=200, blank=True)
    tags = models.ManyToManyField(Tag, blank=True, related_name="dumps", verbose_name=_("tags"))
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="assigned_dumps",
        verbose_name=_("assigned to"),
    )
    # Items with at least one finished check, kept up to date by every save (the list filters on it).
    checked_item_count = models.PositiveIntegerField(default=0)

    framing = models.CharField(_("framing"), max_length=16)
    apis = models.CharField(_("detected APIs"), max_length=200)
    status = models.CharField(_("status"), max_length=16, db_index=True)  # the worst status of its responses
    providers = models.CharField(_("providers"), max_length=100, blank=True, db_index=True)
    model_names = models.CharField(_("models"), max_length=300, blank=True)
    response_count = models.PositiveIntegerField(default=1)
    incomplete_response_count = models.PositiveIntegerField(default=0)  # responses that did not complete
    headline = models.CharField(_("headline"), max_length=200, blank=True)
    citation_count = models.PositiveIntegerField(default=0)
    unresolved_count = models.PositiveIntegerField(default=0)
    source_count = models.PositiveIntegerField(default=0)
    item_count = models.PositiveIntegerField(default=0)  # what editors check: citations and uncited statements
    # The answers' text and the sources' URLs and titles, for the list's search.
    search_text = models.TextField(blank=True)
    result = models.JSONField(_("normalised JSON"))
    # Per interface language, one per response: {"answer": sanitised HTML, "evidence": rows of sanitised HTML}.
    rendered = models.JSONField(_("rendered answers"))
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
        "search_text",
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
    def display_title(self) -> str:
        return self.title or self.headline or self.filename or self.sha256[:12]

    def get_absolute_url(self) -> str:
        return reverse("dumps:detail", args=[self.pk])

    @property
    def has_attachment(self) -> bool:
        """Whether a request, or the documents it sent, is attached: documents are always attached with
        the time, and a request attached before citeview recorded the time has its bytes."""
        return self.request_attached_at is not None or bool(self.request_raw)

    def attachment(self) -> Attachment | None:
        """What is attached beside the response, as ``parse_dump`` reads it: the request's bytes, or its
        documents in their order (one query), or None."""
        if self.request_raw:
            return bytes(self.request_raw)
        if self.request_attached_at is None:
            return None
        return [AttachedFile(d.name, bytes(d.raw)) for d in self.documents.order_by("position")] or None

    @property
    def checkable_item_count(self) -> int:
        """The items editors can check: all of them, up to CITEVIEW_MAX_ITEMS_PER_DUMP."""
        return min(self.item_count, settings.CITEVIEW_MAX_ITEMS_PER_DUMP)

    @property
    def uncheckable_item_count(self) -> int:
        return self.item_count - self.checkable_item_count


class AttachedDocument(models.Model):
    """A document the request behind a dump's response sent, attached on its own (plain text or a PDF),
    stored verbatim. Its ``position`` is the document index the answer cites it by: 0, 1, … in the
    order the reviewer gave the files."""

    dump = models.ForeignKey(Dump, on_delete=models.CASCADE, related_name="documents")
    position = models.PositiveSmallIntegerField(_("document index"))
    name = models.CharField(_("file name"), max_length=255, blank=True)
    raw = models.BinaryField(_("document bytes"))

    class Meta:
        ordering = ["dump", "position"]
        verbose_name = _("attached document")
        verbose_name_plural = _("attached documents")
        constraints = [models.UniqueConstraint(fields=["dump", "position"], name="one_document_per_index")]

    def __str__(self) -> str:
        return f"{self.position}: {self.name}" if self.name else str(self.position)


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
    html = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["dump", "language"], name="one_page_per_dump_and_language")]
