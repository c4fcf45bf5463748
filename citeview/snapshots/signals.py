"""A dump's result written (``citeview.dumps.signals``): the passages of its statements are wanted in
the snapshots the pages it cites already have."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from citeview.dumps.signals import result_written
from citeview.snapshots.kept_passages import dump_passages_wanted


@receiver(result_written, dispatch_uid="citeview-passages-of-a-written-dump")
def _passages_of_written_dump(sender: Any, pk: int, cited_url_hashes: str, **kwargs: Any) -> None:
    dump_passages_wanted(pk=pk, cited_url_hashes=cited_url_hashes)
