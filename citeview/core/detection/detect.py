"""Which provider and API produced a dump's values, and which values belong to which response.

Detection reads content, never tool names (``../shared/docs/provider-formats.md`` §5): the same
SDK can talk to several providers. What each API's values look like, how its streams split and
what tells it from another API of the same shape is declared in its provider's module
(``citeview/core/detection/registry.py``); this module only applies those declarations, in their order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, cast

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection import registry
from citeview.core.detection.registry import NEITHER, ApiFormat, OneResponse, Shape, StreamSplitter, ValueKind


@dataclass
class ResponseValues:
    """The values (one object, or a stream's events) that make up one response."""

    shape: Shape
    streamed: bool
    # Its values; while a stream is read a part at a time (``StreamedResponses``), an iterator that
    # gives each of them once, as it is read.
    values: list[dict[str, Any]] | Iterator[dict[str, Any]]
    # What the stream has shown so far, kept up to date as values are added: looking through every
    # earlier value for each new one made long streams (tens of thousands of events) quadratic.
    splitter: StreamSplitter = field(default_factory=OneResponse)
    api: str = ""
    ignored: int = 0  # values of no known shape that no stream around them could take
    place: int = 0  # its place among the dump's responses
    # An API before ``api`` whose mark a value showed after the values were given to ``api``'s parser:
    # the API reading the response whole chooses (``StreamedResponses``).
    marked_late: str | None = None


class StreamedResponses:
    """Which values belong to which response, and of which API: each response's values are given to
    its parser as they are read, never all held at once. A response is given (iterate) as soon as its
    API is known: by the first of its values an API marks (the first of the shape's APIs, by priority,
    that marks it), or at its end. A response no value marks takes its API from the others of its
    shape, so it is given at the dump's end, its values held until then. Each response's values must
    be read before the next response is asked for. After the iteration, ``ignored`` is what the first
    response is told of; :class:`DumpError` if the dump has no response of a shape citeview knows.

    The API of a response is the first of its shape's that marks any of its values. When a value
    shows, late, the mark of an API before the one the response was given to, the response notes it
    (``ResponseValues.marked_late``): its values are to be read again with that API ``decided`` (by
    the response's place), as no parser can take back the values it has read. An API
    ``marked_at_start`` (a model's, an agent's) is not asked again of the values after."""

    def __init__(
        self, values: Iterable[Any], framing: str, provider: str | None = None, decided: dict[int, str] | None = None
    ) -> None:
        self._unread = _Unread()
        self._pairs = _Lookahead(_grouped(values, framing, registry.shapes(), self._unread))
        self._provider = provider
        self._decided = decided or {}
        self.ignored = 0

    def __iter__(self) -> Iterator[ResponseValues]:
        apis_by_shape = registry.apis_by_shape()
        marked: dict[str, str] = {}
        unmarked: list[ResponseValues] = []
        place = 0
        while (pair := self._pairs.peek()) is not None:
            group = pair[0]
            group.place, place = place, place + 1
            apis = apis_by_shape[group.shape.name]
            decided = self._decided.get(group.place)
            known = self._provider is not None or decided is not None  # (no value can change it)
            held, whole = self._held_until_marked(group, apis, known)
            chosen = 0 if known else _first_marked(apis, held)
            if chosen is None:  # (then every value is held)
                group.values = held
                unmarked.append(group)
                continue
            if self._provider is not None:
                group.api = _forced_api(apis, self._provider).name
            else:
                group.api = marked[group.shape.name] = decided or apis[chosen].name
            group.values = held if whole else self._values_of(group, held, apis[:chosen])
            yield group
            self._drain(group)
        if not place:
            raise DumpError("unknown_provider", _unknown_shape(self._unread.first))
        for group in unmarked:
            group.api = marked.get(group.shape.name, apis_by_shape[group.shape.name][-1].name)
            yield group
        self.ignored = self._unread.ignored

    def _held_until_marked(
        self, group: ResponseValues, apis: list[ApiFormat], known: bool
    ) -> tuple[list[dict[str, Any]], bool]:
        """The group's values up to the first an API marks (to its end when none does, or when its
        API is ``known``, its first), and whether they are all of them."""
        held = [self._pairs.take()[1]]
        while (following := self._pairs.peek()) is not None and following[0] is group:
            if known or _first_marked(apis, held[-1:]) is not None:
                return held, False
            held.append(self._pairs.take()[1])
        if len(held) == 1 and group.shape.whole_when_alone(held[0]):
            group.streamed = False
        return held, True

    def _values_of(
        self, group: ResponseValues, held: list[dict[str, Any]], earlier_apis: list[ApiFormat]
    ) -> Iterator[dict[str, Any]]:
        yield from held
        del held[:]  # (given to the parser: held no longer)
        # Written out (no calls but the marks), as this runs for every event of streams of tens of thousands.
        late = [api for api in earlier_apis if api.marks is not None and not api.marked_at_start]
        names = [api.name for api in late]
        marks = [(api.mark_member, api.marks) for api in late if api.marks is not None]
        pairs = self._pairs
        following = pairs.following
        if following is None or following[0] is not group:
            return
        pairs.following = None  # (while the group's values are read, the pairs are read here)
        for pair in chain((following,), pairs.rest):
            if pair[0] is not group:
                pairs.following = pair
                return
            value = pair[1]
            for member, marked in marks:
                if (member is None or member in value) and marked(value):
                    _note_marked_late(group, marked, names, marks)
                    break
            yield value

    def _drain(self, group: ResponseValues) -> None:
        """Read what the parser left of the group's values (a parser may stop at an error event)."""
        for _ in group.values:
            pass


def _note_marked_late(
    group: ResponseValues,
    marked: Callable[[dict[str, Any]], bool],
    names: list[str],
    marks: list[tuple[str | None, Callable[[dict[str, Any]], bool]]],
) -> None:
    """Note in ``group`` the earlier API whose mark (``marked``, of ``marks`` by priority) a value
    showed; only those before it are looked for afterwards."""
    position = [mark for _, mark in marks].index(marked)
    group.marked_late = names[position]
    del marks[position:], names[position:]


class _Lookahead:
    """The grouped values, with the next one (``following``) seen before it is taken."""

    def __init__(self, pairs: Iterator[tuple[ResponseValues, dict[str, Any]]]) -> None:
        self.rest = pairs
        self.following = next(pairs, None)

    def peek(self) -> tuple[ResponseValues, dict[str, Any]] | None:
        return self.following

    def take(self) -> tuple[ResponseValues, dict[str, Any]]:
        pair = self.following
        assert pair is not None
        self.following = next(self.rest, None)
        return pair


@dataclass
class _Unread:
    """What grouping leaves: how many values no response took, and the dump's first value."""

    ignored: int = 0
    first: Any = None


def _grouped(
    values: Iterable[Any], framing: str, shapes: list[Shape], unread: _Unread
) -> Iterator[tuple[ResponseValues, dict[str, Any]]]:
    """Each value that belongs to a response, with its response, in order (a value of no known
    shape before any stream after the stream's start, the stream takes it)."""
    current: ResponseValues | None = None
    last: dict[str, Any] = {}  # the current stream's last value
    waiting: list[dict[str, Any]] = []  # values of no known shape before any stream: the next stream takes them
    outside = 0
    # Per ``type`` and keys of a value: the first shape not known to refuse every such value, and
    # its kind when that is known too (``Shape.decide``). A stream's events are of a few kinds.
    decided: dict[tuple[str | None, tuple[str, ...]], tuple[int, ValueKind | None]] = {}
    first = True
    for value in values:
        if first:
            unread.first, first = value, False
        if not isinstance(value, dict):
            outside += 1  # a bare number, string or list in a stream is no event of any provider
            continue
        # The first shape, by priority, that knows the value: written out here rather than called,
        # as this runs for every event of streams of tens of thousands.
        shape: Shape | None = None
        kind: ValueKind | None = None
        type_name = value.get("type")
        if type_name not in ("error", "ping"):
            first_shape = 0
            if type(value) is dict and (type_name is None or type(type_name) is str):
                key = (type_name, tuple(value))
                known = decided.get(key)
                if known is None:
                    known = decided[key] = _decision(shapes, type_name, frozenset(key[1]))
                first_shape, kind = known
                if kind is not None:
                    shape = shapes[first_shape]
            if shape is None:
                for candidate in shapes[first_shape:]:
                    kind = candidate.recognise(value)
                    if kind is not None:
                        shape = candidate
                        break
        if shape is None:
            # A ping, an error or an unknown event belongs to the stream around it; its parser reports it.
            if current is not None:
                last = value
                yield current, value
            else:
                waiting.append(value)
            continue
        if kind == "whole" or (kind == "chunk" and framing == "json"):
            current = None
            yield ResponseValues(shape, False, []), value
            continue
        if current is None or current.shape is not shape or current.splitter.starts_new_response(value, last):
            current = ResponseValues(shape, True, [], shape.new_splitter())
            for earlier in waiting:
                current.splitter.add(earlier)
                yield current, earlier
            waiting = []
        current.splitter.add(value)
        last = value
        yield current, value
    unread.ignored = len(waiting) + outside


def _decision(shapes: list[Shape], type_name: str | None, keys: frozenset[str]) -> tuple[int, ValueKind | None]:
    """Where asking the shapes about a value of this type and these keys must start, and the kind
    of the shape there when its ``decide`` knows it (None: ask its ``recognise``)."""
    for index, shape in enumerate(shapes):
        decision = shape.decide(type_name, keys) if shape.decide is not None else None
        if decision == NEITHER:
            continue
        return index, cast(ValueKind | None, decision)
    return len(shapes), None


def _first_marked(apis: list[ApiFormat], values: list[dict[str, Any]]) -> int | None:
    """The place of the first of a shape's APIs that one of the values shows as its own."""
    api = _marked_api(apis, values)
    return None if api is None else apis.index(api)


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


def _unknown_shape(first: Any) -> Phrase:
    providers = ", ".join(provider.label for provider in registry.providers())
    if isinstance(first, dict) and first:
        return phrase(
            "This JSON is not a response from a provider citeview knows ({providers}); its first object has "
            "the keys {keys}.",
            providers=providers,
            keys=", ".join(sorted(str(k) for k in first)[:6]),
        )
    return phrase("This JSON is not a response from a provider citeview knows ({providers}).", providers=providers)
