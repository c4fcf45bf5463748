"""The side-by-side evidence on every provider's real recordings (../shared/fixtures): each citation
with text behind it in the dump gets a row, its evidence labelled by what it is, and nothing in it is
markup but citeview's own marks."""

from __future__ import annotations

import os
import re

import pytest

from citeview.core.checking.side_by_side import evidence_view
from citeview.core.common.errors import DumpError
from citeview.core.evidence.held import EVIDENCE_KINDS
from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import source_labels
from tests.conftest import SHARED_FIXTURES, real_fixtures, recorded_providers

# What each provider's recordings hold as evidence: the kinds their rows are labelled with. Mistral's
# and xAI's recordings carry no text of their sources (only titles and URLs), so they have no rows.
EXPECTED_KINDS = {
    "anthropic": {"quote"},  # cited_text; no document attached to these recordings to check it against
    "azure": set(),  # its one recording's answer cites none of the chunks retrieved
    "bedrock": {"quote"},
    "cohere": {"document_text", "tool_output"},
    "gemini": {"retrieved_passage"},
    "groq": set(),  # its pages' text is on the sources: the answer ties no sentence to one
    "mistral": set(),
    "openai": {"retrieved_passage"},  # file search results
    "openrouter": {"search_snippet"},  # the page text its web search annotations carry
    "perplexity": {"search_snippet"},
    "xai": set(),
}
pytestmark = pytest.mark.skipif(
    not SHARED_FIXTURES.is_dir() and os.environ.get("CI") != "true", reason="needs ../shared/fixtures"
)
_OWN_MARK = re.compile(r'</?mark(?: class="cv-(?:number|qualifier|negation)-diff")?>')


def test_every_recorded_provider_has_its_evidence_kinds_named_here():
    assert set(recorded_providers()) == set(EXPECTED_KINDS)


@pytest.mark.parametrize("provider", sorted(EXPECTED_KINDS))
def test_every_citation_with_text_behind_it_is_a_labelled_row(provider):
    kinds = set()
    for path in real_fixtures(provider):
        try:
            result = parse_dump(path.read_bytes(), max_bytes=path.stat().st_size + 1).to_json()
        except DumpError:
            continue  # a recording of an error: no answer to cite
        for response in result["responses"]:
            view = evidence_view(response, source_labels(response))
            for row in view["rows"]:
                assert row["passages"], path.name
                assert "<" not in _OWN_MARK.sub("", row["claim_html"]), path.name
                for passage in row["passages"]:
                    assert passage["kind"] in EVIDENCE_KINDS
                    assert "<" not in _OWN_MARK.sub("", passage["quote_html"]), path.name
                    kinds.add(passage["kind"])
    assert kinds == EXPECTED_KINDS[provider]
