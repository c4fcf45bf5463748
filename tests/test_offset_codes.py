"""A maintainer's rule: where a provider's span lands, or why it does not, is decided and written by
one placement step in the core (``citeview/core/parsing/placing.py``). No provider module writes an offset
diagnostic code itself, so the codes and the rule behind them cannot drift apart per provider."""

from __future__ import annotations

import ast
from pathlib import Path

PROVIDERS = Path(__file__).resolve().parent.parent / "citeview" / "core" / "providers"
# Every diagnostic code about offsets: a span out of the text, inside a character, holding other
# words, marking nothing, or read in another unit.
OFFSET_CODES = {
    "offset_out_of_range",
    "offset_inside_character",
    "segment_text_mismatch",
    "empty_span",
    "offset_unit",
}


def _string_literals(path: Path) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_no_provider_module_writes_an_offset_diagnostic_code():
    written = {
        f"{path.name}: {code}"
        for path in sorted(PROVIDERS.glob("*.py"))
        for code in OFFSET_CODES & _string_literals(path)
    }
    assert not written, "offset diagnostic codes belong to citeview/core/parsing/placing.py"


def test_the_placement_step_writes_every_offset_diagnostic_code():
    from citeview.core.parsing import placing

    assert set(placing.OFFSET_CODES) == OFFSET_CODES
    assert _string_literals(Path(placing.__file__)) >= OFFSET_CODES
