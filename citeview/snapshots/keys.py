"""Which snapshots a source's URL shares: its key, the URL normalised lightly."""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit, urlunsplit

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
    return hashlib.sha256(url_key.encode("utf-8", "surrogatepass")).hexdigest()
