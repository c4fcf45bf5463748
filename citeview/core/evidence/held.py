"""The evidence a dump itself holds for a citation, and what it is.

A reviewer must be able to tell a quote the provider gave from a search engine's excerpt: the first
stands for the claim, the second is not the page. So every piece of evidence carries its kind:

- ``checked_quote``: the provider's quote (Claude's ``cited_text``), checked against the document the
  request sent, whether it matched or not;
- ``quote``: the provider's quote as the API gave it, with nothing to check it against;
- ``search_snippet``: a search engine's excerpt of the page (Perplexity's, xAI's, …);
- ``retrieved_passage``: what a file search or a retrieval returned (OpenAI, Gemini, Bedrock);
- ``document_text``: the document the caller sent, as the provider echoed it (Cohere);
- ``tool_output``: what a tool the caller ran returned (Cohere, Mistral);
- ``fetched_page``: the page as the model fetched and read it (Claude's web fetch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

EvidenceKind = Literal[
    "checked_quote", "quote", "search_snippet", "retrieved_passage", "document_text", "tool_output", "fetched_page"
]
EVIDENCE_KINDS: tuple[EvidenceKind, ...] = (
    "checked_quote",
    "quote",
    "search_snippet",
    "retrieved_passage",
    "document_text",
    "tool_output",
    "fetched_page",
)
# The provider's words for the claim, rather than a text of the source the dump happens to hold.
QUOTE_KINDS = frozenset({"checked_quote", "quote"})


@dataclass(frozen=True)
class HeldEvidence:
    text: str
    kind: EvidenceKind

    @property
    def is_quote(self) -> bool:
        return self.kind in QUOTE_KINDS


def held_evidence(citation: dict[str, Any], key: str, sources: dict[str, Any]) -> HeldEvidence | None:
    """The evidence the dump holds for ``citation``'s source ``key``: the quote the provider returned (a
    citation with a quote names one source, its first), else the text the dump holds of that source;
    None when it holds none."""
    if citation["cited_text"] is not None:
        if key != citation["source_keys"][0]:
            return None
        check = citation.get("quote_check") or {}
        kind: EvidenceKind = "checked_quote" if check.get("result") in ("match", "mismatch") else "quote"
        return HeldEvidence(str(citation["cited_text"]), kind)
    source = sources.get(key)
    if not source or not isinstance(source["extra"].get("snippet"), str) or not source["extra"]["snippet"].strip():
        return None
    snippet_kind = source["extra"].get("snippet_kind")
    if snippet_kind in EVIDENCE_KINDS:
        return HeldEvidence(source["extra"]["snippet"], snippet_kind)
    # A file's text with no kind given is what the file search returned; any other, a search excerpt.
    return HeldEvidence(
        source["extra"]["snippet"], "retrieved_passage" if source["kind"] == "file" else "search_snippet"
    )
