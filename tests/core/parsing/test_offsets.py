"""Offsets in UTF-8 bytes (Gemini's unit) and UTF-16 units (OpenAI's, Cohere's, Bedrock's, LangChain's)
turned into code points, checked against Python's own encoders; and the one rule that finds a quote
again near where its offsets point."""

from __future__ import annotations

import random

from citeview.core.parsing.offsets import NEAR_CHARS, ByteOffsets, Utf16Offsets, find_near, kept_utf16_offsets


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


def test_every_utf16_offset_of_a_mixed_text_converts_as_encoding_says():
    rng = random.Random(11)
    text = "".join(rng.choice(["a", "é", "東", "🎌", "𠮷", "\n"]) for _ in range(3_000))
    offsets = Utf16Offsets(text)
    boundaries = {len(text[:point].encode("utf-16-le")) // 2: point for point in range(len(text) + 1)}
    for unit in [*range(-1, offsets.unit_length + 3)]:
        assert offsets.codepoint(unit) == boundaries.get(unit), unit  # None inside a surrogate pair or outside
    assert offsets.has_astral
    assert offsets.any_astral_before(len(text)) and not offsets.any_astral_before(0)


def test_a_text_without_astral_characters_has_the_same_offsets_in_both_units():
    offsets = Utf16Offsets("東京は晴れ")
    assert not offsets.has_astral
    assert [offsets.codepoint(unit) for unit in range(7)] == [0, 1, 2, 3, 4, 5, None]


def test_converters_are_kept_for_the_same_text_object_only():
    text = "絵文字🎌のある答え" * 3
    assert kept_utf16_offsets(text) is kept_utf16_offsets(text)
    equal_copy = "".join(list(text))
    assert kept_utf16_offsets(equal_copy) is not kept_utf16_offsets(text)


def test_a_quote_is_found_near_its_offset_only_when_it_stands_there_once():
    text = "x" * 200 + "東京都の人口" + "y" * 200
    assert find_near(text, "東京都の人口", 210) == 200
    assert find_near(text, "東京都の人口", 200 + NEAR_CHARS + 10) is None  # too far from where it was said to be
    assert find_near(text, "東京都の人口", 2_000, window=2_048) == 200  # a provider that looks further
    twice = "東京都の人口は多い。東京都の人口" + "z" * 100
    assert find_near(twice, "東京都の人口", 5) is None  # two places: neither is chosen
    assert find_near("a ** b ** c", "**", 2) is None  # too short to be told from chance


def test_a_parsed_dumps_texts_are_not_kept_after_it():
    # A worker reads one dump after another: the texts (and UTF-8 copies) kept for one dump's
    # conversions must not stay in memory after it.
    import json

    from citeview.core.parsing import offsets
    from citeview.core.parsing.parse import parse_dump

    offsets.kept_utf16_offsets("東京は晴れ😀" * 1000)
    offsets.kept_byte_offsets("大阪は雨" * 1000)
    parse_dump(json.dumps({"choices": [{"message": {"role": "assistant", "content": "晴れ"}}]}).encode())
    assert not offsets._kept_utf8 and not offsets._kept_utf16 and offsets._last_utf16 == [None]
