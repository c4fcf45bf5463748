"""The kept pieces of the list and the viewer (``citeview.dumps.fragments``), composed here since they
show review's progress and comments beside the dump. Each is made without the request (no CSRF token,
no ``perms``): what depends on the reader is in its key, through ``fragment_audience``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from citeview.accounts import roles
from citeview.dumps.forms import DumpDetailsForm, DumpFilterForm, DumpForm
from citeview.dumps.fragments import (
    DumpVersion,
    cached_fragments,
    fragment_key,
    fragments_kept,
    kept_fragment,
    kept_fragment_key,
)
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_list, team_editors
from citeview.review.forms import CommentForm
from citeview.review.selectors import dump_comments, editor_progress


def list_rows(versions: list[DumpVersion], user: Any) -> list[SafeString]:
    """The list's rows, in the order of ``versions``: kept ones read at once, the rest made in a constant
    number of queries (the dumps, their tags, their progress)."""

    def make(missing: list[DumpVersion]) -> dict[int, SafeString]:
        dumps = list(dump_list().filter(pk__in=[version.pk for version in missing]))
        progress = editor_progress([dump.pk for dump in dumps])
        return {
            dump.pk: render_to_string("dumps/_dump_row.html", {"dump": dump, "editors": progress.get(dump.pk, [])})
            for dump in dumps
        }

    rows = cached_fragments("list-row", versions, roles.fragment_audience(user), make)
    return [rows[version.pk] for version in versions if version.pk in rows]  # one deleted meanwhile is left out


def viewer_fragments(dump: Dump, user: Any, whole: Callable[[], Dump]) -> dict[str, Any]:
    """The viewer's kept pieces, read in one round trip: its header, review progress and comments (and
    how many there are), the form of its title, tags and assignee for those who may change them (None
    for the others), and the comment box. The forms around them are the page's own, as they carry the
    reader's CSRF token. ``dump`` need have only what they are keyed by; ``whole`` reads all of it, for
    a piece that must be made."""
    panels_key = fragment_key("viewer-panels", dump, roles.fragment_audience(user))
    comment_key = kept_fragment_key("comment-form", [])
    makers: dict[str, Callable[[], Any]] = {
        panels_key: lambda: _viewer_panels(whole(), roles.can_record(user)),
        comment_key: lambda: SafeString(str(CommentForm()["text"])),
    }
    details_key = None
    if user.has_perm(roles.ORGANISE):
        # Kept by the dump's version and the editors it may be assigned to.
        editors = [(editor.pk, editor.username) for editor in team_editors() if editor.is_active]
        details_key = kept_fragment_key("details-form", [fragment_key("details", dump, "organise"), editors])
        makers[details_key] = lambda: _details_fields(whole())
    kept = fragments_kept(makers)
    return {
        "panels": kept[panels_key],
        "details_fields": kept[details_key] if details_key else None,
        "comment_widget": kept[comment_key],
    }


def _viewer_panels(dump: Dump, can_record: bool) -> dict[str, Any]:
    comments = dump_comments(dump)
    context = {"dump": dump, "progress": editor_progress([dump.pk]).get(dump.pk, []), "can_record": can_record}
    return {
        "header": render_to_string("dumps/_dump_header.html", context),
        "review": render_to_string("review/_review_progress.html", context),
        "comments": render_to_string("review/_comments.html", {"dump": dump, "comments": comments}),
        "comment_count": len(comments),
    }


def _details_fields(dump: Dump) -> SafeString:
    tags = ", ".join(tag.name for tag in dump.tags.all())
    form = DumpDetailsForm(initial={"title": dump.title, "tags": tags, "assignee": dump.assignee})
    return render_to_string("dumps/_details_fields.html", {"details_form": form})


def intake_widgets(form: DumpForm) -> dict[str, SafeString]:
    """The intake form's boxes: the same for every reader while the form is empty, so kept then."""

    def make() -> dict[str, SafeString]:
        return {name: SafeString(str(form[name])) for name in ("text", "request_text")}

    return make() if form.is_bound else kept_fragment("intake-form", [], make)


def filter_fields(form: DumpFilterForm) -> SafeString:
    """The list's filters as the query asked for them, among the choices there are (editors, providers)."""
    shown = [(name, form.data.getlist(name)) for name in form.fields]
    choices = [[value for value, _label in form.fields[name].choices] for name in ("provider", "assignee")]
    return kept_fragment(
        "list-filters", [shown, choices], lambda: render_to_string("dumps/_filter_fields.html", {"filter_form": form})
    )
