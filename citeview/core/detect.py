"""Which provider and API produced a dump's values, and which values belong to which response.

Detection reads content, never tool names (``../shared/docs/provider-formats.md`` §5): the same
SDK can talk to several providers. What each API's values look like, how its streams split and
what tells it from another API of the same shape is declared in its provider's module
(``citeview/core/registry.py``); this module only applies those declarations, in their order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from citeview.core import registry
from citeview.core.errors import DumpError
from citeview.core.framing import FramedDump
from citeview.core.phrases import Phrase, phrase
from citeview.core.registry import NEITHER, ApiFormat, OneResponse, Shape, StreamSplitter, ValueKind


@dataclass
class ResponseValues:
    """The values (one object, or a stream's events) that make up one response."""

    shape: Shape
    streamed: bool
    values: list[dict[str, Any]]
    # What the stream has shown so far, kept up to date as values are added: looking through every
    # earlier value for each new one made long streams (tens of thousands of events) quadratic.
    splitter: StreamSplitter = field(default_factory=OneResponse)
    api: str = ""
    ignored: int = 0  # values of no known shape that no stream around them could take

    def add(self, value: dict[str, Any]) -> None:
        self.values.append(value)
        self.splitter.add(value)


def split_responses(dump: FramedDump, provider: str | None = None) -> list[ResponseValues]:
    groups, ignored = _group(dump, registry.shapes())
    if not groups:
        raise DumpError(
            "unknown_provider",
            _unknown_shape(dump.values),
        )
    groups[0].ignored = ignored
    apis = registry.apis_by_shape()
    if provider is not None:
        for group in groups:
            group.api = _forced_api(apis[group.shape.name], provider).name
        return groups
    marked: dict[str, str] = {}
    unmarked = []
    for group in groups:
        api = _marked_api(apis[group.shape.name], group.values)
        if api is None:
            unmarked.append(group)
            group.api = apis[group.shape.name][-1].name
        else:
            marked[group.shape.name] = group.api = api.name
    # A stream piece with no provider's mark of its own (deltas after a cut) belongs with its neighbours.
    for group in unmarked:
        group.api = marked.get(group.shape.name, group.api)
    return groups


def _group(dump: FramedDump, shapes: list[Shape]) -> tuple[list[ResponseValues], int]:
    groups: list[ResponseValues] = []
    current: ResponseValues | None = None
    waiting: list[dict[str, Any]] = []  # values of no known shape before any stream: the next stream takes them
    outside = 0
    # Per ``type`` and keys of a value: the first shape not known to refuse every such value, and
    # its kind when that is known too (``Shape.decide``). A stream's events are of a few kinds.
    decided: dict[tuple[str | None, tuple[str, ...]], tuple[int, ValueKind | None]] = {}
    for value in dump.values:
        if not isinstance(value, dict):
            outside += 1  # a bare number, string or list in a stream is no event of any provider
            continue
        # The first shape, by priority, that knows the value: written out here rather than called,
        # as this runs for every event of streams of tens of thousands.
        shape: Shape | None = None
        kind: ValueKind | None = None
        type_name = value.get("type")
        if type_name not in ("error", "ping"):
            first = 0
            if type(value) is dict and (type_name is None or type(type_name) is str):
                key = (type_name, tuple(value))
                known = decided.get(key)
                if known is None:
                    known = decided[key] = _decision(shapes, type_name, frozenset(key[1]))
                first, kind = known
                if kind is not None:
                    shape = shapes[first]
            if shape is None:
                for candidate in shapes[first:]:
                    kind = candidate.recognise(value)
                    if kind is not None:
                        shape = candidate
                        break
        if shape is None:
            # A ping, an error or an unknown event belongs to the stream around it; its parser reports it.
            (current.values if current is not None else waiting).append(value)
            continue
        if kind == "whole" or (kind == "chunk" and dump.framing == "json"):
            groups.append(ResponseValues(shape, False, [value]))
            current = None
            continue
        if (
            current is None
            or current.shape is not shape
            or current.splitter.starts_new_response(value, current.values[-1])
        ):
            current = ResponseValues(shape, True, [], shape.new_splitter())
            for earlier in waiting:
                current.add(earlier)
            waiting = []
            groups.append(current)
        current.add(value)
    for group in groups:
        if len(group.values) == 1 and group.shape.whole_when_alone(group.values[0]):
            group.streamed = False
    return groups, len(waiting) + outside


def _decision(shapes: list[Shape], type_name: str | None, keys: frozenset[str]) -> tuple[int, ValueKind | None]:
    """Where asking the shapes about a value of this type and these keys must start, and the kind
    of the shape there when its ``decide`` knows it (None: ask its ``recognise``)."""
    for index, shape in enumerate(shapes):
        decision = shape.decide(type_name, keys) if shape.decide is not None else None
        if decision == NEITHER:
            continue
        return index, cast(ValueKind | None, decision)
    return len(shapes), None


def _marked_api(apis: list[ApiFormat], values: list[dict[str, Any]]) -> ApiFormat | None:
    """The first of a shape's APIs, by priority, that one of the values shows as its own."""
    for api in apis:
        if api.marks is None or any(api.marks(value) for value in values):
            return api
    return None


def _forced_api(apis: list[ApiFormat], provider: str) -> ApiFormat:
    """The API of the shape that the reader chose, by its API's name or its provider's."""
    chosen = registry.api_format(provider)
    if chosen is not None:
        if chosen not in apis:
            raise DumpError(
                "unknown_provider",
                phrase("This dump does not have the shape of a {api} response.", api=chosen.label),
            )
        return chosen
    own = [api for api in apis if api.provider.name == provider]
    if not own:
        raise DumpError(
            "unknown_provider",
            phrase("This dump does not have the shape of any {provider} response.", provider=provider),
        )
    return own[0]


def _unknown_shape(values: list[Any]) -> Phrase:
    providers = ", ".join(provider.label for provider in registry.providers())
    first = values[0] if values else None
    if isinstance(first, dict) and first:
        return phrase(
            "This JSON is not a response from a provider citeview knows ({providers}); its first object has "
            "the keys {keys}.",
            providers=providers,
            keys=", ".join(sorted(str(k) for k in first)[:6]),
        )
    return phrase("This JSON is not a response from a provider citeview knows ({providers}).", providers=providers)
