"""A small provider of the tests' own, declared the way a provider module declares its APIs.

``toy.answers`` answers ``{"toy_answer": "...[1]", "toy_sources": ["https://..."]}``: ``[n]`` is the
n-th URL of ``toy_sources``. A stream of them (JSON Lines) sends the answer so far in each line;
a line whose answer does not go on from the one before starts the next response.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from citeview.core.common.model import Response
from citeview.core.common.phrases import phrase
from citeview.core.detection import registry
from citeview.core.detection.registry import ApiFormat, Provider, Shape, ValueKind
from citeview.core.parsing.citing import cite_markers
from citeview.core.parsing.sources import SourceTable

# The toy's words are its own: no catalogue has them, so every language shows them in English.
TOY_NOTATION = "[n] markers in the text, n being a 1-based position in toy_sources"


def toy_answer(text: str, *urls: str) -> dict[str, Any]:
    return {"toy_answer": text, "toy_sources": list(urls)}


def _toy_value(value: dict[str, Any]) -> ValueKind | None:
    if isinstance(value.get("toy_answer"), str) and isinstance(value.get("toy_sources"), list):
        return "chunk"
    return None


class _ToyStream:
    def __init__(self) -> None:
        self.answer = ""

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        return not value["toy_answer"].startswith(self.answer)

    def add(self, value: dict[str, Any]) -> None:
        self.answer = value.get("toy_answer", self.answer)


def parse_toy_answers(values: Iterable[dict[str, Any]], streamed: bool) -> Response:
    response = Response("toy", "toy.answers", streamed, status="completed")
    *_, last = values  # (each value is given once: a stream's may not all be held)
    response.text = last["toy_answer"]
    table = SourceTable(response)
    for position, url in enumerate(last["toy_sources"], 1):
        table.add(str(position), kind="web", url=url, title=None)
    cite_markers(
        response, lambda m: table.keys_for(m.ref), lambda m: phrase("{marker} points at no source", marker=m.text)
    )
    return response


TOY_ANSWERS = ApiFormat(
    name="toy.answers",
    label="Toy Answers",
    provider=Provider("toy", "Toy"),
    shape=Shape(name="toy", priority=90, recognise=_toy_value, new_splitter=_ToyStream),
    parser=parse_toy_answers,
    citation_notation=phrase("[n] markers in the text, n being a 1-based position in toy_sources"),
)


@contextmanager
def toy_registered(api: ApiFormat = TOY_ANSWERS) -> Iterator[ApiFormat]:
    """The toy API registered for as long as the block runs, and gone again after it."""
    registry.register(api)
    try:
        yield api
    finally:
        registry.unregister(api.name)
