"""What a page asks of a dump before it is shown."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from citeview.dumps.models import Dump, ReadState


def result_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """For a page of a dump's result (the check panel, its report, its normalised JSON): a dump a
    worker has not read yet (or could not) has none, so its reader is sent to the dump's own page,
    which says how reading stands and becomes the viewer once it is read. An unknown dump is left to
    the view (its 404)."""

    @functools.wraps(view)
    def only_when_read(request: HttpRequest, pk: int, *args: Any, **kwargs: Any) -> HttpResponse:
        state = Dump.objects.filter(pk=pk).values_list("read_state", flat=True).first()
        if state is not None and state != ReadState.READY:
            return redirect("dumps:detail", pk)
        return view(request, pk, *args, **kwargs)

    return only_when_read
