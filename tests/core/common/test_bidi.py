"""Bidirectional control characters from a dump are shown, never obeyed."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from citeview.core.checking.report import report_markdown
from citeview.core.common.bidi_controls import BIDI_CONTROLS, show_bidi_controls

# Unicode's Bidi_Control property (PropList.txt): U+061C, U+200E..U+200F, U+202A..U+202E, U+2066..U+2069.
UNICODE_BIDI_CONTROL = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]


def test_the_list_is_unicodes_bidi_control_property():
    assert sorted(ord(c) for c in BIDI_CONTROLS) == UNICODE_BIDI_CONTROL


def test_every_explicit_formatting_character_python_knows_is_on_the_list():
    explicit = {"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"}
    found = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.bidirectional(chr(c)) in explicit}
    assert found <= BIDI_CONTROLS and len(found) == 9


def test_a_right_to_left_override_is_shown_as_its_code_point():
    assert show_bidi_controls("invoice\u202egpj.exe") == "invoice⟨U+202E⟩gpj.exe"


@pytest.mark.parametrize("code", UNICODE_BIDI_CONTROL)
def test_each_bidi_control_is_shown(code):
    assert show_bidi_controls(f"a{chr(code)}b") == f"a⟨U+{code:04X}⟩b"


def test_text_without_bidi_controls_is_left_exactly_as_it_is():
    text = "東京 مرحبا שלום \u200b\u200d 👩‍👩‍👧 ⟨U+202E⟩ <b>&amp;"
    assert show_bidi_controls(text) == text


def test_right_to_left_text_itself_is_left_alone_only_its_controls_are_shown():
    assert show_bidi_controls("\u2067שלום\u2069 abc") == "⟨U+2067⟩שלום⟨U+2069⟩ abc"


def test_a_long_run_of_controls_is_shown_in_full():
    assert show_bidi_controls("\u202e" * 10_000) == "⟨U+202E⟩" * 10_000


def test_the_markdown_report_shows_bidi_controls_in_every_quoted_text():
    response = {
        "index": 0,
        "api": "perplexity.sonar",
        "api_name": "Sonar",
        "model": "m\u202e",
        "citation_notation": "",
        "status": "incomplete",
        "status_detail": "cut\u2066",
        "search_batches": [
            {
                "queries": ["q\u200f"],
                "results": [{"id": "1\u202a", "url": "https://x.example/\u202e", "title": "t\u202e"}],
            }
        ],
        "unresolved": [{"marker": "[9\u202b]", "ref": "9", "label": "[9\u202b]"}],
        "cited_without_position": [{"id": "2\u202e", "url": "https://y.example/", "title": "u\u202e"}],
        "statements_needing_check": [
            {"statement": "s\u202d", "statement_markdown": "s\u202d", "unchecked_items": ["r0-s0"]}
        ],
        "verdicts": [
            {
                "item": "r0-c0",
                "kind": "citation",
                "statement": "v\u2067",
                "statement_markdown": "v\u2067",
                "editor": "e\u202e",
                "time": "2026-12-01T00:00:00+00:00",
                "marker": "[1\u202e]",
                "source_url": "https://z.example/\u202e",
                "source_title": "z\u202e",
                "verdict": "partial",
                "subject": "",
                "time_matches": "",
                "conditions": "",
                "evidence_quote": "quote\u202e",
                "verification_worthy": "",
                "supported_together": "",
                "note": "note\u2068",
            }
        ],
        "comments": [{"item": "r0-c0", "statement": "w\u202e", "author": "a", "time": "", "text": "said\u202e"}],
    }
    dump = {"id": 1, "title": "gpj.\u202eexe", "sha256": "0" * 64, "stored_at": "2026-12-01T00:00:00+00:00"}
    on_dump = [{"author": "b\u202e", "time": "", "text": "whole\u2066"}]
    text = report_markdown({"citeview_report": 1, "dump": dump, "comments": on_dump, "responses": [response]})
    assert not set(text) & BIDI_CONTROLS
    assert "# Handover report: gpj.⟨U+202E⟩exe" in text
    for shown in ("m⟨U+202E⟩", "cut⟨U+2066⟩", "q⟨U+200F⟩", "1⟨U+202A⟩", "x.example/⟨U+202E⟩", "t⟨U+202E⟩"):
        assert shown in text, shown
    assert "9⟨U+202B⟩" in text and "s⟨U+202D⟩" in text
    assert "2⟨U+202E⟩" in text and "u⟨U+202E⟩" in text
    for shown in ("v⟨U+2067⟩", "e⟨U+202E⟩", "1⟨U+202E⟩", "z.example/⟨U+202E⟩", "quote⟨U+202E⟩", "note⟨U+2068⟩"):
        assert shown in text, shown  # every field of a verdict
    for shown in ("w⟨U+202E⟩", "said⟨U+202E⟩", "b⟨U+202E⟩", "whole⟨U+2066⟩"):
        assert shown in text, shown  # the comments
