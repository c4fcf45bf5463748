"""Batches: dumps of many responses (an evaluation run saved as JSON Lines, a stream of several), browsed
one response at a time. Each response is a row of its own (``DumpResponse``) made from the dump's result,
so that a response's page reads only that response and the navigator only the rows' counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from citeview.core.checking.items import check_item_count
from citeview.core.common.shortening import shortened
from citeview.dumps.derived import BATCH_RESPONSES as BATCH_RESPONSES  # browsed one response at a time
from citeview.dumps.models import Dump, DumpResponse

HEADLINE_CHARS = 120


def is_batch(dump: Dump) -> bool:
    return dump.response_count > BATCH_RESPONSES


def batch_rows_ensure(*, dump: Dump, whole: Callable[[], Dump]) -> None:
    """Make the batch's rows from its current result unless they are made already. ``dump`` need have
    only its id and ``derived_at``; ``whole`` reads its result and renderings, when the rows must be made.
    Made by the request or worker that writes the result (``citeview.dumps.reading``), never by a page's
    GET; of two writers at once, the second finds them made and keeps them."""
    if batch_rows_made(dump):
        return
    made = whole()
    rows = [_row(made, index, response) for index, response in enumerate(made.result["responses"])]
    try:
        with transaction.atomic():
            DumpResponse.objects.filter(dump_id=made.pk).delete()
            DumpResponse.objects.bulk_create(rows, batch_size=200)
    except IntegrityError:
        pass  # another view made them a moment ago


def batch_rows_made(dump: Dump) -> bool:
    """Whether the batch's rows are made from its current result (``dump``: its id and ``derived_at``)."""
    return DumpResponse.objects.filter(dump_id=dump.pk, index=0, derived_at=dump.derived_at).exists()


def _row(dump: Dump, index: int, response: dict[str, Any]) -> DumpResponse:
    rendered = {language: answers[index] for language, answers in dump.rendered.items() if index < len(answers)}
    return DumpResponse(
        dump_id=dump.pk,
        index=index,
        derived_at=dump.derived_at,
        status=response["status"],
        api=response["api"],
        model=(response["model"] or "")[:100],
        headline=shortened(" ".join(response["text"].split()), HEADLINE_CHARS),
        citation_count=len(response["citations"]),
        unresolved_count=len(response["unresolved"]),
        source_count=len(response["sources"]),
        problem_count=sum(1 for d in response["diagnostics"] if d["severity"] != "info"),
        item_count=check_item_count([response]),
        result=response,
        rendered=rendered,
    )


def batch_rows(
    dump: Dump, *, status: str = "", problems: str = "", indices_left_out: frozenset[int] = frozenset()
) -> QuerySet[DumpResponse]:
    """The navigator's rows, in order, with only their counts read: of one ``status`` if given, and with
    ``problems`` ("unresolved" markers, or "warnings") if asked; ``indices_left_out`` are not listed."""
    rows = DumpResponse.objects.filter(dump_id=dump.pk, derived_at=dump.derived_at)
    if status:
        rows = rows.filter(status=status)
    if problems == "unresolved":
        rows = rows.filter(unresolved_count__gt=0)
    elif problems == "warnings":
        rows = rows.filter(problem_count__gt=0)
    if indices_left_out:
        rows = rows.exclude(index__in=indices_left_out)
    return rows.only(*DumpResponse.LISTED_FIELDS).order_by("index")


def batch_response(dump: Dump, index: int) -> DumpResponse | None:
    """One response of the batch, with its result and renderings."""
    return DumpResponse.objects.filter(dump_id=dump.pk, derived_at=dump.derived_at, index=index).first()
