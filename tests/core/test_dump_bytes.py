"""A dump's bytes given to ``parse_dump`` in a ``DumpBytes`` are let go of once read into values, and
read the same as the bytes themselves: a worker reading a stored 50 MB dump no longer holds its bytes
beside its parsed values (bench/README.md, memory)."""

from __future__ import annotations

import json

import pytest

from citeview.core.errors import DumpError
from citeview.core.parse import DumpBytes, parse_dump
from tests.builders import sonar_object


def test_the_bytes_are_read_as_they_are_and_let_go_of():
    raw = json.dumps(
        sonar_object("東京都の人口は約1,410万人です[1]。", ["https://example.jp/a"]), ensure_ascii=False
    ).encode()
    held = DumpBytes(raw)
    assert parse_dump(held).to_json() == parse_dump(raw).to_json()
    assert held.take() == b""  # parse_dump took them: the holder keeps nothing


def test_bytes_that_cannot_be_read_are_refused_as_they_are():
    held = DumpBytes(b'{"choices": [')
    with pytest.raises(DumpError) as refused:
        parse_dump(held)
    with pytest.raises(DumpError) as as_bytes:
        parse_dump(b'{"choices": [')
    assert (refused.value.code, refused.value.message) == (as_bytes.value.code, as_bytes.value.message)
    assert held.take() == b""
