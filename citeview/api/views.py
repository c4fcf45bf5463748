"""The JSON API for pipelines, described by ``/api/openapi.json`` (``citeview/api/openapi.py``).

A script authenticates with ``Authorization: Bearer <token>`` (tokens are made on the account page);
a browser may use its session instead, sending the CSRF token as ``X-CSRFToken`` with a write.
Every error is ``{"error": {"code": ..., "message": ...}}`` with a 4xx status.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.csrf import csrf_failure as default_csrf_failure

from citeview.accounts import roles
from citeview.api.auth import api_endpoint, api_error
from citeview.api.openapi import MAX_ID, openapi_document
from citeview.core.checking.items import CheckItem
from citeview.core.common.errors import DumpError, too_large_error
from citeview.dumps.bulk import ALREADY_STORED, ERROR, STORED, import_entries, import_results
from citeview.dumps.forms import DumpDetailsForm, DumpFilterForm, assignable_editors, tag_names
from citeview.dumps.http_status import form_error_status, status_for
from citeview.dumps.middleware import declared_body_size
from citeview.dumps.models import Dump, ReadState
from citeview.dumps.reading import dump_queue_rebuild
from citeview.dumps.selectors import dump_get, dump_list, dump_read_status
from citeview.dumps.services import dump_ingest, dump_organise, tags_named
from citeview.review import exports
from citeview.review.exports import report_of
from citeview.review.figures import FigureFilterForm, team_figures
from citeview.review.forms import MAX_CHECK_BYTES, CheckForm
from citeview.review.models import CITATION_FIELDS, STATEMENT_FIELDS, Check, CheckPlan, ItemState
from citeview.review.plan_estimates import plan_estimates, plan_json
from citeview.review.selectors import assignments_on, checks_visible_to, dump_check_items, hidden_check_count
from citeview.review.services import CheckConflict, check_save, editors_assign

# What a dump may be sent as; form encodings are refused so a body is never half-parsed as a form.
ACCEPTED_CONTENT_TYPES = {
    "",
    "application/json",
    "application/x-ndjson",
    "application/jsonl",
    "application/json-seq",
    "text/event-stream",
    "text/plain",
    "application/octet-stream",
    "application/vnd.amazon.eventstream",  # AWS's binary stream, as Bedrock sends it
}
IMPORT_CONTENT_TYPES = {"", "application/zip", "application/x-ndjson", "application/jsonl", "application/octet-stream"}
PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
JSON_OPTIONS = {"ensure_ascii": False}


@login_not_required
def openapi(request: HttpRequest) -> JsonResponse:
    if request.method not in ("GET", "HEAD"):
        return api_error(405, "method_not_allowed", "Use GET.", allow="GET")
    return JsonResponse(openapi_document(), json_dumps_params=JSON_OPTIONS)


# A stored dump is one commit (its row and its task): the rate's count goes in it (rates.counted_in_its_commit).
@api_endpoint({"GET": roles.READ, "POST": roles.STORE}, count_in_its_commit=True)
def dumps_collection(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        return _dump_page(request)
    options = DumpDetailsForm(request.GET)  # ?title=&tags=: the same rules as the page's details form
    if not options.is_valid():
        return _invalid(options.errors)
    raw = _raw_body(request, settings.CITEVIEW_MAX_DUMP_BYTES, ACCEPTED_CONTENT_TYPES, "text/event-stream")
    if isinstance(raw, HttpResponse):
        return raw
    try:
        dump, created = dump_ingest(
            raw=raw,
            uploaded_by=request.user,
            filename=request.headers.get("X-Filename", ""),
            provider=request.GET.get("provider") or None,
        )
    except DumpError as error:
        return _dump_error(error)
    if not created:
        dump_queue_rebuild(dump=dump)  # stored by older code: answered as stored, rebuilt by a worker
    if created and (options.cleaned_data["title"] or options.cleaned_data["tags"]):
        dump_organise(dump=dump, title=options.cleaned_data["title"], tag_names=options.cleaned_data["tags"])
    if not dump.is_ready:
        return _queued(request, dump)
    return JsonResponse(_dump_json(request, dump), status=201 if created else 200, json_dumps_params=JSON_OPTIONS)


@api_endpoint({"GET": roles.READ})
def dump_item(request: HttpRequest, pk: int) -> HttpResponse:
    dump = _dump_or_none(pk)
    if dump is None:
        return _not_found(pk)
    if not dump.is_ready:
        return _queued(request, dump)
    return JsonResponse(_dump_json(request, dump), json_dumps_params=JSON_OPTIONS)


@api_endpoint({"GET": roles.READ})
def dump_status(request: HttpRequest, pk: int) -> HttpResponse:
    dump = _dump_or_none(pk)
    if dump is None:
        return _not_found(pk)
    return JsonResponse(_status_json(request, dump), json_dumps_params=JSON_OPTIONS)


@api_endpoint({"GET": roles.READ, "POST": roles.RECORD})
def dump_checks(request: HttpRequest, pk: int) -> HttpResponse:
    dump = _dump_or_none(pk)
    if dump is None:
        return _not_found(pk)
    if not dump.is_ready:
        return _not_ready(request, dump)
    if request.method == "GET":
        return JsonResponse(_checks_json(dump, request.user), json_dumps_params=JSON_OPTIONS)
    return _record_check(request, dump)


@api_endpoint({"GET": roles.READ, "PUT": roles.READ})
def dump_assignees(request: HttpRequest, pk: int) -> HttpResponse:
    """Whom a dump is assigned to and how many independent checks each item needs; PUT sets both (a
    lead or staff: ``roles.can_assign``)."""
    dump = _dump_or_none(pk)
    if dump is None:
        return _not_found(pk)
    if request.method == "GET":
        return JsonResponse(_assignment_json(dump), json_dumps_params=JSON_OPTIONS)
    if not roles.can_assign(request.user):
        return api_error(403, "forbidden", "Only a lead or staff assign dumps to editors.")
    try:
        posted = json.loads(request.body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return api_error(400, "invalid_json", 'Send a JSON object: {"editors": ["name", ...], "checks_needed": 2}.')
    names = posted.get("editors") if isinstance(posted, dict) else None
    needed = posted.get("checks_needed") if isinstance(posted, dict) else None
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return api_error(400, "invalid_assignment", '"editors" must be a list of user names (empty for nobody).')
    if isinstance(needed, bool) or (needed is not None and needed not in (1, 2)):
        return api_error(400, "invalid_assignment", '"checks_needed" must be 1 or 2 (or left out to keep it).')
    editors = {editor.get_username(): editor for editor in assignable_editors().filter(username__in=names)}
    if unknown := sorted(set(names) - set(editors)):
        return api_error(
            400, "unknown_editors", "These are not active editors or leads: " + ", ".join(unknown), editors=unknown
        )
    change = editors_assign(dump=dump, editors=list(editors.values()), by=request.user, checks_needed=needed)
    dump.refresh_from_db(fields=["checks_needed", "checked_item_count", "complete_item_count"])
    answer = {
        **_assignment_json(dump),
        "added": change.added,
        "removed": change.removed,
        "read_verdicts_before": change.read_verdicts_before,
    }
    return JsonResponse(answer, json_dumps_params=JSON_OPTIONS)


def _assignment_json(dump: Dump) -> dict[str, Any]:
    return {
        "dump": dump.pk,
        "editors": [assignment.editor.get_username() for assignment in assignments_on(dump)],
        "checks_needed": dump.checks_needed,
        "item_count": dump.checkable_item_count,
        "checked_item_count": dump.checked_item_count,
        "complete_item_count": dump.complete_item_count,
    }


@api_endpoint({"GET": roles.READ})
def dump_report_json(request: HttpRequest, pk: int) -> HttpResponse:
    dump = _dump_or_none(pk)
    if dump is None:
        return _not_found(pk)
    if not dump.is_ready:
        return _not_ready(request, dump)
    return JsonResponse(report_of(dump, request.user), json_dumps_params=JSON_OPTIONS)


@api_endpoint({"GET": roles.READ})
def dump_report_markdown(request: HttpRequest, pk: int) -> HttpResponse:
    dump = _dump_or_none(pk)
    if dump is None:
        return _not_found(pk)
    if not dump.is_ready:
        return _not_ready(request, dump)
    return HttpResponse(exports.markdown_report_of(dump, request), content_type="text/markdown; charset=utf-8")


@api_endpoint({"GET": roles.READ})
def metrics(request: HttpRequest) -> HttpResponse:
    form = FigureFilterForm(request.GET)
    if not form.is_valid():
        return _invalid(form.errors)
    return JsonResponse(team_figures(form.filters(), request.user), json_dumps_params=JSON_OPTIONS)


@api_endpoint({"GET": roles.READ})
def plans(request: HttpRequest) -> HttpResponse:
    """Every check plan, newest first, with what it was drawn from (its estimates: ``plans/<id>``)."""
    listed = CheckPlan.objects.select_related("made_by", "scope_tag").order_by("-made_at", "-id")
    page = Paginator(listed, PAGE_SIZE).get_page(request.GET.get("page"))
    return JsonResponse(
        {
            "count": page.paginator.count,
            "next": _page_url(request, page.next_page_number()) if page.has_next() else None,
            "previous": _page_url(request, page.previous_page_number()) if page.has_previous() else None,
            "results": [
                {**plan_json(plan), "url": request.build_absolute_uri(reverse("api:plan", args=[plan.pk]))}
                for plan in page.object_list
            ],
        },
        json_dumps_params=JSON_OPTIONS,
    )


@api_endpoint({"GET": roles.READ})
def plan_item(request: HttpRequest, pk: int) -> HttpResponse:
    """A plan's estimates for its whole scope, with their intervals, n, N, the seed and the strata, as
    the reader may read them (blind first), as the figures page gives them."""
    plan = CheckPlan.objects.select_related("made_by", "scope_tag").filter(pk=pk).first() if pk <= MAX_ID else None
    if plan is None:
        return api_error(404, "not_found", f"There is no check plan {pk}.")
    return JsonResponse(plan_estimates(plan, request.user), json_dumps_params=JSON_OPTIONS)


@api_endpoint({"POST": roles.STORE})
def imports(request: HttpRequest) -> HttpResponse:
    try:
        tags = tag_names(request.GET.get("tags", ""))
    except ValidationError as error:
        return _invalid({"tags": error.messages})
    body = _raw_body(request, settings.CITEVIEW_MAX_IMPORT_BYTES, IMPORT_CONTENT_TYPES, "application/zip")
    if isinstance(body, HttpResponse):
        return body
    name = request.headers.get("X-Filename", "") or "import"
    try:
        entries = import_entries(name, body)
    except DumpError as error:
        return _dump_error(error)
    # Each result is kept as its JSON, not with its stored dump: a dump holds its bytes and everything
    # made from them, and keeping them all would hold the whole import in memory until the answer.
    results = [
        result.to_json(request.build_absolute_uri)
        for result in import_results(entries, uploaded_by=request.user, tags=tags_named(tags))
    ]
    return JsonResponse(_import_json(results), json_dumps_params=JSON_OPTIONS)


@login_not_required
def unknown_path(request: HttpRequest, path: str) -> JsonResponse:
    return api_error(404, "not_found", f"The API has no {request.path}; see /api/openapi.json.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """The API answers a CSRF failure in its own JSON shape; pages keep Django's page."""
    if request.path.startswith("/api/"):
        return api_error(
            403,
            "csrf_failed",
            f"CSRF check failed ({reason}): send an API token, or the csrftoken cookie's value as X-CSRFToken.",
        )
    return default_csrf_failure(request, reason)


# --- Reading requests ------------------------------------------------------------------------------


def _raw_body(request: HttpRequest, limit: int, content_types: set[str], example: str) -> bytes | HttpResponse:
    content_type = request.content_type or ""
    if content_type not in content_types:
        return api_error(
            415,
            "unsupported_media_type",
            f"Send the raw bytes as the body (for example {example}), not {content_type}.",
        )
    declared = declared_body_size(request)
    if declared > limit:
        return _dump_error(too_large_error(declared, limit))
    raw = request.read(limit + 1)
    if len(raw) > limit:
        return _dump_error(too_large_error(len(raw), limit))
    return raw


def _dump_or_none(pk: int) -> Dump | None:
    if pk > MAX_ID:  # no database holds an id this large, and some refuse to be asked
        return None
    try:
        dump = dump_get(pk=pk)
    except Http404:
        return None
    dump_queue_rebuild(dump=dump)  # stored by older code: answered as stored, rebuilt by a worker
    return dump


def _record_check(request: HttpRequest, dump: Dump) -> HttpResponse:
    if declared_body_size(request) > MAX_CHECK_BYTES:
        return api_error(413, "too_large", f"A check is at most {MAX_CHECK_BYTES:,} bytes of JSON.")
    try:
        posted = json.loads(request.body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return api_error(400, "invalid_json", "Send the check as a JSON object.")
    if not isinstance(posted, dict) or not isinstance(posted.get("item"), str):
        return api_error(400, "invalid_check", 'Send a JSON object with "item" (the item\'s key) and "version".')
    item = next((i for i in dump_check_items(dump) if i.key == posted["item"]), None)
    if item is None:
        return api_error(404, "not_found", f"Dump {dump.pk} has no item {posted['item']!r}.")
    if any(not isinstance(v, (str, int)) or isinstance(v, bool) for k, v in posted.items() if k != "item"):
        return api_error(400, "invalid_check", "Every value must be a string (and the version a number).")
    if any(isinstance(v, str) and _LONE_SURROGATE.search(v) for v in posted.values()):
        return api_error(400, "invalid_check", "A value holds half of a character (a lone surrogate escape).")
    form = CheckForm({k: str(v) for k, v in posted.items()}, kind=item.kind, together=bool(item.statement.citations))
    if not form.is_valid():
        return _invalid(form.errors, status=form_error_status(form))  # 413 for text over the page's limits
    # The statement-wide answers are shared by the statement's citations: only those sent are written.
    statement_values = {k: v for k, v in form.statement_values().items() if k in posted}
    try:
        check_save(
            dump=dump,
            item=item,
            editor=request.user,
            values=form.check_values(),
            statement_values=statement_values,
            seen_version=form.cleaned_data["version"],
            seen_statement=form.seen_statement(),
        )
    except CheckConflict as conflict:
        return api_error(
            409,
            "conflict",
            "Someone saved this item since that version: read the checks again and send the current version.",
            version=conflict.version,
        )
    saved = _checks_json(dump, request.user, [item])["items"][0]
    return JsonResponse(saved, status=201, json_dumps_params=JSON_OPTIONS)


# --- Writing answers -------------------------------------------------------------------------------


def _dump_page(request: HttpRequest) -> HttpResponse:
    filters = DumpFilterForm(request.GET)
    if not filters.is_valid():
        return _invalid(filters.errors)
    try:
        number = int(request.GET.get("page", "1"))
        size = int(request.GET.get("page_size", str(PAGE_SIZE)))
    except ValueError:
        return api_error(400, "invalid_query", "page and page_size must be whole numbers.")
    if number < 1 or not 1 <= size <= MAX_PAGE_SIZE:
        return api_error(400, "invalid_query", f"page starts at 1; page_size is 1 to {MAX_PAGE_SIZE}.")
    paginator = Paginator(dump_list(filters.filters()), size)
    if number > max(paginator.num_pages, 1):
        return api_error(404, "no_such_page", f"There are {paginator.num_pages} pages.")
    page = paginator.page(number)
    return JsonResponse(
        {
            "count": paginator.count,
            "page": number,
            "page_size": size,
            "next": _page_url(request, number + 1) if page.has_next() else None,
            "previous": _page_url(request, number - 1) if page.has_previous() else None,
            "results": [_dump_summary(request, dump) for dump in page],
        },
        json_dumps_params=JSON_OPTIONS,
    )


def _page_url(request: HttpRequest, number: int) -> str:
    query = request.GET.copy()
    query["page"] = str(number)
    return request.build_absolute_uri(f"{request.path}?{query.urlencode()}")


def _dump_summary(request: HttpRequest, dump: Dump) -> dict[str, Any]:
    return {
        "id": dump.pk,
        "title": dump.display_title,
        "filename": dump.filename,
        "sha256": dump.sha256,
        "size": dump.size,
        "stored_at": dump.created_at.isoformat(),
        "uploaded_by": dump.uploaded_by.get_username() if dump.uploaded_by else None,
        "providers": _names(dump.providers),
        "apis": _names(dump.apis),
        "models": _names(dump.model_names),
        "state": dump.read_state,
        "status": dump.status,
        "citation_count": dump.citation_count,
        "unresolved_count": dump.unresolved_count,
        "source_count": dump.source_count,
        "item_count": dump.checkable_item_count,
        "uncheckable_item_count": dump.uncheckable_item_count,
        "checked_item_count": dump.checked_item_count,
        "complete_item_count": dump.complete_item_count,
        "checks_needed": dump.checks_needed,
        "tags": [tag.name for tag in dump.tags.all()],
        "assignees": [editor.get_username() for editor in dump.assignees.all()],
        "url": request.build_absolute_uri(dump.get_absolute_url()),
    }


def _names(joined: str) -> list[str]:
    return [name for name in joined.split(", ") if name]


def _status_json(request: HttpRequest, dump: Dump) -> dict[str, Any]:
    """Where reading a dump stands (English, as every API message), with its page and this status link."""
    status = dump_read_status(dump, str)
    return {
        "id": dump.pk,
        "state": status["state"],
        "error": status["error"],
        "attempts": status["attempts"],
        "url": request.build_absolute_uri(dump.get_absolute_url()),
        "status": request.build_absolute_uri(reverse("api:dump_status", args=[dump.pk])),
    }


def _queued(request: HttpRequest, dump: Dump) -> JsonResponse:
    """202: the dump's bytes are stored and a worker reads them; the status link says when it is done."""
    return JsonResponse(_status_json(request, dump), status=202, json_dumps_params=JSON_OPTIONS)


def _not_ready(request: HttpRequest, dump: Dump) -> HttpResponse:
    status = _status_json(request, dump)
    if status["state"] == ReadState.FAILED:
        message = f"Dump {dump.pk} could not be read: {status['error']['message']} An editor can try again on its page."
    else:
        message = f"Dump {dump.pk} has not been read yet ({status['state']}): ask {status['status']} until it is ready."
    return api_error(
        409,
        "not_ready",
        message,
        state=status["state"],
        status_url=status["status"],
    )


def _dump_json(request: HttpRequest, dump: Dump) -> dict[str, Any]:
    return {**dump.result, "id": dump.pk, "url": request.build_absolute_uri(dump.get_absolute_url())}


def _checks_json(dump: Dump, user: Any, items: list[CheckItem] | None = None) -> dict[str, Any]:
    """Every item the dump offers for checking (or those given) with its version and the checks ``user``
    may read (blind first, as on the pages). Each statement and source is written once and items name
    them by key: a statement with thousands of citations must not be copied into each of them."""
    shown_items = dump_check_items(dump) if items is None else items
    checks = Check.objects.filter(dump=dump)
    visible = _checks_by_key(checks_visible_to(user, checks))
    versions = dict(ItemState.objects.filter(dump=dump).values_list("key", "version"))
    statements: dict[str, dict[str, Any]] = {}
    sources: dict[tuple[int, str], dict[str, Any]] = {}
    by_key = [{s["key"]: s for s in response["sources"]} for response in dump.result["responses"]]
    for item in shown_items:
        statements.setdefault(
            item.statement_key, {"key": item.statement_key, "response": item.response, "text": item.statement.text}
        )
        if item.source_key is not None and (item.response, item.source_key) not in sources:
            source = by_key[item.response].get(item.source_key) or {}
            sources[(item.response, item.source_key)] = {
                "response": item.response,
                "key": item.source_key,
                "url": source.get("url"),
                "title": source.get("title"),
            }
    return {
        "dump": dump.pk,
        "statements": list(statements.values()),
        "sources": list(sources.values()),
        "items": [_item_json(dump, item, versions.get(item.key, 0), visible) for item in shown_items],
        "hidden_until_you_check": hidden_check_count(user, checks.filter(is_item=True)),
        "uncheckable_item_count": dump.uncheckable_item_count,
    }


def _checks_by_key(checks: QuerySet[Check]) -> dict[str, list[Check]]:
    by_key: dict[str, list[Check]] = {}
    for check in checks.select_related("editor").order_by("id"):
        by_key.setdefault(check.item_key, []).append(check)
    return by_key


def _item_json(dump: Dump, item: CheckItem, version: int, visible: dict[str, list[Check]]) -> dict[str, Any]:
    """An item, and the checks of it ``visible`` holds; a citation's check carries its editor's answers
    about the statement."""
    shown = visible.get(item.key, [])
    described: dict[str, Any] = {
        "key": item.key,
        "kind": "statement",
        "response": item.response,
        "statement_key": item.statement_key,
        "version": version,
        "checks": [_check_json(check) for check in shown],
    }
    if item.kind == "unresolved":
        unresolved = dump.result["responses"][item.response]["unresolved"][item.unresolved]
        described.update(kind="unresolved", marker=unresolved["marker"], ref=unresolved["ref"])
        return described
    if item.citation is None:
        return described
    answers = {c.editor_id: c for c in visible.get(item.statement_key, [])}
    for check, entry in zip(shown, described["checks"], strict=True):
        statement = answers.get(check.editor_id)
        entry["verification_worthy"] = statement.verification_worthy if statement else ""
        entry["supported_together"] = statement.supported_together if statement else ""
    described.update(
        kind="citation",
        marker=dump.result["responses"][item.response]["citations"][item.citation]["marker"],
        source_key=item.source_key,
    )
    return described


def _check_json(check: Check) -> dict[str, Any]:
    fields = CITATION_FIELDS if check.kind == "citation" else STATEMENT_FIELDS
    return {
        "editor": check.editor.get_username(),
        **{name: getattr(check, name) for name in fields},
        "updated_at": check.updated_at.isoformat(),
    }


def _import_json(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "stored": sum(1 for r in results if r["outcome"] == STORED),
        "already_stored": sum(1 for r in results if r["outcome"] == ALREADY_STORED),
        "errors": sum(1 for r in results if r["outcome"] == ERROR),
        "results": results,
    }


def _invalid(errors: Any, status: int = 400) -> JsonResponse:
    fields = {name: [str(message) for message in messages] for name, messages in errors.items()}
    if status == 413:
        return api_error(413, "too_large", "Some values are longer than citeview takes; see fields.", fields=fields)
    return api_error(400, "invalid_input", "Some values are not valid; see fields.", fields=fields)


def _not_found(pk: int) -> JsonResponse:
    return api_error(404, "not_found", f"There is no dump {pk}.")


def _dump_error(error: DumpError) -> JsonResponse:
    return JsonResponse(error.to_json(), status=status_for(error))
