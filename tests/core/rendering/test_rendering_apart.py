"""What the answer is not, shown apart from it: sources cited without a position, the model's plan or
thinking with its own citations, recitation notices, and citation tokens no font can draw."""

from __future__ import annotations

from citeview.core.common.model import Citation, Marker, ReasoningText, Recitation, Response, Source
from citeview.core.parsing.citing import add_source_checks
from citeview.core.rendering.answer import readable_marker, render_response, source_entries

TOKEN = "\ue200cite\ue202turn0search0\ue202turn0news2\ue202L8-L13\ue201"


def response_json(**fields: object) -> dict:
    response = Response("toy", "toy.answers", False, status="completed", **fields)  # type: ignore[arg-type]
    add_source_checks(response)
    return response.to_json()


def test_a_private_use_citation_token_is_drawn_in_words_with_its_ids_and_lines():
    assert readable_marker(TOKEN, "turn0search0,turn0news2 L8-L13") == "[cite: turn0search0, turn0news2, L8-L13]"
    text = f"Visitors rose 12%.{TOKEN} More follows."
    data = response_json(text=text, unresolved=[Marker(TOKEN, "turn0search0", 18, 18 + len(TOKEN))])
    html = render_response(data, "cv-r0")["answer"]
    assert "[cite: turn0search0, turn0news2, L8-L13]" in html
    assert not any(ch in html for ch in "\ue200\ue201\ue202")


def test_stray_private_use_characters_are_written_as_their_code_points():
    html = render_response(response_json(text="A lone \ue202 separator."), "cv-r0")["answer"]
    assert "⟨U+E202⟩" in html and "\ue202" not in html


def test_a_citation_with_no_text_of_its_own_is_drawn_by_its_reference():
    data = response_json(text="Hidankyo won the prize.", unresolved=[Marker("", "0", 22, 22)])
    html = render_response(data, "cv-r0")["answer"]
    assert "[0]" in html and "cv-unresolved" in html


def test_sources_cited_without_a_position_are_cited_not_unused():
    sources = [Source("a", "web", "https://a.example/"), Source("b", "web", "https://b.example/")]
    data = response_json(text="An answer with no positions.", sources=sources, cited_without_position=["a"])
    assert [d["details"]["key"] for d in data["diagnostics"] if d["code"] == "unused_source"] == ["b"]
    entries = {e["key"]: e for e in source_entries(data, "cv-r0")}
    assert entries["a"]["cited_without_position"] and not entries["b"]["cited_without_position"]


def test_a_plan_is_rendered_apart_with_footnotes_to_the_responses_own_source_list():
    sources = [Source("doc:0", "document", None, "Penguins"), Source("doc:1", "document", None, "Seals")]
    plan = ReasoningText("plan", "I will look up the tallest penguin.", [Citation(12, 35, ["doc:0"])])
    answer = [Citation(0, 8, ["doc:1"])]
    data = response_json(text="Seals swim.", sources=sources, citations=answer, reasoning=[plan])
    rendered = render_response(data, "cv-r0")
    (shown,) = rendered["reasoning"]
    assert shown["kind"] == "plan"
    assert 'href="#cv-r0-src-1"' in shown["html"]  # the response's list, where doc:0 is the first source
    assert 'id="cv-r0-plan0-cite-0"' in shown["html"] and 'id="cv-r0-cite-0"' in rendered["answer"]
    assert "tallest penguin" in shown["html"] and "tallest penguin" not in rendered["answer"]
    entries = {e["key"]: e for e in source_entries(data, "cv-r0")}
    assert entries["doc:0"]["cited_in"] == ["plan"] and not entries["doc:0"]["cited_by"]
    assert not [d for d in data["diagnostics"] if d["code"] == "unused_source"]


def test_a_recitation_is_kept_apart_from_the_sources():
    recitation = Recitation(0, 5, "https://books.example/1", "A book", "CC-BY", "2019-04-01")
    data = response_json(text="Quoted from a book.", recitations=[recitation])
    assert data["sources"] == [] and data["recitations"][0]["license"] == "CC-BY"


def test_the_handover_report_names_sources_cited_without_position_and_tokens_in_words():
    from citeview.core.checking.report import handover_report, report_markdown

    sources = [Source("a", "web", "https://a.example/", "A page")]
    text = f"Visitors rose.{TOKEN}"
    data = response_json(
        text=text,
        sources=sources,
        cited_without_position=["a"],
        unresolved=[Marker(TOKEN, "turn0search0", 14, 14 + len(TOKEN))],
    )
    dump = {"id": 1, "title": "t", "sha256": "0" * 64, "stored_at": "2026-12-01"}
    report = handover_report(dump, {"responses": [data]}, [], [])
    (response,) = report["responses"]
    assert response["cited_without_position"] == [{"id": "a", "url": "https://a.example/", "title": "A page"}]
    assert response["unresolved"][0]["marker"] == TOKEN  # the JSON keeps the token exactly
    markdown = report_markdown(report)
    assert "Cited by the message without saying where" in markdown and "` https://a.example/ `" in markdown
    assert "cite: turn0search0" in markdown and "\ue200" not in markdown
