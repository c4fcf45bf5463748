"""The check panel, the work queue and comments. Thin: the page is built by ``check_page``, the work is in services and selectors."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from citeview.accounts import roles
from citeview.core.checking.items import CheckItem
from citeview.core.common.bidi_controls import show_bidi_controls
from citeview.core.common.shortening import shortened
from citeview.dumps.http_status import form_error_status
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_get
from citeview.review.check_page import (
    NAV_SHOWN_CHARS,
    NAV_TEXT_CHARS,
    check_initial,
    check_page,
    item_url,
    next_assigned,
    next_url,
    plain_statement,
    plan_next_url,
    settle_refusal_text,
    shown_filter,
    shown_value,
    unassigned_offer,
    verdict_label,
)
from citeview.review.decorators import result_required
from citeview.review.forms import AssignForm, BulkAssignForm, CheckForm, CommentForm, NotClaimsForm, SettleForm
from citeview.review.models import CITATION_FIELDS, STATEMENT_FIELDS
from citeview.review.plans import plan_queue
from citeview.review.selectors import (
    assigned_unread,
    check_visible_to,
    disputes_waiting,
    dump_check_items,
    finished_keys,
    progress_per_editor,
    sees_own_progress_only,
    work_queue,
)
from citeview.review.services import (
    AssignmentChange,
    CheckConflict,
    ItemToSave,
    NothingToSettle,
    SettleRefused,
    check_save,
    check_settle,
    check_undo,
    checks_mark_not_claims,
    comment_add,
    editors_assign,
)
from citeview.review.triage import ORDER_PROBLEMS, problems_page, queue_order, queue_ranked


@require_GET
@permission_required(roles.READ, raise_exception=True)
@result_required
def check_start(request: HttpRequest, pk: int) -> HttpResponse:
    """The first item the user has not finished, or the first item."""
    dump = dump_get(pk=pk)
    items = dump_check_items(dump)
    if not items:
        messages.info(request, _("This dump has nothing to check: its answers are empty."))
        return redirect(dump)
    done = finished_keys(dump, request.user)
    item = next((i for i in items if i.key not in done), items[0])
    return redirect(item_url(dump, item))


@require_http_methods(["GET", "POST"])
@permission_required(roles.READ, raise_exception=True)
@result_required
def check_item(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    dump = dump_get(pk=pk)
    items = dump_check_items(dump)
    item = next((i for i in items if i.key == key), None)
    if item is None:
        raise Http404("This dump has no such item.")
    if request.method == "GET":
        form = _form(dump, item, initial=check_initial(dump, item, request.user))
        return _check_page_response(request, dump, items, item, form)
    if not roles.can_record(request.user):
        raise PermissionDenied("Only editors record checks.")
    form = _form(dump, item, data=request.POST)
    if not form.is_valid():
        # The input comes back in the form with its errors: 413 for text over the limits, else 400.
        return _check_page_response(request, dump, items, item, form, status=form_error_status(form))
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
    return redirect(
        plan_next_url(request, dump, item) or next_url(dump, items, item, request.user, shown_filter(request))
    )


def _check_page_response(
    request: HttpRequest,
    dump: Dump,
    items: list[CheckItem],
    item: CheckItem,
    form: CheckForm,
    *,
    status: int = 200,
    conflict: dict[str, Any] | None = None,
    settle_form: SettleForm | None = None,
) -> HttpResponse:
    page = check_page(request, dump, items, item, form, conflict=conflict, settle_form=settle_form)
    return render(request, "review/check.html", page.context(), status=status)


def _form(dump: Dump, item: CheckItem, **kwargs: Any) -> CheckForm:
    """The item's form: a marker without a source asks "supported together" when its statement also
    has real citations."""
    return CheckForm(kind=item.kind, together=bool(item.statement.citations), **kwargs)


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
    for name, value in check_initial(dump, item, request.user).items():
        if name.startswith("seen_"):
            data[name] = value  # the editor's own statement answers as they are now stored
    kept = _form(dump, item, data=data)
    kept.is_valid()
    theirs = conflict.theirs
    if theirs is None or not check_visible_to(request.user, theirs.check_record):
        # Blind first: an editor who has not checked the item learns only that someone saved it.
        return _check_page_response(request, dump, items, item, kept, status=409, conflict={"blind": True})
    theirs_values = {**theirs.after, **conflict.theirs_statement}
    fields = (
        (*CITATION_FIELDS, "verification_worthy", "supported_together")
        if item.kind != "statement"
        else STATEMENT_FIELDS
    )
    yours = {**form.check_values(), **form.statement_values()}
    rows = [
        {
            "label": kept.fields[name].label if name in kept.fields else name,
            "theirs": shown_value(name, theirs_values),
            "yours": shown_value(name, yours),
        }
        for name in fields
        if name in kept.fields
    ]
    context = {"editor": theirs.editor.get_username(), "at": theirs.created_at, "rows": rows}
    return _check_page_response(request, dump, items, item, kept, status=409, conflict=context)


@require_POST
@permission_required(roles.RECORD, raise_exception=True)
@result_required
def mark_not_claims(request: HttpRequest, pk: int) -> HttpResponse:
    """Several statements that cite nothing, marked at once as no claim about the world. Each ticked box
    sends an item's key with the version its page showed (``r0-s0-33@2``); ``back`` in the address is the
    item the editor was on."""
    dump = dump_get(pk=pk)
    every = dump_check_items(dump)
    items = {item.key: item for item in every if item.kind == "statement"}
    form = NotClaimsForm(request.POST)
    back_item = items.get(request.GET.get("back", "")) or next(iter(items.values()), None)
    if not form.is_valid() or not (chosen := form.chosen(items)):
        messages.error(request, _("Choose at least one statement to mark."))
        return redirect(item_url(dump, back_item) if back_item else dump.get_absolute_url())
    saved, left = checks_mark_not_claims(
        dump=dump, editor=request.user, items=[ItemToSave(items[key], version) for key, version in chosen.items()]
    )
    if saved:
        messages.success(
            request,
            ngettext(
                "Marked %(count)d statement as not a factual claim.",
                "Marked %(count)d statements as not a factual claim.",
                len(saved),
            )
            % {"count": len(saved)},
        )
    if left:
        messages.warning(
            request,
            ngettext(
                "%(count)d statement was saved by someone after you opened the page and was left as it is: "
                "open it to see.",
                "%(count)d statements were saved by someone after you opened the page and were left as they "
                "are: open them to see.",
                len(left),
            )
            % {"count": len(left)},
        )
    return redirect(next_url(dump, every, back_item, request.user) if back_item else dump.get_absolute_url())


@require_POST
@permission_required(roles.READ, raise_exception=True)
@result_required
def undo_last_save(request: HttpRequest, pk: int) -> HttpResponse:
    """Undo the editor's (or the settler's) last save in this dump, and go back to the item it saved."""
    if not (roles.can_record(request.user) or roles.can_settle(request.user)):
        raise PermissionDenied("Only editors and settlers save, and undo.")
    dump = dump_get(pk=pk)
    undone = check_undo(dump=dump, editor=request.user)
    items = dump_check_items(dump)
    if undone is None:
        messages.info(request, _("There is no save of yours in this dump to undo."))
        return redirect(reverse("review:start", args=[dump.pk]))
    back = next((i for i in items if i.key in undone.item_keys), None) or next(
        (i for i in items if i.statement_key in undone.statement_keys), None
    )
    messages.success(
        request,
        _("Undone: the item has what it had before your last save (the history keeps both)."),
    )
    return redirect(item_url(dump, back) if back else reverse("review:start", args=[dump.pk]))


@require_GET
@permission_required(roles.READ, raise_exception=True)
@result_required
def check_done(request: HttpRequest, pk: int) -> HttpResponse:
    """After the last item: for an editor who has checked them all, what is next (the next dump
    assigned to them, the report); anyone else goes back to the dump."""
    dump = dump_get(pk=pk)
    keys = {item.key for item in dump_check_items(dump)}
    if not (roles.can_record(request.user) and keys and keys <= finished_keys(dump, request.user)):
        return redirect(dump)
    context = {
        "dump": dump,
        "next_dump": next_assigned(request.user, dump),
        "item_count": len(keys),
        "unassigned": unassigned_offer(),
    }
    return render(request, "review/done.html", context)


@require_GET
@permission_required(roles.READ, raise_exception=True)
def queue(request: HttpRequest) -> HttpResponse:
    """The dumps assigned to the user that they have not finished checking; or, ordered "likely
    problems first" (``?order=problems``), the items waiting for them, each with its signals."""
    is_editor = roles.can_record(request.user)
    order = queue_order(request.GET.get("order", ""))
    problems, waiting = queue_ranked(request.user) if is_editor and order == ORDER_PROBLEMS else ([], 0)
    context = {
        "order": order,
        "problems": problems,
        "problems_waiting": waiting,
        "entries": work_queue(request.user) if is_editor else [],
        "plans": plan_queue(request.user) if is_editor else [],
        "unread": list(assigned_unread(request.user)[:200]) if is_editor else [],
        "is_editor": is_editor,
        "can_settle": roles.can_settle(request.user),
        "progress": [progress.to_json() for progress in progress_per_editor(request.user)],
        "own_progress_only": sees_own_progress_only(request.user),
    }
    return render(request, "review/queue.html", context)


@require_GET
@permission_required(roles.READ, raise_exception=True)
@result_required
def problems(request: HttpRequest, pk: int) -> HttpResponse:
    """The dump's items likely problems first, or those carrying one signal (``?signal=``)."""
    context = problems_page(dump_get(pk=pk), request.GET.get("signal", ""))
    return render(request, "review/problems.html", context)


@require_POST
@permission_required(roles.READ, raise_exception=True)
@result_required
def settle_item(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    """A settler's final verdict on an item where editors disagree, with the reason."""
    if not roles.can_settle(request.user):
        raise PermissionDenied("Only a lead or staff settle disagreements.")
    dump = dump_get(pk=pk)
    items = dump_check_items(dump)
    item = next((i for i in items if i.key == key), None)
    if item is None:
        raise Http404("This dump has no such item.")
    settle_form = SettleForm(request.POST)
    check_form = _form(dump, item, initial=check_initial(dump, item, request.user))
    if not settle_form.is_valid():
        return _check_page_response(
            request, dump, items, item, check_form, status=form_error_status(settle_form), settle_form=settle_form
        )
    try:
        check_settle(
            dump=dump,
            item=item,
            settler=request.user,
            verdict=settle_form.cleaned_data["verdict"],
            reason=settle_form.cleaned_data["reason"],
            seen_version=settle_form.cleaned_data["version"],
        )
    except NothingToSettle:
        messages.error(request, _("The editors agree on this item (or only one has judged it): nothing to settle."))
        return redirect(item_url(dump, item))
    except SettleRefused as refused:
        messages.error(request, settle_refusal_text(refused.reason))
        return redirect(f"{item_url(dump, item)}#cv-settle")
    except CheckConflict:
        messages.error(
            request,
            _("Not settled: someone saved this item after you opened it. Read their verdicts again and settle."),
        )
        return redirect(f"{item_url(dump, item)}#cv-settle")
    messages.success(request, _("Settled."))
    return redirect(item_url(dump, item))


@require_GET
@permission_required(roles.READ, raise_exception=True)
def settle_queue(request: HttpRequest) -> HttpResponse:
    """The disagreements waiting to be settled, the longest waiting first: for leads and staff."""
    if not roles.can_settle(request.user):
        raise PermissionDenied("Only a lead or staff settle disagreements.")
    disputes, total = disputes_waiting(request.user)
    entries = [
        {
            "dispute": dispute,
            "text": shortened(plain_statement(dispute.statement_text[:NAV_TEXT_CHARS]), NAV_SHOWN_CHARS),
            "verdicts": [(editor, verdict_label(verdict)) for editor, verdict in dispute.verdicts],
            "url": f"{reverse('review:item', args=[dispute.dump.pk, dispute.item_key])}#cv-settle",
        }
        for dispute in disputes
    ]
    return render(request, "review/settle_queue.html", {"entries": entries, "total": total})


@require_POST
@permission_required(roles.COMMENT, raise_exception=True)
@result_required
def comment_create(request: HttpRequest, pk: int) -> HttpResponse:
    dump = dump_get(pk=pk)
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


@require_POST
@permission_required(roles.READ, raise_exception=True)
def assign(request: HttpRequest, pk: int) -> HttpResponse:
    """The dump's editors and the checks each item needs, from its page: a lead's or staff's decision."""
    if not roles.can_assign(request.user):
        raise PermissionDenied("Only a lead or staff assign dumps to editors.")
    dump = dump_get(pk=pk, heavy=False)
    form = AssignForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(str(e) for errors in form.errors.values() for e in errors)
        messages.error(request, _("The assignment was not saved: %(errors)s") % {"errors": errors})
        return redirect(dump)
    change = editors_assign(
        dump=dump,
        editors=list(form.cleaned_data["editors"]),
        by=request.user,
        checks_needed=form.cleaned_data["checks_needed"],
    )
    _say_assigned(request, change)
    return redirect(dump)


@require_POST
@permission_required(roles.READ, raise_exception=True)
def assign_many(request: HttpRequest) -> HttpResponse:
    """The dumps ticked in the list, each assigned to the editors chosen (as well as to those it has)."""
    if not roles.can_assign(request.user):
        raise PermissionDenied("Only a lead or staff assign dumps to editors.")
    form = BulkAssignForm(request.POST)
    back = _list_url(request)
    if not form.is_valid():
        errors = "; ".join(str(e) for errors in form.errors.values() for e in errors)
        messages.error(request, _("Nothing was assigned: %(errors)s") % {"errors": errors})
        return redirect(back)
    dumps = list(Dump.objects.filter(pk__in=form.cleaned_data["dumps"]).order_by("pk"))
    editors = list(form.cleaned_data["editors"])
    for dump in dumps:
        change = editors_assign(
            dump=dump,
            editors=editors,
            by=request.user,
            checks_needed=form.cleaned_data["checks_needed"],
            keep_others=True,
        )
        _say_assigned(request, change, dump=dump, quiet=True)
    names = ", ".join(editor.get_username() for editor in editors)
    messages.success(
        request,
        ngettext(
            "%(count)d dump is assigned to %(editors)s.",
            "%(count)d dumps are assigned to %(editors)s.",
            len(dumps),
        )
        % {"count": len(dumps), "editors": names},
    )
    return redirect(back)


def _list_url(request: HttpRequest) -> str:
    """The list page the bulk form was sent from: its filters and page, sent as a query (never an
    address, which could lead off the site)."""
    query = QueryDict(request.POST.get("query", "")).urlencode()
    return f"{reverse('pages:home')}?{query}" if query else reverse("pages:home")


def _say_assigned(
    request: HttpRequest, change: AssignmentChange, *, dump: Dump | None = None, quiet: bool = False
) -> None:
    """What an assignment changed, and the warning an editor who read the verdicts already needs."""
    if not quiet:
        messages.success(request, _("The assignment was saved."))
    if change.read_verdicts_before:
        title = show_bidi_controls(dump.display_title) if dump is not None else ""  # the dump's words
        text = ngettext(
            "%(editors)s could already read the other editors' verdicts on this dump (as a lead or staff not "
            "assigned to it): their checks of items judged before now are recorded as not blind.",
            "%(editors)s could already read the other editors' verdicts on this dump (as leads or staff not "
            "assigned to it): their checks of items judged before now are recorded as not blind.",
            len(change.read_verdicts_before),
        ) % {"editors": ", ".join(change.read_verdicts_before)}
        messages.warning(request, f"{title}: {text}" if title else text)
