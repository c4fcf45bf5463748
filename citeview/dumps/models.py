from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _


class Dump(models.Model):
    """A saved API response, stored verbatim, with what citeview read from it.

    ``raw`` is never modified; ``result`` and ``rendered`` are derived from it and can be rebuilt
    whenever the parsers or the renderer change (``result_version``).
    """

    sha256 = models.CharField(_("SHA-256"), max_length=64, unique=True)
    raw = models.BinaryField(_("raw bytes"))
    # The request that produced the response, when a reviewer attached it (also stored verbatim).
    request_raw = models.BinaryField(_("request bytes"), null=True, blank=True)
    size = models.PositiveIntegerField(_("size in bytes"))
    filename = models.CharField(_("file name"), max_length=255, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="dumps"
    )
    created_at = models.DateTimeField(_("stored at"), auto_now_add=True, db_index=True)

    framing = models.CharField(_("framing"), max_length=16)
    apis = models.CharField(_("detected APIs"), max_length=200)
    status = models.CharField(_("status"), max_length=16)  # the worst status of its responses
    headline = models.CharField(_("headline"), max_length=200, blank=True)
    citation_count = models.PositiveIntegerField(default=0)
    unresolved_count = models.PositiveIntegerField(default=0)
    source_count = models.PositiveIntegerField(default=0)
    result = models.JSONField(_("normalised JSON"))
    # Per interface language, one per response: {"answer": sanitised HTML, "evidence": rows of sanitised HTML}.
    rendered = models.JSONField(_("rendered answers"))
    result_version = models.PositiveIntegerField(default=0)

    # What is derived from the bytes, rebuilt together whenever the parsers change.
    DERIVED_FIELDS = (
        "framing",
        "apis",
        "status",
        "headline",
        "citation_count",
        "unresolved_count",
        "source_count",
        "result",
        "rendered",
        "result_version",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("dump")
        verbose_name_plural = _("dumps")

    def __str__(self) -> str:
        return self.filename or self.headline or self.sha256[:12]

    def get_absolute_url(self) -> str:
        return reverse("dumps:detail", args=[self.pk])
