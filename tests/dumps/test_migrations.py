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


BEFORE_MOVING = [("dumps", "0016_batch_responses")]
LARGE_COLUMNS = ["search_text", "cited_url_hashes", "result", "rendered"]


@pytest.mark.django_db(transaction=True)
def test_the_large_columns_move_last_with_their_values_kept():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_MOVING)
    old_dump = executor.loader.project_state(BEFORE_MOVING).apps.get_model("dumps", "Dump")
    result = {"citeview": 1, "responses": [{"text": "東京の人口は約1400万人です。"}]}
    old_dump.objects.create(
        sha256=EMPTY_OBJECT,
        size=2,
        framing="json",
        apis="perplexity.sonar",
        status="completed",
        result=result,
        rendered={"ja": [{"answer": "<p>東京</p>"}]},
        search_text="東京の人口",
        cited_url_hashes="abc def",
    )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    dump = Dump.objects.get()
    assert (dump.result, dump.rendered) == (result, {"ja": [{"answer": "<p>東京</p>"}]})
    assert (dump.search_text, dump.cited_url_hashes) == ("東京の人口", "abc def")
    with connection.cursor() as cursor:
        columns = [column.name for column in connection.introspection.get_table_description(cursor, "dumps_dump")]
    if connection.vendor == "sqlite":  # where the order matters: bench/README.md, Serving
        assert columns[-len(LARGE_COLUMNS) :] == LARGE_COLUMNS


@pytest.mark.django_db
def test_sqlite_is_not_asked_to_prove_the_json_citeview_writes():
    """Its ``JSON_VALID`` check parsed a 50 MB dump's result into a tree several times its size on every
    write (bench/README.md, memory); the text is json's own encoding, valid by construction."""
    if connection.vendor != "sqlite":
        pytest.skip("the check is SQLite's")
    with connection.cursor() as cursor:
        tables = {
            table: cursor.execute("SELECT sql FROM sqlite_master WHERE name = %s", [table]).fetchone()[0]
            for table in ("dumps_dump", "dumps_dumpresponse")
        }
    for table, schema in tables.items():
        assert 'JSON_VALID("result")' not in schema and 'JSON_VALID("rendered")' not in schema, table
    assert 'JSON_VALID("read_error")' in tables["dumps_dump"]  # a field of Django's own kind keeps it
    dump = Dump.objects.create(sha256=EMPTY_OBJECT, size=2, framing="json", result={"東京": [1, 2]})
    assert Dump.objects.get(pk=dump.pk).result == {"東京": [1, 2]}
