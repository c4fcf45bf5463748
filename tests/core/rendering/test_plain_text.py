"""Statements shown as the words a reader sees, not as Markdown source."""

from __future__ import annotations

import pytest

from citeview.core.rendering.plain import plain_text


@pytest.mark.parametrize(
    ("markdown", "shown"),
    [
        ("**発表基準**：暑さ指数（WBGT）が**33以上**", "発表基準：暑さ指数（WBGT）が33以上"),
        ("See [the guide](https://example.org/guide) and `make run`.", "See the guide and make run."),
        ("~~old~~ new, \\*not emphasis\\*", "old new, *not emphasis*"),
        ("<b>raw</b> stays text [1]", "<b>raw</b> stays text [1]"),
        ("line one\nline two", "line one line two"),
        ("![an image](https://example.org/i.png) caption", "!an image caption"),  # as the answer shows it
    ],
)
def test_markdown_marks_are_dropped_and_the_words_stay(markdown: str, shown: str):
    assert plain_text(markdown) == shown
