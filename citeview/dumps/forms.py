from __future__ import annotations

from pathlib import PurePath

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from citeview.core.errors import DumpError, too_large_error

DUMP_FILE_SUFFIXES = (".json", ".jsonl", ".sse", ".txt")


class DumpForm(forms.Form):
    """A dump pasted into the box or chosen as a file: exactly one of them."""

    text = forms.CharField(
        label=_("Paste a saved API response"),
        required=False,
        strip=False,  # the dump is stored verbatim
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false", "autocomplete": "off"}),
    )
    file = forms.FileField(
        label=_("or upload a file"),
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": ",".join(DUMP_FILE_SUFFIXES)}),
    )

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        text, upload = cleaned.get("text") or "", cleaned.get("file")
        if upload and text.strip():
            raise forms.ValidationError(_("Paste a dump or choose a file, not both."), code="both")
        if upload:
            cleaned["raw"], cleaned["filename"] = self._read_upload(upload)
        else:
            cleaned["raw"], cleaned["filename"] = text.encode("utf-8"), ""
        if len(cleaned["raw"]) > settings.CITEVIEW_MAX_DUMP_BYTES:
            raise forms.ValidationError(_too_large_message(len(cleaned["raw"])), code="too_large")
        return cleaned

    def _read_upload(self, upload: object) -> tuple[bytes, str]:
        name = PurePath(getattr(upload, "name", "") or "").name
        if PurePath(name).suffix.lower() not in DUMP_FILE_SUFFIXES:
            raise forms.ValidationError(
                _("%(name)s is not a dump file: citeview reads .json, .jsonl, .sse and .txt files.") % {"name": name},
                code="unsupported_media_type",
            )
        size = getattr(upload, "size", 0) or 0
        if size > settings.CITEVIEW_MAX_DUMP_BYTES:
            raise forms.ValidationError(_too_large_message(size), code="too_large")
        return upload.read(settings.CITEVIEW_MAX_DUMP_BYTES + 1), name  # type: ignore[attr-defined]

    def add_dump_error(self, error: DumpError) -> None:
        self.add_error(None, forms.ValidationError(error.message, code=error.code))


def _too_large_message(size: int) -> str:
    return too_large_error(size, settings.CITEVIEW_MAX_DUMP_BYTES).message
