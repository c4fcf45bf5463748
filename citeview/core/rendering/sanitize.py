"""The one sanitiser every rendered HTML fragment passes through before it is stored or shown.

bleach, which the product's design card names, parses the HTML as browsers do (html5lib) and keeps
only what the allowlist below names; anything else is dropped. Its 6.4.0 (the pinned release) says
in its description that bleach is no longer maintained and will have no further releases, security
ones included: that is why it stays behind this one function, so that it can be replaced (nh3 is
the maintained alternative) without touching a caller. It is also the slowest part of rendering
(``make bench``).
"""

from __future__ import annotations

import re

import bleach

from citeview.core.common.links import is_safe_http_url

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


def _allowed_attribute(tag: str, name: str, value: str) -> bool:
    allowed = name in _ATTRIBUTE_NAMES["*"] or name in _ATTRIBUTE_NAMES.get(tag, ())
    return allowed and _allowed_value(tag, name, value)


_CLEANER = bleach.Cleaner(
    tags=ALLOWED_TAGS,
    attributes=_allowed_attribute,
    protocols={"http", "https"},
    strip=True,  # a tag that is not ours is dropped, its text kept (and escaped)
    strip_comments=True,
)


def sanitize_html(html: str) -> str:
    """Allowlist-sanitise HTML: anything not ours is dropped."""
    cleaned: str = _CLEANER.clean(html)
    return cleaned
