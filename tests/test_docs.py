"""The README a newcomer reads in a minute (issue 43): its first screen says what citeview is and gives
the two commands, the one CI runs among them; the rest lives in pages under docs/, every one linked
from the README, and no relative link in the README or those pages leads nowhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR

README = PROJECT_DIR / "README.md"
DOCS = PROJECT_DIR / "docs"
CI_RUN = PROJECT_DIR / ".ci" / "run"
FIRST_SCREEN_LINES = 60
# Longer than this and the README is a manual again: a new topic gets a page under docs/.
README_MOST_LINES = 100

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`+[^`]*`+")
LINK = re.compile(r"!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, …


def _documents() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def _prose_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The lines outside fenced code, with inline code taken out: a link written as code is no link."""
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, CODE_SPAN.sub("", line)


def _relative_links(path: Path) -> Iterator[tuple[int, str]]:
    for number, line in _prose_lines(path):
        for target in LINK.findall(line):
            if not EXTERNAL.match(target):
                yield number, target


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in _prose_lines(path):
        heading = HEADING.match(line)
        if not heading:
            continue
        slug = _slug(heading.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")  # GitHub numbers repeated headings
    return anchors


def _broken(path: Path, target: str) -> str | None:
    file_part, _, anchor = target.partition("#")
    linked = (path.parent / file_part).resolve() if file_part else path
    if not linked.exists():
        return f"{file_part} does not exist"
    if anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
        return f"{linked.name} has no heading for #{anchor}"
    return None


def _first_fenced_commands(lines: list[str]) -> list[str]:
    """The commands of the first shell block, each without its comment; none if it is not in these lines."""
    start = next((i for i, line in enumerate(lines) if line.strip() in ("```sh", "```shell", "```bash")), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(lines)) if FENCE.match(lines[i])), start + 1)
    return [line.split("#", 1)[0].strip() for line in lines[start + 1 : end] if line.strip()]


@pytest.mark.parametrize("path", _documents(), ids=lambda path: str(path.relative_to(PROJECT_DIR)))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(path: Path) -> None:
    broken = [
        f"{path.relative_to(PROJECT_DIR)}:{number}: {target}: {reason}"
        for number, target in _relative_links(path)
        if (reason := _broken(path, target))
    ]
    assert not broken, "\n".join(broken)


def test_the_first_screen_of_the_readme_gives_the_two_commands() -> None:
    first_screen = README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN_LINES]
    commands = _first_fenced_commands(first_screen)
    assert "make run" in commands and "make test" in commands, commands


def test_ci_runs_the_test_command_the_readme_gives() -> None:
    first_screen = README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN_LINES]
    readme_tests = [command for command in _first_fenced_commands(first_screen) if "test" in command]
    assert readme_tests, f"no test command in the README's first {FIRST_SCREEN_LINES} lines"
    ci_commands = [
        line.strip() for line in CI_RUN.read_text(encoding="utf-8").splitlines() if not line.lstrip().startswith("#")
    ]
    assert readme_tests[0] in ci_commands, (readme_tests[0], ci_commands)


def test_every_page_under_docs_is_linked_from_the_readme() -> None:
    linked = {(README.parent / target.partition("#")[0]).resolve() for _, target in _relative_links(README)}
    pages = sorted(DOCS.glob("*.md"))
    unlinked = [str(page.relative_to(PROJECT_DIR)) for page in pages if page.resolve() not in linked]
    assert not unlinked, f"pages a reader of the README cannot find: {unlinked}"


def test_the_readme_stays_short_enough_to_read_in_a_minute() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MOST_LINES, f"README.md has {len(lines)} lines: move the details to docs/"
