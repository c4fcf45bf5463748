"""What a page asks of a dump before it is shown."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from citeview.dumps.models import Dump
from citeview.dumps.reading import dump_queue_rebuild
from citeview.dumps.selectors import HEAVY_FIELDS


def result_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """For a page of a dump's result (the check panel, its report, its normalised JSON). A dump a worker
    has still to read, or could not, has none to show: its reader is sent to the dump's own page, which
    says how reading stands and becomes the viewer once it is read. A result older code made is shown
    as stored, its rebuild queued (``dump_queue_rebuild``, once however many pages ask): the page
    writes nothing of it. An unknown dump is left to the view (its 404)."""

    @functools.wraps(view)
    def only_when_read(request: HttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponse:
        dump = Dump.objects.defer(*HEAVY_FIELDS).filter(pk=pk).first()
        if dump is not None and not dump.is_ready:
            return redirect(dump)
        if dump is not None:
            dump_queue_rebuild(dump=dump)
        return view(request, pk, *args, **kwargs)

    return only_when_read
