"""Sizes as people read them: the forms state their limits in MiB, so the refusals do too."""

from __future__ import annotations

from citeview.core.common.phrases import Phrase, phrase

KIB = 1024
MIB = 1024 * KIB


def mebibytes(size: int) -> Phrase:
    """``20 MiB`` for a whole number of MiB, else one decimal (``20.4 MiB``); a size under 1 MiB in
    KiB, and under 1 KiB in bytes, so that no size reads as nothing."""
    if size >= MIB:
        return phrase("{size} MiB", size=f"{size // MIB}" if size % MIB == 0 else f"{size / MIB:.1f}")
    if size >= KIB:
        return phrase("{size} KiB", size=f"{size // KIB}" if size % KIB == 0 else f"{size / KIB:.1f}")
    return phrase("{size:,} bytes", size=size)
