"""Snapshots of sources and the fetches that make them."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from citeview.core.evidence.passages import Passage
from citeview.core.evidence.pdf_pages import Page
from citeview.dumps.blobs import blob_read


class SnapshotMethod(models.TextChoices):
    UPLOAD = "upload", _("uploaded")
    PASTE = "paste", _("pasted")
    FETCH = "fetch", _("fetched")


class Snapshot(models.Model):
    """What a source's page said when it was taken. Several per URL over time; the newest is used.

    ``url`` is the source's URL as citeview keys it (``source_url_key``: fragment dropped, scheme and
    host lowercased); ``requested_url`` and ``final_url`` are what a fetch asked for and where its
    redirects ended (an upload or a paste has the source's URL as both). The bytes are in the blob
    storage under ``sha256``; ``text`` is what was extracted from them, the only part ever shown."""

    url = models.TextField(_("source URL"))
    url_sha256 = models.CharField(max_length=64, db_index=True)  # of ``url``: an index a long URL fits in
    method = models.CharField(_("taken by"), max_length=10, choices=SnapshotMethod.choices)
    requested_url = models.TextField(_("requested URL"))
    final_url = models.TextField(_("final URL"))
    taken_at = models.DateTimeField(_("taken at"))
    taken_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="snapshots"
    )
    http_status = models.PositiveSmallIntegerField(_("HTTP status"), null=True, blank=True)
    content_type = models.CharField(_("content type"), max_length=200)
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    size = models.PositiveIntegerField()
    filename = models.CharField(max_length=255, blank=True)
    text = models.TextField()
    # Extraction.to_json(): source type, extractor and version, PDF pages (offsets into text), notes.
    extraction = models.JSONField(default=dict)
    # The version of the code (``PASSAGE_VERSION``) that last found its passages for every dump citing
    # its page; empty until a worker has (``refresh_dumps`` asks again for those another version found).
    passages_found_by = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-taken_at", "-pk"]
        indexes = [models.Index(fields=["url_sha256", "-taken_at"], name="snapshot_newest_per_url")]
        verbose_name = _("source snapshot")
        verbose_name_plural = _("source snapshots")

    def __str__(self) -> str:
        return f"{self.url} @ {self.taken_at:%Y-%m-%d %H:%M}"

    @property
    def media_type(self) -> str:
        """The content type without its parameters (``text/html``), short enough for the snapshot's line."""
        return self.content_type.split(";", 1)[0].strip()

    @property
    def pages(self) -> tuple[Page, ...]:
        return tuple(Page(p["number"], p["start"], p["end"]) for p in self.extraction.get("pages", []))

    @property
    def source_type(self) -> str:
        return str(self.extraction.get("source_type", "text"))

    @property
    def notes(self) -> list[dict[str, Any]]:
        return list(self.extraction.get("notes", []))

    def content(self) -> bytes:
        """The bytes as taken (never shown: a page's HTML is never rendered)."""
        return blob_read(self.sha256, f"the snapshot {self.pk}")


class SnapshotPassage(models.Model):
    """The passages of a snapshot found for a claim, the best and its candidates (a statement citing its page, as a reader sees it),
    found once by a worker when the snapshot is taken or a dump citing the page is stored, and read by
    the check panel, the report and the figures. Keyed by the claim's SHA-256, so a statement that
    several dumps make is looked for once; ``finder`` is the version of the code that found it
    (``citeview.core.common.version.PASSAGE_VERSION``): one found by other code is found again."""

    snapshot = models.ForeignKey(Snapshot, on_delete=models.CASCADE, related_name="passages")
    claim_sha256 = models.CharField(max_length=64)
    finder = models.CharField(max_length=64)
    found = models.BooleanField()
    # Where the passage stands in the snapshot's text (code points, end exclusive) and its own text, so
    # that showing it never reads the whole text; None when no passage was found.
    start = models.PositiveIntegerField(null=True)
    end = models.PositiveIntegerField(null=True)
    text = models.TextField(blank=True)
    score = models.PositiveSmallIntegerField(null=True)
    page = models.PositiveIntegerField(null=True)
    differs = models.BooleanField(default=False)
    figure_or_date_differs = models.BooleanField(default=False)
    # The candidates the check panel shows, best first (``Passage.to_json()``: start, end, text, score,
    # page), at most ``passages.BEST``; the first is the passage above. Empty when none was found.
    candidates = models.JSONField(default=list)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["snapshot", "claim_sha256"], name="one_passage_per_claim")]

    @property
    def passages(self) -> tuple[Passage, ...]:
        """The candidates as passages, best first; of a row kept before its candidates were, the passage alone."""
        if self.candidates:
            return tuple(Passage(c["start"], c["end"], c["text"], c["score"], c.get("page")) for c in self.candidates)
        if self.start is None or self.end is None or self.score is None:
            return ()
        return (Passage(self.start, self.end, self.text, self.score, self.page),)


class FetchState(models.TextChoices):
    QUEUED = "queued", _("waiting for a worker")
    FETCHING = "fetching", _("fetching")
    READING = "reading", _("reading")  # an upload's or a paste's bytes, stored, being read
    DONE = "done", _("fetched")
    REFUSED = "refused", _("refused")


class SnapshotFetch(models.Model):
    """An editor's request for a snapshot of a source's page, run by a task on the snapshots queue: a
    fetch of the page (``method`` ``fetch``), or the reading of a page uploaded or pasted, whose bytes
    the request stored (``content_sha256`` names them in the blob storage). Its state, and the snapshot
    it made or the reason it was refused (a FetchError or ExtractionError: code and phrase, shown in
    words). Fetches, uploads and pastes share one queue and one cap on those waiting."""

    url = models.TextField()
    url_sha256 = models.CharField(max_length=64, db_index=True)
    method = models.CharField(max_length=10, choices=SnapshotMethod.choices, default=SnapshotMethod.FETCH)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="snapshot_fetches"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=FetchState.choices, default=FetchState.QUEUED)
    task_id = models.CharField(max_length=64, blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    error = models.JSONField(null=True, blank=True)  # the refusal's phrase
    snapshot = models.ForeignKey(Snapshot, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # What an upload or a paste sent, until a worker reads it (empty for a fetch).
    content_sha256 = models.CharField(max_length=64, blank=True)
    content_type = models.CharField(max_length=200, blank=True)
    filename = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["-requested_at", "-pk"]

    @property
    def pending(self) -> bool:
        return self.state in PENDING_STATES

    @property
    def is_fetch(self) -> bool:
        return self.method == SnapshotMethod.FETCH


# A request in one of these will still be run (if its task is alive: ``selectors.fetches_pending``).
PENDING_STATES = (FetchState.QUEUED, FetchState.FETCHING, FetchState.READING)
