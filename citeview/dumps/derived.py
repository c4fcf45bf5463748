"""What citeview derives from a dump's bytes (its result, its renderings, what the list shows and
searches) and the version that says what derived it.

A stored result is current while its ``result_version`` is :func:`result_version`: a digest of
everything besides the bytes that the derived fields are made from. Change any of it and every stored
result is out of date, to be rebuilt (``refresh_dumps``, or the first view).
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import ngettext, to_locale

from citeview.core.checking.items import items_per_response
from citeview.core.common.url_keys import cited_url_hashes
from citeview.core.common.version import RESULT_VERSION
from citeview.core.detection import registry
from citeview.core.parsing.parse import Attachment, parse_dump
from citeview.core.rendering.answer import render_response, response_prefix

_STATUS_RANK = {"completed": 0, "incomplete": 1, "failed": 2}
# A dump of more responses than this is a batch: browsed one response at a time (citeview.dumps.batches),
# its report's details paged, and titled as a batch rather than by its first answer.
BATCH_RESPONSES = 10
_HEADLINE_NOISE = re.compile(r"\[(?:web:)?\d+\]|\*\*|__|`")


def result_version() -> str:
    """What the derived fields are made from besides a dump's bytes, as one SHA-256: the core's code and
    the libraries it renders with (``RESULT_VERSION``), this module, the settings the renderer reads, and
    the catalogues of the interface languages, since each rendering carries our own words in its language
    (footnote names, the explanations of unresolved markers)."""
    made_from = [
        f"core {RESULT_VERSION}",
        f"derived {_file_digest(Path(__file__))}",
        f"max_citations_drawn {settings.CITEVIEW_MAX_CITATIONS_DRAWN}",
        *(f"catalogue {code} {_catalogue_digest(code)}" for code, _name in settings.LANGUAGES),
    ]
    return hashlib.sha256("\n".join(made_from).encode()).hexdigest()


def _catalogue_digest(language: str) -> str:
    locale = to_locale(language)
    paths = [Path(root) / locale / "LC_MESSAGES" / "django.mo" for root in settings.LOCALE_PATHS]
    return " ".join(_file_digest(path) for path in paths)


def _file_digest(path: Path) -> str:
    # Files do not change under a deployed process; in development a catalogue is compiled again under
    # a running server (which reloads it without restarting), so it is read again each time.
    return _read_digest(path) if settings.DEBUG else _kept_digest(path)


def _read_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return "missing"  # an uncompiled catalogue: the renderings are in English


_kept_digest = functools.cache(_read_digest)


def derived_fields(raw: bytes | IO[bytes], provider: str | None, request: Attachment | None) -> dict[str, Any]:
    """The fields of a ``Dump`` made from its bytes (and its request's): ``Dump.DERIVED_FIELDS``.
    Raises :class:`citeview.core.common.errors.DumpError` for a dump that cannot be read."""
    return fields_of_result(normalised_result(raw, provider, request))


def normalised_result(raw: bytes | IO[bytes], provider: str | None, request: Attachment | None) -> dict[str, Any]:
    """A dump's normalised JSON (``normalized-json.md``), or a DumpError. ``raw`` is its bytes, or a
    file of them (a stored blob opened ``rb``), read a part at a time."""
    return parse_dump(raw, provider=provider, max_bytes=settings.CITEVIEW_MAX_DUMP_BYTES, request=request).to_json()


def fields_of_result(result: dict[str, Any]) -> dict[str, Any]:
    """``derived_fields`` of a dump whose normalised JSON is made: its bytes are needed no more."""
    responses = result["responses"]
    return {
        "framing": result["dump"]["framing"],
        "apis": ", ".join(dict.fromkeys(r["api"] for r in responses)),
        "providers": ", ".join(dict.fromkeys(r["provider"] for r in responses)),
        "model_names": ", ".join(dict.fromkeys(r["model"] for r in responses if r["model"]))[:300],
        "response_count": len(responses),
        "incomplete_response_count": sum(1 for r in responses if r["status"] != "completed"),
        "status": max((r["status"] for r in responses), key=_STATUS_RANK.__getitem__),
        "headline": _headline(responses),
        "citation_count": sum(len(r["citations"]) for r in responses),
        "unresolved_count": sum(len(r["unresolved"]) for r in responses),
        "source_count": sum(len(r["sources"]) for r in responses),
        "item_count": sum(sum(parts) for parts in items_per_response(responses)),
        "response_items": _response_items(responses),
        "search_text": _search_text(responses),
        "cited_url_hashes": cited_url_hashes(s["url"] for r in responses for s in r["sources"]),
        "result": result,
        "rendered": _rendered_per_language(responses),
        "result_version": result_version(),
        "derived_at": timezone.now(),
    }


def _response_items(responses: list[dict[str, Any]]) -> list[list[Any]]:
    """Per response, what a figure of part of a dump counts: its provider, API and model, and its items
    in each part of the check's order (``items_per_response``)."""
    return [
        [response["provider"], response["api"], response["model"] or "", *parts]
        for response, parts in zip(responses, items_per_response(responses), strict=True)
    ]


def _rendered_per_language(responses: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each response rendered once per interface language: the answer carries our own words too
    (footnote names, explanations of unresolved markers), and pages never render."""
    rendered = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            rendered[language] = [
                render_response(r, response_prefix(i), translation.gettext, settings.CITEVIEW_MAX_CITATIONS_DRAWN)
                for i, r in enumerate(responses)
            ]
    return rendered


def _search_text(responses: list[dict[str, Any]]) -> str:
    """What the list's search looks in: the answers, and the sources' URLs and titles."""
    parts = []
    for response in responses:
        parts.append(response["text"])
        parts.extend(f"{s['url'] or ''} {s['title'] or ''}" for s in response["sources"])
    return "\n".join(parts)


def _headline(responses: list[dict[str, Any]]) -> str:
    """The first line of the first answer, without Markdown marks or citation markers, to recognise a dump by;
    for a batch, its providers (its title, :func:`batch_title`, says the rest in the reader's language)."""
    if len(responses) > BATCH_RESPONSES:
        return _providers_named(responses)
    for response in responses:
        for line in response["text"].splitlines():
            line = _HEADLINE_NOISE.sub("", line).strip().lstrip("#>-*| ")
            if line:
                return line[:200]
    return ""


def _providers_named(responses: list[dict[str, Any]]) -> str:
    """Each provider of the responses once, in the order they come, as it writes its name ("OpenAI,
    Perplexity")."""
    names = []
    for response in responses:
        api = registry.api_format(response["api"])
        names.append(api.provider.label if api else response["provider"])
    return ", ".join(dict.fromkeys(names))[:200]


def batch_title(response_count: int, providers: str) -> str:
    """What a batch is called when no one has titled it, in the active language: "Batch of 200
    responses · OpenAI, Perplexity" (``providers``: its headline), never its first answer's words."""
    values = {"n": response_count, "providers": providers}
    if not providers:
        return ngettext("Batch of %(n)s response", "Batch of %(n)s responses", response_count) % values
    return (
        ngettext("Batch of %(n)s response · %(providers)s", "Batch of %(n)s responses · %(providers)s", response_count)
        % values
    )
