"""What every kept piece of a page is keyed by besides what it shows: a digest of the code, templates
and translations that made it (the viewer's body, ``DumpPage``, and the cache's fragments,
``citeview.dumps.kept_fragments``)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import django
from django.conf import settings

import citeview

_MADE_FROM_SUFFIXES = {".py", ".html", ".mo"}


def running_code_fingerprint() -> str:
    """A digest of the code, templates and translations this process runs, so that no kept page
    outlives a deploy that would render it differently. In development they change under a running
    server, so it is taken again each time."""
    return _code_fingerprint() if settings.DEBUG else _cached_code_fingerprint()


def _code_fingerprint() -> str:
    digest = hashlib.sha256(django.get_version().encode())
    package = Path(citeview.__file__).parent
    for root in [package, *settings.TEMPLATES[0]["DIRS"], *settings.LOCALE_PATHS]:
        for path in sorted(Path(root).rglob("*")):
            if path.suffix in _MADE_FROM_SUFFIXES:
                digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


_cached_code_fingerprint = functools.cache(_code_fingerprint)
