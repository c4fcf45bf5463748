"""The viewer says what a format does not give (positions), and shows the model's plan and the
provider's recitation notices apart from the answer and its sources."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from citeview.core.common.model import Citation, ReasoningText, Recitation, Response
from citeview.core.parsing.sources import SourceTable
from citeview.dumps.services import dump_ingest
from tests.toy_provider import TOY_ANSWERS, toy_answer, toy_registered

pytestmark = pytest.mark.django_db


def parse_with_extras(values: list[dict[str, Any]], streamed: bool) -> Response:
    """A toy answer whose sources are cited without positions, with a plan and a recitation."""
    value = values[-1]
    response = Response("toy", "toy.answers", streamed, status="completed", text=value["toy_answer"])
    table = SourceTable(response)
    keys = [table.add(str(n), kind="web", url=url, title=None) for n, url in enumerate(value["toy_sources"], 1)]
    if value.get("positions") is False:
        response.cited_without_position = keys
    if value.get("plan"):
        response.reasoning.append(ReasoningText("plan", value["plan"], [Citation(0, 4, keys[:1])]))
    for url in value.get("recited_from", []):
        response.recitations.append(Recitation(0, 5, url, "A recited work", "CC-BY-4.0"))
    return response


@pytest.fixture
def extras():
    with toy_registered(replace(TOY_ANSWERS, parser=parse_with_extras)) as api:
        yield api


def page_of(client: Any, editor: Any, value: dict[str, Any]) -> str:
    dump = dump_ingest(raw=json.dumps(value).encode(), uploaded_by=editor)[0]
    return client.get(dump.get_absolute_url()).content.decode()


def test_a_format_without_positions_says_so_and_marks_its_sources_cited(extras, editor, editor_client):
    value = {
        **toy_answer("東京の人口は約1400万人です。", "https://a.example/", "https://b.example/"),
        "positions": False,
    }
    page = page_of(editor_client, editor, value)
    assert "This format does not say which sentence cites which source." in page
    assert page.count("cited by the message, place not given") == 2
    assert "not cited" not in page


def test_the_plan_and_its_citations_stand_apart_from_the_answer(extras, editor, editor_client):
    value = {**toy_answer("Seals swim.", "https://seals.example/"), "plan": "Look up seals first."}
    page = page_of(editor_client, editor, value)
    assert "The model&#x27;s plan, with what it cites" in page or "The model's plan, with what it cites" in page
    plan = page[page.index("cv-reasoning-text") :]
    assert "Look up seals first." in plan and 'href="#cv-r0-src-1"' in plan
    assert "cited in the model&#x27;s plan" in page or "cited in the model's plan" in page


def test_a_recitation_links_only_to_an_http_address(extras, editor, editor_client):
    value = {
        **toy_answer("Quoted words here.", "https://a.example/"),
        "recited_from": ["https://books.example/work", "javascript:alert(1)"],
    }
    page = page_of(editor_client, editor, value)
    section = page[page.index("cv-recitations") :]
    assert '<a href="https://books.example/work"' in section
    assert "<code>javascript:alert(1)</code>" in section and 'href="javascript' not in page
    assert "<q>Quote</q>" in section and "CC-BY-4.0" in section


def test_the_japanese_page_words_the_missing_positions_in_japanese(extras, editor, editor_client):
    value = {**toy_answer("回答です。", "https://a.example/"), "positions": False}
    dump = dump_ingest(raw=json.dumps(value).encode(), uploaded_by=editor)[0]
    page = editor_client.get(dump.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert (
        "This format does not say" not in page
        and "この形式には、どの文がどの出典を引用しているかの位置の情報がありません" in page
    )
