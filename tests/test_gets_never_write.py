"""A GET never writes: every page and API address the app answers a GET at, asked of a dump that is read
and current, read by older code (its rebuild queued), and still to be read, runs no INSERT, UPDATE or
DELETE. What a page needs kept is kept by the worker that read the dump or by a task the page queues
(``citeview.dumps.reading``), and a queued task's row is the one write a GET may make: once per thing
to do, however many GETs ask (the last tests here).

Left out, as no data of the app: the session's table (Django writes a session when its contents change,
and the test client's login is done before the GETs), and the two cache tables (``citeview_cache`` keeps
fragments of pages, each made again from the database if it is lost; ``citeview_rate_cache`` counts the
API's requests against their budget, which every request must do). A login's ``last_login`` is written
by the POST that logs in, never by these GETs.
"""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from tests.conftest import own_fixture, user_with_role

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"  # four items, one of them citing two web pages
EXEMPT = re.compile(r'^\s*(INSERT INTO|UPDATE|DELETE FROM)\s+"?(django_session|citeview_cache|citeview_rate_cache)"?\b')
WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)
NOT_ASKED = ("admin/", "oidc/", "api/^")  # Django's admin; a redirect to the identity provider; the API's 404s
# The browser sends these with every request; the Search Suggestions frame answers only inside its frame.
BROWSER = {"HTTP_SEC_FETCH_DEST": "iframe", "HTTP_SEC_FETCH_SITE": "same-origin"}


def addresses(resolver: URLResolver | None = None, prefix: str = "") -> list[str]:
    """Every address the app routes, with its parameters as a pattern (``dumps/<int:pk>/``)."""
    found = []
    for pattern in (resolver or get_resolver()).url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            found.extend(addresses(pattern, route))
        elif isinstance(pattern, URLPattern) and not route.startswith(NOT_ASKED):
            found.append(route)
    return found


def filled(route: str, dump: Dump, key: str) -> str:
    values = {"pk": str(dump.pk), "key": key, "index": "0"}
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m.group(1)], route)


def writes(queries: list[dict[str, str]]) -> list[str]:
    return [q["sql"] for q in queries if WRITE.match(q["sql"]) and not EXEMPT.match(q["sql"])]


def first_citation(dump: Dump) -> str:
    if not dump.is_ready:
        return "r0-c0"  # no items yet: the pages answer as for an unread dump
    return next(i.key for i in dump_check_items(Dump.objects.get(pk=dump.pk)) if i.kind == "citation")


def get_everything(client, dump: Dump) -> dict[str, list[str]]:
    """Each address asked with GET, and the writes it made."""
    key = first_citation(dump)
    made = {}
    for route in addresses():
        address = filled(route, dump, key)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(address, **BROWSER)
        assert response.status_code < 500 and response.status_code not in (401, 403), address
        made[address] = writes(queries.captured_queries)
    return {address: sql for address, sql in made.items() if sql}


@pytest.fixture
def lead_client(client, django_user_model):
    # A lead sees every page an editor does, and the settle queue and assignment forms besides.
    client.force_login(user_with_role(django_user_model, "ichiro", "lead"))
    return client


@pytest.fixture(autouse=True)
def nothing_kept_yet() -> None:
    cache.clear()


@pytest.fixture
def ready(editor, database_queue) -> Dump:
    """A dump read in its request, its pages kept by the task its first view queues (run at once here)."""
    dump, _created = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)
    first = Client()
    first.force_login(editor)
    with override_settings(TASKS={"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}):
        first.get(dump.get_absolute_url())
    cache.clear()
    return dump


def test_no_get_writes_to_a_dump_read_and_current(lead_client, ready):
    assert get_everything(lead_client, ready) == {}


def test_the_gets_asked_are_every_page_and_api_address(lead_client, ready):
    asked = [filled(route, ready, "r0-c0") for route in addresses()]
    assert len(asked) > 40 and f"/dumps/{ready.pk}/check/r0-c0/snapshot/status" in asked and "/api/metrics" in asked


def test_no_get_writes_to_a_dump_older_code_read_but_the_one_queueing_its_rebuild(lead_client, ready):
    Dump.objects.filter(pk=ready.pk).update(result_version="made by older parsers")
    made = [sql for writes_made in get_everything(lead_client, ready).values() for sql in writes_made]
    assert len(made) == 1 and task_rows(made) == made and "rebuild_dump" in made[0]
    assert get_everything(lead_client, ready) == {}  # queued once, however many GETs ask


def test_no_get_writes_to_a_dump_a_worker_has_still_to_read(lead_client, editor, database_queue, settings):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 0
    dump, _created = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)
    assert not dump.is_ready
    assert get_everything(lead_client, dump) == {}


def task_rows(sql: list[str]) -> list[str]:
    return [s for s in sql if "dbtaskresult" in s]


def test_the_first_view_of_a_stale_result_queues_its_rebuild_and_writes_nothing_else(lead_client, ready):
    Dump.objects.filter(pk=ready.pk).update(result_version="made by older parsers")
    with CaptureQueriesContext(connection) as queries:
        lead_client.get(ready.get_absolute_url())
    made = writes(queries.captured_queries)
    assert len(made) == 1 and task_rows(made) == made


def test_the_first_view_of_pages_not_kept_queues_their_keeping_and_writes_nothing_else(
    lead_client, editor, database_queue
):
    dump, _created = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)  # read in the request: none kept
    for view in range(3):
        with CaptureQueriesContext(connection) as queries:
            lead_client.get(dump.get_absolute_url())
        made = writes(queries.captured_queries)
        assert (len(made), task_rows(made)) == ((1, made) if view == 0 else (0, []))
