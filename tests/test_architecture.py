"""docs/architecture.md's pictures of the imports are drawn from the code, and show none running back up."""

from __future__ import annotations

import runpy
from collections import Counter
from pathlib import Path

import grimp
import pytest

PROJECT_DIR = Path(__file__).resolve().parents[1]
DRAW = runpy.run_path(str(PROJECT_DIR / "scripts" / "draw_architecture.py"))


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("citeview")


def test_the_pictures_in_docs_architecture_are_todays_imports():
    assert DRAW["main"](["--check"]) == 0, "run `make architecture` and commit docs/architecture.md"


@pytest.mark.parametrize("key", ["apps", "core"])
def test_no_arrow_of_a_picture_runs_back_up(graph, key):
    container = DRAW["PICTURES"][key]
    layers = DRAW["_layers"](container)
    counts = DRAW["import_counts"](graph, container, {name for row in layers for name in row})
    assert counts, "the picture would have no arrow at all"
    assert DRAW["imports_back_up"](counts, layers) == []


def test_an_import_running_back_up_is_found():
    layers = [["checking"], ["rendering", "evidence"], ["parsing"]]
    counts = Counter({("checking", "parsing"): 3, ("parsing", "rendering"): 2})
    assert DRAW["imports_back_up"](counts, layers) == [("parsing", "rendering")]
