"""Migrations keep what is stored: a result version stored as a number is kept as text (and out of date)."""

from __future__ import annotations

import hashlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from citeview.dumps.models import Dump
from citeview.dumps.selectors import dumps_outdated

NUMBERED = [("dumps", "0005_dump_request_attached")]
DIGESTED = [("dumps", "0006_dump_result_version_digest")]
EMPTY_OBJECT = hashlib.sha256(b"{}").hexdigest()


@pytest.mark.django_db(transaction=True)
def test_a_version_stored_as_a_number_is_kept_as_text_and_out_of_date():
    executor = MigrationExecutor(connection)
    executor.migrate(NUMBERED)
    old_dump = executor.loader.project_state(NUMBERED).apps.get_model("dumps", "Dump")
    old_dump.objects.create(
        sha256=EMPTY_OBJECT,
        raw=b"{}",
        size=2,
        framing="json",
        apis="",
        status="completed",
        result={},
        rendered={},
        result_version=7,
    )
    executor = MigrationExecutor(connection)
    executor.migrate(DIGESTED)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert Dump.objects.get().result_version == "7"
    assert list(dumps_outdated().values_list("sha256", flat=True)) == [EMPTY_OBJECT]
