"""The repository's commit-msg hook (scripts/hooks/commit-msg, installed by `make dev`): a subject of
72 characters or less, `area: what changed`, then a blank line and why (issue 43)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "scripts" / "hooks" / "commit-msg"


def hook(message: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    written = tmp_path / "COMMIT_EDITMSG"
    written.write_text(message, encoding="utf-8")
    return subprocess.run([sys.executable, str(HOOK), str(written)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    "message",
    [
        "snapshots: " + "x" * 61 + "\n\nWhy, with the figures.\n",  # 72 characters
        "locale: " + "語" * 64 + "\n",  # 72 characters, not bytes
        "# git's comments first\n\ndumps: one line\n# and after\n",
        "Merge branch 'uploads'\n",
    ],
)
def test_a_subject_of_72_characters_or_less_is_taken(message: str, tmp_path: Path) -> None:
    assert hook(message, tmp_path).returncode == 0


def test_a_longer_subject_is_refused_saying_how_long(tmp_path: Path) -> None:
    answer = hook("snapshots: " + "x" * 62 + "\n\nWhy.\n", tmp_path)
    assert answer.returncode == 1 and "The subject is 73 characters; at most 72" in answer.stderr


def test_a_body_right_under_the_subject_is_refused(tmp_path: Path) -> None:
    answer = hook("api: rate limits\nbecause scripts flooded it\n", tmp_path)
    assert answer.returncode == 1 and "Leave a blank line after the subject" in answer.stderr


def test_make_dev_installs_the_hooks() -> None:
    planned = subprocess.run(["make", "-n", "hooks"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "git config core.hooksPath scripts/hooks" in planned
    dev = next(line for line in (ROOT / "Makefile").read_text().splitlines() if line.startswith("dev:"))
    assert "hooks" in dev.split(":", 1)[1].split()
