"""The dump selectors read and never write, even when a stored result is out of date."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_get, dump_list
from citeview.dumps.services import dump_ingest
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE")


def stale_dump() -> Dump:
    dump, _created = dump_ingest(raw=own_fixture("agent-seed-incomplete.sse"), uploaded_by=None)
    Dump.objects.filter(pk=dump.pk).update(result_version="made by older parsers", headline="old")
    return dump


def writes_in(queries: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in queries.captured_queries if query["sql"].lstrip().upper().startswith(WRITES)]


@pytest.mark.parametrize("heavy", [True, False])
def test_reading_a_stale_dump_writes_nothing(heavy):
    dump = stale_dump()
    with CaptureQueriesContext(connection) as queries:
        read = dump_get(pk=dump.pk, heavy=heavy)
        assert read.headline == "old"
    assert writes_in(queries) == []
    assert Dump.objects.get(pk=dump.pk).result_version == "made by older parsers"


def test_listing_stale_dumps_writes_nothing():
    stale_dump()
    with CaptureQueriesContext(connection) as queries:
        assert [dump.headline for dump in dump_list()] == ["old"]
    assert writes_in(queries) == []
