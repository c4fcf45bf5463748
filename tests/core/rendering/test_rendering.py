"""The answer as HTML: footnote links, unresolved markers that explain themselves, nothing unsafe."""

from __future__ import annotations

import json
from html.parser import HTMLParser

from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import render_answer, source_entries
from citeview.core.rendering.sanitize import sanitize_html
from tests.builders import agent_object
from tests.conftest import own_fixture


class Elements(HTMLParser):
    """Every start tag with its attributes, in order."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def find(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())]


def rendered(text: str, results: list[tuple[int, str, str]]) -> tuple[str, dict]:
    response = parse_dump(json.dumps(agent_object(text, results)).encode()).to_json()["responses"][0]
    return render_answer(response, "cv-r0"), response


def test_each_resolved_marker_links_to_its_source_entry():
    html, response = rendered("東京は首都です[1]。", [(1, "https://example.org/tokyo", "東京")])
    link = Elements(html).find("a", id="cv-r0-cite-0")[0]
    assert link["href"] == "#cv-r0-src-1" and link["aria-label"] == "source 1"
    # The card shown on hover and focus, and read as the link's description: title, domain, snippet and
    # the full address.
    card = Elements(html).find("span", id=link["aria-describedby"])[0]
    assert card["role"] == "tooltip" and 'class="cv-cards" hidden' in html
    for shown in ("東京", "example.org", "https://example.org/tokyo"):
        assert f">{shown}<" in html
    entry = source_entries(response, "cv-r0")[0]
    assert entry["anchor"] == "cv-r0-src-1"
    assert entry["cited_by"] == [{"anchor": "cv-r0-cite-0", "marker": "[1]", "place": "a"}]


def test_a_source_cited_twice_links_back_to_both_places():
    _, response = rendered("一[1]、二[1]。", [(1, "https://example.org/a", "A")])
    places = source_entries(response, "cv-r0")[0]["cited_by"]
    assert [(p["anchor"], p["place"]) for p in places] == [("cv-r0-cite-0", "a"), ("cv-r0-cite-1", "b")]


def test_an_unresolved_marker_is_focusable_and_explains_itself():
    html, _ = rendered("根拠なし[4]", [])
    span = Elements(html).find("span", **{"class": "cv-unresolved"})[0]
    assert span["tabindex"] == "0" and span["aria-describedby"] == "cv-r0-unresolved-0-tip"
    assert "⚠" in html and "no source" in html and "no result has id 4" in html


def test_a_conflicting_number_links_to_both_sources():
    response = parse_dump(own_fixture("agent-seed-incomplete.sse")).to_json()["responses"][0]
    html = render_answer(response, "cv-r0")
    hrefs = [a["href"] for a in Elements(html).find("a") if a.get("href", "").startswith("#")]
    assert hrefs == ["#cv-r0-src-1", "#cv-r0-src-3", "#cv-r0-src-2"]  # [2] → 2 and 2#2, then [9]
    assert "cv-cite-conflict" in html


def test_markdown_renders_but_raw_html_images_and_unsafe_links_do_not():
    html, _ = rendered(
        "**太字** <script>alert(1)</script> ![x](https://t.example/p.png) [a](javascript:alert(1)) "
        "[b](//evil.example) [ok](https://example.org/ok)",
        [],
    )
    tags = Elements(html)
    assert tags.find("strong") and not tags.find("script") and not tags.find("img")
    # The image is never loaded (no tracking pixel); its address stays visible as a plain link.
    assert [a["href"] for a in tags.find("a")] == ["https://t.example/p.png", "https://example.org/ok"]
    ok = tags.find("a")[1]
    assert (ok["target"], ok["rel"]) == ("_blank", "noopener noreferrer nofollow")
    assert "&lt;script&gt;" in html


def test_the_text_cannot_forge_a_citation_placeholder():
    html, _ = rendered("fake [\ufdd00] here[1]", [(1, "https://example.org/a", "A")])
    assert len(Elements(html).find("sup")) == 1


def test_markers_inside_code_render_as_code():
    html, _ = rendered("`a[1]` b[1]", [(1, "https://example.org/a", "A")])
    assert "<code>a[1]</code>" in html and html.count("cv-cite-link") == 1


def test_the_sanitiser_drops_what_is_not_ours():
    dirty = (
        '<p id="login" class="evil" onclick="x()">t</p><a href="javascript:x()">j</a>'
        '<svg><script>x()</script></svg><span class="cv-tip" style="x">s</span>'
    )
    clean = Elements(sanitize_html(dirty))
    assert not any("onclick" in a or "style" in a or a.get("id") == "login" for _, a in clean.tags)
    assert all(t in ("p", "a", "span") for t, _ in clean.tags)
    assert clean.find("a")[0].get("href") is None


def test_a_conflicting_number_is_labelled_as_the_list_labels_it_and_says_so():
    response = parse_dump(own_fixture("agent-seed-incomplete.sse")).to_json()["responses"][0]
    html = render_answer(response, "cv-r0")
    labels = {e["anchor"]: e["label"] for e in source_entries(response, "cv-r0")}
    extra = Elements(html).find("a", **{"class": "cv-cite-link cv-cite-extra"})[0]
    assert extra.get("href") == "#cv-r0-src-3" and labels["cv-r0-src-3"] == "2#2" and ">[2#2]<" in html
    assert "conflict" in Elements(html).find("a", id="cv-r0-cite-0")[0]["aria-label"]


def test_a_cited_span_past_the_rendered_part_of_a_long_answer_is_left_out_not_a_crash():
    from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS

    text = "あ" * MAX_MARKDOWN_CHARS + "最後の文。"
    last = len(("あ" * MAX_MARKDOWN_CHARS).encode())  # Gemini counts UTF-8 bytes
    supports = [
        {"segment": {"startIndex": 0, "endIndex": 9, "text": "あああ"}, "groundingChunkIndices": [0]},
        {"segment": {"startIndex": last + 6, "endIndex": last + 12, "text": "の文"}, "groundingChunkIndices": [0]},
    ]
    grounding = {
        "groundingChunks": [{"web": {"uri": "https://example.jp/", "title": "例"}}],
        "groundingSupports": supports,
    }
    candidate = {"content": {"parts": [{"text": text}]}, "finishReason": "STOP", "groundingMetadata": grounding}
    response = parse_dump(json.dumps({"candidates": [candidate]}).encode()).to_json()["responses"][0]
    assert len(response["citations"]) == 2
    html = render_answer(response, "cv-r0")
    assert html.count('class="cv-supported"') == 1 and "最後の文" not in html


def sonar_markers(count: int, extra_text: str = "") -> dict:
    from tests.builders import sonar_object

    raw = json.dumps(sonar_object("[1]" * count + extra_text, ["https://example.org/" + "x" * 3000])).encode()
    return parse_dump(raw).to_json()["responses"][0]


def test_footnotes_stop_at_the_cap_and_the_answer_says_so():
    from citeview.core.rendering.answer import render_response

    response = sonar_markers(30)
    rendered = render_response(response, "cv-r0", max_drawn=10)
    html = rendered["answer"]
    assert html.count('class="cv-cite-link"') == 10  # the first ten drawn
    assert "[1]" * 20 in html  # the rest shown as written, not dropped
    assert "Footnotes are drawn up to character 30 of this answer" in html and "30 citations" in html
    entry = source_entries(response, "cv-r0", rendered["drawn_until"])[0]
    assert len(entry["cited_by"]) == 10 and entry["cited_past_rendering"] == 20  # back-links only to drawn ones


def test_below_the_cap_every_footnote_is_drawn_without_a_note():
    from citeview.core.rendering.answer import render_response

    html = render_response(sonar_markers(10), "cv-r0", max_drawn=10)["answer"]
    assert html.count('class="cv-cite-link"') == 10 and "Footnotes are drawn up to" not in html


def test_a_source_card_holds_a_long_address_to_a_bounded_length():
    html = render_answer(sonar_markers(3), "cv-r0")
    assert "x" * 3000 not in html and "x" * 250 in html


def test_a_source_cited_many_times_has_its_card_written_once_and_every_footnote_refers_to_it():
    html = render_answer(sonar_markers(40), "cv-r0")
    links = Elements(html).find("a", **{"class": "cv-cite-link"})
    assert len(links) == 40 and {link["aria-describedby"] for link in links} == {"cv-r0-cite-0-1-card"}
    assert html.count('role="tooltip"') == 1 and html.count("https://example.org/" + "x" * 250) == 1


def test_a_quoted_passage_is_written_once_per_citation_beside_its_sources_card():
    response = parse_dump(own_fixture("claude-ja-documents-exchange.json")).to_json()["responses"][0]
    html = render_answer(response, "cv-r0")
    first, second = Elements(html).find("a", **{"class": "cv-cite-link"})[:2]
    # Both cite source 1: one card for the source, and each its own quote.
    assert first["aria-describedby"] == "cv-r0-cite-0-1-card cv-r0-cite-0-card"
    assert second["aria-describedby"] == "cv-r0-cite-0-1-card cv-r0-cite-1-card"
    assert html.count(">東京都 物価調査<") == 1
    quotes = {card["id"]: card for card in Elements(html).find("span", role="tooltip")}
    assert set(quotes) >= {"cv-r0-cite-0-card", "cv-r0-cite-1-card"}
    assert "回答者の62%が値上げを実感した" in html and "調査期間は２０２６年４月１日" in html


def test_a_source_card_shows_bidi_controls_in_its_title_instead_of_obeying_them():
    html, _response = rendered("東京[1]。", [(1, "https://example.org/a", "invoice\u202egpj.exe")])
    assert "invoice⟨U+202E⟩gpj.exe" in html and "\u202e" not in html


def test_a_dump_cannot_forge_the_mark_where_citeviews_own_markup_goes():
    forged = "cv0123456789abcdef0000000 cvffffffffffffffff0000000 \ufdd10\ufdd1"  # the mark is made per answer
    html, _response = rendered(f"{forged} 東京[1]。<b>x</b>", [(1, "https://example.org/a", "東京")])
    assert forged in html and html.count('class="cv-cite"') == 1  # shown as written, drawing nothing
    assert "<b>" not in html and "&lt;b&gt;" in html


def test_markdown_output_is_sanitised_while_the_anchors_keep_their_markup():
    html, _response = rendered(
        "[リンク](javascript:alert(1)) と [正規](https://example.org/ok) [1]", [(1, "https://example.org/a", "t")]
    )
    assert 'href="javascript' not in html and 'href="https://example.org/ok"' in html
    assert 'aria-describedby="cv-r0-cite-0-1-card"' in html and 'role="tooltip"' in html


def test_a_reference_definition_labelled_with_a_marker_links_no_marker_even_past_the_cap():
    from citeview.core.rendering.answer import render_response
    from tests.builders import sonar_object

    text = "東京[1]。大阪[1]。\n\n[1]: https://evil.example"
    raw = json.dumps(sonar_object(text, ["https://example.org/one"])).encode()
    response = parse_dump(raw).to_json()["responses"][0]
    html = render_response(response, "cv-r0", max_drawn=1)["answer"]
    # The second [1] is past the cap, shown as written: never as Markdown's link to the definition.
    assert 'href="https://evil.example"' not in html and "大阪[1]" in html
    assert "[1]: https://evil.example" in html  # the line is shown as the text it is


def test_a_reference_link_with_a_label_of_its_own_still_links():
    html, _ = rendered("[資料][d] と東京[1]\n\n[d]: https://d.example/", [(1, "https://example.org/a", "A")])
    assert [a["href"] for a in Elements(html).find("a")] == ["https://d.example/", "#cv-r0-src-1"]


def _cyclic_garbage_of_one_render(citations: int) -> int:
    import gc

    from citeview.core.common.answer_markdown import Place
    from citeview.core.rendering.markdown import Anchor, AnchorLink, render_markdown

    text = "東京の人口は約1400万人です[1]。" * citations
    places = [Place(at, at + 3, replace=True) for at in range(len(text)) if text.startswith("[1]", at)]
    anchors = [
        Anchor(id=f"c{i}", marker="[1]", links=[AnchorLink(f"https://example.jp/{i}", "1", "source 1")])
        for i in range(citations)
    ]
    gc.collect()
    gc.disable()
    try:
        render_markdown(text, places, anchors)
        return gc.collect()
    finally:
        gc.enable()


def test_a_dense_answers_markup_is_let_go_as_soon_as_it_is_drawn():
    # A worker parses with the cycle collector off: markup held in a cycle stayed until it ran, and
    # put Gemini's 50 MB dump over 4x its size in memory (bench/README.md, memory).
    # (markdown-it leaves a few dozen cyclic objects of its own, however many the citations)
    assert _cyclic_garbage_of_one_render(2000) < 200
