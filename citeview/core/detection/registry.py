"""The APIs citeview reads. Each is declared once, at the end of its provider's module in
``citeview/core/parsing/providers/``, with ``register(ApiFormat(...))``.

Everything that needs the list (detection, parsing, the handover report, the forms' choices, the
OpenAPI document, ``parsedump``) asks here each time it runs, never keeping a copy from import
time: an API registered later, as the tests' toy provider is, is then seen everywhere.

The provider modules are found the way Django finds management commands: every module in
``citeview/core/parsing/providers/`` whose name does not start with ``_`` is imported the first time the
registry is read.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from citeview.core.common.model import Response
from citeview.core.common.phrases import Phrase

# How a value of a shape stands: one ``event`` of a stream, a ``whole`` response, or a ``chunk`` of a
# stream that is a whole response when the dump is that one JSON object.
ValueKind = Literal["event", "whole", "chunk"]
# What ``recognise`` says of every value whose ``type`` is the given string (None: it has no ``type``)
# and whose keys are the given ones, when that alone decides it: a kind, or NEITHER when it says None
# of every such value; None when it depends on more (``recognise`` is then asked).
Decision = Literal["event", "whole", "chunk", "neither"]
NEITHER: Decision = "neither"
# A parser reads one response's values (``streamed``: they are a stream's), each once, in order: a
# large stream's are given as they are read, never all held at once (``detect.StreamedResponses``);
# a response that is not a stream is a list of its one value. Gemini answers with one Response per
# candidate.
Parser = Callable[[Iterable[dict[str, Any]], bool], Response | list[Response]]
# Checks a response's quotes against the request that produced it, adding what it finds to the response.
RequestCheck = Callable[[Response, dict[str, Any]], None]

_PROVIDERS_PACKAGE = "citeview.core.parsing.providers"


class StreamSplitter(Protocol):
    """What a stream of one shape has shown so far, to tell where its next response starts.

    One is made per stream and sees each of its values once, in order: per value it must do a fixed
    amount of work, never look back through the values before (streams have tens of thousands)."""

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        """Whether ``value`` starts a new response rather than continuing the one so far, whose
        last value is ``previous``."""
        ...

    def add(self, value: dict[str, Any]) -> None:
        """``value`` belongs to the response so far."""
        ...


class OneResponse:
    """The splitter of a shape whose streams are never split: every value continues the response."""

    def starts_new_response(self, value: dict[str, Any], previous: dict[str, Any]) -> bool:
        return False

    def add(self, value: dict[str, Any]) -> None:
        return None


def _never(value: dict[str, Any]) -> bool:
    return False


@dataclass(frozen=True, kw_only=True)
class Shape:
    """A shape of JSON values, shared by every API that answers in it: OpenAI's Responses shape is
    also Perplexity's Agent API's. Detection asks the shapes in ``priority`` order (lowest first)
    which one a value has, because their tests overlap."""

    name: str
    priority: int
    # The kind of value this is in this shape, or None when the value does not have this shape.
    recognise: Callable[[dict[str, Any]], ValueKind | None]
    new_splitter: Callable[[], StreamSplitter] = OneResponse
    # A stream that turns out to be this one value is a whole response when this says so.
    whole_when_alone: Callable[[dict[str, Any]], bool] = _never
    # ``recognise`` as far as a value's ``type`` and keys alone decide it (see ``Decision``), so that
    # detection asks each shape once per kind of event of a stream, not once per event. It must
    # never contradict ``recognise``; None: always ask ``recognise``.
    decide: Callable[[str | None, frozenset[str]], Decision | None] | None = None


@dataclass(frozen=True)
class Provider:
    name: str  # "anthropic": what dumps, filters and the API call it
    label: str  # "Claude": what people call it


@dataclass(frozen=True, kw_only=True)
class ApiFormat:
    """One API citeview reads: everything the rest of citeview needs to know about it."""

    name: str  # "openai.responses": the provider's name, a dot, the API
    label: str  # "OpenAI Responses"
    provider: Provider
    shape: Shape
    parser: Parser | None  # None: recognised, but citeview cannot read it yet
    # How its citations are written, for the handover report: a phrase, so the catalogue lists it
    # from here and the report shows it in the reader's language.
    citation_notation: Phrase
    # Where several APIs share a shape: whether a value shows it is this API's. The shape's APIs are
    # asked in ``priority`` order (lowest first); when no value shows any, the last one is taken.
    # None: every value of its shape is this API's.
    marks: Callable[[dict[str, Any]], bool] | None = None
    priority: int = 0
    # Its mark, where a response is its own, shows on the value that decides the response's API: a
    # model the stream names there (Responses' ``response.created``, every chat chunk), or an event
    # family the shape's splitter keeps apart (Bedrock's agents). It is not asked of the values after
    # (``StreamedResponses``), as every event of a long stream would pay for it.
    marked_at_start: bool = False
    # A member every value it marks holds: looked up before the mark is asked of a stream's later
    # values, which spares a call for every event of the other APIs' long streams.
    mark_member: str | None = None
    request_check: RequestCheck | None = None
    # Its citations name a document by its place among the request's documents (``document_index``),
    # so documents attached on their own, without their request, can stand for the request's.
    cites_documents_by_index: bool = False


_registered: dict[str, ApiFormat] = {}
_loaded = False
_loading = threading.RLock()


def register(api: ApiFormat) -> None:
    """Add an API. A provider module calls this at its end, once per API."""
    if api.name.partition(".")[0] != api.provider.name:
        raise ValueError(f"API {api.name!r} must be named {api.provider.name}.<api>")
    if api.name in _registered:
        raise ValueError(f"API {api.name!r} is already registered")
    for other in _registered.values():
        if other.shape.name == api.shape.name and other.shape != api.shape:
            raise ValueError(f"{api.name} and {other.name} name different shapes {api.shape.name!r}")
        if other.provider.name == api.provider.name and other.provider != api.provider:
            raise ValueError(f"{api.name} and {other.name} describe provider {api.provider.name!r} differently")
    _registered[api.name] = api


def unregister(name: str) -> None:
    """Take an API away again (a test that registered its own does, when it ends)."""
    del _registered[name]


def api_formats() -> list[ApiFormat]:
    """Every API, by name."""
    _load_provider_modules()
    return sorted(_registered.values(), key=lambda api: api.name)


def api_format(name: str | None) -> ApiFormat | None:
    _load_provider_modules()
    return _registered.get(name) if name is not None else None


def api_names() -> list[str]:
    return [api.name for api in api_formats()]


def providers() -> list[Provider]:
    """Every provider with an API, by name."""
    return sorted({api.provider for api in api_formats()}, key=lambda provider: provider.name)


def provider_names() -> list[str]:
    return [provider.name for provider in providers()]


def shapes() -> list[Shape]:
    """Every shape an API has, in the order detection asks them."""
    by_name = {api.shape.name: api.shape for api in api_formats()}
    return sorted(by_name.values(), key=lambda shape: (shape.priority, shape.name))


def apis_by_shape() -> dict[str, list[ApiFormat]]:
    """Each shape's APIs, in the order they are asked whether a value is theirs."""
    found: dict[str, list[ApiFormat]] = {}
    for api in sorted(api_formats(), key=lambda api: (api.priority, api.name)):
        found.setdefault(api.shape.name, []).append(api)
    return found


def _load_provider_modules() -> None:
    global _loaded
    if _loaded:
        return
    with _loading:  # two first requests at once: the second waits until every module is in
        if _loaded:
            return
        package = importlib.import_module(_PROVIDERS_PACKAGE)
        for module in pkgutil.iter_modules(package.__path__):
            if not module.name.startswith("_"):
                importlib.import_module(f"{_PROVIDERS_PACKAGE}.{module.name}")
        _loaded = True
