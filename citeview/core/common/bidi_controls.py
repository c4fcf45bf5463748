"""Bidirectional control characters in text from a dump, shown instead of obeyed.

A right-to-left override in a title or a file name reorders what a reader sees: ``invoice``
U+202E ``gpj.exe`` reads as ``invoiceexe.jpg``. Where such text is shown to people as a name (a
dump's title, a file name, a source's title, the handover report), each of these characters is
written out as its code point, ``⟨U+202E⟩``, so the reader sees both the text and that something
in it would have turned it round. The stored data and the JSON keep them exactly.
"""

from __future__ import annotations

# Unicode's Bidi_Control property (PropList.txt): the Arabic letter mark, the left-to-right and
# right-to-left marks, the embeddings and overrides with their pop, and the isolates with theirs.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

_SHOWN = {ord(control): f"⟨U+{ord(control):04X}⟩" for control in BIDI_CONTROLS}


def show_bidi_controls(text: str) -> str:
    """``text`` with every bidi control written out as ``⟨U+XXXX⟩``; all else exactly as it is."""
    return text.translate(_SHOWN)
