"""The default cache's backend (``citeview.dumps.cache``) writes many entries at once and culls as
Django's database cache does, through Django's own ``_cull``: a full table makes room, never grows
past its limit, and keeps what was just written. Run on SQLite and, by scripts/test-postgres, on
PostgreSQL."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection

from citeview.dumps.cache import BulkDatabaseCache

pytestmark = pytest.mark.django_db


def rows() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(settings.CACHE_TABLE)}")
        return int(cursor.fetchone()[0])


@pytest.fixture
def small_cache() -> BulkDatabaseCache:
    cache = BulkDatabaseCache(settings.CACHE_TABLE, {"OPTIONS": {"MAX_ENTRIES": 10, "CULL_FREQUENCY": 2}})
    cache.clear()
    return cache


def test_a_full_cache_culls_to_make_room_and_keeps_what_was_just_written(small_cache):
    small_cache.set_many({f"old-{n}": f"古い{n}" for n in range(10)})
    assert rows() == 10
    small_cache.set_many({"new-a": "新しいA", "new-b": "新しいB"})
    assert rows() <= 10
    assert small_cache.get_many(["new-a", "new-b"]) == {"new-a": "新しいA", "new-b": "新しいB"}


def test_entries_written_again_replace_their_rows(small_cache):
    small_cache.set_many({"a": "一", "b": "二"})
    small_cache.set_many({"b": "三"})
    assert rows() == 2
    assert small_cache.get_many(["a", "b"]) == {"a": "一", "b": "三"}
