"""``{{ value|show_bidi }}``: a title, file name or URL from a dump with its bidi controls shown
(``⟨U+202E⟩``), so that it cannot turn round what the reader sees (see ``citeview.core.common.bidi_controls``)."""

from __future__ import annotations

from typing import Any

from django import template

from citeview.core.common.bidi_controls import show_bidi_controls

register = template.Library()


# is_safe: the marks add no character that HTML escapes, so escaping before or after is the same.
@register.filter(is_safe=True)
def show_bidi(value: Any) -> Any:
    """A string with its bidi controls shown; anything else (None, a number) as it is, for ``default``."""
    return show_bidi_controls(value) if isinstance(value, str) else value
