from __future__ import annotations

from pathlib import PurePath
from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from citeview.accounts.roles import EDITOR, LEAD
from citeview.core.common.errors import DumpError, too_large_error
from citeview.core.common.sizes import mebibytes
from citeview.core.detection import registry
from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.parse import Attachment, read_attachment
from citeview.dumps.selectors import UNASSIGNED, team_editors

# .eventstream and .bin: AWS's binary event stream (a Bedrock stream's body), which cannot be pasted.
DUMP_FILE_SUFFIXES = (".json", ".jsonl", ".sse", ".txt", ".eventstream", ".bin")
# What the file picker offers for the request or its documents; what a file is, its bytes decide.
ATTACHMENT_ACCEPT = ".json,.txt,.md,.csv,.html,.pdf,application/json,text/plain,application/pdf"
MAX_ATTACHED_FILES = 20  # documents attached on their own, to one dump
MAX_TAGS = 20


def tag_names(text: str) -> list[str]:
    """Tags written as the forms take them: separated by commas, each at most 50 characters."""
    names = list(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    if any(len(name) > 50 for name in names):
        raise forms.ValidationError(_("A tag can be at most 50 characters long."))
    if len(names) > MAX_TAGS:
        raise forms.ValidationError(_("At most %(count)d tags.") % {"count": MAX_TAGS})
    return names


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Any number of files from one ``<input type=file multiple>``, in the order the browser sent them."""

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        uploads = data if isinstance(data, list | tuple) else [data] if data else []
        return [super(MultipleFileField, self).clean(upload, initial) for upload in uploads]


def _pasted(text: str) -> bytes:
    return text.replace("\r\n", "\n").encode("utf-8")


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

    request_text = forms.CharField(
        label=_("Paste the request, or the text of the document the answer cites"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false", "autocomplete": "off"}),
    )
    request_file = MultipleFileField(
        label=_("or upload the request, or the documents it sent (plain text or PDF, several at once)"),
        required=False,
        widget=MultipleFileInput(attrs={"accept": ATTACHMENT_ACCEPT}),
    )

    def clean(self) -> dict[str, object]:
        cleaned = super().clean() or {}
        cleaned["raw"], cleaned["filename"] = self._one_of(cleaned.get("text") or "", cleaned.get("file"))
        cleaned["request"] = self._attachment(cleaned.get("request_text") or "", cleaned.get("request_file") or [])
        return cleaned

    def _one_of(self, text: str, upload: object) -> tuple[bytes, str]:
        """The bytes pasted or uploaded (exactly one of them), and the file's name."""
        if upload and text.strip():
            raise forms.ValidationError(_("Paste a dump or choose a file, not both."), code="both")
        # A browser sends a textarea's line ends as CRLF whatever was pasted; the box itself holds LF.
        raw, name = self._read_upload(upload) if upload else (_pasted(text), "")
        if len(raw) > settings.CITEVIEW_MAX_DUMP_BYTES:
            raise forms.ValidationError(_too_large_message(len(raw)), code="too_large")
        return raw, name

    def _attachment(self, text: str, uploads: list[Any]) -> Attachment | None:
        """The request pasted or uploaded, or the documents it sent: one JSON request, or any number of
        plain-text and PDF documents in the order chosen (``read_attachment``), all of them within the
        limit of one dump."""
        if uploads and text.strip():
            raise forms.ValidationError(_("Paste the request or choose its files, not both."), code="both")
        if len(uploads) > MAX_ATTACHED_FILES:
            raise forms.ValidationError(
                _("At most %(count)d files can be attached to one dump.") % {"count": MAX_ATTACHED_FILES},
                code="too_many_files",
            )
        files = [AttachedFile(PurePath(u.name or "").name, self._read_attached(u)) for u in uploads]
        if text.strip():
            files = [AttachedFile("", _pasted(text))]
        size = sum(len(f.data) for f in files)
        if size > settings.CITEVIEW_MAX_DUMP_BYTES:
            raise forms.ValidationError(_attachment_too_large_message(size), code="too_large")
        try:
            return read_attachment(files)
        except DumpError as error:
            raise forms.ValidationError(error.phrase.text(gettext), code=error.code) from None

    def _read_attached(self, upload: Any) -> bytes:
        if (upload.size or 0) > settings.CITEVIEW_MAX_DUMP_BYTES:
            raise forms.ValidationError(_attachment_too_large_message(upload.size), code="too_large")
        return bytes(upload.read(settings.CITEVIEW_MAX_DUMP_BYTES + 1))

    def _read_upload(self, upload: object) -> tuple[bytes, str]:
        name = PurePath(getattr(upload, "name", "") or "").name
        if PurePath(name).suffix.lower() not in DUMP_FILE_SUFFIXES:
            raise forms.ValidationError(
                _(
                    "%(name)s is not a dump file: citeview reads .json, .jsonl, .sse and .txt files, and AWS event "
                    "streams as .eventstream or .bin."
                )
                % {"name": name},
                code="unsupported_media_type",
            )
        size = getattr(upload, "size", 0) or 0
        if size > settings.CITEVIEW_MAX_DUMP_BYTES:
            raise forms.ValidationError(_too_large_message(size), code="too_large")
        return upload.read(settings.CITEVIEW_MAX_DUMP_BYTES + 1), name  # type: ignore[attr-defined]

    def add_dump_error(self, error: DumpError) -> None:
        self.add_error(None, forms.ValidationError(error.phrase.text(gettext), code=error.code))


class ImportForm(forms.Form):
    """A bulk import: one .zip of dump files, or one JSON Lines file with a response per line."""

    file = forms.FileField(
        label=_("A .zip of dump files, or a JSON Lines file"),
        widget=forms.ClearableFileInput(attrs={"accept": ".zip,.jsonl,.ndjson"}),
    )
    tags = forms.CharField(
        label=_("Tags for every dump of the import"),
        required=False,
        max_length=1000,
        help_text=_("Separated by commas, e.g. batch-7, 2026-Q3: the batch can then be found in the list"),
    )

    def clean_file(self) -> object:
        upload = self.cleaned_data["file"]
        limit = settings.CITEVIEW_MAX_IMPORT_BYTES
        if upload.size > limit:
            raise forms.ValidationError(too_large_error(upload.size, limit).phrase.text(gettext), code="too_large")
        return upload

    def clean_tags(self) -> list[str]:
        return tag_names(self.cleaned_data["tags"])


def _too_large_message(size: int) -> str:
    return too_large_error(size, settings.CITEVIEW_MAX_DUMP_BYTES).phrase.text(gettext)


def _attachment_too_large_message(size: int) -> str:
    limit = settings.CITEVIEW_MAX_DUMP_BYTES
    return gettext(
        "The attached request or documents are %(size)s (%(bytes)s bytes) in all; together they may be at most "
        "%(limit)s, as a dump may."
    ) % {"size": mebibytes(size).text(gettext), "bytes": f"{size:,}", "limit": mebibytes(limit).text(gettext)}


# A response's status (and a dump's, the worst of its responses'), as the filters offer it.
STATUS_CHOICES = [
    ("", _("any")),
    ("completed", _("completed")),
    ("incomplete", _("incomplete")),
    ("failed", _("failed")),
]


class DumpFilterForm(forms.Form):
    """The list's filters and search; every field is optional and an unknown value is ignored."""

    q = forms.CharField(label=_("Search"), required=False, max_length=200)
    provider = forms.ChoiceField(label=_("Provider"), required=False)
    status = forms.ChoiceField(label=_("Status"), required=False, choices=STATUS_CHOICES)
    tag = forms.CharField(label=_("Tag"), required=False, max_length=50)
    assignee = forms.ChoiceField(label=_("Assigned to"), required=False)
    progress = forms.ChoiceField(
        label=_("Progress"),
        required=False,
        choices=[
            ("", _("any")),
            ("unchecked", _("not started")),
            ("in_progress", _("in progress")),
            ("done", _("done")),
        ],
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        providers, editors = self.offered = filter_choices()
        cast(forms.ChoiceField, self.fields["provider"]).choices = [("", _("any")), *((p, p) for p in providers)]
        cast(forms.ChoiceField, self.fields["assignee"]).choices = [
            ("", _("anyone")),
            (UNASSIGNED, _("nobody")),
            *((e, e) for e in editors),
        ]

    def filters(self) -> dict[str, str]:
        """The valid, non-empty filters; an invalid one is left out (the form shows why)."""
        self.is_valid()
        return {name: value for name, value in getattr(self, "cleaned_data", {}).items() if value}


def filter_choices() -> tuple[list[str], list[str]]:
    """What the list's filters offer besides their fixed choices: the providers and the editors."""
    return list(registry.provider_names()), [editor.username for editor in team_editors()]


class DumpDetailsForm(forms.Form):
    """What the team adds to a dump: a title and tags (the viewer's form, and the API's ``?title=&tags=``
    when storing). Its editors are assigned with review's ``AssignForm``."""

    title = forms.CharField(label=_("Title"), max_length=200, required=False)
    tags = forms.CharField(
        label=_("Tags"), required=False, max_length=1000, help_text=_("Separated by commas, e.g. health, 2026-Q3")
    )

    def clean_tags(self) -> list[str]:
        return tag_names(self.cleaned_data["tags"])


def assignable_editors() -> Any:
    """The editors a dump may be assigned to."""
    return (
        get_user_model().objects.filter(groups__name__in=[EDITOR, LEAD], is_active=True).distinct().order_by("username")
    )


class BatchFilterForm(forms.Form):
    """What a batch's navigator lists: responses of a status, and those that need a look."""

    status = forms.ChoiceField(label=_("Status"), required=False, choices=STATUS_CHOICES)
    needs = forms.ChoiceField(
        label=_("Needs a look"),
        required=False,
        choices=[
            ("", _("any")),
            ("unresolved", _("unresolved markers")),
            ("warnings", _("warnings")),
            ("unchecked", _("not fully checked")),
        ],
    )
