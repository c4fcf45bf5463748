from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from citeview.review.models import SUPPORTED_TOGETHER, VERDICTS, YES_NO, YES_NO_UNSURE


def _choice(label: str, choices: list[tuple[str, Any]]) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, choices=choices, required=False, widget=forms.RadioSelect)


class CheckForm(forms.Form):
    """One item's check. A citation asks for the verdict and its details plus the statement-wide
    answers; a statement that cites nothing asks only whether it needs a source."""

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0)
    verdict = _choice(_("Verdict"), VERDICTS)
    subject = _choice(_("Same subject (object, group, organisation)?"), YES_NO_UNSURE)
    time = _choice(_("Same time (year, period, version)?"), YES_NO_UNSURE)
    conditions = _choice(_("Same conditions and exceptions?"), YES_NO_UNSURE)
    evidence_quote = forms.CharField(
        label=_("Evidence quote, pasted from the source"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    note = forms.CharField(label=_("Note"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
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

    def __init__(self, *args: Any, cites: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not cites:
            for name in self.CITATION_ONLY:
                del self.fields[name]
        # What makes a check done: a citation's verdict, or whether an uncited statement is a claim.
        self.fields["verdict" if cites else "verification_worthy"].required = True

    def check_values(self) -> dict[str, str]:
        names = ("verdict", "subject", "time", "conditions", "evidence_quote", "note")
        if "verdict" not in self.fields:
            names = ("verification_worthy", "note")
        return {name: self.cleaned_data[name] for name in names}

    def statement_values(self) -> dict[str, str]:
        if "verdict" not in self.fields:
            return {}
        return {name: self.cleaned_data[name] for name in ("verification_worthy", "supported_together")}

    def seen_statement(self) -> dict[str, str] | None:
        """None when the post did not say what it had seen (a script): its answers are written as sent."""
        if "verdict" not in self.fields or "seen_verification_worthy" not in self.data:
            return None
        return {name: self.cleaned_data[f"seen_{name}"] for name in ("verification_worthy", "supported_together")}


class CommentForm(forms.Form):
    text = forms.CharField(label=_("Comment"), max_length=5000, widget=forms.Textarea(attrs={"rows": 2}))
    item_key = forms.CharField(required=False, widget=forms.HiddenInput, max_length=40)
