"""How a dump error, or a dump form's, is answered over HTTP."""

from __future__ import annotations

from django import forms

from citeview.core.common.errors import DumpError

_STATUS_BY_CODE = {
    "too_large": 413,
    "binary": 415,
    "html": 415,
    "not_utf8": 415,
    "unsupported_media_type": 415,
}


def status_for(error: DumpError) -> int:
    return _STATUS_BY_CODE.get(error.code, 400)


# The form errors answered with a status of their own; any other is 400.
_FORM_ERROR_STATUS = {"too_large": 413, "unsupported_media_type": 415}


def form_error_status(form: forms.Form) -> int:
    codes = [error.code for errors in form.errors.as_data().values() for error in errors]
    return next((_FORM_ERROR_STATUS[c] for c in codes if c in _FORM_ERROR_STATUS), 400)
