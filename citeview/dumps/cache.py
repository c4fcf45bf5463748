"""The default cache's backend: Django's database cache, keeping many entries in a constant number of
queries. Django's writes each entry on its own (a count, a read and a write apiece), and a page of the
list keeps its 25 rows at once (``citeview.dumps.kept_fragments``)."""

from __future__ import annotations

import base64
import pickle
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.db import DatabaseCache
from django.db import DatabaseError, connections, router, transaction
from django.utils.timezone import now as tz_now


class BulkDatabaseCache(DatabaseCache):
    # Django's DatabaseCache sets the one and defines the other; django-stubs leaves both out.
    _table: str
    _cull: Callable[[str, Any, datetime, int], None]

    def set_many(self, data: dict[str, Any], timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[str]:
        if not data:
            return []
        entries = {self.make_and_validate_key(key, version=version): value for key, value in data.items()}
        backend_timeout = self.get_backend_timeout(timeout)
        expires = datetime.max if backend_timeout is None else datetime.fromtimestamp(backend_timeout, tz=UTC)
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        table, ops = connection.ops.quote_name(self._table), connection.ops
        rows = [
            (key, base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1"))
            for key, value in entries.items()
        ]
        exp = ops.adapt_datetimefield_value(expires.replace(microsecond=0))
        try:
            with transaction.atomic(using=db), connection.cursor() as cursor:
                cursor.execute(f"SELECT COUNT(*) FROM {table}")
                count = cursor.fetchone()[0]
                if count + len(rows) > self._max_entries:
                    self._cull(db, cursor, tz_now().replace(microsecond=0), count + len(rows))
                marks = ", ".join(["%s"] * len(rows))
                cursor.execute(f"DELETE FROM {table} WHERE cache_key IN ({marks})", [key for key, _ in rows])
                values = ", ".join(["(%s, %s, %s)"] * len(rows))
                cursor.execute(
                    f"INSERT INTO {table} (cache_key, value, expires) VALUES {values}",
                    [item for key, value in rows for item in (key, value, exp)],
                )
        except DatabaseError:
            return list(data)  # a cache write may fail (a busy database): the pages make the fragment again
        return []


class CountingDatabaseCache(DatabaseCache):
    """Django's database cache whose ``incr`` counts every call once: the API's rate counters
    (``citeview.api.rates``) live in one, shared by every app server as the fragments are.

    Django's own ``incr`` reads the value, then writes value + 1 (ticket #23326): two app servers
    counting at once both write n + 1 and one request goes uncounted. Its write also sets the default
    timeout anew, so a counter meant to end with its window stayed a week. Here the read and the write
    are one transaction holding the row (FOR UPDATE on PostgreSQL; SQLite lets one writer in at a
    time), and the expiry is left as ``add`` set it.

    ``add`` is one statement too. Django's counts the table, then inserts and lets the unique key
    refuse a counter that exists: an error in PostgreSQL's log for every API request. A counter is
    added once a window, and the expired ones are deleted then (by the index on ``expires``)."""

    _table: str

    def add(self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        if connection.vendor not in ("sqlite", "postgresql"):  # the two that citeview runs on
            return bool(super().add(key, value, timeout, version))
        key = self.make_and_validate_key(key, version=version)
        table = connection.ops.quote_name(self._table)
        backend_timeout = self.get_backend_timeout(timeout)
        expires = datetime.max if backend_timeout is None else datetime.fromtimestamp(backend_timeout, tz=UTC)
        exp = connection.ops.adapt_datetimefield_value(expires.replace(microsecond=0))
        now = connection.ops.adapt_datetimefield_value(tz_now().replace(microsecond=0))
        stored = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
        with transaction.atomic(using=db), connection.cursor() as cursor:
            # An expired counter under the same key is taken over, as Django's add does.
            cursor.execute(
                f"INSERT INTO {table} (cache_key, value, expires) VALUES (%s, %s, %s) "
                f"ON CONFLICT (cache_key) DO UPDATE SET value = excluded.value, expires = excluded.expires "
                f"WHERE {table}.expires < %s",
                [key, stored, exp, now],
            )
            added: bool = cursor.rowcount == 1
            if added:
                cursor.execute(f"DELETE FROM {table} WHERE expires < %s", [now])
        return added

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        key = self.make_and_validate_key(key, version=version)
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        table = connection.ops.quote_name(self._table)
        lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
        now = connection.ops.adapt_datetimefield_value(tz_now().replace(microsecond=0))
        with transaction.atomic(using=db), connection.cursor() as cursor:
            cursor.execute(f"SELECT value FROM {table} WHERE cache_key = %s AND expires >= %s{lock}", [key, now])
            row = cursor.fetchone()
            if row is None:
                raise ValueError(f"Key {key!r} not found")  # as Django's incr: the caller adds it first
            value = pickle.loads(base64.b64decode(row[0].encode("latin1"))) + delta
            stored = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
            cursor.execute(f"UPDATE {table} SET value = %s WHERE cache_key = %s", [stored, key])
        return int(value)
