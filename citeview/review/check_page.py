"""The check page's presenter: what the page shows of one item to one reader, built from the dump,
its items and the reads in ``citeview.review.selectors`` (blind first through ``checks_visible_to``).
The views in ``citeview.review.views`` keep the decorators, the form, ``check_save`` and the redirect."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from citeview.accounts import roles
from citeview.core.checking.final import disagrees
from citeview.core.checking.items import CUT_OFF, CheckItem, item_flags_and_comparisons
from citeview.core.checking.side_by_side import (
    claim_span,
    claim_words,
    hint_words,
    item_marks,
    marks_moved,
    shown_whole,
)
from citeview.core.common.phrases import phrase_text
from citeview.core.common.shortening import shortened
from citeview.core.common.version import RESULT_VERSION
from citeview.core.evidence.compare import Finding, mark_findings
from citeview.core.evidence.held import held_evidence
from citeview.core.rendering.answer import citation_anchor, readable_marker, response_prefix, source_entries
from citeview.core.rendering.plain import plain_text
from citeview.dumps.models import Dump
from citeview.dumps.selectors import UNASSIGNED
from citeview.dumps.viewer_body import rendered_answers
from citeview.review.forms import CheckForm, CommentForm, SettleForm
from citeview.review.models import VERDICTS, Check, CheckPlan, Comment
from citeview.review.plans import PlanStop, plan_walk
from citeview.review.selectors import (
    SETTLE_ASSIGNED,
    SETTLE_TOOK_PART,
    editor_progress,
    finished_by_anyone,
    finished_keys,
    hidden_check_count,
    item_checks,
    item_comments,
    item_history,
    item_version,
    item_versions,
    others_checks_of_item,
    own_checks,
    reads_every_verdict,
    settle_refusal,
    unassigned_unchecked,
    visible_item_verdicts,
    visible_settlements,
    work_queue,
)
from citeview.review.services import last_save
from citeview.review.snapshot_panel import item_source_url, snapshot_panel

# Of each item's statement, the list of all items shows its start only.
NAV_TEXT_CHARS = 120
NAV_SHOWN_CHARS = 90
# A statement's second (third, …) item reads as its words too, shorter: a statement citing hundreds of
# sources costs a few words per item, not a line.
NAV_FOLLOWING_CHARS = 30
# Made plain once per process: the list of a dump of thousands of statements is shown with every item.
plain_statement = lru_cache(maxsize=20_000)(plain_text)
# The statements that cite nothing offered to mark at once: enough for any answer an editor reads.
NOT_CLAIMS_OFFERED = 200
# A verdict that asks for a second look: the source does not back the statement as checked.
ATTENTION_VERDICTS = frozenset({"none", "supports_and_refutes", "inaccessible", "unclear"})
# The item list's filters ("show"), besides one per verdict ("verdict-complete", …).
SHOW_ALL, SHOW_UNCHECKED, SHOW_ATTENTION, SHOW_DISAGREE = "", "unchecked", "attention", "disagree"
# Source texts longer than this are shown cut in the panel (the viewer's source list has them whole).
SNIPPET_CHARS, DOCUMENT_CHARS = 800, 6_000
_DOCUMENT_KINDS = frozenset({"retrieved_passage", "document_text", "tool_output", "fetched_page"})


@dataclass(frozen=True)
class CheckPage:
    """Everything the check page shows (``templates/review/check.html`` reads each field by its name)."""

    dump: Dump
    item: CheckItem
    statement_text: str
    # The statement escaped by mark_findings, what differs from the item's evidence marked (our own
    # <mark>s only): safe as built.
    statement_html: str
    flags: list[str]
    item_hints: list[Any]
    position: int
    item_count: int
    previous_url: str | None
    next_url: str | None
    next_unresolved_url: str | None
    item_list: dict[str, Any]
    anchor: str
    mine_done: int
    progress: dict[str, Any]
    all_done: bool
    next_dump: Dump | None
    response: dict[str, Any]
    answer_html: str
    citation: dict[str, Any] | None
    snapshot: dict[str, Any] | None
    unresolved: dict[str, Any] | None
    form: CheckForm
    fields: dict[str, Any]
    groups: dict[str, dict[str, Any]]
    is_editor: bool
    undo: dict[str, Any] | None
    not_claims: dict[str, Any] | None
    # Blind first (checks_visible_to): what others recorded shows once the editor's own check is saved.
    others: list[dict[str, Any]]
    hidden_count: int
    history: list[dict[str, Any]]
    comment_form: CommentForm
    comments: list[Comment]
    can_comment: bool
    conflict: dict[str, Any] | None
    keys: list[tuple[str, str]]
    disputed: bool
    settlement: dict[str, Any] | None
    settle: dict[str, Any] | None
    unassigned: dict[str, Any] | None
    # An editor who reads every verdict (a lead or staff not assigned to the dump) is told that a check
    # they save is not blind.
    not_blind: bool
    # The check plan walked (``?plan=<id>``) when the item is one of its items: its name, where the item
    # is in its random order, and what comes next; None outside a plan's walk.
    plan: dict[str, Any] | None = None

    def context(self) -> dict[str, Any]:
        """The template's context: each field by its name."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


def check_page(
    request: HttpRequest,
    dump: Dump,
    items: list[CheckItem],
    item: CheckItem,
    form: CheckForm,
    *,
    conflict: dict[str, Any] | None = None,
    settle_form: SettleForm | None = None,
) -> CheckPage:
    """What the check page shows of ``item`` to the reader of ``request``, ``form`` as given (empty,
    or with a refused input and its errors); ``conflict`` when a save was refused (``views._conflict_page``),
    ``settle_form`` when a settlement was."""
    position = items.index(item)
    response = dump.result["responses"][item.response]
    prefix = response_prefix(item.response)
    is_editor = roles.can_record(request.user)
    done = finished_keys(dump, request.user)
    others, hidden = _others(dump, item, request.user)
    flags, hints, marks = kept_item_evidence(dump, items)
    claim_marked, evidence_marked = marks.get(item.key, ((), ()))
    statement_text = plain_text(item.statement.text)
    show = shown_filter(request)
    # What every editor recorded, as far as the user may read it (blind first), for the list and this item.
    readable = _Readable(
        visible_item_verdicts(dump, request.user), visible_settlements(dump, request.user), finished_by_anyone(dump)
    )
    disputed = disagrees(verdict for _editor, verdict in readable.verdicts.get(item.key, []))
    all_done = is_editor and len(items) > 0 and all(i.key in done for i in items)
    next_dump = next_assigned(request.user, dump) if is_editor else None
    walked = plan_step(request, dump, item)
    return CheckPage(
        dump=dump,
        item=item,
        statement_text=statement_text,
        statement_html=mark_findings(statement_text, _statement_marks(response, item, statement_text, claim_marked)),
        flags=flags.get(item.key, []),
        item_hints=hints.get(item.key, []),
        position=position + 1,
        item_count=len(items),
        previous_url=walked["previous_url"]
        if walked
        else item_url(dump, items[position - 1], show)
        if position > 0
        else None,
        next_url=walked["next_url"]
        if walked
        else item_url(dump, items[position + 1], show)
        if position + 1 < len(items)
        else None,
        next_unresolved_url=_next_unresolved_url(dump, items, position, show),
        item_list=_item_list(request, dump, items, item, done, flags, show, readable),
        anchor=_answer_anchor(response, prefix, item),
        mine_done=len(done),
        progress=_progress(dump, readable, len(items)),
        all_done=all_done,
        next_dump=next_dump,
        response=response,
        answer_html=rendered_answers(dump)[item.response]["answer"],
        citation=_citation_view(response, prefix, item, evidence_marked) if item.citation is not None else None,
        snapshot=snapshot_panel(request, dump, item, url) if (url := item_source_url(dump, item)) else None,
        unresolved=_unresolved_view(dump, response, prefix, item) if item.unresolved is not None else None,
        form=form,
        fields={field.name: field for field in form},
        groups=_choice_groups(form),
        is_editor=is_editor,
        undo=_undo_offer(dump, request.user, items) if is_editor else None,
        not_claims=_not_claims_offer(dump, items, done) if is_editor and item.kind == "statement" else None,
        others=others,
        hidden_count=hidden,
        history=_history(dump, item, request.user),
        comment_form=CommentForm(initial={"item_key": item.key}),
        comments=item_comments(dump, item.key),
        can_comment=roles.can_comment(request.user),
        conflict=conflict,
        keys=_keys(can_save=is_editor),
        disputed=disputed,
        settlement=_settlement_view(readable.settlements.get(item.key)),
        settle=_settle_offer(request, dump, item, readable, settle_form) if disputed else None,
        unassigned=unassigned_offer() if all_done and next_dump is None else None,
        not_blind=is_editor and reads_every_verdict(request.user, dump),
        plan=walked,
    )


def walked_plan(request: HttpRequest) -> CheckPlan | None:
    """The check plan whose items the reader walks through (``?plan=<id>`` on the check page), if any."""
    plan_id = request.GET.get("plan", "")
    return CheckPlan.objects.filter(pk=int(plan_id)).first() if plan_id.isdigit() else None


def plan_item_url(plan: CheckPlan, stop: PlanStop) -> str:
    return f"{stop.url}?{urlencode({'plan': plan.pk})}"


def plan_step(request: HttpRequest, dump: Dump, item: CheckItem) -> dict[str, Any] | None:
    """Where the item is in the walk through the plan of ``?plan=``: its place in the plan's random
    order, the plan's previous item, and, for "next", the plan's next item waiting for the reader
    (across dumps), or the plan's page when none is. None when the item is not one of the plan's."""
    plan = walked_plan(request)
    if plan is None:
        return None
    walk = plan_walk(plan, request.user)
    position = walk.position_of(dump.pk, item.key)
    if position is None:
        return None
    following = walk.next_waiting(after=(dump.pk, item.key))
    return {
        "name": plan.name,
        "url": reverse("review:plan", args=[plan.pk]),
        "position": position + 1,
        "count": len(walk.stops),
        "waiting": walk.waiting_count,
        "previous_url": plan_item_url(plan, walk.stops[position - 1]) if position > 0 else None,
        "next_url": plan_item_url(plan, following) if following else reverse("review:plan", args=[plan.pk]),
    }


def plan_next_url(request: HttpRequest, dump: Dump, item: CheckItem) -> str | None:
    """After a save in a plan's walk: the plan's next item waiting for the editor, else the plan's
    page; None outside a plan's walk."""
    walked = plan_step(request, dump, item)
    return str(walked["next_url"]) if walked else None


# What the page reads from the dump's text for its items, kept while the dump's result is the same.
ITEM_EVIDENCE_CACHE_SECONDS = 24 * 60 * 60


ItemMarks = tuple[tuple[Finding, ...], tuple[Finding, ...]]
ItemEvidence = tuple[dict[str, list[str]], dict[str, list[Any]], dict[str, ItemMarks]]


def kept_item_evidence(dump: Dump, items: list[CheckItem]) -> ItemEvidence:
    """Per item, its flags, the hints of its claim against its evidence (the chips beside that evidence;
    ``item_flags_and_comparisons``) and what differs, to mark in its claim and its evidence
    (``item_marks``, as the viewer's side by side marks them): every citation item's comparison, made
    on the dump's first check page and kept, as the report keeps its passages, not made again on every
    view. Kept by what they are made from: the dump's result (``derived_at`` moves when it is rebuilt,
    with the core's code: RESULT_VERSION) and how many items it offers."""
    key = (
        f"citeview:check-evidence:{dump.pk}:{dump.sha256}:{dump.derived_at.isoformat()}:"
        f"{RESULT_VERSION[:16]}:{settings.CITEVIEW_MAX_ITEMS_PER_DUMP}"
    )
    kept: ItemEvidence | None = cache.get(key)
    if kept is None:
        flags, comparisons = item_flags_and_comparisons(dump.result["responses"], items)
        hints = {item_key: hint_words(comparison) for item_key, comparison in comparisons.items()}
        marks = {item_key: item_marks(comparison) for item_key, comparison in comparisons.items()}
        kept = flags, hints, {item_key: pair for item_key, pair in marks.items() if pair[0] or pair[1]}
        cache.set(key, kept, ITEM_EVIDENCE_CACHE_SECONDS)
    return kept


def _statement_marks(
    response: dict[str, Any], item: CheckItem, statement: str, marks: tuple[Finding, ...]
) -> tuple[Finding, ...]:
    """The claim's marks, moved into the statement shown (the claim is the span the citation covers,
    or the sentence up to its marker: words of the statement)."""
    if not marks or item.citation is None:
        return ()
    start, end = claim_span(response["text"], response["citations"][item.citation])
    return marks_moved(marks, claim_words(response["text"][start:end]), statement)


@dataclass(frozen=True)
class _Readable:
    """What the check page may show of every item, read once for the page: each editor's verdict and the
    settlements the user may read, and which items anyone has finished (progress, no verdicts)."""

    verdicts: dict[str, list[tuple[str, str]]]
    settlements: dict[str, Check]
    finished: set[str]


def verdict_label(code: str) -> str:
    return str(dict(VERDICTS).get(code, code))


def _progress(dump: Dump, readable: _Readable, total: int) -> dict[str, Any]:
    """Checks by anyone: how many items some editor has finished, by how many editors, and each
    editor's count (counts give no verdict away)."""
    by_editor = editor_progress([dump.pk]).get(dump.pk, [])
    return {"anyone": len(readable.finished), "editors": by_editor, "total": total}


def _settlement_view(settlement: Check | None) -> dict[str, Any] | None:
    if settlement is None:
        return None
    return {
        "verdict": verdict_label(settlement.verdict),
        "reason": settlement.note,
        "by": settlement.editor.get_username(),
        "at": settlement.updated_at,
    }


def _settle_offer(
    request: HttpRequest, dump: Dump, item: CheckItem, readable: _Readable, form: SettleForm | None
) -> dict[str, Any] | None:
    """The settle form of a disputed item, for a settler: the editors' verdicts to pick from, or another;
    for a settler who may not settle it (``settle_refusal``), why, and who does."""
    if not roles.can_settle(request.user) or item.kind != "citation":
        return None
    if (refusal := settle_refusal(request.user, dump, item.key)) is not None:
        return {"refused": settle_refusal_text(refusal)}
    given: dict[str, list[str]] = {}
    for editor, verdict in readable.verdicts.get(item.key, []):
        given.setdefault(verdict, []).append(editor)
    if form is None:
        settled = readable.settlements.get(item.key)
        initial: dict[str, Any] = {"version": item_version(dump, item.key)}
        if settled is not None:
            initial |= {"verdict": settled.verdict, "reason": settled.note}
        form = SettleForm(initial=initial, given=given)
    form.given = given
    return {"form": form, "url": reverse("review:settle", args=[dump.pk, item.key])}


def settle_refusal_text(refusal: str) -> str:
    """Why a settler may not settle an item, in words, and who does."""
    if refusal == SETTLE_TOOK_PART:
        return _(
            "You gave a verdict on this item, so you cannot settle it: a settlement judges the editors' "
            "verdicts, yours among them. Another lead or a member of staff settles it."
        )
    if refusal == SETTLE_ASSIGNED:
        return _(
            "You are assigned to this dump as an editor, so you check it blind like the other editors and "
            "cannot settle its disagreements. A lead who is not assigned to it, or a member of staff, settles them."
        )
    return _("Only a lead or a member of staff settles disagreements.")


def unassigned_offer() -> dict[str, Any]:
    """Dumps nobody is assigned to and nobody has started: what an editor with nothing assigned can take."""
    waiting = unassigned_unchecked()
    return {
        "count": waiting.count(),
        "first": list(waiting.order_by("created_at", "id")[:3]),
        "url": f"{reverse('pages:home')}?{urlencode({'assignee': UNASSIGNED, 'progress': 'unchecked'})}",
    }


def _choice_groups(form: CheckForm) -> dict[str, dict[str, Any]]:
    """Each question with choices, its options beside the key that picks each (the verdicts as a list)."""
    groups = {}
    for field in form:
        if field.name not in form.RADIO_FIELDS:
            continue
        keys = list(form.KEYS.get(field.name, ()))
        options = [(radio, keys[number] if number < len(keys) else "") for number, radio in enumerate(field)]
        groups[field.name] = {"field": field, "options": options, "vertical": field.name == "verdict"}
    return groups


def shown_value(name: str, values: dict[str, str]) -> str:
    """A recorded value as the form names it (a verdict's label, not its code)."""
    value = values.get(name, "")
    choices = getattr(Check._meta.get_field(name), "choices", None)
    return str(dict(choices).get(value, value)) if choices else value


def check_initial(dump: Dump, item: CheckItem, user: Any) -> dict[str, Any]:
    initial: dict[str, Any] = {"version": item_version(dump, item.key)}
    stored_answers = False
    for check in own_checks(dump, user, {item.key, item.statement_key}):
        if check.item_key == item.key:
            initial.update(check.values())
        if check.item_key == item.statement_key and item.kind != "statement":
            stored_answers = True
            for name in ("verification_worthy", "supported_together"):
                initial[name] = initial[f"seen_{name}"] = getattr(check, name)
    if item.kind != "statement" and not stored_answers:
        # A statement that carries a citation is a claim about the world, almost always: the editor
        # changes it when it is not. "seen" stays blank, so saving records the answer.
        initial["verification_worthy"] = "yes"
    return initial


def _answer_anchor(response: dict[str, Any], prefix: str, item: CheckItem) -> str:
    """The id of the item's mark in the answer: its footnote (a span cited with several sources has one
    each), or the marker that cites no source."""
    if item.unresolved is not None:
        return _unresolved_anchor(prefix, item.unresolved)
    if item.citation is None:
        return ""
    anchor = citation_anchor(prefix, item.citation)
    spans_several = item.source_position and not response["citations"][item.citation]["marker"]
    return f"{anchor}-{item.source_position}" if spans_several else anchor


def _unresolved_anchor(prefix: str, index: int) -> str:
    """As the viewer names an unresolved marker (citeview/core/rendering/answer.py)."""
    return f"{prefix}-unresolved-{index}"


def _citation_view(
    response: dict[str, Any], prefix: str, item: CheckItem, marks: tuple[Finding, ...] = ()
) -> dict[str, Any]:
    """The citation and its source, the evidence the dump holds escaped by mark_findings with what
    differs from the claim marked (our own <mark>s only: safe as built), where the claim was held
    against all of it (``shown_whole``); a long text's passage was, and it is shown unmarked."""
    assert item.citation is not None
    citation = response["citations"][item.citation]
    entries = {entry["key"]: entry for entry in source_entries(response, prefix)}
    sources = [entries[item.source_key]] if item.source_key in entries else []
    held = None
    if item.source_key is not None:
        held = held_evidence(citation, item.source_key, {s["key"]: s for s in response["sources"]})
    marks = marks if held is not None and shown_whole(held) else ()
    cited_text = citation["cited_text"]
    return {
        "marker": citation["marker"],
        "cited_text": cited_text,
        "cited_text_html": mark_findings(cited_text, marks) if cited_text is not None else None,
        "sources": [
            {**source, "passage": _passage(source, () if cited_text is not None else marks)} for source in sources
        ],
        "of_sources": (item.source_position, len(citation["source_keys"])) if item.source_position else None,
    }


def _passage(source: dict[str, Any], marks: tuple[Finding, ...] = ()) -> dict[str, Any] | None:
    """The source's text the dump holds, as much as the panel shows: a search snippet is short; a
    document, a retrieved passage or a tool's output is what the editor quotes from, so more of it."""
    snippet = source.get("snippet")
    if not snippet:
        return None
    is_document = source.get("kind") == "file" or source.get("snippet_kind") in _DOCUMENT_KINDS
    limit = DOCUMENT_CHARS if is_document else SNIPPET_CHARS
    return {
        "text": snippet[:limit],
        "html": mark_findings(snippet[:limit], marks),
        "cut": len(snippet) > limit,
        "kind": source.get("snippet_kind") or "search",
    }


def _unresolved_view(dump: Dump, response: dict[str, Any], prefix: str, item: CheckItem) -> dict[str, Any]:
    assert item.unresolved is not None
    marker = response["unresolved"][item.unresolved]
    explanation = next(
        (
            phrase_text(d["phrase"], _)
            for d in response["diagnostics"]
            if d["code"] == "unresolved_marker" and d["details"].get("start") == marker["start"]
        ),
        _("{marker} points at no source.").format(marker=readable_marker(marker["marker"], marker["ref"])),
    )
    anchor = _unresolved_anchor(prefix, item.unresolved)
    return {
        "marker": readable_marker(marker["marker"], marker["ref"]),
        "explanation": explanation,
        "anchor": anchor,
        "viewer_url": f"{dump.get_absolute_url()}#{anchor}",
        "also_cites": len(item.statement.citations),
    }


def _others(dump: Dump, item: CheckItem, user: Any) -> tuple[list[dict[str, Any]], int]:
    """Each other editor's answers on the item that ``user`` may read (their citation check and their
    statement-wide answers), and how many of their checks of it blind first keeps back."""
    people: dict[str, dict[str, Any]] = {}
    for check in item_checks(dump, item, user):
        if check.editor_id == user.pk:
            continue
        entry = people.setdefault(check.editor.get_username(), {"editor": check.editor.get_username()})
        if check.item_key == item.key and check.kind == "citation":
            entry["check"] = check
        else:
            entry["statement"] = check
    return list(people.values()), hidden_check_count(user, others_checks_of_item(dump, item.key, user))


def _history(dump: Dump, item: CheckItem, user: Any) -> list[dict[str, Any]]:
    return [
        {
            "editor": revision.editor.get_username(),
            "at": revision.created_at,
            "undo": revision.is_undo,
            "not_blind": revision.not_blind,
            "settled": revision.check_record.is_settlement,
            "reason": revision.after.get("note", "") if revision.check_record.is_settlement else "",
            "changes": [
                {
                    "field": _("Reason")
                    if revision.check_record.is_settlement and name == "note"
                    else _field_label(name),
                    "before": shown_value(name, revision.before),
                    "after": shown_value(name, revision.after),
                }
                for name, value in revision.after.items()
                if revision.before.get(name, "") != value
            ],
        }
        for revision in item_history(dump, item, user)
    ]


def _field_label(name: str) -> str:
    return str(getattr(Check._meta.get_field(name), "verbose_name", name))


def shown_filter(request: HttpRequest) -> str:
    """The item list's filter, as the address gives it (anything unknown shows every item)."""
    show = request.GET.get("show", "")
    known = {SHOW_UNCHECKED, SHOW_ATTENTION, SHOW_DISAGREE, *(f"verdict-{code}" for code, _label in VERDICTS)}
    return show if show in known else SHOW_ALL


def _item_list(
    request: HttpRequest,
    dump: Dump,
    items: list[CheckItem],
    current: CheckItem,
    done: set[str],
    flags: dict[str, list[str]],
    show: str,
    readable: _Readable,
) -> dict[str, Any]:
    """The list of all items, or those the filter keeps, and the filter's choices with their counts.
    "Not checked" is the user's own (a reviewer's: no one's yet); verdicts, and so disagreements, are
    those blind first lets the user read."""
    is_editor = roles.can_record(request.user)
    checked = done if is_editor else readable.finished
    verdicts = {key: {verdict for _editor, verdict in given} for key, given in readable.verdicts.items()}

    def kept(item: CheckItem, choice: str) -> bool:
        if choice == SHOW_UNCHECKED:
            return item.key not in checked
        if choice == SHOW_ATTENTION:
            return bool(set(flags.get(item.key, [])) - {CUT_OFF}) or bool(
                verdicts.get(item.key, set()) & ATTENTION_VERDICTS
            )
        if choice == SHOW_DISAGREE:
            return len(verdicts.get(item.key, ())) > 1
        if choice.startswith("verdict-"):
            return choice.removeprefix("verdict-") in verdicts.get(item.key, set())
        return True

    labels = [
        (SHOW_ALL, _("All items")),
        (SHOW_UNCHECKED, _("Not checked by you") if is_editor else _("Not checked by anyone")),
        (SHOW_ATTENTION, _("Needs attention")),
        (SHOW_DISAGREE, _("Editors disagree")),
        *((f"verdict-{code}", _("Verdict: %(verdict)s") % {"verdict": label}) for code, label in VERDICTS),
    ]
    choices = [
        {"value": value, "label": label, "count": sum(kept(i, value) for i in items), "selected": value == show}
        for value, label in labels
    ]
    entries = []
    address = _item_address(dump, show)
    labels_of = {code: str(label) for code, label in VERDICTS}
    previous = None
    for number, item in enumerate(items, 1):
        if not kept(item, show):
            previous = None
            continue
        following = item.statement_key == previous and item is not current
        previous = item.statement_key
        entry = _nav_entry(
            dump, item, number, checked, item is current, flags.get(item.key, []), address, following=following
        )
        given = readable.verdicts.get(item.key, [])
        settled = readable.settlements.get(item.key)
        entry.update(
            verdicts=[(editor, labels_of.get(verdict, verdict)) for editor, verdict in given],
            disagree=len(verdicts.get(item.key, ())) > 1,
            settled=labels_of.get(settled.verdict, settled.verdict) if settled else "",
        )
        entries.append(entry)
    return {"entries": entries, "choices": choices, "show": show, "url": item_url(dump, current)}


def _nav_entry(
    dump: Dump,
    item: CheckItem,
    number: int,
    done: set[str],
    current: bool,
    flags: list[str],
    address: str,
    *,
    following: bool = False,
) -> dict[str, Any]:
    response = dump.result["responses"][item.response]
    citation = response["citations"][item.citation] if item.citation is not None else None
    marker = ""
    if citation is not None:
        marker = _item_label(citation, item)  # as written; a span citation by its place among the response's
    elif item.unresolved is not None:
        marker = response["unresolved"][item.unresolved]["marker"]
    return {
        "number": number,
        "url": address.replace(KEY_PLACE, item.key),
        "kind": item.kind,
        "marker": marker,
        # Every item reads as what it is, a statement's second citation too: its words, then its marker.
        # Cut before it is made plain, and made plain once per statement (``plain_statement`` keeps it).
        "text": shortened(
            plain_statement(item.statement.text[:NAV_TEXT_CHARS]), NAV_FOLLOWING_CHARS if following else NAV_SHOWN_CHARS
        ),
        "flags": flags,
        "done": item.key in done,
        "current": current,
    }


def _item_label(citation: dict[str, Any], item: CheckItem) -> str:
    label = citation["marker"] or f"#{(item.citation or 0) + 1}"
    return f"{label} ({item.source_position}/{len(citation['source_keys'])})" if item.source_position else label


def item_url(dump: Dump, item: CheckItem, show: str = "") -> str:
    return _item_address(dump, show).replace(KEY_PLACE, item.key)


KEY_PLACE = "key-here"


def _item_address(dump: Dump, show: str) -> str:
    """An item's address with its key still to put in (``KEY_PLACE``): the list reverses it once, not
    for each of thousands of items (a key is a slug: it needs no quoting)."""
    url = reverse("review:item", args=[dump.pk, KEY_PLACE])
    return f"{url}?{urlencode({'show': show})}" if show else url


def next_url(dump: Dump, items: list[CheckItem], item: CheckItem, user: Any, show: str = "") -> str:
    """The next item the editor has not finished, after this one and then from the start."""
    done = finished_keys(dump, user)
    position = items.index(item)
    for candidate in items[position + 1 :] + items[:position]:
        if candidate.key not in done:
            return item_url(dump, candidate, show)
    return reverse("review:done", args=[dump.pk])


def _next_unresolved_url(dump: Dump, items: list[CheckItem], position: int, show: str) -> str | None:
    """The next marker without a source after this item, and then from the start (the key ``m``)."""
    for candidate in items[position + 1 :] + items[: position + 1]:
        if candidate.kind == "unresolved" and candidate is not items[position]:
            return item_url(dump, candidate, show)
    return None


def next_assigned(user: Any, dump: Dump) -> Dump | None:
    """The first dump assigned to ``user`` with items waiting for them, other than this one."""
    return next((entry.dump for entry in work_queue(user, limit=1, besides=dump.pk)), None)


def _undo_offer(dump: Dump, user: Any, items: list[CheckItem]) -> dict[str, Any] | None:
    """What undo would put back: the editor's last save in this dump, by the items it saved."""
    revisions = last_save(dump, user)
    if not revisions:
        return None
    keys = {revision.check_record.item_key for revision in revisions if revision.check_record.is_item}
    statements = {revision.check_record.statement_key for revision in revisions}
    numbers = [n for n, i in enumerate(items, 1) if i.key in keys or (not keys and i.statement_key in statements)]
    return {"numbers": numbers[:5], "more": max(len(numbers) - 5, 0), "count": len(numbers)}


def _not_claims_offer(dump: Dump, items: list[CheckItem], done: set[str]) -> dict[str, Any] | None:
    """The statements that cite nothing and that the editor has not judged, to mark several at once."""
    waiting = [item for item in items if item.kind == "statement" and item.key not in done][:NOT_CLAIMS_OFFERED]
    if len(waiting) < 2:
        return None
    versions = item_versions(dump, [item.key for item in waiting])
    return {
        "items": [
            {
                "key": item.key,
                "text": plain_statement(item.statement.text[:NAV_TEXT_CHARS]),
                "version": versions[item.key],
                "cut_off": item.cut_off,
            }
            for item in waiting
        ]
    }


def _keys(*, can_save: bool) -> list[tuple[str, str]]:
    """Every key of the check panel, for the help (static/citeview/check.js acts on them); for someone
    who cannot save, only the keys that move and read."""
    saving = [
        ("1 – 6", _("the verdict, in the order listed")),
        ("y / n", _("the statement is a claim about the world: yes / no")),
        ("7 / 8 / 9", _("its citations together support it: yes / no / contradict")),
        ("Enter", _("save and go to the next item you have not checked")),
        ("Ctrl + Enter", _("save, from inside the quote or the note")),
    ]
    moving = [
        ("j / k", _("next / previous item")),
        ("m", _("the next citation with no source")),
        ("/", _("search the answer")),
    ]
    editing = [
        ("q", _("use the selected text (or the whole passage) as the evidence quote")),
        ("u", _("undo your last save")),
    ]
    help_keys = [("?", _("show these keys")), ("Esc", _("close this list"))]
    return [*saving, *moving, *editing, *help_keys] if can_save else [*moving, *help_keys]
