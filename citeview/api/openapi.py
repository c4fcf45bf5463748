"""The OpenAPI 3.1 document of the API, served at ``/api/openapi.json``.

Written by hand, next to the views it describes; ``tests/api`` checks that every route is in it and
schemathesis checks the running API against it (no 5xx, every answer in its schema, no way in
without the right token)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from citeview.api.rates import KINDS, WHOSE, rate_setting
from citeview.core.detection import registry
from citeview.review.forms import MAX_CHECK_BYTES, MAX_NOTE_CHARS, MAX_QUOTE_CHARS
from citeview.review.models import SUPPORTED_TOGETHER, VERDICTS, YES_NO, YES_NO_UNSURE

MAX_ID = 2**63 - 1

_CHECKS_NEEDED = {"enum": [1, 2], "description": "How many editors check each item, independently."}
_STRING_OR_NULL = {"type": ["string", "null"]}
_INTEGER = {"type": "integer", "minimum": 0}


def openapi_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "citeview API",
            "version": "1",
            "description": (
                "Store AI answers' raw API responses (dumps), read what citeview found in them, record "
                "evidence checks and read the handover report. Authenticate with `Authorization: Bearer "
                "<token>` (tokens are made on the account page, /accounts/): a reviewer's token reads, an "
                "editor's also stores dumps and records checks, as its user's role is at each request. A "
                "token lasts as long as chosen when it was made (90 days unless chosen otherwise, or "
                "without end), and a password change or a deactivated account revokes every token of "
                "its user. A browser session works too (writes then "
                'need the CSRF token as X-CSRFToken). Every error is `{"error": {"code", "message"}}`.'
            ),
        },
        "servers": [{"url": "/"}],
        "security": [{"token": []}, {"session": []}],
        "paths": _paths(),
        "components": {"securitySchemes": _security_schemes(), "schemas": _schemas(), "responses": _responses()},
    }


_READ_STATES = ["queued", "reading", "ready", "failed"]


def _paths() -> dict[str, Any]:
    dump_id = {
        "name": "id",
        "in": "path",
        "required": True,
        "description": "The dump's id.",
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
        "example": 1,
    }
    plan_id = {**dump_id, "description": "The check plan's id."}
    return {
        "/api/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "security": [],
                "responses": {
                    "200": _json_ok("The OpenAPI document.", {"type": "object"}),
                    "405": {"$ref": "#/components/responses/405"},
                },
            }
        },
        "/api/dumps": {
            "get": {
                "operationId": "listDumps",
                "summary": "The stored dumps, newest first, with the filters of the web list.",
                "parameters": _list_parameters(),
                "responses": _answers({"200": _json_ok("One page of dumps.", _ref("DumpPage"))}, 400, 404),
            },
            "post": {
                "operationId": "storeDump",
                "summary": "Store a dump: the raw response bytes as the body.",
                "description": (
                    "The body is the response exactly as saved: one JSON object, a JSON array of chunks, "
                    "JSON Lines, or an event stream (send it as text/event-stream, application/x-ndjson or "
                    "text/plain). The same bytes stored before answer 200 with that dump; title and tags "
                    "are set only on a dump stored now. An editor's token or session is needed. A dump "
                    f"larger than {settings.CITEVIEW_READ_IN_TASK_ABOVE:,} bytes (CITEVIEW_READ_IN_TASK_ABOVE), "
                    "and any dump carrying a PDF (a base64 document in its request, a fetched PDF), whatever "
                    "its size, is stored at once and read by a worker: the answer is then 202 with the dump's url and "
                    "a status link to ask until its state is ready (or failed, with the error)."
                ),
                "parameters": [
                    _query("title", "A title for the dump.", {"type": "string", "maxLength": 200}),
                    _query("tags", "Tags, separated by commas.", {"type": "string", "maxLength": 1000}),
                    _query(
                        "provider",
                        "Read the dump as this provider or API instead of detecting it.",
                        {"enum": ["", *registry.provider_names(), *registry.api_names()]},
                    ),
                    _filename_header("The file name to keep with the dump."),
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {}},
                        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                        "application/vnd.amazon.eventstream": {"schema": {"type": "string", "format": "binary"}},
                    },
                },
                "responses": _answers(
                    {
                        "201": _json_ok("Stored: what citeview read from it.", _ref("Dump")),
                        "200": _json_ok("These bytes were stored already: that dump.", _ref("Dump")),
                        "202": _json_ok("Stored, and queued to be read by a worker.", _ref("ReadStatus")),
                    },
                    400,
                    413,
                    415,
                ),
            },
        },
        "/api/dumps/{id}": {
            "get": {
                "operationId": "getDump",
                "summary": "What citeview read from a dump: the normalised JSON, with its id and page.",
                "parameters": [dump_id],
                "responses": _answers(
                    {
                        "200": _json_ok("The dump.", _ref("Dump")),
                        "202": _json_ok("Not read yet (or it could not be): where it stands.", _ref("ReadStatus")),
                    },
                    404,
                ),
            }
        },
        "/api/dumps/{id}/status": {
            "get": {
                "operationId": "getDumpStatus",
                "summary": "Where reading a dump stands: queued, reading, ready, or failed with the error.",
                "parameters": [dump_id],
                "responses": _answers({"200": _json_ok("Its state.", _ref("ReadStatus"))}, 404),
            }
        },
        "/api/dumps/{id}/checks": {
            "get": {
                "operationId": "getChecks",
                "summary": "The items to check, each with its version and the checks you may see.",
                "description": (
                    "Blind first: an editor sees another editor's check of an item only once their own "
                    "check of it is finished; hidden_until_you_check counts the checks left out."
                ),
                "parameters": [dump_id],
                "responses": _answers({"200": _json_ok("The items and their checks.", _ref("Checks"))}, 404, 409),
            },
            "post": {
                "operationId": "recordCheck",
                "summary": "Record your check of one item (editors).",
                "description": (
                    "Send the item's version as you read it. If someone saved the item since, the check "
                    "is refused with 409 and the current version: read the checks again and decide."
                ),
                "parameters": [dump_id],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": _ref("CheckInput"),
                            "example": {
                                "item": "r0-c0",
                                "version": 0,
                                "verdict": "partial",
                                "time": "no",
                                "note": "2019 figure",
                            },
                        }
                    },
                },
                "responses": _answers(
                    {"201": _json_ok("Recorded: the item with its checks now.", _ref("Item"))},
                    400,
                    404,
                    409,
                    413,
                ),
            },
        },
        "/api/dumps/{id}/assignees": {
            "get": {
                "operationId": "getAssignees",
                "summary": "The editors a dump is assigned to, and how many independent checks each item needs.",
                "parameters": [dump_id],
                "responses": _answers({"200": _json_ok("Its assignment.", _ref("Assignment"))}, 404),
            },
            "put": {
                "operationId": "setAssignees",
                "summary": "Assign a dump to these editors (and no one else), and set the checks per item (leads, staff).",
                "description": (
                    "Each editor assigned sees the dump in their queue. read_verdicts_before names the editors "
                    "added who could already read other editors' verdicts on it (a lead or staff not assigned "
                    "to it): their checks of the items judged before are recorded as not blind."
                ),
                "parameters": [dump_id],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": _ref("AssignmentInput"),
                            "example": {"editors": ["aoi", "ben"], "checks_needed": 2},
                        }
                    },
                },
                "responses": _answers(
                    {"200": _json_ok("Assigned: the assignment now, and what changed.", _ref("AssignmentChange"))},
                    400,
                    404,
                ),
            },
        },
        "/api/dumps/{id}/report": {
            "get": {
                "operationId": "getReport",
                "summary": "The handover report as JSON.",
                "parameters": [dump_id],
                "responses": _answers({"200": _json_ok("The report.", _ref("Report"))}, 404, 409),
            }
        },
        "/api/dumps/{id}/report.md": {
            "get": {
                "operationId": "getReportMarkdown",
                "summary": "The handover report as Markdown.",
                "parameters": [dump_id],
                "responses": _answers(
                    {
                        "200": {
                            "description": "The report.",
                            "content": {"text/markdown": {"schema": {"type": "string"}}},
                        }
                    },
                    404,
                    409,
                ),
            }
        },
        "/api/metrics": {
            "get": {
                "operationId": "getMetrics",
                "summary": "The team's figures (the Figures page), for the dumps the filters select.",
                "parameters": [
                    _query("provider", "Only this provider.", {"type": "string"}),
                    _query("api", "Only this API.", {"type": "string"}),
                    _query("model", "Only this model.", {"type": "string"}),
                    _query("tag", "Only dumps with this tag.", {"type": "string"}),
                    _query("since", "Stored on or after this day.", {"type": "string", "format": "date"}),
                    _query("until", "Stored on or before this day.", {"type": "string", "format": "date"}),
                ],
                "responses": _answers({"200": _json_ok("The figures.", _ref("Metrics"))}, 400),
            }
        },
        "/api/plans": {
            "get": {
                "operationId": "listPlans",
                "summary": "Every check plan, newest first, with its scope, seed, strata, size and N.",
                "parameters": [_query("page", "The page, from 1 (50 plans a page).", {"type": "string"})],
                "responses": _answers({"200": _json_ok("A page of plans.", _ref("PlanList"))}),
            }
        },
        "/api/plans/{id}": {
            "get": {
                "operationId": "getPlan",
                "summary": "A check plan's estimates for its whole scope (the Figures page's, for the plan).",
                "description": (
                    "Citation precision, citation recall (statement plans only: a citation plan says why "
                    "not in not_estimated_because) and the share of each verdict, each with its 95% interval "
                    "(low, high), n checked and N in scope, from final verdicts (settled, or agreed). While "
                    "the plan is not complete, the estimates cover the items checked so far. Blind first: "
                    "an editor's estimates leave out other editors' checks of items they have not checked."
                ),
                "parameters": [{**plan_id}],
                "responses": _answers({"200": _json_ok("The plan's estimates.", _ref("PlanEstimates"))}, 404),
            }
        },
        "/api/imports": {
            "post": {
                "operationId": "importDumps",
                "summary": "Store many dumps: a .zip of dump files, or JSON Lines with one response per line.",
                "description": (
                    "Each dump is stored on its own; one that cannot be read is reported with the reason "
                    f"and the others are stored. Up to {settings.CITEVIEW_MAX_IMPORT_BYTES:,} bytes in all "
                    "(CITEVIEW_MAX_IMPORT_BYTES), each dump within the dump limit. At most "
                    f"{settings.CITEVIEW_MAX_IMPORT_ENTRIES:,} dumps (CITEVIEW_MAX_IMPORT_ENTRIES), and a .zip "
                    "lists at most twice as many files and folders; more is 400 too_many_entries, with "
                    "nothing stored. A .zip's files may unpack to "
                    f"{settings.CITEVIEW_MAX_IMPORT_UNPACKED_BYTES:,} bytes in all "
                    "(CITEVIEW_MAX_IMPORT_UNPACKED_BYTES): more, as the .zip declares it, is 413 too_large "
                    "with nothing stored; more as it is read is an error for each file from there on. A "
                    "file packed with other than Deflate or stored is an error of its own "
                    "(unsupported_compression). Editors only."
                ),
                "parameters": [
                    _query(
                        "tags",
                        "Tags to add to every dump of the import (those stored before too), separated by commas.",
                        {"type": "string", "maxLength": 1000},
                    ),
                    _filename_header("The import file's name, to name its entries by."),
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/zip": {"schema": {"type": "string", "format": "binary"}},
                        "application/x-ndjson": {"schema": {"type": "string"}},
                        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                    },
                },
                "responses": _answers(
                    {"200": _json_ok("What became of each dump.", _ref("ImportResults"))}, 400, 413, 415
                ),
            }
        },
    }


def _list_parameters() -> list[dict[str, Any]]:
    return [
        _query(
            "q", "Words in the title, headline, file name, answers or sources.", {"type": "string", "maxLength": 200}
        ),
        _query(
            "provider", "Only dumps with a response from this provider.", {"enum": ["", *registry.provider_names()]}
        ),
        _query(
            "status", "The worst status of the dump's responses.", {"enum": ["", "completed", "incomplete", "failed"]}
        ),
        _query("tag", "A tag the dump has.", {"type": "string", "maxLength": 50}),
        _query("assignee", "An editor's user name, or - for dumps assigned to nobody.", {"type": "string"}),
        _query("progress", "How far the checks are.", {"enum": ["", "unchecked", "in_progress", "done"]}),
        _query("page", "The page, from 1.", {"type": "integer", "minimum": 1, "default": 1}),
        _query("page_size", "Dumps per page.", {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}),
    ]


def _security_schemes() -> dict[str, Any]:
    return {
        "token": {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token from the account page, until it expires or is revoked.",
        },
        "session": {"type": "apiKey", "in": "cookie", "name": "sessionid", "description": "A logged-in browser."},
    }


def _schemas() -> dict[str, Any]:
    return {
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {
                        "code": {"type": "string", "description": "Stable, for programs."},
                        "message": {"type": "string", "description": "For people, in English."},
                        "fields": {
                            "type": "object",
                            "description": "For invalid_input: what is wrong with each value.",
                            "additionalProperties": {"type": "array", "items": {"type": "string"}},
                        },
                        "version": {"type": "integer", "description": "For conflict: the item's version now."},
                        "state": {"enum": _READ_STATES, "description": "For not_ready: where reading the dump stands."},
                        "status_url": {
                            "type": "string",
                            "format": "uri",
                            "description": "For not_ready: its status link.",
                        },
                        "expired_at": {
                            "type": "string",
                            "format": "date-time",
                            "description": "For token_expired: when the token expired.",
                        },
                        "retry_after": {
                            "type": "integer",
                            "minimum": 1,
                            "description": "For too_many_requests: the seconds to wait, as the Retry-After header.",
                        },
                    },
                }
            },
        },
        "ReadStatus": {
            "type": "object",
            "description": "Where reading a dump's stored bytes stands.",
            "required": ["id", "state", "error", "attempts", "url", "status"],
            "properties": {
                "id": _INTEGER,
                "state": {"enum": _READ_STATES},
                "error": {
                    "oneOf": [
                        {"type": "null"},
                        {
                            "type": "object",
                            "required": ["code", "message"],
                            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                        },
                    ],
                    "description": "For failed: why it could not be read.",
                },
                "attempts": _INTEGER,
                "url": {"type": "string", "format": "uri", "description": "The dump's page."},
                "status": {"type": "string", "format": "uri", "description": "This status, to ask again."},
            },
        },
        "Dump": {
            "type": "object",
            "description": "The normalised JSON (see docs/normalized-json.md), with the dump's id and page.",
            "required": ["citeview", "dump", "responses", "id", "url"],
            "properties": {
                "citeview": {"const": 1},
                "dump": {
                    "type": "object",
                    "required": ["sha256", "bytes", "framing"],
                    "properties": {
                        "sha256": {"type": "string"},
                        "bytes": _INTEGER,
                        "framing": {"enum": ["json", "json-array", "jsonl", "sse", "eventstream"]},
                    },
                },
                "responses": {"type": "array", "items": _ref("Response")},
                "id": _INTEGER,
                "url": {"type": "string", "format": "uri"},
            },
        },
        "Response": {
            "type": "object",
            "required": [
                "provider",
                "api",
                "streamed",
                "status",
                "text",
                "sources",
                "citations",
                "unresolved",
                "diagnostics",
            ],
            "properties": {
                "provider": {"enum": registry.provider_names()},
                "api": {"enum": registry.api_names()},
                "streamed": {"type": "boolean"},
                "id": _STRING_OR_NULL,
                "model": _STRING_OR_NULL,
                "status": {"enum": ["completed", "incomplete", "failed"]},
                "status_detail": _STRING_OR_NULL,
                "text": {"type": "string"},
                "sources": {"type": "array", "items": {"type": "object", "required": ["key", "kind", "url", "title"]}},
                "citations": {
                    "type": "array",
                    "items": {"type": "object", "required": ["start", "end", "source_keys"]},
                },
                "unresolved": {"type": "array", "items": {"type": "object", "required": ["marker", "start", "end"]}},
                "cited_without_position": {
                    "type": "array",
                    "description": "Keys of the sources the response cites without saying where in the text.",
                    "items": {"type": "string"},
                },
                "reasoning": {
                    "type": "array",
                    "description": "The model's plan or thinking, with citations into its own text (not the answer's).",
                    "items": {"type": "object", "required": ["kind", "text", "citations"]},
                },
                "recitations": {
                    "type": "array",
                    "description": "Recitation notices (Gemini citationMetadata): attribution, not grounding.",
                    "items": {"type": "object", "required": ["start", "end", "url"]},
                },
                "diagnostics": {
                    "type": "array",
                    "items": {"type": "object", "required": ["code", "severity", "message"]},
                },
            },
        },
        "DumpSummary": {
            "type": "object",
            "required": ["id", "title", "sha256", "size", "stored_at", "status", "url"],
            "properties": {
                "id": _INTEGER,
                "title": {"type": "string"},
                "filename": {"type": "string"},
                "sha256": {"type": "string"},
                "size": _INTEGER,
                "stored_at": {"type": "string", "format": "date-time"},
                "state": {
                    "enum": _READ_STATES,
                    "description": "Whether it has been read: the counts are 0 until then.",
                },
                "uploaded_by": _STRING_OR_NULL,
                "providers": {"type": "array", "items": {"type": "string"}},
                "apis": {"type": "array", "items": {"type": "string"}},
                "models": {"type": "array", "items": {"type": "string"}},
                "status": {"enum": ["completed", "incomplete", "failed", ""]},
                "citation_count": _INTEGER,
                "unresolved_count": _INTEGER,
                "source_count": _INTEGER,
                "item_count": {**_INTEGER, "description": "The items editors can check."},
                "uncheckable_item_count": {
                    **_INTEGER,
                    "description": "Items past CITEVIEW_MAX_ITEMS_PER_DUMP, which cannot be checked.",
                },
                "checked_item_count": {**_INTEGER, "description": "Items with at least one check."},
                "complete_item_count": {
                    **_INTEGER,
                    "description": "Items with the independent checks they need (checks_needed).",
                },
                "checks_needed": _CHECKS_NEEDED,
                "tags": {"type": "array", "items": {"type": "string"}},
                "assignees": {"type": "array", "items": {"type": "string"}, "description": "Editors, by name."},
                "url": {"type": "string", "format": "uri"},
            },
        },
        "Assignment": {
            "type": "object",
            "required": ["dump", "editors", "checks_needed", "item_count", "checked_item_count", "complete_item_count"],
            "properties": {
                "dump": _INTEGER,
                "editors": {"type": "array", "items": {"type": "string"}},
                "checks_needed": _CHECKS_NEEDED,
                "item_count": _INTEGER,
                "checked_item_count": _INTEGER,
                "complete_item_count": _INTEGER,
            },
        },
        "AssignmentInput": {
            "type": "object",
            "required": ["editors"],
            "properties": {
                "editors": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "User names of active editors or leads; empty for nobody.",
                },
                "checks_needed": _CHECKS_NEEDED,
            },
        },
        "AssignmentChange": {
            "allOf": [
                _ref("Assignment"),
                {
                    "type": "object",
                    "required": ["added", "removed", "read_verdicts_before"],
                    "properties": {
                        "added": {"type": "array", "items": {"type": "string"}},
                        "removed": {"type": "array", "items": {"type": "string"}},
                        "read_verdicts_before": {"type": "array", "items": {"type": "string"}},
                    },
                },
            ]
        },
        "DumpPage": {
            "type": "object",
            "required": ["count", "page", "page_size", "next", "previous", "results"],
            "properties": {
                "count": _INTEGER,
                "page": {"type": "integer", "minimum": 1},
                "page_size": {"type": "integer", "minimum": 1},
                "next": _STRING_OR_NULL,
                "previous": _STRING_OR_NULL,
                "results": {"type": "array", "items": _ref("DumpSummary")},
            },
        },
        "Checks": {
            "type": "object",
            "description": (
                "Items name their statement and source by key; each statement and source is listed once. "
                "A dump offers at most CITEVIEW_MAX_ITEMS_PER_DUMP items; uncheckable_item_count counts "
                "those past it."
            ),
            "required": [
                "dump",
                "statements",
                "sources",
                "items",
                "hidden_until_you_check",
                "uncheckable_item_count",
            ],
            "properties": {
                "dump": _INTEGER,
                "statements": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["key", "response", "text"],
                        "properties": {"key": {"type": "string"}, "response": _INTEGER, "text": {"type": "string"}},
                    },
                },
                "sources": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "description": "A cited source, by its key within its response.",
                        "required": ["response", "key", "url", "title"],
                        "properties": {
                            "response": _INTEGER,
                            "key": {"type": "string"},
                            "url": _STRING_OR_NULL,
                            "title": _STRING_OR_NULL,
                        },
                    },
                },
                "items": {"type": "array", "items": _ref("Item")},
                "hidden_until_you_check": _INTEGER,
                "uncheckable_item_count": _INTEGER,
            },
        },
        "Item": {
            "type": "object",
            "description": (
                "A citation (one source of it), a citation with no source (an unresolved marker: its "
                "statement's answers are recorded for it), or a statement that cites nothing."
            ),
            "required": ["key", "kind", "response", "statement_key", "version", "checks"],
            "properties": {
                "key": {"type": "string", "description": "What a check names as its item."},
                "kind": {"enum": ["citation", "unresolved", "statement"]},
                "ref": {"type": "string", "description": "An unresolved marker's reference, as the answer wrote it."},
                "response": _INTEGER,
                "statement_key": {"type": "string", "description": "Its statement, in statements."},
                "version": {"type": "integer", "minimum": 0, "description": "Send it back with a check."},
                "marker": _STRING_OR_NULL,
                "source_key": {**_STRING_OR_NULL, "description": "Its source in sources (with response)."},
                "checks": {"type": "array", "items": _ref("Check")},
            },
        },
        "Check": {
            "type": "object",
            "required": ["editor", "note", "updated_at"],
            "properties": {
                "editor": {"type": "string"},
                **{name: {"type": "string"} for name in _CHECK_FIELDS},
                "updated_at": {"type": "string", "format": "date-time"},
            },
        },
        "CheckInput": {
            "type": "object",
            "description": (
                "A citation needs a verdict; a statement that cites nothing needs verification_worthy. "
                "The check replaces your earlier check of the item, so send every field you want kept; "
                "verification_worthy and supported_together, which a statement's citations share, are "
                "written only when sent. Fields an item does not have are ignored. Longer text than "
                f"maxLength, like a body over {MAX_CHECK_BYTES:,} bytes, is refused with 413 too_large."
            ),
            "required": ["item", "version"],
            "properties": {
                "item": {"type": "string", "description": "The item's key."},
                "version": {"type": "integer", "minimum": 0},
                "verdict": _choice(VERDICTS),
                "subject": _choice(YES_NO_UNSURE),
                "time": _choice(YES_NO_UNSURE),
                "conditions": _choice(YES_NO_UNSURE),
                "evidence_quote": {"type": "string", "maxLength": MAX_QUOTE_CHARS},
                "note": {"type": "string", "maxLength": MAX_NOTE_CHARS},
                "verification_worthy": _choice(YES_NO),
                "supported_together": _choice(SUPPORTED_TOGETHER),
            },
        },
        "FigureScope": {
            "type": "object",
            "description": (
                "What a figure of checks is computed on: the items whose checks the reader may read (blind "
                "first: an editor reads other editors' checks of an item once they have checked it), of "
                "the items the dumps hold. complete is false when the figure counts fewer than all."
            ),
            "required": ["visible_items", "items", "complete"],
            "properties": {"visible_items": _INTEGER, "items": _INTEGER, "complete": {"type": "boolean"}},
        },
        "Report": {
            "type": "object",
            "required": ["citeview_report", "dump", "summary", "responses", "hidden_until_you_check"],
            "properties": {
                "citeview_report": {"const": 1},
                "dump": {"type": "object"},
                "summary": {
                    "type": "object",
                    "description": "Counted on final verdicts, on the items scope says.",
                    "required": ["scope", "final_verdicts", "citation_recall", "citation_precision"],
                    "properties": {
                        "scope": _ref("FigureScope"),
                        "final_verdicts": {"type": "object", "additionalProperties": _INTEGER},
                        "citation_recall": {"type": "object"},
                        "citation_precision": {"type": "object"},
                    },
                },
                "responses": {"type": "array", "items": {"type": "object"}},
                "hidden_until_you_check": _INTEGER,
                "uncheckable_item_count": _INTEGER,
            },
        },
        **_plan_schemas(),
        "Metrics": {
            "type": "object",
            "description": (
                "Blind first: for an editor, other editors' checks of items they have not checked are left "
                "out; hidden_until_you_check counts those checks, and scope (overall, and in each slice) the "
                "items each figure of checks is computed on."
            ),
            "required": ["filters", "scope", "overall", "hidden_until_you_check"],
            "properties": {
                "filters": {"type": "object"},
                "scope": _ref("FigureScope"),
                "overall": _ref("MetricsSlice"),
                "hidden_until_you_check": _INTEGER,
                **{
                    name: {"type": "array", "items": _ref("MetricsSlice")}
                    for name in ("by_provider", "by_api", "by_model", "by_tag", "by_uploader")
                },
            },
        },
        "MetricsSlice": {
            "type": "object",
            "required": ["label", "scope", "dumps", "final_verdicts", "final_verdicts_left_out", "editor_verdicts"],
            "properties": {
                "label": {"type": "string"},
                "scope": _ref("FigureScope"),
                "dumps": _INTEGER,
                "final_verdicts": {
                    "type": "object",
                    "description": (
                        "Each citation once, by its final verdict: settled, else the one its editors agree on."
                    ),
                    "additionalProperties": _INTEGER,
                },
                "final_verdicts_left_out": {
                    **_INTEGER,
                    "description": "Citations editors disagree on that nobody has settled: in no final count.",
                },
                "editor_verdicts": {
                    "type": "object",
                    "description": "Every editor's own verdict: a citation two editors judged counts twice.",
                    "additionalProperties": _INTEGER,
                },
            },
        },
        "ImportResults": {
            "type": "object",
            "required": ["stored", "already_stored", "errors", "results"],
            "properties": {
                "stored": _INTEGER,
                "already_stored": _INTEGER,
                "errors": _INTEGER,
                "results": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "outcome"],
                        "properties": {
                            "name": {"type": "string"},
                            "outcome": {"enum": ["stored", "already_stored", "error"]},
                            "id": _INTEGER,
                            "url": {"type": "string", "format": "uri"},
                            "error": {"type": "object", "required": ["code", "message"]},
                        },
                    },
                },
            },
        },
    }


_CHECK_FIELDS = (
    "verdict",
    "subject",
    "time",
    "conditions",
    "evidence_quote",
    "note",
    "verification_worthy",
    "supported_together",
)
_ERROR_DESCRIPTIONS = {
    400: "The input is not valid: the message (and fields) say what is wrong.",
    401: "No token or session, or a token that is not valid: unknown or revoked (invalid_token) or expired (token_expired).",
    403: "The account's role does not allow this.",
    404: "No such dump, item or page.",
    405: "The method is not allowed here.",
    409: "Someone saved the item since the version sent (conflict), or the dump has not been read yet (not_ready).",
    413: "The body is over the size limit.",
    415: "The body's media type is not accepted.",
}


_SHARE = {"type": ["number", "null"], "minimum": 0, "maximum": 1}


def _plan_schemas() -> dict[str, Any]:
    """A check plan and its estimates (``citeview.review.plan_estimates``)."""
    text_or_null = {"type": ["string", "null"]}
    plan = {
        "type": "object",
        "required": ["id", "name", "unit", "scope", "seed", "size", "population", "strata", "made_at"],
        "properties": {
            "id": _INTEGER,
            "name": {"type": "string"},
            "unit": {"enum": ["citation", "statement"]},
            "scope": {
                "type": "object",
                "description": "kind says which of the other fields is the scope.",
                "properties": {
                    "kind": {"enum": ["batch", "tag", "provider", "dates"]},
                    "dump": {"type": ["integer", "null"]},
                    "tag": text_or_null,
                    "provider": text_or_null,
                    "from": {**text_or_null, "format": "date"},
                    "to": {**text_or_null, "format": "date"},
                },
            },
            "seed": {"type": "integer", "description": "The draw's seed: the same seed draws the same sample."},
            "size": {**_INTEGER, "description": "Units drawn (n)."},
            "population": {**_INTEGER, "description": "Units in scope when the plan was drawn (N)."},
            "confidence": {"type": "number"},
            "requested_size": {"type": ["integer", "null"]},
            "target_margin": {"type": ["number", "null"]},
            "strata": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["stratum", "population", "drawn"],
                    "properties": {"stratum": {"type": "string"}, "population": _INTEGER, "drawn": _INTEGER},
                },
            },
            "dumps_in_scope": _INTEGER,
            "made_by": {"type": "string"},
            "made_at": {"type": "string", "format": "date-time"},
            "url": {"type": "string", "format": "uri"},
        },
    }
    estimate = {
        "type": "object",
        "required": ["name", "value", "low", "high", "not_estimated_because"],
        "properties": {
            "name": {"type": "string", "description": "citation_precision, citation_recall or verdict_<verdict>."},
            "value": _SHARE,
            "low": _SHARE,
            "high": _SHARE,
            "checked": {**_INTEGER, "description": "n: checked units in the estimate's domain."},
            "drawn": _INTEGER,
            "population": {**_INTEGER, "description": "N: units in scope."},
            "confidence": {"type": "number"},
            "complete": {"type": "boolean"},
            "uncovered": {
                **_INTEGER,
                "description": "Units in scope in strata with no checked unit yet: the estimate leaves them out.",
            },
            "method": {"type": "string", "description": "The interval's method, as a stable code."},
            "not_estimated_because": {**text_or_null, "description": "Why there is no estimate at all."},
        },
    }
    return {
        "Plan": plan,
        "PlanList": {
            "type": "object",
            "required": ["count", "results"],
            "properties": {
                "count": _INTEGER,
                "next": {"type": ["string", "null"]},
                "previous": {"type": ["string", "null"]},
                "results": {"type": "array", "items": _ref("Plan")},
            },
        },
        "PlanEstimate": estimate,
        "PlanEstimates": {
            "type": "object",
            "required": ["plan", "items", "items_checked", "complete", "hidden_until_you_check", "estimates"],
            "properties": {
                "plan": _ref("Plan"),
                "items": {**_INTEGER, "description": "Items drawn."},
                "items_checked": {**_INTEGER, "description": "Items with every answer the estimates read final."},
                "complete": {"type": "boolean"},
                "hidden_until_you_check": _INTEGER,
                "estimates": {"type": "array", "items": _ref("PlanEstimate")},
            },
        },
    }


def _responses() -> dict[str, Any]:
    responses = {
        str(status): {"description": text, "content": {"application/json": {"schema": _ref("Error")}}}
        for status, text in {**_ERROR_DESCRIPTIONS, 429: _rate_limits()}.items()
    }
    responses["429"]["headers"] = {
        "Retry-After": {"description": "Seconds until the budget starts again.", "schema": {"type": "integer"}}
    }
    return responses


def _rate_limits() -> str:
    """The 429's description, with the limits this server keeps (settings ``CITEVIEW_API_RATE_*``)."""
    budgets = "; ".join(
        f"per {whose}, " + " and ".join(f"{rate_setting(whose, kind) or 'unlimited'} {kind}" for kind in KINDS)
        for whose in WHOSE
    )
    return (
        "Too many requests (too_many_requests): reads (GET, HEAD, OPTIONS) and writes each have a budget per token "
        "and a larger one per account (its tokens and its session together), counted in fixed windows. "
        f"This server allows {budgets} (60/m is 60 a minute). Wait Retry-After seconds, then send it again."
    )


def _answers(successes: dict[str, Any], *errors: int) -> dict[str, Any]:
    """The successes, the errors named, and those every operation can answer."""
    answers = dict(successes)
    for status in sorted({*errors, 401, 403, 405, 429}):
        answers[str(status)] = {"$ref": f"#/components/responses/{status}"}
    return answers


def _json_ok(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _filename_header(description: str) -> dict[str, Any]:
    return {
        "name": "X-Filename",
        "in": "header",
        "required": False,
        "description": description,
        "schema": {"type": "string", "maxLength": 255},
    }


def _query(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema}


def _choice(choices: list[tuple[str, Any]]) -> dict[str, Any]:
    return {"enum": [value for value, _label in choices] + [""]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}
