"""The stored-result version follows the core's code by itself: there is no number to bump."""

from __future__ import annotations

import ast
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType

from citeview.core.common.version import (
    CORE_DIR,
    PASSAGE_VERSION,
    PASSAGES_FOUND_WITH,
    RENDERED_WITH,
    RESULT_VERSION,
    code_version,
)

# Third-party libraries the core may import without being part of the version, and why.
# Snapshot texts are stored with their extractor and its version, and the passages found in them with
# PASSAGE_VERSION (rapidfuzz is part of it), never in a dump's result: an upgrade of these changes no
# stored result.
_SNAPSHOT_ONLY = "used only on source snapshots, whose texts record the extractor that made them"
OUTPUT_NEUTRAL = {
    "orjson": "framing uses it only where it reads exactly what json would",
    "trafilatura": _SNAPSHOT_ONLY,
    "lxml": _SNAPSHOT_ONLY,
    "rapidfuzz": "used only on source snapshots: the passages found with it are kept under PASSAGE_VERSION",
    "lemminflect": "word forms: read by passages (kept under PASSAGE_VERSION) and by hints, made on the page",
    "sudachipy": "word forms: read by passages (kept under PASSAGE_VERSION) and by hints, made on the page",
    "scipy": "a check plan's intervals, computed each time they are shown, never stored",
    "numpy": "a check plan's intervals, computed each time they are shown, never stored",
}


def core_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "core"
    shutil.copytree(CORE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_version_is_a_digest_of_the_running_core():
    assert code_version() == RESULT_VERSION and len(RESULT_VERSION) == 64


def test_a_copy_of_the_core_has_the_same_version(tmp_path):
    assert code_version(core_copy(tmp_path)) == RESULT_VERSION


def test_a_change_to_any_module_of_the_core_changes_the_version(tmp_path):
    core = core_copy(tmp_path)
    modules = sorted(core.rglob("*.py"))
    assert (
        len(modules) > 20 and core / "parsing" / "parse.py" in modules and core / "rendering" / "sanitize.py" in modules
    )
    for module in modules:
        original = module.read_bytes()
        module.write_bytes(original + b"\n# changed\n")
        assert code_version(core) != RESULT_VERSION, module
        module.write_bytes(original)
    assert code_version(core) == RESULT_VERSION


def test_a_new_module_or_a_module_moved_changes_the_version(tmp_path):
    core = core_copy(tmp_path)
    (core / "parsing" / "providers" / "newapi.py").write_text('"""A provider added later."""\n')
    with_new = code_version(core)
    assert with_new != RESULT_VERSION
    (core / "parsing" / "providers" / "newapi.py").rename(core / "parsing" / "newapi.py")
    assert code_version(core) not in (with_new, RESULT_VERSION)


def test_another_release_of_a_library_the_answer_is_rendered_with_changes_the_version():
    later = ModuleType("bleach")
    later.__version__ = "99.0"
    others = [library for library in RENDERED_WITH if library.__name__ != "bleach"]
    assert code_version(libraries=[later, *others]) != RESULT_VERSION


def test_every_library_the_core_imports_is_part_of_the_version_or_known_not_to_change_its_output():
    imported = set()
    for module in CORE_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    libraries = imported - set(sys.stdlib_module_names) - {"citeview", "__future__"}
    assert libraries, "the walk found no library at all"
    assert libraries <= {library.__name__ for library in RENDERED_WITH} | set(OUTPUT_NEUTRAL)


def test_the_passages_found_follow_the_evidence_code_and_its_libraries_but_not_a_provider(tmp_path):
    from citeview.core.common.version import PASSAGES_READ_WITH

    core = core_copy(tmp_path)

    def version(root: Path = core, libraries: list[ModuleType] | None = None) -> str:
        read_with = [root / name for name in PASSAGES_READ_WITH]
        return code_version(root / "evidence", libraries or list(PASSAGES_FOUND_WITH), read_with)

    assert version() == PASSAGE_VERSION
    (core / "parsing" / "providers" / "gemini.py").write_text("# changed\n", encoding="utf-8")
    assert version() == PASSAGE_VERSION
    (core / "parsing" / "request_documents.py").write_text("# changed\n", encoding="utf-8")
    assert version() == PASSAGE_VERSION
    (core / "common" / "numbers.py").write_text("# changed\n", encoding="utf-8")
    assert version() != PASSAGE_VERSION
    (core / "evidence" / "passages.py").write_text("# changed\n", encoding="utf-8")
    assert version() != PASSAGE_VERSION
    for library in PASSAGES_FOUND_WITH:  # rapidfuzz, and the word forms' libraries and dictionary
        later = ModuleType(library.__name__)
        later.__version__ = "99.0"
        others = [other for other in PASSAGES_FOUND_WITH if other is not library]
        assert version(CORE_DIR, [later, *others]) != PASSAGE_VERSION, library.__name__


def test_the_passages_version_covers_every_core_module_the_evidence_code_reads_with():
    # A change to how numbers or markers are read changes the passages found: they must be found again.
    from citeview.core.common.version import PASSAGES_READ_WITH

    imported = set()
    for path in (CORE_DIR / "evidence").glob("*.py"):
        imported |= set(re.findall(r"from citeview\.core\.(\w+)\.(\w+) import", path.read_text()))
    assert {f"{stage}/{name}.py" for stage, name in imported if stage != "evidence"} == set(PASSAGES_READ_WITH)
