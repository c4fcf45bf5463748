"""Every recorded Perplexity dump in ../shared/fixtures: read, and every marker accounted for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citeview.core.parsing.parse import parse_dump
from tests.conftest import fixture_ids, real_fixtures

FIXTURES = real_fixtures("perplexity")
MARKER = re.compile(r"\[(?:web:)?(\d+)\]")
# Code as a reader recognises it, found independently of the parser under test.
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_every_marker_outside_code_is_a_citation_or_unresolved(path: Path):
    doc = parse_dump(path.read_bytes()).to_json()
    assert doc["responses"], "a response"
    for response in doc["responses"]:
        assert response["provider"] == "perplexity"
        assert response["text"].strip()
        code = [m.span() for m in CODE.finditer(response["text"])]
        places = {c["start"] for c in response["citations"]} | {m["start"] for m in response["unresolved"]}
        for match in MARKER.finditer(response["text"]):
            if not any(start <= match.start() < end for start, end in code):
                assert match.start() in places, f"{match.group(0)} at {match.start()} is neither cited nor unresolved"
        keys = {s["key"] for s in response["sources"]}
        assert all(k in keys for c in response["citations"] for k in c["source_keys"])


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_recorded_responses_that_finished_are_completed(path: Path):
    doc = parse_dump(path.read_bytes()).to_json()
    assert [r["status"] for r in doc["responses"]] == ["completed"]


def test_the_agent_stream_and_its_final_body_agree():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    folder = FIXTURES[0].parent
    streamed = parse_dump((folder / "perplexity-agent-api-websearch-stream.chunks.json").read_bytes()).to_json()
    response = streamed["responses"][0]
    assert response["text"].endswith("syntax for types.[7]")
    seven = response["citations"][-1]
    assert seven["marker"] == "[7]"
    assert {s["key"]: s["url"] for s in response["sources"]}[
        seven["source_keys"][0]
    ] == "https://www.typescriptlang.org/"
    assert len(response["sources"]) == 10 and len(response["searches"]) == 1
