"""What the dumps app tells the apps above it, which it may not import: a dump's result was written
(stored, read by a worker, rebuilt, or made again with a request attached), and the snapshots app
finds, in the snapshots of the pages the dump cites, the passages for its statements; a result read
before was rebuilt, and the review app counts its checked items again; a new dump is
stored and read, or its read failed, and the webhooks app tells the team's pipelines."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with ``pk`` (the dump's) and ``cited_url_hashes`` (``Dump.cited_url_hashes``) once the row is written.
result_written = Signal()
# Sent with ``pk`` once a dump's result, read before, is made again by newer code and written
# (``citeview.dumps.reading.dump_rebuild``): what an app counted from the old one is to be counted again.
result_rebuilt = Signal()
# Sent with ``pk`` once a new dump is stored and read, ready to check (in the request that stored it,
# or by the worker that read it); a dump read again by newer code is no new dump.
dump_stored = Signal()
# Sent with ``pk`` and ``code`` (the ``DumpError``'s) once a stored dump could not be read.
dump_read_failed = Signal()
