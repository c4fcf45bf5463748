"""Each page loads the scripts it uses and no other: every page the one every page needs (citeview.js:
the header's menu, the footnotes' cards, clearing drafts at sign-out), the check page its panel's
(check.js), a page waiting for a worker the one that follows it (progress.js). None is written inline:
the Content Security Policy allows scripts from our own origin alone."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"  # one statement citing [2] and [9]; its first item is r0-c0-1
SCRIPT = re.compile(r"<script\b([^>]*)>", re.IGNORECASE)
SOURCE = re.compile(r'\bsrc="/static/citeview/([^"]+)"')


@pytest.fixture
def dump(editor) -> Dump:
    return dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]


def scripts_loaded(response) -> list[str]:
    """The page's scripts, by file name, in the order it loads them; an inline script fails the test."""
    assert response.status_code == 200
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    loaded = []
    for attributes in SCRIPT.findall(response.content.decode()):
        source = SOURCE.search(attributes)
        assert source, f"an inline script: <script{attributes}>"
        loaded.append(source.group(1))
    return loaded


def test_the_list_of_dumps_loads_only_what_every_page_needs(editor_client, dump):
    assert scripts_loaded(editor_client.get(reverse("pages:home"))) == ["citeview.js"]


def test_the_viewer_loads_only_what_every_page_needs(editor_client, dump):
    assert scripts_loaded(editor_client.get(dump.get_absolute_url())) == ["citeview.js"]


def test_the_check_page_loads_its_panels_script_after_what_every_page_needs(editor_client, dump):
    page = editor_client.get(reverse("review:item", args=[dump.pk, "r0-c0-1"]))
    assert scripts_loaded(page) == ["citeview.js", "check.js"]


def test_a_page_that_checks_nothing_loads_no_check_script(editor_client, dump):
    for name in ("review:queue", "review:figures", "dumps:import"):
        assert "check.js" not in scripts_loaded(editor_client.get(reverse(name))), name
    assert "check.js" not in scripts_loaded(editor_client.get(reverse("review:report", args=[dump.pk])))


def test_the_sign_in_page_clears_drafts_with_what_every_page_needs(client):
    assert scripts_loaded(client.get(reverse("login"))) == ["citeview.js"]


def test_a_dump_waiting_for_a_worker_loads_the_script_that_follows_it(editor_client, settings, database_queue):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 10  # read by a worker, which these tests never run
    editor_client.post("/", {"text": own_fixture(SEED).decode()})
    waiting = Dump.objects.get()
    assert scripts_loaded(editor_client.get(waiting.get_absolute_url())) == ["citeview.js", "progress.js"]
