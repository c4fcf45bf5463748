"""What review does when the dumps app says something happened to a dump: dumps may not import review,
so it sends a signal (``citeview.dumps.signals``) and review listens. Connected in ``ReviewConfig.ready``."""

from __future__ import annotations

from typing import Any

from citeview.dumps.models import Dump
from citeview.review.services import checks_recount


def recount_rebuilt(sender: Any, *, pk: int, **kwargs: Any) -> None:
    """A rebuilt result may have other items: its checked items are counted again (``result_rebuilt``)."""
    dump = Dump.objects.only("pk", "result").filter(pk=pk).first()
    if dump is not None:  # deleted meanwhile: nothing to count
        checks_recount(dump=dump)
