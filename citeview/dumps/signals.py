"""What the dumps app tells the apps above it, which it may not import: a dump's result was written
(stored, read by a worker, rebuilt, or made again with a request attached). The snapshots app then
finds, in the snapshots of the pages the dump cites, the passages for its statements."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with ``pk`` (the dump's) and ``cited_url_hashes`` (``Dump.cited_url_hashes``) once the row is written.
result_written = Signal()
