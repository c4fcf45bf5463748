"""The one sanitiser every rendered HTML fragment passes through before it is stored or shown.

Kept behind :func:`sanitize_html` so bleach (which will have no further releases) can be swapped
for another allowlist sanitiser without touching callers.
"""

from __future__ import annotations

import re
import threading

import bleach

from citeview.core.links import is_safe_http_url

_BLOCK_TAGS = ("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "ul", "ol", "li")
_TABLE_TAGS = ("table", "thead", "tbody", "tr", "th", "td")
_INLINE_TAGS = ("em", "strong", "code", "a", "sup", "s", "del", "span", "mark")
ALLOWED_TAGS = frozenset(_BLOCK_TAGS + _TABLE_TAGS + _INLINE_TAGS)
_OWN_ID = re.compile(r"^cv-[a-z0-9-]+$")
_OWN_CLASSES = re.compile(r"^(cv-[a-z-]+)( cv-[a-z-]+)*$")
_CODE_LANGUAGE = re.compile(r"^language-[\w+-]{1,40}$")
_local = threading.local()  # bleach's Cleaner is not safe to share between threads


def _allowed_attribute(tag: str, name: str, value: str) -> bool:
    if name == "id":
        return bool(_OWN_ID.match(value))  # ids in the page are ours, never taken from a dump
    if name == "class":
        return bool(_OWN_CLASSES.match(value)) or (tag == "code" and bool(_CODE_LANGUAGE.match(value)))
    if tag == "a":
        if name == "href":
            return value.startswith("#cv-") or is_safe_http_url(value)
        if name == "target":
            return value == "_blank"
        if name == "rel":
            return value == "noopener noreferrer nofollow"
        return name in ("title", "aria-describedby", "aria-label")
    if tag == "span":
        if name == "tabindex":
            return value == "0"
        return name in ("role", "aria-describedby", "aria-label", "aria-hidden")
    if tag == "ol":
        return name == "start" and value.isdigit()
    return False


def _cleaner() -> bleach.Cleaner:
    cleaner = getattr(_local, "cleaner", None)
    if cleaner is None:
        cleaner = bleach.Cleaner(
            tags=ALLOWED_TAGS,
            attributes=_allowed_attribute,
            protocols={"http", "https"},
            strip=False,
            strip_comments=True,
        )
        _local.cleaner = cleaner
    return cleaner


def sanitize_html(html: str) -> str:
    """Allowlist-sanitise HTML: anything not ours is escaped or dropped."""
    return _cleaner().clean(html)
