"""schemathesis against the API on a live test server: requests generated from /api/openapi.json,
valid and invalid, find no server error, no answer the document does not describe, and no way in
without a valid token (``ignored_auth`` repeats each successful request without it and with a wrong one)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from citeview.accounts.tokens import token_create
from citeview.dumps.services import dump_ingest
from citeview.review.plans import PlanDraft, PlanScope, plan_make
from tests.conftest import own_fixture, user_with_role

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "ignored_auth",
    "unsupported_method",
)


@pytest.fixture
def editor_key(transactional_db, django_user_model) -> str:
    editor = user_with_role(django_user_model, "schema-editor", "editor")
    dump = dump_ingest(raw=own_fixture("claude-ja-documents-exchange.json"), uploaded_by=editor)[0]  # an id to find
    # A check plan over it, so that a plan's estimates are answered too, not only a 404.
    draft = PlanDraft("schema", "citation", PlanScope(kind="batch", dump=dump), 3, None, [editor], 1)
    plan_make(draft=draft, by=user_with_role(django_user_model, "schema-lead", "lead"))
    return token_create(user=editor, name="schemathesis")[1]


def test_the_api_keeps_to_its_document(live_server, editor_key, tmp_path, no_api_rate_limits):
    schemathesis = Path(sys.executable).with_name("schemathesis")
    command = [
        str(schemathesis),
        "run",
        f"{live_server.url}/api/openapi.json",
        "--header",
        f"Authorization: Bearer {editor_key}",
        "--checks",
        ",".join(CHECKS),
        "--max-examples",
        "25",
        "--phases",
        "examples,coverage,fuzzing",
        "--workers",
        "1",
        "--seed",
        "20261130",
        "--generation-database",
        "none",
        "--no-color",
        "--suppress-health-check",
        "filter_too_much",  # most generated X-Filename values are no valid header and are dropped
    ]
    run = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=900)
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]
