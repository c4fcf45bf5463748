"""Which URLs from a dump may become clickable links, and links that open a page at a passage."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from urllib.parse import quote, urlsplit

# Whitespace and invisible characters browsers drop from a URL (``javascript\u200b:`` was a real bypass).
_INVISIBLE = re.compile(r"[\s\u00ad\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


# Where Google's grounding sends a reader before the page itself: the address names no site.
GROUNDING_REDIRECT_PREFIX = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"


def is_grounding_redirect(url: str | None) -> bool:
    return bool(url and url.startswith(GROUNDING_REDIRECT_PREFIX))


def is_safe_http_url(url: object) -> bool:
    """True only for an absolute ``http``/``https`` URL with a host, as the browser would read it."""
    return isinstance(url, str) and bool(url) and _is_safe_http_url_text(url)


@lru_cache(maxsize=4096)  # an answer links its few sources thousands of times
def _is_safe_http_url_text(url: str) -> bool:
    # Plain spaces may stand in a query (Google's own search links have them); any other whitespace,
    # an invisible character or a control character anywhere is refused.
    if _INVISIBLE.search(url.replace(" ", "")) or any(unicodedata.category(ch) == "Cc" for ch in url):
        return False
    if " " in url.split("?")[0]:
        return False
    if "\\" in url:
        return False  # browsers read a backslash as "/", urlsplit does not: the host shown would not be the one visited
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname) and url[:5].lower() in ("http:", "https")


def url_domain(url: str | None) -> str | None:
    if url is None or not is_safe_http_url(url):
        return None
    host = urlsplit(url).hostname or ""
    return host.removeprefix("www.") or None


# The spaces before an ellipsis are read from where their run starts: a search (``split``) that began
# again at each place of a long run of spaces would read the rest of it each time.
_ELLIPSIS = re.compile(r"(?:(?<!\s)\s*)?(?:\.\.\.|…)\s*")


def text_fragment_url(url: str, cited_text: str) -> str:
    """``url`` opening at the quoted passage (``#:~:text=``), from the longest unelided stretch of it."""
    stretch = max(_ELLIPSIS.split(cited_text.strip()), key=len).strip()
    words = stretch.split()
    if len(words) > 10:
        directive = f"{_fragment_part(' '.join(words[:5]))},{_fragment_part(' '.join(words[-5:]))}"
    else:
        directive = _fragment_part(stretch)
    separator = ":~:" if "#" in url else "#:~:"
    return f"{url}{separator}text={directive}"


def _fragment_part(text: str) -> str:
    return quote(text, safe="").replace("-", "%2D")
