"""JSON read strictly: what JSON does not allow and Python accepts (NaN, 1e400, two equal keys) is
refused, and a fast C reader's value is taken only where it is proven to be the one ``json`` makes.
Also what every layout's values go through: the depth limit and the strings text cannot hold."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from operator import methodcaller
from typing import Any

import msgspec
import orjson

from citeview.core.common.errors import DumpError
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.framing.framed import MAX_DEPTH


def loads_strict(text: str | bytes) -> Any:
    """One JSON value, refusing what JSON does not allow and Python accepts (NaN, 1e400, duplicate keys)."""
    value = _proven_json(text)
    if value is not UNPROVEN:
        return value
    return json.loads(
        text, parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_refuse_duplicate_keys
    )


UNPROVEN = object()


def _proven_json(text: str | bytes) -> Any:
    """A fast C reading of ``text``, when it is provably the one ``json`` makes; else ``UNPROVEN``.

    msgspec reads integers of any size exactly, refuses NaN, numbers too large for a float and half
    characters as ``json`` does here, and rounds floats as ``json`` does; but of two equal keys it
    keeps the last without a word. So its value is taken only when no key was dropped: written back,
    it holds as many colons as the bytes read (outside strings a colon only ever follows a key, and
    inside them each stands for itself, unless escaped as ``\\u003a``, which sends the text to
    ``json``). It proves any layout, compact, indented or spaced. Values nested deeper than
    ``MAX_DEPTH`` are read as before msgspec (``_orjson_proven``), so what is refused, and how, stays."""
    return proven_and_checked(text)[0]


def proven_and_checked(text: str | bytes) -> tuple[Any, bool]:
    """``_proven_json``'s value, and whether it is known to nest no deeper than ``MAX_DEPTH``."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    try:
        value = DECODER.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return UNPROVEN, False
    if MAY_ESCAPE_COLON in data:
        return UNPROVEN, False
    colons, too_deep = written_proof(value)
    if colons != data.count(b":"):
        return UNPROVEN, False
    if too_deep:
        return _orjson_proven(text), False
    return value, True


def written_proof(value: Any, level: int = 1) -> tuple[int, bool]:
    """The colons of ``value`` written as JSON, and whether a value in it nests deeper than
    ``MAX_DEPTH`` (``value`` itself ``level`` levels deep). One indented write proves both (how far
    in its lines start tells the depth), made a piece at a time (``_proof_pieces``): written whole,
    a large dump's indented copy was more than its own size again, on top of its values."""
    colons, too_deep = 0, False
    for piece, piece_level in _proof_pieces(value, level):
        try:  # orjson's is the quicker
            written = orjson.dumps(piece, option=orjson.OPT_INDENT_2)
        except orjson.JSONEncodeError:  # an integer beyond 64 bits, or nesting beyond orjson's reach
            written = msgspec.json.format(ENCODER.encode(piece), indent=2)
        colons += written.count(b":")
        # In JSON indented by two spaces, a value n levels below the piece starts 2n spaces in.
        too_deep = too_deep or b"\n" + b" " * (2 * (MAX_DEPTH - piece_level + 1)) in written
    return colons, too_deep


_PIECE_ITEMS = 1000  # a longer list is written this many items at a time; a dict this large is written whole


_SPLIT_LEVELS = 8  # containers less deep are written member by member (answers' long lists sit 2 to 7 deep)


def _proof_pieces(value: Any, level: int) -> Iterator[tuple[Any, int]]:
    """Pieces of ``value`` whose writings hold every colon and every line of its writing, each with
    the level it stands at: a dict's keys and plain values apart from its containers, a long list a
    slice at a time, each piece small unless a single string is large. A piece stands in for what it
    holds: its members lie as deep below it as they lie below the place it stands for."""
    if level >= _SPLIT_LEVELS or not isinstance(value, dict | list):
        yield value, level
        return
    if len(value) > _PIECE_ITEMS:
        if isinstance(value, dict):
            yield value, level
            return
        for start in range(0, len(value), _PIECE_ITEMS):
            yield value[start : start + _PIECE_ITEMS], level
        return
    members = value.values() if isinstance(value, dict) else value
    containers = [member for member in members if isinstance(member, dict | list)]
    if isinstance(value, dict):
        yield {key: None if isinstance(member, dict | list) else member for key, member in value.items()}, level
    elif len(containers) < len(value):
        yield [member for member in value if not isinstance(member, dict | list)], level
    for member in containers:
        yield from _proof_pieces(member, level + 1)


DECODER = msgspec.json.Decoder()


ENCODER = msgspec.json.Encoder()


MAY_ESCAPE_COLON = b"\\u003"  # the start of the escapes \u0030 to \u003f, ":" (\u003a) among them


# In JSON indented by two spaces, a value nested n levels deep starts 2(n - 1) spaces in.
_DEEPER_THAN_ALLOWED = b"\n" + b" " * (2 * MAX_DEPTH)


def may_nest_too_deep(data: bytes, depth: int = MAX_DEPTH) -> bool:
    """Whether a value in the JSON ``data`` may nest deeper than ``depth`` (found in C: no line of
    it indented by two spaces a level is indented that far). False only when none does."""
    deeper = _DEEPER_THAN_ALLOWED if depth == MAX_DEPTH else b"\n" + b" " * (2 * depth)
    return deeper in msgspec.json.format(data, indent=2)


def _orjson_proven(text: str | bytes) -> Any:
    """orjson's reading of ``text``, when it is provably the exact one; else ``UNPROVEN``: orjson
    keeps the last of two equal keys and reads integers beyond 64 bits as floats, so its value is
    taken only when it writes back to the very bytes read (compact, or indented by two spaces)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return UNPROVEN
    written = (text if isinstance(text, bytes) else text.encode("utf-8")).strip()
    try:
        if orjson.dumps(value) == written or orjson.dumps(value, option=orjson.OPT_INDENT_2) == written:
            return value
    except orjson.JSONEncodeError:  # nested too deeply for orjson to write: json reads it (and refuses it)
        pass
    return UNPROVEN


def _finite_float(text: str) -> float:
    """A JSON number as a float; one too large for a float (1e400) is refused like NaN, since no
    provider writes one and it could not be stored as JSON again."""
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"the number {text[:20]} is too large")
    return number


def json_error(exc: Exception, text: str, where: Phrase | None = None) -> DumpError:
    """The error for JSON that did not decode. Python's own reason (``exc.msg``) is quoted as it is."""
    where = where or phrase("The JSON")
    if isinstance(exc, RecursionError):
        return DumpError("too_deep", phrase("{where} is nested too deeply to read (thousands of levels).", where=where))
    if isinstance(exc, json.JSONDecodeError):
        # A string never closed runs to the end of the input: that is a cut, not a typo.
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            return DumpError(
                "truncated_json",
                phrase(
                    "{where} ends too early (line {line}, column {column}): the dump looks cut off.",
                    where=where,
                    line=exc.lineno,
                    column=exc.colno,
                ),
            )
        return DumpError(
            "invalid_json",
            phrase(
                "{where} is not valid at line {line}, column {column}: {reason}.",
                where=where,
                line=exc.lineno,
                column=exc.colno,
                reason=exc.msg,
            ),
        )
    return DumpError("invalid_json", phrase("{where} is not valid: {reason}.", where=where, reason=str(exc)))


count_braces = methodcaller("count", b"{")


count_brackets = methodcaller("count", b"[")


def refuse_deep(values: list[Any]) -> None:
    stack: list[tuple[Any, int]] = [(v, 1) for v in values]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DumpError(
                "too_deep",
                phrase("The JSON is nested more than {depth} levels deep; no provider response is.", depth=MAX_DEPTH),
            )
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values() if isinstance(item, (dict, list)))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value if isinstance(item, (dict, list)))


# Only an escape can put a NUL or a lone surrogate into valid JSON (a raw NUL or invalid UTF-8 is
# refused earlier), so a dump without one needs no walk through its strings.
MAY_HOLD_UNSHOWABLE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def repair_unshowable(values: list[Any]) -> int:
    """Replace what valid JSON can hold but text cannot (a lone surrogate, ``"\\udc00"``: a snippet
    cut between the halves of an emoji; a NUL, ``"\\u0000"``, which PostgreSQL cannot store) so the
    text can be shown and kept. Returns how many strings were repaired."""
    stack: list[Any] = list(values)
    repaired = 0
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key in [k for k in value if _UNSHOWABLE.search(k)]:
                value[_UNSHOWABLE.sub("\ufffd", key)] = value.pop(key)
                repaired += 1
            for key, item in value.items():
                if isinstance(item, str) and _UNSHOWABLE.search(item):
                    value[key] = _UNSHOWABLE.sub("\ufffd", item)
                    repaired += 1
                else:
                    stack.append(item)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str) and _UNSHOWABLE.search(item):
                    value[index] = _UNSHOWABLE.sub("\ufffd", item)
                    repaired += 1
                else:
                    stack.append(item)
    return repaired


_UNSHOWABLE = re.compile("[\x00\ud800-\udfff]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return obj


count_colons = methodcaller("count", b":")


# One value at a time out of a longer text (``raw_decode``), refusing what ``loads_strict`` refuses.
STRICT_DECODER = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_refuse_duplicate_keys
)
