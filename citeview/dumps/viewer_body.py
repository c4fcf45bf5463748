"""The body of a dump's viewer, everything it shows of the dump itself: its responses, sources,
evidence and raw text, rendered from the stored result once per interface language and then kept (see
``DumpPage``); for a batch, a navigator of its responses and the one chosen (``batch_body``). The page
around it, with what the team recorded (``citeview.pages.fragments``), and the view that puts the two
together (``citeview.pages.views``) are above it: nothing here reads review."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import Http404, QueryDict
from django.template.loader import render_to_string
from django.utils.translation import get_language, gettext

from citeview.core.checking.side_by_side import evidence_view
from citeview.core.common.links import is_safe_http_url
from citeview.core.common.phrases import phrase_text
from citeview.core.common.shortening import shortened
from citeview.core.detection import registry
from citeview.core.framing.pretty import pretty_dump_text
from citeview.core.rendering.answer import footnotes, response_prefix, source_entries, source_labels
from citeview.dumps.batches import batch_response, batch_rows
from citeview.dumps.blobs import blob_size
from citeview.dumps.code_fingerprint import running_code_fingerprint
from citeview.dumps.forms import BatchFilterForm
from citeview.dumps.kept_fragments import kept_fragment
from citeview.dumps.models import Dump, DumpPage, DumpResponse
from citeview.dumps.selectors import VIEWED_FIELDS

logger = logging.getLogger(__name__)

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
DIAGNOSTICS_SHOWN_PER_CODE = 10


def dump_body(dump: Dump) -> bytes:
    """The viewer's body in the current language, as UTF-8: the kept page if it is current, else made
    now and not kept (a GET never writes: the worker keeps it, ``citeview.dumps.reading.dump_pages_keep``).
    Our own template's output (every value from the dump in it was escaped or sanitised when it was
    made), put into the page as it is (``citeview.pages.views``), never through a template.

    It is kept and read as bytes because a 600 KB body with any non-ASCII character in it took longer
    to decode from the database and encode again for the response than the rest of the page."""
    html = kept_body(dump)
    return _made_body(dump) if html is None else html


def body_keep(dump: Dump) -> None:
    """Make and keep the viewer's body in the current language unless a current one is kept (a worker's
    task: ``citeview.dumps.reading.dump_pages_keep``)."""
    if kept_body(dump) is None:
        _keep(dump, get_language(), running_code_fingerprint(), _made_body(dump))


def _made_body(dump: Dump) -> bytes:
    return render_to_string("dumps/_body.html", _body_context(dump)).encode()


def dump_viewed(pk: int) -> tuple[Dump, bytes | None]:
    """A dump with only ``VIEWED_FIELDS`` read, and its viewer's body in the current language if a
    current one is kept (else None), in one query with no join: a page whose pieces are kept needs no
    more, and one that makes a piece reads the whole dump for it (``dump_get``). Raises Http404 for an
    unknown dump."""
    current = DumpPage.objects.filter(
        dump=OuterRef("pk"),
        language=get_language(),
        derived_at=OuterRef("derived_at"),
        made_by=running_code_fingerprint(),
    )
    viewed = Dump.objects.only(*VIEWED_FIELDS).annotate(kept_body=Subquery(current.values("html")[:1]))
    found = viewed.filter(pk=pk).order_by().first()
    if found is None:
        raise Http404("No dump has this number.")
    body = found.__dict__.pop("kept_body")  # not a field: its 600 KB are not left on the dump
    return found, None if body is None else bytes(body)  # PostgreSQL's driver gives a memoryview


def kept_body(dump: Dump) -> bytes | None:
    """The viewer's body in the current language if a current one is kept, else None: read with the
    dump's id and ``derived_at`` only, so a view may read the rest of the dump only to make it."""
    current = DumpPage.objects.filter(
        dump_id=dump.pk, language=get_language(), derived_at=dump.derived_at, made_by=running_code_fingerprint()
    )
    html = next(iter(current.values_list("html", flat=True)[:1]), None)  # unique: no ORDER BY needed
    return None if html is None else bytes(html)  # PostgreSQL's driver gives a memoryview


def _keep(dump: Dump, language: str, made_by: str, html: bytes) -> None:
    """Keep a page made now. Keeping is an optimisation: the worker's task never fails because it could
    not write (a busy SQLite), and another task may have kept it a moment ago."""
    fields = {"derived_at": dump.derived_at, "made_by": made_by, "html": html}
    try:
        with transaction.atomic():
            if not DumpPage.objects.filter(dump=dump, language=language).update(**fields):
                DumpPage.objects.create(dump=dump, language=language, **fields)
    except IntegrityError:
        pass  # another view kept the same page a moment ago
    except DatabaseError:
        logger.warning("The viewer page of dump %s could not be kept", dump.pk, exc_info=True)


def rendered_answers(dump: Dump) -> list[dict[str, Any]]:
    """The stored rendering in the page's language (one older code made is shown until its rebuild,
    queued by the view, is done: ``citeview.dumps.reading.dump_queue_rebuild``)."""
    rendered: dict[str, list[dict[str, Any]]] = dump.rendered
    return rendered.get(get_language()) or rendered.get(settings.LANGUAGE_CODE) or next(iter(rendered.values()))


def _diagnostics_shown(diagnostics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The diagnostics, most severe first, at most DIAGNOSTICS_SHOWN_PER_CODE of each kind, the last
    shown of a kind saying how many more there are: a dump of 100,000 unresolved markers has as many
    diagnostics, all in the normalised JSON, and a page of them would help no one."""
    by_code: dict[str, list[dict[str, Any]]] = {}
    for diagnostic in diagnostics:
        by_code.setdefault(diagnostic["code"], []).append(diagnostic)
    shown = []
    for kind in by_code.values():
        for diagnostic in kind[:DIAGNOSTICS_SHOWN_PER_CODE]:
            shown.append({**diagnostic, "text": phrase_text(diagnostic["phrase"], gettext), "more_like_it": 0})
        shown[-1]["more_like_it"] = max(len(kind) - DIAGNOSTICS_SHOWN_PER_CODE, 0)
    return sorted(shown, key=lambda d: _SEVERITY_ORDER.get(d["severity"], 3))


UNUSED_SOURCES_LINKED = 100  # the sources the one row of sources never cited links to; the rest are counted
TECHNICAL_VALUE_CHARS = 80  # a value behind the codes toggle: enough to recognise it


class _Places:
    """Where in the page a diagnostic's details point: a footnote or an unresolved marker drawn in the
    answer, or a source in the list. Only anchors the page draws."""

    def __init__(self, response: dict[str, Any], prefix: str, sources: list[dict[str, Any]], until: int) -> None:
        self._response, self._prefix, self._until = response, prefix, until
        self._sources = {entry["key"]: entry for entry in sources}
        unresolved = response["unresolved"]
        self._unresolved = {m["start"]: i for i, m in enumerate(unresolved) if m["end"] <= until}
        self._footnotes: dict[tuple[Any, ...], str] | None = None  # made only if a diagnostic asks

    def of(self, diagnostic: dict[str, Any]) -> dict[str, str] | None:
        details, code = diagnostic["details"], diagnostic["code"]
        if code in ("incomplete_response", "failed_response") and self._response["text"]:
            return self._in_answer(f"{self._prefix}-end")  # where the answer stops
        if code == "unresolved_marker":
            index = self._unresolved.get(details.get("start"))
            return None if index is None else self._in_answer(f"{self._prefix}-unresolved-{index}")
        key = details.get("key")
        if isinstance(details.get("start"), int) and isinstance(details.get("end"), int):
            anchor = self._footnote(details["start"], details["end"], key)
            if anchor:
                return self._in_answer(anchor)
        if isinstance(key, str) and key in self._sources:
            return {"href": f"#{self._sources[key]['anchor']}", "label": gettext("Show the source")}
        return None

    def _in_answer(self, anchor: str) -> dict[str, str]:
        return {"href": f"#{anchor}", "label": gettext("Show in the answer")}

    def _footnote(self, start: int, end: int, key: Any) -> str | None:
        """The footnote of the citation a diagnostic names: by where the citation quotes its document
        (a quote check's ``start``/``end`` are the document's), else by where it stands in the answer."""
        if self._footnotes is None:
            self._footnotes = self._index_footnotes()
        return (
            self._footnotes.get(("quoted", key, start, end))
            or self._footnotes.get(("answer", start, end, key))
            or self._footnotes.get(("span end", end, key))
        )

    def _index_footnotes(self) -> dict[tuple[Any, ...], str]:
        index: dict[tuple[Any, ...], str] = {}
        drawn: dict[int, str] = {}
        for mark in footnotes(self._response, self._prefix, self._until):
            drawn.setdefault(mark.citation, mark.anchor)
            index.setdefault(("answer", mark.start, mark.end, None), mark.anchor)
            for key in mark.source_keys:
                index.setdefault(("answer", mark.start, mark.end, key), mark.anchor)
                index.setdefault(("span end", mark.end, key), mark.anchor)  # one footnote per span's end and source
        for number, citation in enumerate(self._response["citations"]):
            location = citation.get("location")
            if number in drawn and isinstance(location, dict):
                for key in citation["source_keys"]:
                    index.setdefault(("quoted", key, location.get("start"), location.get("end")), drawn[number])
        return index


def _diagnostic_rows(
    response: dict[str, Any], prefix: str, sources: list[dict[str, Any]], until: int
) -> list[dict[str, Any]]:
    """The diagnostics as a reader meets them: each in words, with its code and values behind the
    codes toggle, and a link to its place when the page draws one; the sources never cited as one row
    that links to each."""
    places = _Places(response, prefix, sources, until)
    by_key = {entry["key"]: entry for entry in sources}
    unused = [d for d in response["diagnostics"] if d["code"] == "unused_source"]
    rows = []
    for diagnostic in _diagnostics_shown([d for d in response["diagnostics"] if d["code"] != "unused_source"]):
        rows.append(
            {
                **diagnostic,
                "technical": _technical(diagnostic["details"]),
                "place": places.of(diagnostic),
                "find": _to_find(diagnostic),
            }
        )
    if unused:
        listed = [by_key[d["details"]["key"]] for d in unused if d["details"].get("key") in by_key]
        rows.append(
            {
                "code": "unused_source",
                "severity": unused[0]["severity"],
                "unused": listed[:UNUSED_SOURCES_LINKED],
                "unused_count": len(unused),
                "unlisted": len(unused) - min(len(listed), UNUSED_SOURCES_LINKED),
                "technical": " ".join(technical_value(d["details"].get("key")) for d in unused[:UNUSED_SOURCES_LINKED]),
            }
        )
    return sorted(rows, key=lambda row: _SEVERITY_ORDER.get(row["severity"], 3))


def _to_find(diagnostic: dict[str, Any]) -> str:
    """What the search of the page looks for to show a diagnostic that has no anchor of its own: the
    marker written in code or a link, the first token of a notation citeview does not read."""
    if diagnostic["code"] == "not_a_marker":
        return str(diagnostic["details"].get("marker") or "")
    if diagnostic["code"] == "unknown_notation":
        tokens = diagnostic["details"].get("tokens") or [""]
        return str(tokens[0])
    return ""


def _technical(details: dict[str, Any]) -> str:
    """A diagnostic's values as the normalised JSON names them, for the codes toggle."""
    shown = []
    for name, value in details.items():
        written = technical_value(value)
        if written:
            shown.append(f"{name}: {shortened(written, TECHNICAL_VALUE_CHARS)}")
    return " · ".join(shown)


def technical_value(value: Any) -> str:
    """A diagnostic's value in words, in the page's language: a flag as yes or no, a list as its
    items; nothing for a value that is empty or absent, or an object (the normalised JSON has its
    parts). Never Python's spelling of one (``True``, ``None``, ``[]``)."""
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, list):
        return ", ".join(written for item in value if (written := technical_value(item)))
    if value is None or isinstance(value, dict):
        return ""
    return str(value)


def _severity_counts(diagnostics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """How many diagnostics there are of each severity present, most severe first: the filter's choices."""
    counts: dict[str, int] = {}
    for diagnostic in diagnostics:
        counts[diagnostic["severity"]] = counts.get(diagnostic["severity"], 0) + 1
    return [
        {"severity": severity, "count": counts[severity]}
        for severity in sorted(counts, key=lambda s: _SEVERITY_ORDER.get(s, 3))
    ]


def _body_context(dump: Dump) -> dict[str, Any]:
    raw_text, raw_shortened = pretty_dump_text(bytes(dump.raw), dump.framing)
    request_raw = dump.request_raw
    answers = zip(rendered_answers(dump), dump.result["responses"], strict=True)
    return {
        "dump": dump,
        "responses": [response_view(rendered, index, response) for index, (rendered, response) in enumerate(answers)],
        "raw_text": raw_text,
        "raw_shortened": raw_shortened,
        "request_text": pretty_dump_text(request_raw, "json")[0] if request_raw is not None else None,
        # Documents attached on their own: the answer's document 0, 1, … in this order.
        "attached_documents": [
            {"position": d.position, "name": d.name, "size": blob_size(d.sha256)}
            for d in dump.documents.order_by("position")
        ],
    }


def _api_label(name: str) -> str:
    api = registry.api_format(name)
    return api.label if api is not None else name


def response_view(rendered: dict[str, Any], index: int, response: dict[str, Any]) -> dict[str, Any]:
    prefix = response_prefix(index)
    sources = source_entries(response, prefix, rendered["drawn_until"])  # back-links to the footnotes drawn
    labels = {entry["key"]: entry for entry in sources}
    conflicts = _conflicts(response)
    for entry in sources:
        entry["conflict_number"] = conflicts.get(entry["key"], entry["label"])
    return {
        "index": index,
        # Made with the page, which is kept (DumpPage): its words are in the page's language.
        "evidence": evidence_view(response, source_labels(response), gettext, rendered["drawn_until"]),
        "data": response,
        # Who answered, as far as the dump says (``citeview/core/parsing/providers/compatible.py``).
        "api_label": _api_label(response["api"]),
        "prefix": prefix,
        "answer_html": rendered["answer"],
        "status_detail": phrase_text(response["status_detail_phrase"], gettext),
        # A search's pages the answer does not cite are listed apart, after the cited ones: consulted, no problem.
        "sources": [entry for entry in sources if not _consulted_only(entry)],
        "consulted_sources": [entry for entry in sources if _consulted_only(entry)],
        "diagnostics": _diagnostic_rows(response, prefix, sources, rendered["drawn_until"]),
        "diagnostic_count": len(response["diagnostics"]),
        "severities": _severity_counts(response["diagnostics"]),
        "first_unresolved": _first_unresolved(response, prefix, rendered["drawn_until"]),
        "problem_count": sum(1 for d in response["diagnostics"] if d["severity"] != "info"),
        "searches": [
            {"queries": batch["queries"], "sources": [labels[k] for k in batch["source_keys"] if k in labels]}
            for batch in response.get("searches", [])
        ],
        "without_position": [labels[k] for k in response.get("cited_without_position", []) if k in labels],
        "reasoning": rendered.get("reasoning", []),
        "recitations": [_recitation_view(r, response["text"]) for r in response.get("recitations", [])],
    }


def _consulted_only(entry: dict[str, Any]) -> bool:
    cited = entry["cited_by"] or entry["cited_past_rendering"] or entry["cited_without_position"] or entry["cited_in"]
    return bool(entry["extra"].get("consulted")) and not cited


def _first_unresolved(response: dict[str, Any], prefix: str, until: int) -> str:
    """Where the "N unresolved" chip leads: the first unresolved marker the answer draws, else the top
    of the response, where the diagnostics list them all."""
    for index, marker in enumerate(response["unresolved"]):
        if marker["end"] <= until:
            return f"#{prefix}-unresolved-{index}"
    return f"#{prefix}"


def _conflicts(response: dict[str, Any]) -> dict[str, str]:
    """For each source that shares its number with another, the number both were given (the source
    list labels the second ``2#2``; the reader is told of number 2)."""
    return {
        key: str(d["details"].get("key", key))
        for d in response["diagnostics"]
        if d["code"] == "source_conflict"
        for key in d["details"].get("keys", [])
    }


RECITED_CHARS_SHOWN = 300


def _recitation_view(recitation: dict[str, Any], text: str) -> dict[str, Any]:
    """A recitation notice with the stretch of the answer it names, when it names one."""
    start, end = recitation["start"], recitation["end"]
    placed = isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)
    recited = text[start:end] if placed else ""
    if len(recited) > RECITED_CHARS_SHOWN:
        recited = recited[:RECITED_CHARS_SHOWN] + "…"
    link = recitation["url"] if is_safe_http_url(recitation["url"]) else None
    return {**recitation, "recited": recited, "link": link}


# A batch (``citeview.dumps.batches``) is shown one response at a time, under a navigator that lists
# this many of its responses a page.
ROWS_PER_PAGE = 50


def batch_body(dump: Dump, *, asked: QueryDict, checked: dict[int, int]) -> bytes:
    """The body of a batch's viewer: a navigator of its responses, a page of them at a time, filtered by
    status and by what needs a look (``asked``: the page's query), then the one response chosen,
    rendered alone. ``checked`` is how many of each response's items have the checks they need (review
    counts them: ``checked_items_per_response``). Both pieces are kept (``kept_fragment``): the
    navigator by the filters, page and response asked for and the checks counted, the response by the
    result it is of; a warm page reads the two pieces, and renders nothing."""
    form = BatchFilterForm(asked)
    filters = form.cleaned_data if form.is_valid() else {"status": "", "needs": ""}
    query = _asked(filters, asked)
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
    return {"html": render_to_string("dumps/_batch.html", context), "chosen": chosen}


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
