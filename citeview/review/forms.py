from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from citeview.core.detection import registry
from citeview.dumps.forms import assignable_editors
from citeview.dumps.models import CHECKS_NEEDED_CHOICES, Dump, ReadState, Tag, default_checks_needed
from citeview.dumps.selectors import HEAVY_FIELDS
from citeview.review.models import (
    SUPPORTED_TOGETHER,
    VERDICTS,
    YES_NO,
    YES_NO_UNSURE,
    PlanScopeKind,
    PlanUnit,
)
from citeview.review.plans import MAX_PLAN_SIZE, PlanDraft, PlanScope

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# A check's free text, in characters: far beyond any quote or note an editor writes, and small enough
# that a check page, which shows every editor's check of an item, stays a page. The web form and the
# API (citeview/api/views.py) hold a check to these same limits.
MAX_QUOTE_CHARS = 20_000
MAX_NOTE_CHARS = 10_000
# The API's cap on a check's JSON body, read before it is parsed. The largest check fits however its
# text is written: a character escaped as a surrogate pair (\ud83d\ude00) takes 12 bytes, and
# 30,000 of them take 360,000. (A form post is held to DATA_UPLOAD_MAX_MEMORY_SIZE: read, so that
# text over the limits comes back in the form with the error.)
MAX_CHECK_BYTES = 1024 * 1024


def _choice(label: StrOrPromise, choices: list[tuple[str, Any]]) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, choices=choices, required=False, widget=forms.RadioSelect)


def _at_most(limit: int) -> Callable[[str], None]:
    """Refuses text longer than ``limit`` characters, saying both counts. The code ``too_large`` is
    answered 413 (citeview.dumps.http_status), on the page and in the API alike."""

    def validate(value: str) -> None:
        if len(value) > limit:
            raise forms.ValidationError(
                _(
                    "At most %(limit)s characters fit here; this text has %(count)s. Nothing was saved: "
                    "shorten it and save again."
                ),
                code="too_large",
                params={"count": f"{len(value):,}", "limit": f"{limit:,}"},
            )

    return validate


def _free_text(label: StrOrPromise, limit: int, rows: int) -> forms.CharField:
    # No maxlength on the box: a browser would cut a longer paste without a word, and the editor's
    # text is theirs to shorten. The limit is held when the form is posted.
    return forms.CharField(
        label=label, required=False, widget=forms.Textarea(attrs={"rows": rows}), validators=[_at_most(limit)]
    )


class CheckForm(forms.Form):
    """One item's check. A citation asks for the verdict and its details plus the statement-wide
    answers; a marker without a source asks for its statement's answers (whether it is a claim, and,
    when it has real citations too, whether they support it together); a statement that cites nothing
    asks only whether it is a claim about the world."""

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    verdict = _choice(_("Verdict"), VERDICTS)
    subject = _choice(_("Same subject (object, group, organisation)?"), YES_NO_UNSURE)
    time = _choice(_("Same time (year, period, version)?"), YES_NO_UNSURE)
    conditions = _choice(_("Same conditions and exceptions?"), YES_NO_UNSURE)
    evidence_quote = _free_text(_("Evidence quote, pasted from the source"), MAX_QUOTE_CHARS, rows=3)
    note = _free_text(_("Note"), MAX_NOTE_CHARS, rows=2)
    verification_worthy = _choice(_("Is the statement a claim about the world (verification-worthy)?"), YES_NO)
    supported_together = _choice(_("Do its citations together support it?"), SUPPORTED_TOGETHER)
    # The statement-wide answers as the page showed them: only those the editor changes are written.
    seen_verification_worthy = forms.CharField(required=False, widget=forms.HiddenInput, max_length=12)
    seen_supported_together = forms.CharField(required=False, widget=forms.HiddenInput, max_length=12)

    CITATION_ONLY = (
        "verdict",
        "subject",
        "time",
        "conditions",
        "evidence_quote",
        "supported_together",
        "seen_verification_worthy",
        "seen_supported_together",
    )
    RADIO_FIELDS = ("verdict", "subject", "time", "conditions", "verification_worthy", "supported_together")
    # The keys that choose an answer on the check page (static/citeview/check.js has the same).
    KEYS = {
        "verdict": ("1", "2", "3", "4", "5", "6"),
        "verification_worthy": ("y", "n"),
        "supported_together": ("7", "8", "9"),
    }

    def __init__(self, *args: Any, cites: bool = True, kind: str | None = None, together: bool = True, **kwargs: Any):
        """``kind`` is the item's ("citation", "unresolved", "statement"); without it, ``cites`` says
        citation or statement. A marker without a source asks "supported together" only with
        ``together`` (its statement has real citations as well)."""
        super().__init__(*args, **kwargs)
        self.kind = kind or ("citation" if cites else "statement")
        if self.kind == "statement":
            for name in self.CITATION_ONLY:
                del self.fields[name]
        elif self.kind == "unresolved":
            for name in ("verdict", "subject", "time", "conditions", "evidence_quote"):
                del self.fields[name]
            if not together:
                del self.fields["supported_together"]
                del self.fields["seen_supported_together"]
        # What makes a check done: a citation's verdict, or whether the statement is a claim.
        self.fields["verdict" if self.kind == "citation" else "verification_worthy"].required = True

    def check_values(self) -> dict[str, str]:
        if self.kind == "citation":
            names: tuple[str, ...] = ("verdict", "subject", "time", "conditions", "evidence_quote", "note")
        elif self.kind == "unresolved":
            names = ("note",)
        else:
            names = ("verification_worthy", "note")
        return {name: self.cleaned_data[name] for name in names}

    def statement_values(self) -> dict[str, str]:
        if self.kind == "statement":
            return {}
        names = [name for name in ("verification_worthy", "supported_together") if name in self.fields]
        return {name: self.cleaned_data[name] for name in names}

    def seen_statement(self) -> dict[str, str] | None:
        """None when the post did not say what it had seen (a script): its answers are written as sent."""
        if self.kind == "statement" or "seen_verification_worthy" not in self.data:
            return None
        names = [name for name in ("verification_worthy", "supported_together") if f"seen_{name}" in self.fields]
        return {name: self.cleaned_data[f"seen_{name}"] for name in names}


class NotClaimsForm(forms.Form):
    """Several statements that cite nothing, marked at once as no claim about the world: each ticked
    box sends an item's key with the version its page showed, as ``<key>@<version>`` (``item_key``)."""

    def chosen(self, keys: Iterable[str]) -> dict[str, int]:
        """Each ticked item of ``keys`` with the version its page showed; anything else is dropped."""
        offered = set(keys)
        chosen = {}
        for value in cast(QueryDict, self.data).getlist("item_key"):
            key, _, version = value.rpartition("@")
            if key in offered and version.isdigit():
                chosen[key] = int(version)
        return chosen


class CommentForm(forms.Form):
    text = forms.CharField(label=_("Comment"), max_length=5000, widget=forms.Textarea(attrs={"rows": 2}))
    item_key = forms.CharField(required=False, widget=forms.HiddenInput, max_length=40)


class SnapshotUploadForm(forms.Form):
    """A saved copy of the cited page: HTML, PDF or plain text."""

    page = forms.FileField(label=_("Saved page (HTML, PDF or plain text)"))


class SnapshotPasteForm(forms.Form):
    """The cited page's text, copied from the browser."""

    text = forms.CharField(
        label=_("The page's text"), widget=forms.Textarea(attrs={"rows": 4}), strip=False, max_length=2_000_000
    )


class SettleForm(forms.Form):
    """A settler's final verdict on an item where editors disagree, and why (required: the report and
    the item's history show it beside the editors' verdicts)."""

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    verdict = forms.ChoiceField(label=_("Final verdict"), choices=VERDICTS, widget=forms.RadioSelect)
    reason = forms.CharField(
        label=_("Reason"),
        widget=forms.Textarea(attrs={"rows": 2}),
        validators=[_at_most(MAX_NOTE_CHARS)],
        error_messages={"required": _("Say why: a settlement needs a reason.")},
    )

    def __init__(
        self, data: Mapping[str, Any] | None = None, *, given: dict[str, list[str]] | None = None, **kwargs: Any
    ) -> None:
        """``given``: per verdict, the editors who gave it, so that picking theirs is picking its line."""
        super().__init__(data, prefix="settle", **kwargs)
        self.given = given or {}

    def options(self) -> list[dict[str, Any]]:
        """The verdicts to choose from, each with the editors who gave it; theirs first."""
        radios = list(self["verdict"])
        options = [{"radio": radio, "editors": self.given.get(str(radio.data["value"]), [])} for radio in radios]
        return sorted(options, key=lambda option: not option["editors"])


class AssignForm(forms.Form):
    """Whom a dump is assigned to, and how many of them check each item independently (the dump's page)."""

    editors: forms.ModelMultipleChoiceField[Any] = forms.ModelMultipleChoiceField(
        label=_("Editors who check it"), queryset=None, required=False, widget=forms.CheckboxSelectMultiple
    )
    checks_needed = forms.TypedChoiceField(
        label=_("Independent checks per item"), choices=CHECKS_NEEDED_CHOICES, coerce=int
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast("forms.ModelMultipleChoiceField[Any]", self.fields["editors"]).queryset = assignable_editors()


# The dumps one bulk assignment takes: every dump of a list page, many times over (each is a transaction).
MAX_BULK_ASSIGN = 200


class BulkAssignForm(forms.Form):
    """Several dumps of the list assigned at once: the editors chosen are added to each (those assigned
    already stay), and the checks per item set, unless left as each dump has it."""

    dumps = forms.TypedMultipleChoiceField(coerce=int, error_messages={"required": _("Choose at least one dump.")})
    editors: forms.ModelMultipleChoiceField[Any] = forms.ModelMultipleChoiceField(
        label=_("Assign to"),
        queryset=None,
        to_field_name="username",
        error_messages={"required": _("Choose at least one editor.")},
    )
    checks_needed = forms.TypedChoiceField(
        label=_("Independent checks per item"),
        choices=[("", _("as each dump has it")), *CHECKS_NEEDED_CHOICES],
        coerce=int,
        empty_value=None,
        required=False,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast("forms.ModelMultipleChoiceField[Any]", self.fields["editors"]).queryset = assignable_editors()
        chosen = self.data.getlist("dumps") if isinstance(self.data, QueryDict) else []
        cast(forms.TypedMultipleChoiceField, self.fields["dumps"]).choices = [(value, value) for value in chosen]

    def clean_dumps(self) -> list[int]:
        chosen: list[int] = self.cleaned_data["dumps"]
        if len(chosen) > MAX_BULK_ASSIGN:
            raise forms.ValidationError(
                _("At most %(limit)s dumps are assigned at once; %(count)s were chosen."),
                params={"limit": MAX_BULK_ASSIGN, "count": len(chosen)},
            )
        return chosen


def _after(first: Any, last: Any) -> bool:
    return first is not None and last is not None and first > last


class PlanForm(forms.Form):
    """A new check plan (a lead's page): its name, what it draws (citations or statements) from which
    scope, how many (a size, or a margin in points at 95%), and which editors check it."""

    name = forms.CharField(label=_("Name"), max_length=200)
    unit = forms.ChoiceField(label=_("Draw"), choices=PlanUnit.choices, initial=PlanUnit.CITATION)
    scope_kind = forms.ChoiceField(
        label=_("From"), choices=PlanScopeKind.choices, initial=PlanScopeKind.BATCH, widget=forms.RadioSelect
    )
    scope_dump: forms.ModelChoiceField[Any] = forms.ModelChoiceField(label=_("Batch"), queryset=None, required=False)
    scope_tag: forms.ModelChoiceField[Any] = forms.ModelChoiceField(
        label=_("Tag"), queryset=Tag.objects.all(), required=False
    )
    scope_provider = forms.ChoiceField(label=_("Provider"), required=False)
    scope_from = forms.DateField(label=_("Stored from"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    scope_to = forms.DateField(label=_("Stored until"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    size = forms.IntegerField(label=_("Sample size"), min_value=1, max_value=MAX_PLAN_SIZE, required=False)
    margin = forms.DecimalField(
        label=_("or a margin of ± (points, at 95%)"),
        min_value=Decimal("0.5"),
        max_value=Decimal("50"),
        decimal_places=1,
        required=False,
    )
    editors: forms.ModelMultipleChoiceField[Any] = forms.ModelMultipleChoiceField(
        label=_("Editors who check it"),
        queryset=None,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": _("Choose at least one editor.")},
    )
    checks_needed = forms.TypedChoiceField(
        label=_("Independent checks per item"), choices=CHECKS_NEEDED_CHOICES, coerce=int
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields = self.fields
        cast("forms.ModelMultipleChoiceField[Any]", fields["editors"]).queryset = assignable_editors()
        batches = Dump.objects.filter(read_state=ReadState.READY, item_count__gt=0).defer(*HEAVY_FIELDS)
        cast("forms.ModelChoiceField[Any]", fields["scope_dump"]).queryset = batches.order_by("-created_at", "-id")
        cast(forms.ChoiceField, fields["scope_provider"]).choices = [
            ("", "—"),
            *((name, name) for name in registry.provider_names()),
        ]
        fields["checks_needed"].initial = default_checks_needed()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        kind = cleaned.get("scope_kind")
        needed = {
            PlanScopeKind.BATCH: ("scope_dump", _("Choose the batch.")),
            PlanScopeKind.TAG: ("scope_tag", _("Choose the tag.")),
            PlanScopeKind.PROVIDER: ("scope_provider", _("Choose the provider.")),
        }
        if kind in needed and not cleaned.get(needed[kind][0]):
            self.add_error(needed[kind][0], needed[kind][1])
        if kind == PlanScopeKind.DATES and not (cleaned.get("scope_from") or cleaned.get("scope_to")):
            self.add_error("scope_from", _("Give the first day, the last day, or both."))
        if kind == PlanScopeKind.DATES and _after(cleaned.get("scope_from"), cleaned.get("scope_to")):
            self.add_error("scope_to", _("The last day comes before the first: the range holds no dump."))
        if cleaned.get("size") is None and cleaned.get("margin") is None:
            self.add_error("size", _("Give a sample size, or a margin from which citeview computes it."))
        return cleaned

    def draft(self) -> PlanDraft:
        """The plan asked for (call once the form is valid): a size given wins over a margin."""
        data = self.cleaned_data
        scope = PlanScope(
            data["scope_kind"],
            data["scope_dump"],
            data["scope_tag"],
            data["scope_provider"],
            data["scope_from"],
            data["scope_to"],
        )
        margin = float(data["margin"]) / 100 if data["margin"] is not None else None
        return PlanDraft(
            name=data["name"],
            unit=data["unit"],
            scope=scope,
            size=data["size"],
            margin=None if data["size"] is not None else margin,
            editors=list(data["editors"]),
            checks_needed=data["checks_needed"],
        )
