"""The body of a dump's viewer: its responses, sources, evidence and raw text, rendered from the
stored result once per interface language and then kept (see ``DumpPage``)."""

from __future__ import annotations

import functools
import hashlib
import logging
from pathlib import Path
from typing import Any

import django
from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext

import citeview
from citeview.core.links import is_safe_http_url
from citeview.core.phrases import phrase_text
from citeview.core.pretty import pretty_dump_text
from citeview.core.rendering.answer import response_prefix, source_entries
from citeview.dumps.models import Dump, DumpPage

logger = logging.getLogger(__name__)

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
_MADE_FROM_SUFFIXES = {".py", ".html", ".mo"}
DIAGNOSTICS_SHOWN_PER_CODE = 10


def dump_body(dump: Dump) -> SafeString:
    """The viewer's body in the current language: the kept page if it is current, else made and kept now."""
    language = get_language()
    made_by = running_code_fingerprint()
    current = DumpPage.objects.filter(dump=dump, language=language, derived_at=dump.derived_at, made_by=made_by)
    html = current.values_list("html", flat=True).first()
    if html is None:
        html = render_to_string("dumps/_body.html", _body_context(dump))
        _keep(dump, language, made_by, html)
    # Our own template's output: every value from the dump in it was escaped or sanitised when it was made.
    return mark_safe(html)


def _keep(dump: Dump, language: str, made_by: str, html: str) -> None:
    """Keep a page made now. Keeping is an optimisation: a view never fails because it could not
    write (a busy SQLite, a read-only replica), and a concurrent first view may have kept it already."""
    fields = {"derived_at": dump.derived_at, "made_by": made_by, "html": html}
    try:
        with transaction.atomic():
            if not DumpPage.objects.filter(dump=dump, language=language).update(**fields):
                DumpPage.objects.create(dump=dump, language=language, **fields)
    except IntegrityError:
        pass  # another view kept the same page a moment ago
    except DatabaseError:
        logger.warning("The viewer page of dump %s could not be kept", dump.pk, exc_info=True)


def running_code_fingerprint() -> str:
    """A digest of the code, templates and translations this process runs, so that no kept page
    outlives a deploy that would render it differently. In development they change under a running
    server, so it is taken again each time."""
    return _code_fingerprint() if settings.DEBUG else _cached_code_fingerprint()


def _code_fingerprint() -> str:
    digest = hashlib.sha256(django.get_version().encode())
    package = Path(citeview.__file__).parent
    for root in [package, *settings.TEMPLATES[0]["DIRS"], *settings.LOCALE_PATHS]:
        for path in sorted(Path(root).rglob("*")):
            if path.suffix in _MADE_FROM_SUFFIXES:
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


_cached_code_fingerprint = functools.cache(_code_fingerprint)


def rendered_answers(dump: Dump) -> list[dict[str, Any]]:
    """The stored rendering in the page's language (the view has had any older one rebuilt: ``dump_refresh_if_stale``)."""
    rendered = dump.rendered
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


def _body_context(dump: Dump) -> dict[str, Any]:
    raw_text, raw_shortened = pretty_dump_text(bytes(dump.raw), dump.framing)
    answers = zip(rendered_answers(dump), dump.result["responses"], strict=True)
    return {
        "dump": dump,
        "responses": [_response_view(rendered, index, response) for index, (rendered, response) in enumerate(answers)],
        "raw_text": raw_text,
        "raw_shortened": raw_shortened,
        "request_text": pretty_dump_text(bytes(dump.request_raw), "json")[0] if dump.request_raw else None,
    }


def _response_view(rendered: dict[str, Any], index: int, response: dict[str, Any]) -> dict[str, Any]:
    prefix = response_prefix(index)
    sources = source_entries(response, prefix, rendered["drawn_until"])  # back-links to the footnotes drawn
    labels = {entry["key"]: entry for entry in sources}
    return {
        "index": index,
        "evidence": rendered["evidence"],
        "data": response,
        "prefix": prefix,
        "answer_html": rendered["answer"],
        "status_detail": phrase_text(response["status_detail_phrase"], gettext),
        "sources": sources,
        "diagnostics": _diagnostics_shown(response["diagnostics"]),
        "diagnostic_count": len(response["diagnostics"]),
        "problem_count": sum(1 for d in response["diagnostics"] if d["severity"] != "info"),
        "searches": [
            {"queries": batch["queries"], "sources": [labels[k] for k in batch["source_keys"] if k in labels]}
            for batch in response.get("searches", [])
        ],
        "without_position": [labels[k] for k in response.get("cited_without_position", []) if k in labels],
        "reasoning": rendered.get("reasoning", []),
        "recitations": [_recitation_view(r, response["text"]) for r in response.get("recitations", [])],
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
