"""The layers hold: import-linter checks the contracts in .importlinter (core <- accounts <- dumps <-
review <- api and pages; no Django in core; no provider module importing another; the entry point
naming no provider; nothing but the snapshots' tasks importing their worker module, which parses
pages; nothing but the URL confs importing a views module; the core's stages in their order), so a
change that breaks one fails the suite, not only ``make lint``. It reads the imports without running
them."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]


def test_no_layer_imports_one_above_it_the_core_imports_no_django_and_providers_stand_alone():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [lint_imports, "--no-cache", "--no-logo"], cwd=PROJECT_DIR, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 7 kept, 0 broken." in result.stdout


def test_every_module_named_for_views_is_one_no_module_may_import():
    # import-linter's wildcards replace whole module names: ``citeview.**.views`` holds every views
    # module, and one named ``*_views`` is held only if the contract lists it by name.
    config = configparser.ConfigParser()
    config.read(PROJECT_DIR / ".importlinter")
    forbidden = config["importlinter:contract:nothing-imports-a-view"]["forbidden_modules"].split()
    named = {
        ".".join(path.relative_to(PROJECT_DIR).with_suffix("").parts)
        for path in PROJECT_DIR.glob("citeview/**/*_views.py")
    }
    assert "citeview.**.views" in forbidden
    assert named <= set(forbidden), f"list these in .importlinter: {sorted(named - set(forbidden))}"


def test_every_module_of_the_core_belongs_to_a_stage_of_its_contract():
    # A module left at the core's top level would stand outside the stages' order, held by no layer.
    config = configparser.ConfigParser()
    config.read(PROJECT_DIR / ".importlinter")
    layers = config["importlinter:contract:core-stages"]["layers"].replace("|", " ").split()
    core = PROJECT_DIR / "citeview" / "core"
    top = {path.stem if path.suffix == ".py" else path.name for path in core.iterdir() if path.name != "__pycache__"}
    assert top - {"__init__"} == set(layers)
