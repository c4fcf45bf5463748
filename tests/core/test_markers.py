"""Where ``[N]`` is a citation marker and where it is not."""

from __future__ import annotations

from citeview.core.markers import find_markers


def markers(text: str) -> list[str]:
    return [m.text for m in find_markers(text)]


def test_plain_and_web_markers_are_found_with_code_point_offsets():
    found = find_markers("東京[1]、大阪[web:2]")
    assert [(m.text, m.ref, m.start, m.end, m.is_web) for m in found] == [
        ("[1]", "1", 2, 5, False),
        ("[web:2]", "2", 8, 15, True),
    ]


def test_code_spans_fences_and_indented_code_hide_markers():
    text = "a `x[1]` b ``y[2]`` c[3]\n\n```\nz[4]\n```\n\n~~~js\nw[5]\n~~~\n\n    v[6]\n"
    assert markers(text) == ["[3]"]


def test_list_continuations_are_not_code():
    assert markers("- item\n\n    continued[7]\n") == ["[7]"]


def test_link_labels_definitions_and_escapes_are_not_markers():
    assert markers("[1](https://example.org) and\n[2]: https://example.org\n\\[3] but \\\\[4]") == ["[4]"]


def test_an_unclosed_backtick_does_not_hide_the_rest():
    assert markers("it costs `5 dollars[1]") == ["[1]"]


def test_a_reasoning_section_cites_nothing():
    assert markers("<think>maybe [1] or `x[2]` [3]</think>The answer[4]") == ["[4]"]
    assert markers("<think>cut off while thinking [5]") == []


def test_brackets_in_link_destinations_autolinks_and_link_text_are_not_markers():
    text = "See [docs](https://x.example/?q=[1]) and <https://y.example/[2]> and [text [3]](https://z.example) end[4]"
    assert markers(text) == ["[4]"]


def test_a_backtick_does_not_pair_across_list_items_or_headings():
    assert markers("- Type `ls\n- Then read the manual[1] and `man ls`.") == ["[1]"]
    assert markers("Old manuals call it `grep' in quotes[1].\n## Usage\nRun `grep -r` here[2].") == ["[1]", "[2]"]


def test_only_a_leading_think_section_hides_markers():
    assert markers("Models emit a `<think>` block.[1] Also see[2].") == ["[1]", "[2]"]
    assert markers("Text <think> inline [1]") == ["[1]"]


def test_full_width_and_other_digits_are_not_markers():
    assert markers("条件[２] and [٢] and [02]") == ["[02]"]
