"""The normalised citation model and its contract JSON (``../shared/docs/normalized-json.md``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citeview.core.common.phrases import Phrase, phrase

CONTRACT_VERSION = 1

SEVERITIES = ("error", "warning", "info")
_SENTENCE_ENDS = (".", "。", "!", "?", "！", "？")

# What a source's ``extra["snippet"]`` is, in ``extra["snippet_kind"]``: a reviewer must be able to
# tell a search engine's excerpt from the passage a retrieval returned or the document itself.
SNIPPET_KINDS = (
    "search_snippet",  # a search engine's excerpt of the page (not the page)
    "retrieved_passage",  # the passage a retrieval (file search, RAG) returned for the answer
    "document_text",  # the document the caller sent, as the provider echoed it
    "tool_output",  # what a tool the caller ran returned
    "fetched_page",  # the page as the model fetched and read it (Claude's web fetch)
)


@dataclass
class Source:
    key: str
    kind: str  # "web" | "document" | "file" | "tool" (a tool's output, such as Cohere's tool sources)
    url: str | None = None
    title: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "url": self.url, "title": self.title, "extra": self.extra}


@dataclass
class Citation:
    start: int
    end: int
    source_keys: list[str]
    marker: str | None = None
    cited_text: str | None = None
    location: dict[str, Any] | None = None
    confidence: list[float] | None = None
    # Added fields (contract v1 allows additions): how cited_text compared with the request's document,
    # {"result": "match" | "mismatch", "unit": "code_points" | "utf16" | "utf8" | null}, and the
    # document text around the quote, {"before", "quote", "after"} (or {"blocks": [...]}).
    quote_check: dict[str, Any] | None = None
    context: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "marker": self.marker,
            "source_keys": list(self.source_keys),
            "cited_text": self.cited_text,
            "location": self.location,
            "confidence": self.confidence,
            "quote_check": self.quote_check,
            "context": self.context,
        }


@dataclass
class Marker:
    """A citation marker in the text that points at no source."""

    marker: str
    ref: str
    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"marker": self.marker, "ref": self.ref, "start": self.start, "end": self.end}


@dataclass
class Diagnostic:
    code: str
    severity: str
    message: Phrase
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        # "message" is the contract's English sentence; "phrase" (an addition) lets a page translate it.
        return {
            "code": self.code,
            "severity": self.severity,
            "message": str(self.message),
            "details": self.details,
            "phrase": self.message.to_json(),
        }


@dataclass
class SearchBatch:
    """One search the provider ran, as received: its queries and the sources it returned."""

    queries: list[str]
    source_keys: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"queries": list(self.queries), "source_keys": list(self.source_keys)}


@dataclass
class ReasoningText:
    """Text the model wrote beside its answer: its plan before calling tools, or its thinking. What
    it cites is shown apart from the answer's citations, since it supports no claim of the answer.
    Its citations' offsets count code points of ``text``."""

    kind: str  # "plan" | "thinking"
    text: str
    citations: list[Citation] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "citations": [c.to_json() for c in self.citations]}


@dataclass
class Recitation:
    """A stretch of the answer the model reproduced from a published work (Gemini's
    ``citationMetadata``): an attribution notice, not grounding. ``start``/``end`` count code points
    of the answer, or are None when the notice gives no place or its place does not fit the text."""

    start: int | None
    end: int | None
    url: str | None = None
    title: str | None = None
    license: str | None = None
    publication_date: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "url": self.url,
            "title": self.title,
            "license": self.license,
            "publication_date": self.publication_date,
        }


@dataclass(frozen=True)
class ListedInOrder:
    """Sources a response lists in an order its provider documents (Sonar's ``citations``) or keeps
    (OpenRouter's annotations at 0–0), while placing none of them in the text: a marker's number N
    names the N-th entry, counting from 1 (``parsing/citing.py``'s marker step)."""

    keys: tuple[str, ...]  # the source of each entry, in list order ("" where an entry is no source)
    name: str  # what the dump calls the list: "citations", "annotations"


@dataclass
class Response:
    provider: str
    api: str
    streamed: bool
    id: str | None = None
    model: str | None = None
    status: str = "incomplete"  # "completed" | "incomplete" | "failed"
    status_detail: Phrase | None = None
    text: str = ""
    sources: list[Source] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    unresolved: list[Marker] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    searches: list[SearchBatch] = field(default_factory=list)
    # Added fields (contract v1 allows additions): which candidate this is when a Gemini response has
    # several, and Gemini's Search Suggestions HTML exactly as provided (shown only in a sandbox).
    candidate: int | None = None
    search_suggestions: str | None = None
    # Sources the response says it cites without saying where (annotations without positions, exports
    # that keep no positions): listed as cited, never placed at a guessed position.
    cited_without_position: list[str] = field(default_factory=list)
    reasoning: list[ReasoningText] = field(default_factory=list)
    recitations: list[Recitation] = field(default_factory=list)
    # Not in the JSON; for the marker step (``parsing/citing.py``). A reader sets the first where its
    # sources are numbered by their order; the step notes each notation read, so none is read twice.
    listed_in_order: ListedInOrder | None = field(default=None, repr=False, compare=False)
    notations_read: list[str] = field(default_factory=list, repr=False, compare=False)

    def diagnose(self, code: str, severity: str, message: Phrase, **details: Any) -> None:
        self.diagnostics.append(Diagnostic(code, severity, message, details))

    def mark_failed(self, error: Any = None, *, detail: Phrase | None = None) -> None:
        """A failure: the provider's error object, whose message is shown as it came (untranslated),
        or a failure citeview words itself (``detail``), such as a failed status."""
        if detail is None:
            message = error.get("message") if isinstance(error, dict) else None
            detail = (
                phrase("{message}", message=str(message))
                if message
                else phrase("the provider reported a failure without a message")
            )
        self.status = "failed"
        self.status_detail = detail
        # A provider's message that ends its own sentence gets no second full stop.
        if str(detail).rstrip().endswith(_SENTENCE_ENDS):
            said = phrase("The response failed: {detail}", detail=detail)
        else:
            said = phrase("The response failed: {detail}.", detail=detail)
        self.diagnose("failed_response", "error", said, error=error if isinstance(error, dict) else None)

    def set_status(self, status: Any, error: Any = None, reason: str | None = None) -> None:
        """A response's own status field: completed only when it says so; failed with the provider's
        error (or its status, when it gave no error); anything else incomplete, with its reason."""
        if status == "completed":
            self.status = "completed"
        elif status == "failed":
            if isinstance(error, dict) and error:
                self.mark_failed(error)
            else:
                self.mark_failed(detail=phrase("status {status}", status="failed"))
        elif status and reason:
            self.mark_incomplete(phrase("status {status}: {reason}", status=str(status), reason=reason))
        elif status:
            self.mark_incomplete(phrase("status {status}", status=str(status)))
        else:
            self.mark_incomplete(phrase("the response has no {field}", field="status"))

    def set_finish(
        self, reason: str | None, *, field: str, completed: set[str], why: dict[str, Phrase] | None = None
    ) -> None:
        """The status a finish (or stop) reason gives: completed only when the provider said so."""
        if reason in completed:
            self.status = "completed"
        elif reason:
            explanation = (why or {}).get(reason)
            if explanation:
                self.mark_incomplete(
                    phrase("{field} {reason}: {explanation}", field=field, reason=reason, explanation=explanation)
                )
            else:
                self.mark_incomplete(phrase("{field} {reason}", field=field, reason=reason))
        elif self.streamed:
            self.mark_incomplete(phrase("stream ended without a {field}", field=field))
        else:
            self.mark_incomplete(phrase("the response has no {field}", field=field))

    def mark_incomplete(self, detail: Phrase) -> None:
        self.status = "incomplete"
        self.status_detail = detail
        self.diagnose("incomplete_response", "warning", phrase("The response is incomplete: {detail}.", detail=detail))

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "api": self.api,
            "streamed": self.streamed,
            "id": self.id,
            "model": self.model,
            "status": self.status,
            "status_detail": str(self.status_detail) if self.status_detail else None,
            "status_detail_phrase": self.status_detail.to_json() if self.status_detail else None,
            "text": self.text,
            "sources": [s.to_json() for s in self.sources],
            "citations": [c.to_json() for c in self.citations],
            "unresolved": [m.to_json() for m in self.unresolved],
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "searches": [b.to_json() for b in self.searches],
            "candidate": self.candidate,
            "search_suggestions": self.search_suggestions,
            "cited_without_position": list(self.cited_without_position),
            "reasoning": [r.to_json() for r in self.reasoning],
            "recitations": [r.to_json() for r in self.recitations],
        }


@dataclass
class ParsedDump:
    sha256: str
    size: int
    framing: str
    responses: list[Response]

    def to_json(self) -> dict[str, Any]:
        return {
            "citeview": CONTRACT_VERSION,
            "dump": {"sha256": self.sha256, "bytes": self.size, "framing": self.framing},
            "responses": [r.to_json() for r in self.responses],
        }
