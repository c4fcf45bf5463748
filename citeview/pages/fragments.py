"""The kept pieces of the list and the viewer (``citeview.dumps.kept_fragments``), composed here since they
show review's progress and comments beside the dump. Each is made without the request (no ``perms``):
what depends on the reader is in its key, through ``fragment_audience``, and a form's CSRF token is a
marker that ``with_csrf_token`` replaces with the reader's."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.core.paginator import Page
from django.db.models import prefetch_related_objects
from django.http import HttpRequest, QueryDict
from django.middleware.csrf import get_token
from django.template import Context, Template
from django.template.defaultfilters import truncatechars
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from citeview.accounts import roles
from citeview.dumps.forms import DumpDetailsForm, DumpFilterForm, DumpForm, filter_choices
from citeview.dumps.kept_fragments import (
    DumpVersion,
    cached_fragments,
    checked_fragment,
    fragment_key,
    kept_fragment,
)
from citeview.dumps.models import CHECKS_NEEDED_CHOICES, Dump
from citeview.dumps.selectors import assignees_prefetched, dump_list, team_editors
from citeview.dumps.templatetags.bidi import show_bidi
from citeview.review.citation_evidence import cited_page_snapshots
from citeview.review.forms import CommentForm
from citeview.review.selectors import assignable_editors_of, comments_on, editor_progress
from citeview.review.snapshot_panel import provenance_text


def list_rows(versions: list[DumpVersion], user: Any) -> list[SafeString]:
    """The list's rows, in the order of ``versions``: kept ones read at once, the rest made in a constant
    number of queries (the dumps, their tags, their progress)."""
    # A row offers its box to tick to those who assign: leads and staff, whose role is "lead"
    # (``roles.role_name``), so the rows kept per role are right for each.
    can_assign = roles.can_assign(user)

    def make(missing: list[DumpVersion]) -> dict[int, SafeString]:
        dumps = list(dump_list().filter(pk__in=[version.pk for version in missing]))
        progress = editor_progress([dump.pk for dump in dumps])
        return {
            dump.pk: render_to_string(
                "pages/_dump_row.html",
                {"dump": dump, "editors": progress.get(dump.pk, []), "can_assign": can_assign},
            )
            for dump in dumps
        }

    rows = cached_fragments("list-row", versions, roles.fragment_audience(user), make)
    return [rows[version.pk] for version in versions if version.pk in rows]  # one deleted meanwhile is left out


def viewer_page(dump: Dump, user: Any, whole: Callable[[], Dump]) -> dict[str, str]:
    """The viewer's page around its body, kept in one piece: its ``title``, and as ``content`` its
    header, review progress and comments, the form of its title and tags for those who may change them,
    the form of its editors for those who assign, the comment box for those who may comment, and the
    search box. Keyed by the dump's version, the reader's role, what they may do of those, and the
    editors the assignment offers; each form's CSRF token is the reader's, put in by
    ``with_csrf_token``. ``dump`` need have only what it is keyed by; ``whole`` reads all of it, when
    the piece must be made."""
    organise, comment, assign = user.has_perm(roles.ORGANISE), roles.can_comment(user), roles.can_assign(user)
    editors = [(editor.pk, editor.username) for editor in team_editors() if editor.is_active] if assign else []
    audience = roles.fragment_audience(user)
    # The snapshots of the pages it cites (their provenance) change with its evidence, not its page version.
    shown = [fragment_key("viewer", dump, audience), dump.evidence_version, organise, comment, assign, editors]
    can = _Can(roles.can_record(user), organise, comment, assign)
    return kept_fragment("viewer", shown, lambda: _viewer_page(whole(), can))


@dataclass(frozen=True)
class _Can:
    """What the reader of a kept viewer page may do there."""

    record: bool
    organise: bool
    comment: bool
    assign: bool


def _viewer_page(dump: Dump, can: _Can) -> dict[str, str]:
    prefetch_related_objects([dump], assignees_prefetched())  # the header and the progress both name them
    details_form, assignment = None, None
    if can.organise:
        tags = ", ".join(tag.name for tag in dump.tags.all())
        details_form = DumpDetailsForm(initial={"title": dump.title, "tags": tags})
    if can.assign:
        assignment = {"editors": assignable_editors_of(dump), "choices": CHECKS_NEEDED_CHOICES}
    context = {
        "dump": dump,
        "progress": editor_progress([dump.pk]).get(dump.pk, []),
        "can_record": can.record,
        "comments": comments_on(dump),
        "details_form": details_form,
        "assignment": assignment,
        "comment_form": CommentForm() if can.comment else None,
        "snapshots": _snapshots_listed(dump),
        "csrf_token": CSRF_MARKER,
    }
    title = truncatechars(show_bidi(dump.display_title), 60)  # escaped where the page shows it
    return {"title": title, "content": render_to_string("pages/_viewer.html", context)}


def _snapshots_listed(dump: Dump) -> dict[str, Any]:
    listed = cited_page_snapshots(dump)
    for page in listed["pages"]:
        page["provenance"] = provenance_text(page["snapshot"])
    return listed


# What a kept piece's forms carry as their CSRF token, for ``with_csrf_token`` to put the reader's in:
# their {% csrf_token %} is rendered with it, as a whole input that escaped text can never contain.
CSRF_MARKER = "csrf-token-of-the-reader"


@functools.cache
def _marked_csrf_input() -> str:
    return Template("{% csrf_token %}").render(Context({"csrf_token": CSRF_MARKER}))


def with_csrf_token(html: str, request: HttpRequest) -> SafeString:
    """A kept piece (our own markup) with the reader's CSRF token in each of its forms."""
    marked = _marked_csrf_input()
    return SafeString(html.replace(marked, marked.replace(CSRF_MARKER, get_token(request))))


def list_content(
    user: Any, form: DumpForm, filter_form: Callable[[], DumpFilterForm], page: Page[dict[str, Any]], page_query: str
) -> SafeString:
    """The list page's content: the intake form for those who may store, the filters, the page's rows
    and its pages. Made afresh when the form is filled in or the query asks for more than a page; the
    list as it first shows (any page of it) is kept, one entry per page, role, language, time zone and
    code, holding what it was made from: its dumps' versions and their number, the filters' choices
    and the upload limit (``checked_fragment``). Its filters' form is made only if the list is
    (``filter_form``). Its form's CSRF token is the reader's, put in by ``with_csrf_token``."""
    versions = [DumpVersion(**version) for version in page]
    can_store, can_assign = user.has_perm(roles.STORE), roles.can_assign(user)
    # Whom a lead's bulk assignment offers: the active editors, read on each view as the list is kept by them.
    assign_editors = [editor.username for editor in team_editors() if editor.is_active] if can_assign else []

    def make() -> SafeString:
        context = {
            "form": form,
            "intake": intake_widgets(form),
            "can_store": can_store,
            "filter_fields": filter_fields(filter_form()),
            "filtered": bool(filter_form().filters()),
            "page": page,
            "page_query": page_query,
            "rows": list_rows(versions, user),
            "max_dump_bytes": settings.CITEVIEW_MAX_DUMP_BYTES,
            "max_dump_mib": round(settings.CITEVIEW_MAX_DUMP_BYTES / (1024 * 1024), 1),
            "csrf_token": CSRF_MARKER,
            "can_assign": can_assign,
            "assign_editors": assign_editors,
            "checks_needed_choices": CHECKS_NEEDED_CHOICES,
        }
        return render_to_string("pages/_list.html", context)

    if form.is_bound or page_query:
        return make()
    where = [roles.fragment_audience(user), can_store, can_assign, page.number]
    made_from = [versions, page.paginator.count, filter_choices(), settings.CITEVIEW_MAX_DUMP_BYTES, assign_editors]
    return checked_fragment("list-page", where, made_from, make)


def intake_widgets(form: DumpForm) -> dict[str, SafeString]:
    """The intake form's boxes: the same for every reader while the form is empty, so kept then."""

    def make() -> dict[str, SafeString]:
        return {name: SafeString(str(form[name])) for name in ("text", "request_text")}

    return make() if form.is_bound else kept_fragment("intake-form", [], make)


def filter_fields(form: DumpFilterForm) -> SafeString:
    """The list's filters as the query asked for them, among the choices there are (editors, providers)."""
    data = cast(QueryDict, form.data)  # the query string's
    shown = [(name, data.getlist(name)) for name in form.fields]
    return kept_fragment(
        "list-filters",
        [shown, form.offered],
        lambda: render_to_string("pages/_filter_fields.html", {"filter_form": form}),
    )
