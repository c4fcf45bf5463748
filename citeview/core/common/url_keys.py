"""A source's URL as snapshots are keyed by (the URL normalised lightly), and its digest: every dump
citing the page shares its snapshots, and a dump keeps the digests of the pages it cites
(``Dump.cited_url_hashes``) so that a new snapshot finds the dumps it is evidence for."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

from citeview.core.common.links import is_safe_http_url

_DEFAULT_PORTS = {"http": 80, "https": 443}


def source_url_key(url: str) -> str:
    """``url`` as snapshots are keyed by: the fragment dropped (``#:~:text=…`` and ``#section`` are the
    same page), scheme and host lowercased, a default port dropped. Path and query stay as they are:
    ``?id=1`` and ``?id=2`` may be two pages."""
    stripped = url.strip()
    try:
        parts = urlsplit(stripped)
        port = parts.port
    except ValueError:
        return stripped.split("#", 1)[0]
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    scheme = parts.scheme.lower()
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    if parts.username is not None:  # kept as written: the fetcher refuses such a URL and says why
        netloc = parts.netloc.rsplit("@", 1)[0] + "@" + netloc
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def url_sha256(url_key: str) -> str:
    """The SHA-256 of a URL key, hex: an index a long URL fits in."""
    return hashlib.sha256(url_key.encode("utf-8", "surrogatepass")).hexdigest()


def cited_url_hashes(urls: Iterable[str | None]) -> str:
    """The digests of the keys of ``urls`` that are http(s) links, sorted, each once, space-separated:
    what a dump keeps of the pages it cites, searched by one digest (64 hex digits never match across a
    space)."""
    keys = {source_url_key(url) for url in urls if url and is_safe_http_url(url)}
    return " ".join(sorted(url_sha256(key) for key in keys))
