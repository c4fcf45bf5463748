"""Whether a change to the reader or the parsers left every result byte-identical: a script to run,
not a test (the digests of one version of the code mean nothing to the next).

    python -m bench.same_output corpus DIR        # write generated dumps (the hostile suite's
                                                  # strategies, bench inputs) into DIR
    python -m bench.same_output compare OTHER [DIR ...]

``compare`` parses every real recording (``../shared/fixtures``), every sample
(``citeview/dumps/samples``), every built test fixture (``tests/fixtures``) and every file of the
``DIR``\\ s, once with this checkout's code and once with the checkout at ``OTHER`` (e.g. an export of
the main branch: ``git archive main | tar -x -C /tmp/main``), each in its own process, and lists
every input whose result (``parse_dump(raw).to_json()``, or the error's code and message) differs.
Exit 0 only when none does.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INPUT_FOLDERS = [
    ROOT.parent / "shared" / "fixtures",
    ROOT / "citeview" / "dumps" / "samples",
    ROOT / "tests" / "fixtures",
]


def inputs(extra: list[Path]) -> list[Path]:
    found = []
    for folder in [*INPUT_FOLDERS, *extra]:
        found += [p for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix != ".md"]
    return found


def digest(raw: bytes) -> str:
    try:
        from citeview.core.common.errors import DumpError
        from citeview.core.parsing.parse import parse_dump
    except ModuleNotFoundError:  # a checkout from before the core was cut into stages (issue 43)
        from citeview.core.errors import DumpError  # type: ignore[no-redef]
        from citeview.core.parse import parse_dump  # type: ignore[no-redef]

    try:
        result: object = parse_dump(raw, max_bytes=len(raw) + 1).to_json()
    except DumpError as error:
        result = {"error": error.to_json()}
    text = json.dumps(result, ensure_ascii=False, sort_keys=False, default=repr)
    # (surrogatepass: a result may hold a lone surrogate the dump escaped, and it must still count)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def digests_of(paths: list[str]) -> dict[str, str]:
    return {path: digest(Path(path).read_bytes()) for path in paths}


def write_corpus(folder: Path, per_strategy: int = 150) -> None:
    """Dumps drawn from every strategy of the hostile suite (valid-looking and scrambled), and the
    benchmark's inputs at a small size."""
    import warnings

    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import NonInteractiveExampleWarning
    from hypothesis.strategies import SearchStrategy

    from bench.inputs import GENERATORS
    from tests.hostile import strategies as hs
    from tests.hostile import (
        test_properties_bedrock,
        test_properties_cohere,
        test_properties_exports,
        test_properties_gemini_chunks,
        test_properties_xai,
    )

    warnings.simplefilter("ignore", NonInteractiveExampleWarning)
    folder.mkdir(parents=True, exist_ok=True)
    modules = [
        hs,
        test_properties_bedrock,
        test_properties_cohere,
        test_properties_exports,
        test_properties_gemini_chunks,
        test_properties_xai,
    ]
    for module in modules:
        for name in sorted(dir(module)):
            if not name.endswith("_dump"):
                continue
            made = getattr(module, name)
            try:
                strategy = made()
            except TypeError:
                continue
            if not isinstance(strategy, SearchStrategy):
                continue
            drawn: list[bytes] = []

            @settings(
                max_examples=per_strategy,
                database=None,
                deadline=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
            )
            @given(strategy)
            def collect(value: object) -> None:
                drawn.append(value[0] if isinstance(value, tuple) else value)  # type: ignore[arg-type]  # noqa: B023 (run at once, below)

            collect()
            for index, raw in enumerate(drawn):
                (folder / f"{module.__name__.rpartition('.')[2]}-{name}-{index:04}").write_bytes(raw)
    for provider, generate in GENERATORS.items():
        for size in (30_000, 300_000):
            (folder / f"bench-{provider}-{size}").write_bytes(generate(size))


def main() -> int:
    command, *rest = sys.argv[1:] or ["help"]
    if command == "corpus":
        write_corpus(Path(rest[0]))
        return 0
    if command == "_digests":  # the child process: paths on stdin, digests on stdout
        print(json.dumps(digests_of(json.loads(sys.stdin.read()))))
        return 0
    if command != "compare" or not rest:
        print(__doc__)
        return 2
    other, extra = Path(rest[0]).resolve(), [Path(p) for p in rest[1:]]
    paths = json.dumps([str(p) for p in inputs(extra)])
    results = []
    for root in (ROOT, other):
        run = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "_digests"],
            input=paths,
            capture_output=True,
            text=True,
            cwd=root,
            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        )
        if run.returncode:
            print(f"parsing with {root} failed:\n{run.stderr}", file=sys.stderr)
            return 2
        results.append(json.loads(run.stdout))
    ours, theirs = results
    differ = [path for path in ours if ours[path] != theirs.get(path)]
    for path in differ:
        print(f"differs: {path}")
    print(f"{len(ours) - len(differ)}/{len(ours)} results identical to {other}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
