"""Numbers in a claim and in its quoted evidence, compared: ``80%`` against ``62%`` is what reviewers
most need to see. Full-width and half-width digits are the same number (``２０２６`` = ``2026``)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# One character for one character, so offsets found in the folded text hold in the original.
_FOLD = str.maketrans("０１２３４５６７８９．，−－＋", "0123456789.,--+")
# A number stands on its own: not inside a word or a name like GPT-4 or COVID-19. A comma groups
# thousands only before exactly three digits; otherwise it is a decimal comma (2,5 %).
NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(?<![A-Za-z]-)"
    r"[-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?|\.\d+)"
)
_THOUSANDS = re.compile(r"^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
# Markup and entities are not text: never look for numbers inside them. (A tag holds no "<": a line of
# 10,000 "<" is read once, not from each.)
_MARKUP = re.compile(r"(<[^<>]*>|&#?[0-9A-Za-z]+;)")


def number_values(text: str) -> set[str]:
    return {_value(m.group(0)) for m in NUMBER.finditer(text.translate(_FOLD))}


def folded(text: str) -> str:
    """``text`` with full-width digits, stops and signs half-width, character for character: offsets
    found in it hold in ``text``."""
    return text.translate(_FOLD)


def number_value(number: str) -> str:
    """The value of a number as written (``1,234`` → ``1234``, ``2,5`` → ``2.5``), as compared."""
    return _value(number.translate(_FOLD))


def mark_numbers_in_html(html: str, missing: set[str]) -> str:
    """Wrap every number of escaped ``html`` whose value is in ``missing`` in ``<mark>``."""
    pieces = []
    for piece in _MARKUP.split(html):
        if not piece or _MARKUP.fullmatch(piece):
            pieces.append(piece)
            continue
        folded = piece.translate(_FOLD)
        out, position = [], 0
        for match in NUMBER.finditer(folded):
            if _value(match.group(0)) not in missing:
                continue
            out.append(piece[position : match.start()])
            out.append(f'<mark class="cv-number-diff">{piece[match.start() : match.end()]}</mark>')
            position = match.end()
        out.append(piece[position:])
        pieces.append("".join(out))
    return "".join(pieces)


def _value(number: str) -> str:
    """``1,234`` and ``1234`` are one value; so are ``2.50`` and ``2.5``, and ``2,5`` and ``2.5``."""
    digits = number.replace(",", "") if _THOUSANDS.match(number) else number.replace(",", ".")
    try:
        value = Decimal(digits).normalize()
    except InvalidOperation:
        return digits
    return format(value, "f")
