"""What editors record about a dump's citations, and every change to it."""

from __future__ import annotations

import functools
import hashlib
import operator
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from citeview.dumps.models import CHECKS_NEEDED_CHOICES, Dump, default_checks_needed

VERDICTS = [
    ("complete", _("Complete support")),
    ("partial", _("Partial support")),
    ("none", _("No support")),
    ("inaccessible", _("Source inaccessible")),
    ("supports_and_refutes", _("Supports and refutes")),
    ("unclear", _("Statement unclear")),
]
YES_NO_UNSURE = [("yes", _("yes")), ("no", _("no")), ("unsure", _("unsure"))]
YES_NO = [("yes", _("yes")), ("no", _("no"))]
SUPPORTED_TOGETHER = [("yes", _("yes")), ("no", _("no")), ("contradict", _("contradict"))]

# A check that counts as done: a citation with a verdict, a statement judged worthy or not.
FINISHED = models.Q(kind="citation") & ~models.Q(verdict="") | models.Q(kind="statement") & ~models.Q(
    verification_worthy=""
)

# The fields of a check, in the order the form, the history and the exports show them.
CITATION_FIELDS = ("verdict", "subject", "time", "conditions", "evidence_quote", "note")
STATEMENT_FIELDS = ("verification_worthy", "supported_together", "note")

# A check that records something. Undoing the save that made a check leaves it empty, not deleted (its
# history is kept): an empty check is no check to read, count or export.
RECORDED = functools.reduce(
    operator.or_, (~models.Q(**{name: ""}) for name in dict.fromkeys(CITATION_FIELDS + STATEMENT_FIELDS))
)


class ItemState(models.Model):
    """The shared version of one item of a dump. Every saved check of the item, by any editor, moves it
    on; a save from a page that saw an older version is refused (optimistic versioning)."""

    dump = models.ForeignKey(Dump, on_delete=models.CASCADE, related_name="item_states")
    key = models.CharField(max_length=40)
    version = models.PositiveIntegerField(default=0)
    last_editor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["dump", "key"], name="one_state_per_item")]


class HistoryIsKept(Exception):
    """A check, a settlement or a revision was about to be deleted: the history of checks is append-only."""


class KeptQuerySet(models.QuerySet[Any]):
    """Rows that are never deleted: the history of checks (checks, settlements, revisions). Undo writes a
    revision that puts the earlier values back; a settlement is changed only by another settlement."""

    def delete(self) -> tuple[int, dict[str, int]]:
        raise HistoryIsKept(f"{self.model.__name__} rows are never deleted: the history of checks is kept whole.")


class WrittenOnceQuerySet(KeptQuerySet):
    """Rows never changed once written either (revisions; settlements, changed only by a settlement
    saved through ``check_settle``, which writes its revision)."""

    def update(self, **kwargs: Any) -> int:
        raise HistoryIsKept(f"{self.model.__name__} rows are not changed in bulk: each change is a revision.")

    def bulk_update(self, *args: Any, **kwargs: Any) -> int:
        raise HistoryIsKept(f"{self.model.__name__} rows are not changed in bulk: each change is a revision.")


class EditorCheckManager(models.Manager["Check"]):
    """The editors' own checks: what progress, agreement (κ, α) and blind first are computed on."""

    def get_queryset(self) -> models.QuerySet[Check]:
        return KeptQuerySet(self.model, using=self._db).filter(is_settlement=False)


class SettlementManager(models.Manager["Check"]):
    """The settled verdicts: one per item at most, by a lead or staff, where editors disagree."""

    def get_queryset(self) -> models.QuerySet[Check]:
        return WrittenOnceQuerySet(self.model, using=self._db).filter(is_settlement=True)


class Check(models.Model):
    """One editor's check of one item: a citation (its verdict) or a statement (worthy, supported);
    or, with ``is_settlement``, the final verdict a lead gave where editors disagree, its reason in
    ``note``. A settlement is a check row so that it is versioned, kept as revisions and undone like
    any save. ``Check.objects`` holds the editors' checks alone, so no figure of agreement or
    progress can count a settlement by mistake; ``Check.settlements`` the settlements, and
    ``Check.rows`` both.

    What was judged (statement, source, provider) is copied in, so a report stays true to what the
    editor saw even after the dump's result is rebuilt by newer parsers.
    """

    KIND_CHOICES = [("citation", _("citation")), ("statement", _("statement"))]

    # PROTECT: a dump with checks cannot be deleted, nor can the user who made one (deactivate them).
    dump = models.ForeignKey(Dump, on_delete=models.PROTECT, related_name="checks")
    item_key = models.CharField(max_length=40)
    kind = models.CharField(max_length=10, choices=KIND_CHOICES)
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="checks")
    response_index = models.PositiveIntegerField(default=0)
    statement_key = models.CharField(max_length=40)
    citation_index = models.PositiveIntegerField(null=True, blank=True)

    statement_text = models.TextField(_("statement"))
    marker = models.CharField(max_length=40, blank=True)
    source_key = models.CharField(max_length=500, blank=True)
    source_url = models.TextField(blank=True)
    source_title = models.TextField(blank=True)
    provider = models.CharField(max_length=20, blank=True)
    api = models.CharField(max_length=40, blank=True)
    model = models.CharField(max_length=100, blank=True)

    verdict = models.CharField(_("verdict"), max_length=24, choices=VERDICTS, blank=True)
    subject = models.CharField(_("subject"), max_length=8, choices=YES_NO_UNSURE, blank=True)
    time = models.CharField(_("time"), max_length=8, choices=YES_NO_UNSURE, blank=True)
    conditions = models.CharField(_("conditions"), max_length=8, choices=YES_NO_UNSURE, blank=True)
    evidence_quote = models.TextField(_("evidence quote"), blank=True)
    note = models.TextField(_("note"), blank=True)
    verification_worthy = models.CharField(_("verification-worthy"), max_length=4, choices=YES_NO, blank=True)
    supported_together = models.CharField(
        _("supported together"), max_length=12, choices=SUPPORTED_TOGETHER, blank=True
    )
    unresolved_count = models.PositiveIntegerField(default=0)  # of the statement: markers that cite nothing
    # Whether this row is an item editors check (a citation, or a statement citing nothing), rather than
    # the statement-wide answers recorded alongside a citation's check.
    is_item = models.BooleanField(default=True)
    is_settlement = models.BooleanField(default=False)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    objects = EditorCheckManager()
    settlements = SettlementManager()
    rows = models.Manager.from_queryset(KeptQuerySet)()

    class Meta:
        base_manager_name = "rows"
        constraints = [
            models.UniqueConstraint(
                fields=["dump", "item_key", "editor"],
                condition=models.Q(is_settlement=False),
                name="one_check_per_editor",
            ),
            models.UniqueConstraint(
                fields=["dump", "item_key"], condition=models.Q(is_settlement=True), name="one_settlement_per_item"
            ),
        ]
        indexes = [models.Index(fields=["dump", "statement_key"])]
        permissions = [
            ("record_check", _("Can record evidence checks")),
            ("settle_check", _("Can settle editors' disagreements")),
        ]

    @property
    def finished(self) -> bool:
        """Whether this check counts as done for progress: a verdict, or an uncited statement judged."""
        return bool(self.verdict) if self.kind == "citation" else bool(self.verification_worthy)

    def values(self) -> dict[str, str]:
        fields = CITATION_FIELDS if self.kind == "citation" else STATEMENT_FIELDS
        return {name: getattr(self, name) for name in fields}

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise HistoryIsKept("A check is never deleted: undo puts its earlier values back, as a revision.")


class CheckRevision(models.Model):
    """One save of a check: who, when, and what changed from what. Written once, never changed or
    deleted.

    One save can change several checks (a citation's and its statement's answers; many statements
    marked at once): its revisions share ``save_id``. Undoing a save writes revisions of its own
    (``is_undo``) that put back what it changed, each naming the save it undoes (``undoes``), so
    that nothing is lost and the undone save stays in the history as it was."""

    # PROTECT: a revision outlives nothing it records (a check is never deleted either).
    check_record = models.ForeignKey(Check, on_delete=models.PROTECT, related_name="revisions")
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    item_version = models.PositiveIntegerField()
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    save_id = models.CharField(max_length=32, blank=True, db_index=True)  # blank for saves made before undo
    is_undo = models.BooleanField(default=False)  # this revision puts back what an undone save changed
    undoes = models.CharField(max_length=32, blank=True, db_index=True)  # the save_id it undoes
    # This save gave the check its verdict (or its answer) while the editor could already read another
    # editor's verdict on the item: not a blind check (a lead who read every verdict before being
    # assigned, or who checks a dump they are not assigned to).
    not_blind = models.BooleanField(default=False)

    objects = models.Manager.from_queryset(WrittenOnceQuerySet)()

    class Meta:
        ordering = ["created_at", "id"]

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise HistoryIsKept("A revision is written once and never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise HistoryIsKept("A revision is never deleted.")


class Comment(models.Model):
    """A note anyone on the team can leave on a dump, or on one item of it."""

    dump = models.ForeignKey(Dump, on_delete=models.CASCADE, related_name="comments")
    item_key = models.CharField(max_length=40, blank=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField(_("comment"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]


class PlanUnit(models.TextChoices):
    """What a check plan draws: citations (each statement × source), or statements."""

    CITATION = "citation", _("citations")
    STATEMENT = "statement", _("statements")


class PlanScopeKind(models.TextChoices):
    """Which dumps a check plan draws from: one batch, a tag's dumps, a provider's, or a date range's."""

    BATCH = "batch", _("a batch")
    TAG = "tag", _("a tag")
    PROVIDER = "provider", _("a provider")
    DATES = "dates", _("a date range")


class CheckPlan(models.Model):
    """A random sample of a scope's citations (or statements), drawn once with a recorded seed, for the
    plan's editors to check: what the figures estimate the whole scope from (``PlanItem`` holds the
    sample). What the draw saw (N, the strata, the dumps in scope) is recorded as it was, so the plan
    can be drawn again from its seed and can say which dumps were added to its scope afterwards.
    Never deleted: its checks and estimates are history."""

    name = models.CharField(_("name"), max_length=200)
    unit = models.CharField(_("unit"), max_length=10, choices=PlanUnit.choices, default=PlanUnit.CITATION)

    # The scope: ``scope_kind`` says which one of the fields after it is used.
    scope_kind = models.CharField(_("scope"), max_length=10, choices=PlanScopeKind.choices)
    # PROTECT: a dump or a tag a plan was drawn over stays, as the plan's items do.
    scope_dump = models.ForeignKey(
        Dump, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("batch")
    )
    scope_tag = models.ForeignKey(
        "dumps.Tag", null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("tag")
    )
    scope_provider = models.CharField(_("provider"), max_length=20, blank=True)
    scope_from = models.DateField(_("from"), null=True, blank=True)  # stored on or after this day
    scope_to = models.DateField(_("to"), null=True, blank=True)  # stored on or before this day

    # What the lead asked for: a size, or a margin (a half-width, 0.05 for ±5 points) at ``confidence``.
    requested_size = models.PositiveIntegerField(_("sample size"), null=True, blank=True)
    target_margin = models.FloatField(_("target margin"), null=True, blank=True)
    confidence = models.FloatField(_("confidence"), default=0.95)

    # What the draw found and did, at drawing time.
    size = models.PositiveIntegerField(_("size drawn"), default=0)
    population = models.PositiveIntegerField(_("units in scope"), default=0)
    seed = models.BigIntegerField(_("seed"))
    # {"provider · model": {"population": N_h, "drawn": n_h}}
    strata = models.JSONField(_("strata"), default=dict)
    scope_dump_ids = models.JSONField(default=list)  # the ids of the dumps in scope when it was drawn

    checks_needed = models.PositiveSmallIntegerField(
        _("independent checks per item"), choices=CHECKS_NEEDED_CHOICES, default=default_checks_needed
    )
    made_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    made_at = models.DateTimeField(_("made at"), default=timezone.now)
    editors = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="PlanEditor",
        through_fields=("plan", "editor"),
        blank=True,
        related_name="check_plans",
        verbose_name=_("editors"),
    )

    objects = models.Manager.from_queryset(KeptQuerySet)()

    class Meta:
        ordering = ["-made_at", "-id"]
        verbose_name = _("check plan")
        verbose_name_plural = _("check plans")

    def __str__(self) -> str:
        return self.name

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise HistoryIsKept("A check plan is never deleted: its sample and its checks are history.")


class PlanEditor(models.Model):
    """An editor a plan's items go to. ``added_at`` says, as an assignment's does, which checks were
    there to be read before the editor joined (blind first)."""

    plan = models.ForeignKey(CheckPlan, on_delete=models.PROTECT, related_name="plan_editors")
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    added_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["plan", "editor__username"]
        constraints = [models.UniqueConstraint(fields=["plan", "editor"], name="one_plan_editor_per_editor")]

    def __str__(self) -> str:
        return f"{self.plan_id} → {self.editor_id}"


# PlanItem.stratum's width; a longer stratum (a model name is the dump's, uncapped) is cut to fit.
STRATUM_MAX_LENGTH = 200
_STRATUM_KEPT = 180


def stratum_label(name: str) -> str:
    """``name`` as a plan item stores it: whole when it fits, else its first 180 characters and a short
    hash of the whole, so that two long names sharing their start stay two strata. The plan's
    ``strata`` keep the whole name."""
    if len(name) <= STRATUM_MAX_LENGTH:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    return f"{name[:_STRATUM_KEPT]}…{digest}"


class PlanItem(models.Model):
    """One drawn unit of a plan: an item of a dump, its stratum ("provider · model" of its response), and
    its place in the plan's random order. Never deleted. ``item_key`` is a citation item's key
    (``r0-c3``, ``r0-c3-2``) in a citation plan, a statement's key (``r0-s12-40``: its ``statement_key``,
    where the statement-wide answers are recorded) in a statement plan."""

    plan = models.ForeignKey(CheckPlan, on_delete=models.PROTECT, related_name="items")
    dump = models.ForeignKey(Dump, on_delete=models.PROTECT, related_name="plan_items")
    item_key = models.CharField(max_length=40)
    response_index = models.PositiveIntegerField(default=0)
    stratum = models.CharField(max_length=STRATUM_MAX_LENGTH)  # stratum_label of the stratum's name
    position = models.PositiveIntegerField()  # 0, 1, … in the order of the draw

    objects = models.Manager.from_queryset(KeptQuerySet)()

    class Meta:
        ordering = ["plan", "position"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "dump", "item_key"], name="one_plan_item_per_item"),
            models.UniqueConstraint(fields=["plan", "position"], name="one_plan_item_per_position"),
        ]
        indexes = [models.Index(fields=["dump", "item_key"])]

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise HistoryIsKept("A plan's item is never deleted: the sample is history.")
