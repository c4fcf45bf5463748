"""No regular expression in citeview takes more than linear time on what a dump, a snapshot or a form
can hold (issue 42: "1" and 40,000 spaces held a check page for 20 s).

The patterns are found, not listed: every module under ``citeview`` is imported and each compiled
pattern it holds is taken (at module level, in a class, in a tuple, list, set or dict of them), and so
is every pattern written as a literal in a call of ``re`` inside a function (``re.sub(r"\\s+", …)``).
A pattern added anywhere is held to the bound without being named here.

Each is run with ``search`` and ``finditer`` (what ``findall``, ``sub`` and ``split`` do) on inputs of
50,000 characters: long runs of spaces, digits, punctuation and kanji; a digit, spaces and then "x" or
"%"; and the pattern's own literal pieces repeated ("not " 12,500 times for the negations). Each run
must take under 0.2 s of processor time: a linear pattern takes a few milliseconds, a quadratic one
seconds."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import regex

import citeview

LENGTH = 50_000
BOUND_SECONDS = 0.2  # the bound, per pattern, input and way of running it
_PATTERN_TYPES = (re.Pattern, type(regex.compile("")))
_RE_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}
_GENERIC = {
    "spaces": " " * LENGTH,
    "newlines": "\n" * LENGTH,
    "tabs and spaces": " \t" * (LENGTH // 2),
    "digits": "1" * LENGTH,
    "digit, spaces, x": "1" + " " * (LENGTH - 2) + "x",
    "digit, spaces, %": "1" + " " * (LENGTH - 2) + "%",
    "digits and spaces": "1 " * (LENGTH // 2),
    "digits and stops": "1." * (LENGTH // 2),
    "digits and commas": "1," * (LENGTH // 2),
    "letters": "a" * LENGTH,
    "words": "a " * (LENGTH // 2),
    "kanji": "一" * LENGTH,
    "punctuation": "!?.,;:-/()[]<>*_#`'\"|~+=…、。" * (LENGTH // 28),
    "dots": "." * LENGTH,
    "dashes": "-" * LENGTH,
    "brackets": "([" * (LENGTH // 2),
}
_PIECES_PER_PATTERN = 10


def _citeview_modules() -> list[Any]:
    names = [info.name for info in pkgutil.walk_packages(citeview.__path__, "citeview.")]
    return [importlib.import_module(name) for name in ["citeview", *names]]


def _held(value: Any, where: str, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """The compiled patterns in ``value``: itself, or inside its containers (two levels down)."""
    if isinstance(value, _PATTERN_TYPES):
        yield where, value
    elif depth < 2 and isinstance(value, dict):
        for key, item in value.items():
            yield from _held(item, f"{where}[{key!r}]", depth + 1)
    elif depth < 2 and isinstance(value, (tuple, list, set, frozenset)):
        for number, item in enumerate(value):
            yield from _held(item, f"{where}[{number}]", depth + 1)


def _flags(node: ast.expr | None) -> int:
    """``re.I | re.S`` as written in a call, or 0 for anything else."""
    if isinstance(node, ast.Attribute) and isinstance(getattr(re, node.attr, None), re.RegexFlag):
        return int(getattr(re, node.attr))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    return 0


def _literal_calls(module: Any) -> Iterator[tuple[str, re.Pattern[Any]]]:
    """The patterns written as a literal in a call of ``re`` (``re.sub(r"\\s+", " ", word)``)."""
    source = Path(inspect.getfile(module)).read_text()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.func.attr in _RE_CALLS):
            continue
        if not node.args or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
            continue
        flags = next((_flags(k.value) for k in node.keywords if k.arg == "flags"), 0)
        if node.func.attr == "compile" and len(node.args) > 1:
            flags = _flags(node.args[1])
        yield f"{module.__name__}:{node.lineno}", re.compile(node.args[0].value, flags)


def every_pattern() -> dict[str, Any]:
    """Each distinct pattern in citeview by where it was first found."""
    found: dict[tuple[Any, int], tuple[str, Any]] = {}
    for module in _citeview_modules():
        places = [(f"{module.__name__}.{name}", value) for name, value in vars(module).items()]
        places += [
            (f"{module.__name__}.{name}.{attribute}", member)
            for name, value in vars(module).items()
            if inspect.isclass(value) and value.__module__ == module.__name__
            for attribute, member in vars(value).items()
        ]
        for where, value in places:
            for at, pattern in _held(value, where):
                found.setdefault((pattern.pattern, pattern.flags), (at, pattern))
        for at, pattern in _literal_calls(module):
            found.setdefault((pattern.pattern, pattern.flags), (at, pattern))
    return {at: pattern for at, pattern in found.values()}


PATTERNS = every_pattern()


def literal_pieces(pattern: Any) -> list[str]:
    """The runs of literal characters the pattern is written with, longest first ("not", "ません",
    "fiscal"): the pieces a hostile text repeats to make a pattern try them again and again."""
    text = pattern.pattern if isinstance(pattern.pattern, str) else pattern.pattern.decode("latin-1")
    try:
        parsed = re._parser.parse(text, pattern.flags & ~re.DEBUG)  # type: ignore[attr-defined]
    except re.error:
        return []
    runs: set[str] = set()

    def walk(items: Any) -> None:
        run: list[str] = []
        for op, argument in items:
            if str(op) == "LITERAL":
                run.append(chr(argument))
                continue
            if run:
                runs.add("".join(run))
                run = []
            for part in argument if isinstance(argument, (tuple, list)) else ():
                if isinstance(part, re._parser.SubPattern):  # type: ignore[attr-defined]
                    walk(part)
                elif isinstance(part, (tuple, list)):
                    for inner in part:
                        if isinstance(inner, re._parser.SubPattern):  # type: ignore[attr-defined]
                            walk(inner)
        if run:
            runs.add("".join(run))

    walk(parsed)
    return sorted(runs, key=lambda run: (-len(run), run))


def _sampled(pieces: list[str]) -> list[str]:
    """At most _PIECES_PER_PATTERN of ``pieces``, from the longest to the shortest, evenly spread."""
    if len(pieces) <= _PIECES_PER_PATTERN:
        return pieces
    step = (len(pieces) - 1) / (_PIECES_PER_PATTERN - 1)
    return [pieces[round(n * step)] for n in range(_PIECES_PER_PATTERN)]


def hostile_inputs(pattern: Any) -> dict[str, str | bytes]:
    inputs: dict[str, str] = dict(_GENERIC)
    pieces = literal_pieces(pattern)
    if pieces:  # every piece, one after another: a long alternation's words met in turn
        every = " ".join(pieces) + " "
        inputs["every piece in turn"] = (every * (LENGTH // len(every) + 1))[:LENGTH]
    for piece in _sampled(pieces):
        inputs[f"{piece!r} repeated"] = (piece * (LENGTH // len(piece) + 1))[:LENGTH]
        spaced = piece + " "
        inputs[f"{piece!r} and a space repeated"] = (spaced * (LENGTH // len(spaced) + 1))[:LENGTH]
    if isinstance(pattern.pattern, bytes):
        return {name: text.encode() for name, text in inputs.items()}
    return dict(inputs)


def _seconds(run: Any) -> float:
    """The processor time ``run`` takes, not the wall clock's (on a machine loaded by other work a
    0.05 s pattern took 0.22 s by the clock): the less of two tries when the first is over the bound
    (a pause is not the pattern's; a quadratic pattern is slow both times)."""
    took = float("inf")
    for _ in range(2):
        start = time.process_time()
        run()
        took = min(took, time.process_time() - start)
        if took < BOUND_SECONDS:
            break
    return took


def test_the_walk_finds_the_patterns_of_every_kind_of_place():
    """The checker checks itself: a module's pattern, a class's, one in a list of them, and one written
    in a call inside a function are all found."""
    found = set(PATTERNS)
    assert "citeview.core.evidence.compare._MAYBE_PERIOD" in found
    assert any(at.startswith("citeview.core.evidence.compare:") for at in found)  # re.sub(r"\s+", …) in a function
    assert any(at.startswith("citeview.core.parsing.providers.") for at in found)
    assert len(PATTERNS) > 100
    assert "not" in literal_pieces(PATTERNS["citeview.core.evidence.compare._NEGATION"])


def test_the_checker_catches_a_quadratic_pattern():
    slow = re.compile(r"\d\s*月?\s*[〜-]")  # the shape of issue 42's _MAYBE_PERIOD
    text = "1" + " " * 10_000 + "x"  # a fifth of the length: a quadratic pattern is over the bound already
    start = time.process_time()
    slow.search(text)
    assert time.process_time() - start > BOUND_SECONDS


@pytest.mark.parametrize("where", sorted(PATTERNS))
def test_every_pattern_runs_in_linear_time_on_hostile_input(where):
    pattern = PATTERNS[where]
    slow = []
    for name, text in hostile_inputs(pattern).items():
        for way, run in (
            ("search", lambda text=text: pattern.search(text)),
            ("finditer", lambda text=text: sum(1 for _ in pattern.finditer(text))),
        ):
            took = _seconds(run)
            if took >= BOUND_SECONDS:
                slow.append(f"{way} on {name}: {took:.2f} s")
    assert not slow, f"{where} ({pattern.pattern!r}) is slow: {slow}"
