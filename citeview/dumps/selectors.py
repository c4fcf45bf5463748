"""Reads: the dumps a page or the API shows."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from citeview.core.parse import RESULT_VERSION
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_refresh_result


def dump_list(*, limit: int = 200) -> QuerySet[Dump]:
    """The newest dumps first, without their heavy fields."""
    return Dump.objects.defer("raw", "result", "rendered").select_related("uploaded_by")[:limit]


def dump_get(*, pk: int) -> Dump:
    """A dump with a result as the current parsers produce it (rebuilt once if it is older)."""
    dump = get_object_or_404(Dump.objects.select_related("uploaded_by"), pk=pk)
    if dump.result_version != RESULT_VERSION:
        dump = dump_refresh_result(dump=dump)
    return dump
