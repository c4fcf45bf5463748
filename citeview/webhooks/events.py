"""What each event's message says: ids, counts and links, never a dump's text or an editor's note.
Blind first holds here as on every page: a verdict goes only to an endpoint for reviewers
(``carries_verdicts``), as only a reviewer reads every verdict in citeview."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.review.models import Check
from citeview.webhooks.models import WebhookEndpoint


def carries_verdicts(endpoint: WebhookEndpoint) -> bool:
    """Whether the endpoint's messages may carry verdicts (blind first: only an endpoint for reviewers)."""
    return endpoint.for_reviewers


def message(event: str, data: dict[str, Any], timestamp: datetime) -> dict[str, Any]:
    """The message as Standard Webhooks shapes one: its type, when it happened and its data."""
    return {"type": event, "timestamp": timestamp.isoformat().replace("+00:00", "Z"), "data": data}


def link(name: str, *args: Any) -> str:
    """A link to a page or an API view, from ``CITEVIEW_BASE_URL`` (a path when it is not set)."""
    return f"{settings.CITEVIEW_BASE_URL}{reverse(name, args=args)}"


def dump_links(pk: int) -> dict[str, str]:
    return {
        "dump": link("pages:detail", pk),
        "api": link("api:dump", pk),
        "report": link("review:report", pk),
        "report_api": link("api:report", pk),
    }


def dump_stored_data(pk: int) -> dict[str, Any] | None:
    dump = Dump.objects.filter(pk=pk).only("pk", "sha256", "size", "response_count", "item_count").first()
    if dump is None:
        return None
    facts = {"id": dump.pk, "sha256": dump.sha256, "size": dump.size, "responses": dump.response_count}
    return {"dump": {**facts, "items": dump.item_count}, "links": dump_links(pk)}


def dump_read_failed_data(pk: int, code: str) -> dict[str, Any] | None:
    dump = Dump.objects.filter(pk=pk).only("pk", "sha256", "size").first()
    if dump is None:
        return None
    facts = {"id": dump.pk, "sha256": dump.sha256, "size": dump.size}
    return {
        "dump": facts,
        "error": {"code": code},
        "links": {"dump": link("pages:detail", pk), "api": link("api:dump", pk)},
    }


def dump_fully_checked_data(pk: int) -> dict[str, Any] | None:
    """Every item of the dump has the independent checks it needs (``checks_needed`` of them)."""
    dump = Dump.objects.filter(pk=pk).only("pk", "item_count", "checks_needed").first()
    if dump is None:
        return None
    facts = {"id": dump.pk, "items": dump.checkable_item_count, "checks_needed": dump.checks_needed}
    return {"dump": facts, "links": dump_links(pk)}


def check_data(check_pk: int, endpoint: WebhookEndpoint) -> dict[str, Any] | None:
    """A saved check or a settlement: which item, by whom, and the verdict for an endpoint for reviewers."""
    check = Check.rows.filter(pk=check_pk).select_related("editor").first()
    if check is None:
        return None
    by = "settled_by" if check.is_settlement else "editor"
    data: dict[str, Any] = {
        "dump": {"id": check.dump_id},
        "item": {"key": check.item_key, "kind": check.kind, "response": check.response_index},
        by: check.editor.get_username(),
        "links": {
            "item": link("review:item", check.dump_id, check.item_key),
            "dump": link("pages:detail", check.dump_id),
        },
    }
    if carries_verdicts(endpoint):
        data["verdict"] = check.verdict or None
    return data
