"""UTF-8 byte offsets (Gemini's unit) turned into code points, checked against Python's own decoding."""

from __future__ import annotations

import random

from citeview.core.offsets import ByteOffsets


def test_every_byte_offset_of_a_long_mixed_text_converts_as_decoding_says():
    rng = random.Random(7)
    text = "".join(rng.choice(["a", "é", "東", "🎌", "\n", "ｶ"]) for _ in range(12_000))  # spans many strides
    offsets = ByteOffsets(text)
    data = text.encode()
    for byte_offset in [*range(0, len(data) + 3), -1]:
        try:
            expected = len(data[:byte_offset].decode()) if 0 <= byte_offset <= len(data) else None
        except UnicodeDecodeError:
            expected = None  # inside a character
        assert offsets.codepoint(byte_offset) == expected, byte_offset
