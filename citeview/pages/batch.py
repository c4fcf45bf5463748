"""The viewer's body for a batch (``citeview.dumps.batches``): a navigator of its responses, a page of
them at a time, filtered by status and by what needs a look, and the one response chosen, rendered
alone. A page reads the rows' counts and that one response's row, and keeps what it renders."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, QueryDict
from django.template.loader import render_to_string
from django.utils.translation import get_language

from citeview.core.rendering.answer import response_prefix
from citeview.dumps.batches import batch_response, batch_rows
from citeview.dumps.forms import BatchFilterForm
from citeview.dumps.kept_fragments import kept_fragment
from citeview.dumps.models import Dump, DumpResponse
from citeview.dumps.viewer_body import response_view
from citeview.review.selectors import checked_items_per_response

ROWS_PER_PAGE = 50


def batch_body(request: HttpRequest, dump: Dump) -> bytes:
    """The navigator, then the response chosen. Both are kept (``kept_fragment``): the navigator by the
    filters, page and response asked for and the checks counted, the response by the result it is of;
    a warm page reads the checks' counts and the two pieces, and renders nothing."""
    form = BatchFilterForm(request.GET)
    filters = form.cleaned_data if form.is_valid() else {"status": "", "needs": ""}
    query = _asked(filters, request.GET)
    checked = checked_items_per_response(dump)
    shown = [dump.pk, dump.derived_at.isoformat(), query.urlencode(), sorted(checked.items())]
    navigator = kept_fragment("batch-navigator", shown, lambda: _navigator(dump, form, filters, query, checked))
    chosen: int | None = navigator["chosen"]
    html: str = navigator["html"]
    return (html + ("" if chosen is None else _response_html(dump, chosen))).encode()


def _asked(filters: dict[str, str], given: QueryDict) -> QueryDict:
    """What the page was asked for, and nothing else: the links it makes keep these alone."""
    query = QueryDict(mutable=True)
    for name in ("status", "needs"):
        if filters[name]:
            query[name] = filters[name]
    for name in ("page", "response"):
        value = given.get(name, "")
        if isinstance(value, str) and value.isdigit():
            query[name] = value
    return query


def _navigator(
    dump: Dump, form: BatchFilterForm, filters: dict[str, str], query: QueryDict, checked: dict[int, int]
) -> dict[str, Any]:
    rows = batch_rows(
        dump,
        status=filters["status"],
        problems=filters["needs"] if filters["needs"] in ("unresolved", "warnings") else "",
        indices_left_out=_fully_checked(dump, checked) if filters["needs"] == "unchecked" else frozenset(),
    )
    page = Paginator(rows, ROWS_PER_PAGE).get_page(query.get("page"))
    listed = list(page.object_list)
    chosen = _chosen_index(query, dump, listed)
    context = {
        "dump": dump,
        "form": form,
        "page": page,
        "rows": [_row_view(r, checked.get(r.index, 0), query, chosen) for r in listed],
        "steps": _steps(rows, chosen, query) if chosen is not None else None,
        "filtered": bool(filters["status"] or filters["needs"]),
        "page_links": _page_links(page, query),
    }
    return {"html": render_to_string("pages/_batch.html", context), "chosen": chosen}


def _response_html(dump: Dump, index: int) -> str:
    """The response, rendered alone as the viewer renders each of its responses, kept by the result it is of."""

    def made() -> str:
        row = batch_response(dump, index)
        if row is None:
            return ""
        rendered = row.rendered.get(get_language()) or row.rendered.get(settings.LANGUAGE_CODE)
        rendered = rendered or next(iter(row.rendered.values()))
        view = response_view(rendered, row.index, row.result)
        context = {"response": view, "count": dump.response_count, "number": row.index + 1}
        return render_to_string("dumps/_response.html", context)

    return kept_fragment("batch-response", [dump.pk, dump.derived_at.isoformat(), index], made)


def _fully_checked(dump: Dump, checked: dict[int, int]) -> frozenset[int]:
    counts = DumpResponse.objects.filter(dump_id=dump.pk, derived_at=dump.derived_at, index__in=list(checked))
    return frozenset(i for i, items in counts.values_list("index", "item_count") if checked[i] >= items)


def _chosen_index(query: QueryDict, dump: Dump, listed: list[DumpResponse]) -> int | None:
    """The response asked for (``?response=N``, counted from 1 as the page shows it), else the page's first."""
    asked = query.get("response", "")
    if asked.isdigit() and 1 <= int(asked) <= dump.response_count:
        return int(asked) - 1
    return listed[0].index if listed else None


def _with(query: QueryDict, **values: Any) -> str:
    """The page's address with ``values`` set in its query, the filters and the page kept."""
    changed = query.copy()
    for name, value in values.items():
        changed[name] = str(value)
    return f"?{changed.urlencode()}"


def _row_view(row: DumpResponse, checked: int, query: QueryDict, chosen: int | None) -> dict[str, Any]:
    return {
        "number": row.index + 1,
        "link": _response_link(query, row.index),
        "current": row.index == chosen,
        "row": row,
        "checked": min(checked, row.item_count),
    }


def _steps(listed: QuerySet[DumpResponse], index: int, query: QueryDict) -> dict[str, str | None]:
    """Links to the responses before and after the one shown, among those the filters list."""
    before = listed.filter(index__lt=index).order_by("-index").values_list("index", flat=True).first()
    after = listed.filter(index__gt=index).values_list("index", flat=True).first()
    return {"previous": _response_link(query, before), "next": _response_link(query, after)}


def _response_link(query: QueryDict, index: int | None) -> str | None:
    if index is None:
        return None
    return _with(query, response=index + 1) + f"#{response_prefix(index)}"


def _page_links(page: Any, query: QueryDict) -> dict[str, str | None]:
    return {
        "previous": _with(query, page=page.previous_page_number()) if page.has_previous() else None,
        "next": _with(query, page=page.next_page_number()) if page.has_next() else None,
    }
