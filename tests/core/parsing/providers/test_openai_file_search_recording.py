"""OpenAI Responses with file search, as recorded: a gpt-4o answer whose ``file_search_call`` carries
its ``results`` (``include: ["file_search_call.results"]``) and whose one ``file_citation`` is a point
``index`` with no span and no quote. The passage a reviewer checks the sentence against is the
search result's ``text``, found by its ``file_id``.

The recording is real (tests/fixtures/recordings/openai-file-search/PROVENANCE.md)."""

from __future__ import annotations

from typing import Any

from citeview.core.checking.side_by_side import evidence_rows
from citeview.core.detection import registry
from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import render_answer, source_labels
from tests.conftest import OWN_FIXTURES

RECORDINGS = OWN_FIXTURES / "recordings" / "openai-file-search"
RECORDING = RECORDINGS / "pydantic-ai-openai-responses-file-search-tool-with-results.json"
FILE_ID = "file-2b6dRdmXnzSrqiEbhVJZRU"
PASSAGE = "Paris is the capital of France. It is known for the Eiffel Tower."


def read() -> dict[str, Any]:
    (response,) = parse_dump(RECORDING.read_bytes()).to_json()["responses"]
    return response


def test_the_recorded_file_search_answer_is_a_completed_openai_responses_answer_from_gpt_4o():
    response = read()
    api = registry.api_format(response["api"])
    assert api is not None
    assert (api.provider.label, api.label, response["model"]) == ("OpenAI", "OpenAI Responses", "gpt-4o-2024-08-06")
    assert (response["status"], response["streamed"]) == ("completed", False)
    assert response["text"] == "The capital of France is Paris."
    assert response["diagnostics"] == [] and response["unresolved"] == []


def test_the_point_citation_stands_where_the_model_put_it_before_the_full_stop():
    response = read()
    (citation,) = response["citations"]
    assert (citation["start"], citation["end"], citation["source_keys"]) == (30, 30, [FILE_ID])
    assert response["text"][: citation["start"]] == "The capital of France is Paris"
    html = render_answer(response, "cv-r0", source_labels(response))
    assert "Paris<sup" in html and "[1]</a></sup>.</p>" in html


def test_the_cited_file_is_the_retrieved_result_with_its_text_as_the_passage():
    response = read()
    (source,) = response["sources"]
    assert (source["key"], source["kind"], source["title"]) == (FILE_ID, "file", "tmpd_9a5dki.txt")
    assert source["extra"]["snippet"] == PASSAGE and source["extra"]["snippet_kind"] == "retrieved_passage"
    assert response["searches"] == [{"queries": ["What is the capital of France?"], "source_keys": [FILE_ID]}]
    # Side by side: the sentence up to the point, against the passage the search returned.
    (row,) = evidence_rows(response, source_labels(response))
    assert row["claim_html"] == "The capital of France is Paris"
    (passage,) = row["passages"]
    assert (passage["label"], passage["title"], passage["kind"]) == ("1", "tmpd_9a5dki.txt", "retrieved_passage")
    assert passage["quote_html"] == PASSAGE
