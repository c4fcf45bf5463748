"""The check panel and comments. Thin: the work is in services and selectors."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from citeview.accounts import roles
from citeview.core.rendering.answer import citation_anchor, response_prefix, source_entries
from citeview.core.review.items import CheckItem
from citeview.dumps.models import Dump
from citeview.dumps.pages import rendered_answers
from citeview.dumps.selectors import dump_get
from citeview.review.forms import CheckForm, CommentForm
from citeview.review.models import CITATION_FIELDS, STATEMENT_FIELDS, Check
from citeview.review.selectors import (
    checks_visible_to,
    dump_check_items,
    finished_keys,
    hidden_check_count,
    item_checks,
    item_history,
    item_version,
)
from citeview.review.services import CheckConflict, check_save, comment_add, dump_refresh_if_stale

# Of each item's statement, the list of all items shows its start only.
NAV_TEXT_CHARS = 120


@require_GET
@permission_required(roles.READ, raise_exception=True)
def check_start(request: HttpRequest, pk: int) -> HttpResponse:
    """The first item the user has not finished, or the first item."""
    dump = dump_refresh_if_stale(dump=dump_get(pk=pk))
    items = dump_check_items(dump)
    if not items:
        messages.info(request, _("This dump has nothing to check: its answers are empty."))
        return redirect(dump)
    done = finished_keys(dump, request.user)
    item = next((i for i in items if i.key not in done), items[0])
    return redirect(_item_url(dump, item))


@require_http_methods(["GET", "POST"])
@permission_required(roles.READ, raise_exception=True)
def check_item(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    dump = dump_refresh_if_stale(dump=dump_get(pk=pk))
    items = dump_check_items(dump)
    item = next((i for i in items if i.key == key), None)
    if item is None:
        raise Http404("This dump has no such item.")
    cites = item.citation is not None
    if request.method == "GET":
        form = CheckForm(initial=_initial(dump, item, request.user), cites=cites)
        return _check_page(request, dump, items, item, form)
    if not roles.can_record(request.user):
        raise PermissionDenied("Only editors record checks.")
    form = CheckForm(request.POST, cites=cites)
    if not form.is_valid():
        return _check_page(request, dump, items, item, form, status=400)
    try:
        check_save(
            dump=dump,
            item=item,
            editor=request.user,
            values=form.check_values(),
            statement_values=form.statement_values(),
            seen_version=form.cleaned_data["version"],
            seen_statement=form.seen_statement(),
        )
    except CheckConflict as conflict:
        return _conflict_page(request, dump, items, item, form, conflict)
    messages.success(request, _("Saved."))
    return redirect(_next_url(dump, items, item, request.user))


def _check_page(
    request: HttpRequest,
    dump: Dump,
    items: list[CheckItem],
    item: CheckItem,
    form: CheckForm,
    *,
    status: int = 200,
    conflict: dict[str, Any] | None = None,
) -> HttpResponse:
    position = items.index(item)
    response = dump.result["responses"][item.response]
    prefix = response_prefix(item.response)
    is_editor = roles.can_record(request.user)
    done = finished_keys(dump, request.user)
    others, hidden = _others(dump, item, request.user)
    context = {
        "dump": dump,
        "item": item,
        "position": position + 1,
        "item_count": len(items),
        "previous_url": _item_url(dump, items[position - 1]) if position > 0 else None,
        "next_url": _item_url(dump, items[position + 1]) if position + 1 < len(items) else None,
        "nav": _nav(dump, items, item, done),
        "anchor": _answer_anchor(response, prefix, item),
        "mine_done": len(done),
        "response": response,
        "answer_html": rendered_answers(dump)[item.response]["answer"],
        "citation": _citation_view(response, prefix, item) if item.citation is not None else None,
        "form": form,
        "is_editor": is_editor,
        # Blind first (checks_visible_to): what others recorded shows once the editor's own check is saved.
        "others": others,
        "hidden_count": hidden,
        "history": _history(dump, item, request.user),
        "comment_form": CommentForm(initial={"item_key": item.key}),
        "comments": list(dump.comments.filter(item_key=item.key).select_related("author")),
        "can_comment": roles.can_comment(request.user),
        "conflict": conflict,
    }
    return render(request, "review/check.html", context, status=status)


def _conflict_page(
    request: HttpRequest,
    dump: Dump,
    items: list[CheckItem],
    item: CheckItem,
    form: CheckForm,
    conflict: CheckConflict,
) -> HttpResponse:
    """The save is refused: theirs and yours side by side, the typed input kept, and the form now
    carrying the new version so that saving again keeps yours (theirs stays recorded as theirs)."""
    data = request.POST.copy()
    data["version"] = str(conflict.version)
    for name, value in _initial(dump, item, request.user).items():
        if name.startswith("seen_"):
            data[name] = value  # the editor's own statement answers as they are now stored
    kept = CheckForm(data, cites=item.citation is not None)
    kept.is_valid()
    theirs = conflict.theirs
    if theirs is None or not _may_read(request.user, theirs.check_record):
        # Blind first: an editor who has not checked the item learns only that someone saved it.
        return _check_page(request, dump, items, item, kept, status=409, conflict={"blind": True})
    theirs_values = {**theirs.after, **conflict.theirs_statement}
    fields = (
        (*CITATION_FIELDS, "verification_worthy", "supported_together")
        if item.citation is not None
        else STATEMENT_FIELDS
    )
    yours = {**form.check_values(), **form.statement_values()}
    rows = [
        {
            "label": kept.fields[name].label if name in kept.fields else name,
            "theirs": _shown(name, theirs_values),
            "yours": _shown(name, yours),
        }
        for name in fields
        if name in kept.fields
    ]
    context = {"editor": theirs.editor.get_username(), "at": theirs.created_at, "rows": rows}
    return _check_page(request, dump, items, item, kept, status=409, conflict=context)


def _may_read(user: Any, check: Check) -> bool:
    return checks_visible_to(user, Check.objects.filter(pk=check.pk)).exists()


def _shown(name: str, values: dict[str, str]) -> str:
    """A recorded value as the form names it (a verdict's label, not its code)."""
    value = values.get(name, "")
    field = Check._meta.get_field(name)
    return str(dict(field.choices).get(value, value)) if field.choices else value


def _initial(dump: Dump, item: CheckItem, user: Any) -> dict[str, Any]:
    initial: dict[str, Any] = {"version": item_version(dump, item.key)}
    for check in Check.objects.filter(dump=dump, editor=user, item_key__in={item.key, item.statement_key}):
        if check.item_key == item.key:
            initial.update(check.values())
        else:
            for name in ("verification_worthy", "supported_together"):
                initial[name] = initial[f"seen_{name}"] = getattr(check, name)
    return initial


def _answer_anchor(response: dict[str, Any], prefix: str, item: CheckItem) -> str:
    """The id of the item's footnote in the answer: a span cited with several sources has one each."""
    if item.citation is None:
        return ""
    anchor = citation_anchor(prefix, item.citation)
    spans_several = item.source_position and not response["citations"][item.citation]["marker"]
    return f"{anchor}-{item.source_position}" if spans_several else anchor


def _citation_view(response: dict[str, Any], prefix: str, item: CheckItem) -> dict[str, Any]:
    assert item.citation is not None
    citation = response["citations"][item.citation]
    entries = {entry["key"]: entry for entry in source_entries(response, prefix)}
    return {
        "marker": citation["marker"],
        "cited_text": citation["cited_text"],
        "sources": [entries[item.source_key]] if item.source_key in entries else [],
        "of_sources": (item.source_position, len(citation["source_keys"])) if item.source_position else None,
    }


def _others(dump: Dump, item: CheckItem, user: Any) -> tuple[list[dict[str, Any]], int]:
    """Each other editor's answers on the item that ``user`` may read (their citation check and their
    statement-wide answers), and how many of their checks of it blind first keeps back."""
    people: dict[str, dict[str, Any]] = {}
    for check in item_checks(dump, item, user):
        if check.editor_id == user.pk:
            continue
        entry = people.setdefault(check.editor.get_username(), {"editor": check.editor.get_username()})
        if check.item_key == item.key:
            entry["check"] = check
        else:
            entry["statement"] = check
    theirs = Check.objects.filter(dump=dump, item_key=item.key).exclude(editor=user)
    return list(people.values()), hidden_check_count(user, theirs)


def _history(dump: Dump, item: CheckItem, user: Any) -> list[dict[str, Any]]:
    return [
        {
            "editor": revision.editor.get_username(),
            "at": revision.created_at,
            "changes": [
                {
                    "field": _field_label(name),
                    "before": _shown(name, revision.before),
                    "after": _shown(name, revision.after),
                }
                for name, value in revision.after.items()
                if revision.before.get(name, "") != value
            ],
        }
        for revision in item_history(dump, item, user)
    ]


def _field_label(name: str) -> str:
    return str(Check._meta.get_field(name).verbose_name)


def _nav(dump: Dump, items: list[CheckItem], current: CheckItem, done: set[str]) -> list[dict[str, Any]]:
    """The list of all items. A statement's text heads its first item only (and the current one): a
    statement citing hundreds of sources is one line of text, not hundreds."""
    entries = []
    previous = None
    for number, item in enumerate(items, 1):
        entry = _nav_entry(dump, item, number, done, item is current)
        if item.statement_key == previous and item is not current:
            entry["text"] = ""
        previous = item.statement_key
        entries.append(entry)
    return entries


def _nav_entry(dump: Dump, item: CheckItem, number: int, done: set[str], current: bool) -> dict[str, Any]:
    citation = (
        dump.result["responses"][item.response]["citations"][item.citation] if item.citation is not None else None
    )
    return {
        "number": number,
        "url": _item_url(dump, item),
        "kind": "citation" if citation is not None else "statement",
        # A marker as written; a span citation (Gemini, Claude, OpenAI) by its place among the response's.
        "marker": _item_label(citation, item) if citation is not None else "",
        "text": item.statement.text[:NAV_TEXT_CHARS],  # shown cut shorter still: never copy a long statement
        "done": item.key in done,
        "current": current,
    }


def _item_label(citation: dict[str, Any], item: CheckItem) -> str:
    label = citation["marker"] or f"#{(item.citation or 0) + 1}"
    return f"{label} ({item.source_position}/{len(citation['source_keys'])})" if item.source_position else label


def _item_url(dump: Dump, item: CheckItem) -> str:
    return reverse("review:item", args=[dump.pk, item.key])


def _next_url(dump: Dump, items: list[CheckItem], item: CheckItem, user: Any) -> str:
    """The next item the editor has not finished, after this one and then from the start."""
    done = finished_keys(dump, user)
    position = items.index(item)
    for candidate in items[position + 1 :] + items[:position]:
        if candidate.key not in done:
            return _item_url(dump, candidate)
    return reverse("review:done", args=[dump.pk])


@require_GET
@permission_required(roles.READ, raise_exception=True)
def check_done(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_refresh_if_stale(dump=dump_get(pk=pk))
    keys = {item.key for item in dump_check_items(dump)}
    if roles.can_record(request.user) and keys and keys <= finished_keys(dump, request.user):
        messages.success(request, _("You have checked every item of this dump."))
    return redirect(dump)


@require_POST
@permission_required(roles.COMMENT, raise_exception=True)
def comment_create(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_refresh_if_stale(dump=dump_get(pk=pk))
    form = CommentForm(request.POST)
    # A comment is on an item of this dump, or on the dump itself: never on a key the page did not offer.
    keys = {item.key for item in dump_check_items(dump)}
    key = request.POST.get("item_key", "")
    key = key if key in keys else ""
    if form.is_valid():
        comment_add(dump=dump, author=request.user, text=form.cleaned_data["text"], item_key=key)
        messages.success(request, _("Comment added."))
    else:
        messages.error(request, _("A comment needs some text (at most 5,000 characters)."))
    return redirect(reverse("review:item", args=[dump.pk, key]) if key else dump.get_absolute_url())
