"""What a page asks of a dump before it is shown."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from citeview.dumps.models import Dump
from citeview.dumps.selectors import HEAVY_FIELDS
from citeview.review.services import dump_refresh_if_stale


def result_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """For a page of a dump's result (the check panel, its report, its normalised JSON): the view
    finds the result current (``dump_refresh_if_stale`` has run). A dump a worker has still to read,
    or could not, or that is read again, has none to show: its reader is sent to the dump's own page,
    which says how reading stands and becomes the viewer once it is read. An unknown dump is left to
    the view (its 404)."""

    @functools.wraps(view)
    def only_when_read(request: HttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponse:
        dump = Dump.objects.defer(*HEAVY_FIELDS).filter(pk=pk).first()
        if dump is not None and not dump_refresh_if_stale(dump=dump).is_ready:
            return redirect(dump)
        return view(request, pk, *args, **kwargs)

    return only_when_read
