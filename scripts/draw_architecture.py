"""Draw citeview's imports, from the code, as the two Mermaid pictures of docs/architecture.md.

    python scripts/draw_architecture.py            print both pictures
    python scripts/draw_architecture.py --write    put them into docs/architecture.md
    python scripts/draw_architecture.py --check    exit 1 if docs/architecture.md's pictures are stale

Each box is a package (an app, or a stage of the core) and each arrow the imports from one to the
other, counted. Boxes are drawn in the order of the layers contracts in ``.importlinter``, top layer
first, so an arrow that runs back up would point upwards; ``imports_back_up`` lists any.
"""

from __future__ import annotations

import configparser
import re
import sys
from collections import Counter
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PICTURES = {"apps": "citeview", "core": "citeview.core"}


def _layers(container: str) -> list[list[str]]:
    """The layers of the layers contract over ``container`` (top first), each a list of package names
    relative to it. The apps' contract names no container: its layers are written in full."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    for section in config.sections():
        contract = config[section]
        if contract.get("type") != "layers":
            continue
        if contract.get("containers", "citeview").strip() != container:
            continue
        rows = [row.strip() for row in contract["layers"].splitlines() if row.strip()]
        return [[name.strip().removeprefix(f"{container}.") for name in re.split(r"[|:]", row)] for row in rows]
    raise LookupError(f"no layers contract over {container}")


def _package(module: str, container: str, names: set[str]) -> str | None:
    if not module.startswith(f"{container}."):
        return None
    name = module.removeprefix(f"{container}.").split(".")[0]
    return name if name in names else None


def import_counts(graph: grimp.ImportGraph, container: str, names: set[str]) -> Counter[tuple[str, str]]:
    """How many module imports run from each package to each other one."""
    counts: Counter[tuple[str, str]] = Counter()
    for module in graph.modules:
        importer = _package(module, container, names)
        if importer is None:
            continue
        for imported_module in graph.find_modules_directly_imported_by(module):
            imported = _package(imported_module, container, names)
            if imported is not None and imported != importer:
                counts[(importer, imported)] += 1
    return counts


def imports_back_up(counts: Counter[tuple[str, str]], layers: list[list[str]]) -> list[tuple[str, str]]:
    floor = {name: depth for depth, row in enumerate(layers) for name in row}
    return sorted(edge for edge in counts if floor[edge[0]] > floor[edge[1]])


def picture(graph: grimp.ImportGraph, key: str) -> str:
    container = PICTURES[key]
    layers = _layers(container)
    names = {name for row in layers for name in row}
    counts = import_counts(graph, container, names)
    lines = ["```mermaid", "flowchart TB"]
    for depth, row in enumerate(layers):
        lines.append(f'    subgraph floor{depth} [" "]')
        lines.append("        direction LR")
        lines.extend(f"        {name}[{name}]" for name in row)
        lines.append("    end")
    for (importer, imported), count in sorted(counts.items()):
        lines.append(f"    {importer} -->|{count}| {imported}")
    lines.append("```")
    return "\n".join(lines)


def _marked(key: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- picture: {key} -->\n)(.*?)(\n<!-- end of picture -->)", re.DOTALL)


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph("citeview")
    pictures = {key: picture(graph, key) for key in PICTURES}
    if not argv:
        print("\n\n".join(pictures.values()))
        return 0
    text = DOC.read_text(encoding="utf-8")
    drawn = text
    for key, drawing in pictures.items():
        if not _marked(key).search(drawn):
            raise SystemExit(f"{DOC} has no '<!-- picture: {key} -->' … '<!-- end of picture -->'")
        drawn = _marked(key).sub(lambda match, drawing=drawing: match.group(1) + drawing + match.group(3), drawn)
    if argv == ["--check"]:
        if drawn != text:
            print(f"{DOC.relative_to(ROOT)} is stale: run `python scripts/draw_architecture.py --write`")
            return 1
        return 0
    DOC.write_text(drawn, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
