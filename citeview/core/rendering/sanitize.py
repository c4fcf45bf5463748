"""The one sanitiser every rendered HTML fragment passes through before it is stored or shown.

nh3 (Python's binding of the Rust sanitiser ammonia) parses the HTML as browsers do and keeps only
what the allowlist below names; anything else is dropped. It replaced bleach, which has no further
releases and cost more than all the rest of rendering together (``make bench``).
"""

from __future__ import annotations

import re

import nh3

from citeview.core.links import is_safe_http_url

_BLOCK_TAGS = ("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "ul", "ol", "li")
_TABLE_TAGS = ("table", "thead", "tbody", "tr", "th", "td")
_INLINE_TAGS = ("em", "strong", "code", "a", "sup", "s", "del", "span", "mark")
ALLOWED_TAGS = frozenset(_BLOCK_TAGS + _TABLE_TAGS + _INLINE_TAGS)
# The attributes our HTML may carry, per tag; _allowed_value decides on each one's value.
_ATTRIBUTE_NAMES = {
    "*": {"id", "class"},
    "a": {"href", "title", "target", "rel", "aria-describedby", "aria-label"},
    "span": {"tabindex", "role", "aria-describedby", "aria-label", "aria-hidden"},
    "ol": {"start"},
}
_OWN_ID = re.compile(r"^cv-[a-z0-9-]+$")
_OWN_CLASSES = re.compile(r"^(cv-[a-z-]+)( cv-[a-z-]+)*$")
_CODE_LANGUAGE = re.compile(r"^language-[\w+-]{1,40}$")


def _allowed_value(tag: str, name: str, value: str) -> bool:
    if name == "id":
        return bool(_OWN_ID.match(value))  # ids in the page are ours, never taken from a dump
    if name == "class":
        return bool(_OWN_CLASSES.match(value)) or (tag == "code" and bool(_CODE_LANGUAGE.match(value)))
    if name == "href":
        return value.startswith("#cv-") or is_safe_http_url(value)
    if name == "target":
        return value == "_blank"
    if name == "rel":
        return value == "noopener noreferrer nofollow"
    if name == "tabindex":
        return value == "0"
    if name == "start":
        return value.isdigit()
    return True  # title, role and aria-*: text, escaped when written


def _attribute_value(tag: str, name: str, value: str) -> str | None:
    return value if _allowed_value(tag, name, value) else None


_CLEANER = nh3.Cleaner(
    tags=set(ALLOWED_TAGS),
    attributes=_ATTRIBUTE_NAMES,
    attribute_filter=_attribute_value,
    url_schemes={"http", "https"},
    link_rel=None,  # our links carry their own rel, which _allowed_attribute checks
    strip_comments=True,
)


def sanitize_html(html: str) -> str:
    """Allowlist-sanitise HTML: anything not ours is dropped."""
    if html.startswith("\ufeff"):
        # The parser takes a leading U+FEFF for a file's byte-order mark and drops it; here it is text.
        html = "&#xfeff;" + html[1:]
    return _CLEANER.clean(html)
