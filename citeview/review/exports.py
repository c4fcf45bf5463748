"""Downloads: a dump's handover report (Markdown, JSON) and every verdict as CSV or JSON Lines."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import permission_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from citeview.accounts import roles
from citeview.core.checking.report import handover_report, labelled_report, report_markdown
from citeview.core.rendering.plain import plain_text
from citeview.dumps.batches import BATCH_RESPONSES
from citeview.dumps.forms import DumpFilterForm
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_get, dump_list
from citeview.review.charts import (
    DISTRIBUTIONS,
    EDITORS,
    FINAL,
    agreement_shown,
    distribution_title,
    evidence_tables,
    figure_charts,
    figure_tables,
    headline,
    scope_text,
    verdict_table,
)
from citeview.review.citation_evidence import citation_evidence
from citeview.review.decorators import result_required
from citeview.review.figure_scope import ReaderScope
from citeview.review.figures import FigureFilterForm, team_figures
from citeview.review.models import Check, Comment
from citeview.review.plan_figures import PlanChoiceForm, plan_figures
from citeview.review.selectors import checks_visible_to, dump_check_items, hidden_check_count, sees_own_progress_only

RECORDED_FIELDS = (
    "verdict",
    "subject",
    "time",
    "conditions",
    "evidence_quote",
    "verification_worthy",
    "supported_together",
    "note",
)
EXPORT_COLUMNS = (
    "dump_id",
    "dump_title",
    "provider",
    "api",
    "model",
    "item",
    "kind",
    "statement",  # as a reader sees it: the Markdown's marks dropped
    "statement_markdown",  # as the answer wrote it
    "marker",
    "source_url",
    "source_title",
    *RECORDED_FIELDS,
    "editor",
    "created_at",
    "updated_at",
)
TITLE_FIELDS = ("title", "headline", "filename", "sha256")
# How many checks blind first left out of an export: rows cannot say it, a header can.
HIDDEN_CHECKS_HEADER = "X-Citeview-Hidden-Until-You-Check"
# A spreadsheet runs a cell that starts with one of these as a formula; dump text must never do that.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def report_of(dump: Dump, user: Any) -> dict[str, Any]:
    """The handover report as ``user`` may read it: an editor does not see other editors' checks of
    items they have not checked themselves (blind first), and the report says how many it leaves out."""
    checks = Check.objects.filter(dump=dump)
    reader = ReaderScope(user, checks)
    shown = checks_visible_to(user, checks).select_related("editor").order_by("response_index", "item_key", "id")
    # A settlement is a verdict like any other: an editor sees it once they have judged the item.
    settlements = checks_visible_to(user, Check.settlements.filter(dump=dump)).select_related("editor")
    meta = {
        "id": dump.pk,
        "title": dump.display_title,
        "sha256": dump.sha256,
        "stored_at": dump.created_at.isoformat(),
    }
    comments = Comment.objects.filter(dump=dump).select_related("author")
    report = handover_report(
        meta,
        dump.result,
        dump_check_items(dump),
        [_check_dict(c) for c in shown],
        [_comment_dict(c) for c in comments],
        citation_evidence(dump),
        [_check_dict(c) for c in settlements],
        reader.hidden_keys(),
        reader.of([dump]),
    )
    report["uncheckable_item_count"] = dump.uncheckable_item_count  # past the items a dump offers for checking
    return report


def _check_dict(check: Check) -> dict[str, Any]:
    return {
        "item_key": check.item_key,
        "statement_key": check.statement_key,
        "kind": check.kind,
        "is_item": check.is_item,
        "finished": check.finished,  # by the rule progress counts with, for every kind of item
        "response_index": check.response_index,
        "statement_text": check.statement_text,
        "marker": check.marker,
        "source_url": check.source_url,
        "source_title": check.source_title,
        "editor": check.editor.get_username(),
        "updated_at": check.updated_at.isoformat(),
        **{name: getattr(check, name) for name in RECORDED_FIELDS},
    }


def _comment_dict(comment: Comment) -> dict[str, Any]:
    return {
        "item_key": comment.item_key,
        "author": comment.author.get_username(),
        "created_at": comment.created_at.isoformat(),
        "text": comment.text,
    }


def shown_time(value: str) -> str:
    """An ISO time as every page shows times (``citeview/formats``): in ``TIME_ZONE``, to the minute,
    with the zone's abbreviation, in the active language's order."""
    moment = parse_datetime(value) if value else None
    if moment is None:
        return value
    return date_format(timezone.localtime(moment), "SHORT_DATETIME_FORMAT")


def report_language(request: HttpRequest) -> str:
    """``?lang=ja`` (or ``en``) when asked for, otherwise the request's language."""
    asked = request.GET.get("lang", "")
    return asked if asked in dict(settings.LANGUAGES) else translation.get_language()


def markdown_report_of(dump: Dump, request: HttpRequest) -> str:
    """The Markdown report in the language asked for, its times as the pages write them."""
    with translation.override(report_language(request)):
        return report_markdown(report_of(dump, request.user), gettext, shown_time)


@require_GET
@permission_required(roles.READ, raise_exception=True)
@result_required
def report_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The report to read and print. A batch's summary covers every response and stands once, on the
    first page; its details come ``BATCH_RESPONSES`` responses a page (the downloads hold them all),
    and later pages link back to the summary. ``?only=disagreements``: only the statements where
    editors' given answers or verdicts differ, settled or not, to work from."""
    dump = dump_get(pk=pk)
    report = report_of(dump, request.user)
    differing_only = request.GET.get("only") == DISAGREEMENTS
    differing = [r["index"] for r in report["responses"] if any(s["editors_differ"] for s in r["statements"])]
    listed = differing if differing_only else list(range(len(report["responses"])))
    details = (
        Paginator(listed, BATCH_RESPONSES).get_page(request.GET.get("page")) if len(listed) > BATCH_RESPONSES else None
    )
    shown = labelled_report(
        report, gettext, shown_time, list(details.object_list) if details is not None else listed, differing_only
    )
    address = reverse("review:report", args=[dump.pk])
    batched = len(report["responses"]) > BATCH_RESPONSES

    def detail_url(response: int, anchor: str) -> str:
        """Where the unfiltered report shows a response's detail: on its page of a batch."""
        return f"{address}?page={response // BATCH_RESPONSES + 1}#{anchor}" if batched else f"{address}#{anchor}"

    _link_summary(shown["summary"], dump, detail_url)
    context = {
        "dump": dump,
        "report": shown,
        "details": details,
        "differing_only": differing_only,
        "differing_statements": sum(s["editors_differ"] for r in report["responses"] for s in r["statements"]),
        "with_summary": not differing_only and (details is None or details.number == 1),
        "pages_query": f"only={DISAGREEMENTS}&" if differing_only else "",
    }
    return render(request, "review/report.html", context)


# ``?only=disagreements``: the report page's filter.
DISAGREEMENTS = "disagreements"


def _link_summary(summary: dict[str, Any], dump: Dump, detail_url: Callable[[int, str], str]) -> None:
    """Each entry of the summary linked to where the report details it and to its check page: the
    summary is worked from, not only read."""
    for response in summary["responses"]:
        response["detail_url"] = detail_url(response["index"], f"report-{response['index']}")
    for name in ("unsupported_by_statement", "disagreements_by_statement", "unresolved_by_statement"):
        for group in summary[name]:
            for entry in group["entries"]:
                if entry.get("open"):
                    entry["check_url"] = reverse("review:item", args=[dump.pk, entry["open"]])
                if name == "unresolved_by_statement":
                    continue  # a marker with nothing recorded has no detail
                anchor = (
                    f"cv-item-{entry['item']}"
                    if entry["kind"] != "statement"
                    else f"cv-statement-{entry['statement_key']}"
                )
                entry["detail_url"] = detail_url(entry["response"], anchor)


@require_GET
@permission_required(roles.READ, raise_exception=True)
@result_required
def report_json(request: HttpRequest, pk: int) -> JsonResponse:
    dump = dump_get(pk=pk)
    response = JsonResponse(report_of(dump, request.user), json_dumps_params={"ensure_ascii": False, "indent": 2})
    response["Content-Disposition"] = f'attachment; filename="citeview-{dump.pk}-report.json"'
    return response


@require_GET
@permission_required(roles.READ, raise_exception=True)
@result_required
def report_md(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_get(pk=pk)
    response = HttpResponse(markdown_report_of(dump, request), content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="citeview-{dump.pk}-report.md"'
    return response


def verdict_rows(request: HttpRequest) -> Iterator[dict[str, Any]]:
    """One row per check of an item (a citation, or a statement that cites nothing) in the dumps the
    list's filters select that the user may read (blind first). A citation's row carries its editor's
    statement-wide answers."""
    dumps = _exported_dumps(request)
    titles = {d.pk: d.display_title for d in Dump.objects.filter(pk__in=dumps).only(*TITLE_FIELDS)}
    statement_answers = {
        (c.dump_id, c.statement_key, c.editor_id): c
        for c in Check.objects.filter(dump__in=dumps, is_item=False).only(
            "dump_id", "statement_key", "editor_id", "verification_worthy", "supported_together"
        )
    }
    checks = checks_visible_to(request.user, Check.objects.filter(dump__in=dumps, is_item=True))
    for check in checks.select_related("editor").order_by("dump_id", "id").iterator(chunk_size=1000):
        statement = statement_answers.get((check.dump_id, check.statement_key, check.editor_id), check)
        yield {
            "dump_id": check.dump_id,
            "dump_title": titles.get(check.dump_id, ""),
            "provider": check.provider,
            "api": check.api,
            "model": check.model,
            "item": check.item_key,
            "kind": check.kind,
            "statement": _statement_text(check.statement_text),
            "statement_markdown": check.statement_text,
            "marker": check.marker,
            "source_url": check.source_url,
            "source_title": check.source_title,
            **{name: getattr(check, name) for name in RECORDED_FIELDS},
            "verification_worthy": statement.verification_worthy,
            "supported_together": statement.supported_together,
            "editor": check.editor.get_username(),
            "created_at": check.created_at.isoformat(),
            "updated_at": check.updated_at.isoformat(),
        }


@lru_cache(maxsize=4096)
def _statement_text(markdown: str) -> str:
    """A statement as a reader sees it; a statement's citations repeat it in row after row."""
    return plain_text(markdown)


def _exported_dumps(request: HttpRequest) -> QuerySet[Dump, Any]:
    return dump_list(DumpFilterForm(request.GET).filters()).values("pk")


def _with_hidden_count(response: StreamingHttpResponse, request: HttpRequest) -> StreamingHttpResponse:
    """Say how many rows blind first leaves out (the rows themselves cannot: each is one check)."""
    checks = Check.objects.filter(dump__in=_exported_dumps(request), is_item=True)
    response[HIDDEN_CHECKS_HEADER] = str(hidden_check_count(request.user, checks))
    return response


def _inert(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula, quoted with a leading apostrophe (the JSON
    Lines export keeps every value exactly)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class _Echo:
    def write(self, value: str) -> str:
        return value


@require_GET
@permission_required(roles.READ, raise_exception=True)
def verdicts_csv(request: HttpRequest) -> StreamingHttpResponse:
    writer = csv.DictWriter(_Echo(), fieldnames=EXPORT_COLUMNS)

    def lines() -> Iterator[str]:
        yield "\ufeff"  # so spreadsheet programs read the Japanese as UTF-8
        yield writer.writerow(dict(zip(EXPORT_COLUMNS, EXPORT_COLUMNS, strict=True)))
        for row in verdict_rows(request):
            yield writer.writerow({name: _inert(value) for name, value in row.items()})

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="citeview-verdicts.csv"'
    return _with_hidden_count(response, request)


@require_GET
@permission_required(roles.READ, raise_exception=True)
def verdicts_jsonl(request: HttpRequest) -> StreamingHttpResponse:
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in verdict_rows(request))
    response = StreamingHttpResponse(lines, content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="citeview-verdicts.jsonl"'
    return _with_hidden_count(response, request)


@require_GET
@permission_required(roles.READ, raise_exception=True)
def figures_page(request: HttpRequest) -> HttpResponse:
    """The figures. The verdict chart counts the final verdicts unless ``?verdicts=editors`` asks for
    each editor's: a link switches, the filters kept, with no script."""
    form = FigureFilterForm(request.GET)
    figures = team_figures(form.filters(), request.user)
    which = EDITORS if request.GET.get("verdicts") == EDITORS else FINAL
    # A check plan's estimates for its whole scope, when one is chosen (``?plan=<id>``).
    plan_form = PlanChoiceForm(request.GET)
    plan = plan_form.chosen()
    context = {
        "form": form,
        "plan_form": plan_form,
        "pf": plan_figures(plan, request.user) if plan else None,
        "figures": figures,
        "scope": scope_text(figures["scope"]),
        "headline": headline(figures),
        "charts": figure_charts(figures, which),
        "tables": figure_tables(figures),
        "evidence_tables": evidence_tables(figures),
        "verdicts": verdict_table(figures, which),
        "verdicts_shown": which,
        "verdicts_title": distribution_title(which),
        "verdict_switch": _verdict_switch(request, which),
        "verdict_totals": {name: sum(figures["overall"][key].values()) for name, key in DISTRIBUTIONS.items()},
        "hidden_items": figures["scope"]["items"] - figures["scope"]["visible_items"],
        "agreement": {name: agreement_shown(a) for name, a in figures["agreement"].items()},
        "query": request.GET.urlencode(),
        "own_progress_only": sees_own_progress_only(request.user),
    }
    return render(request, "review/figures.html", context)


def _verdict_switch(request: HttpRequest, which: str) -> dict[str, str]:
    """The address of the figures with the other verdict chart, the filters kept."""
    query = request.GET.copy()
    query.pop("verdicts", None)
    if which == FINAL:
        query["verdicts"] = EDITORS
    address = f"{request.path}?{query.urlencode()}" if query else request.path
    return {"to": FINAL if which == EDITORS else EDITORS, "url": f"{address}#figures-verdicts"}


@require_GET
@permission_required(roles.READ, raise_exception=True)
def figures_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse(
        team_figures(FigureFilterForm(request.GET).filters(), request.user), json_dumps_params={"ensure_ascii": False}
    )
