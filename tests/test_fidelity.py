"""The shared fidelity check (../shared/tools/check_fixtures.py) on every provider citeview reads."""

from __future__ import annotations

import os
import subprocess

import pytest

from citeview.core import registry
from tests.conftest import PROJECT_DIR, SHARED_FIXTURES

CHECKER = SHARED_FIXTURES.parent / "tools" / "check_fixtures.py"


@pytest.mark.parametrize("provider", registry.provider_names())
def test_every_real_fixture_passes_the_shared_fidelity_check(provider):
    if not CHECKER.exists() or not (PROJECT_DIR / ".venv" / "bin" / "python").exists():
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true needs ../shared/tools/check_fixtures.py and the project's .venv")
        pytest.skip("needs ../shared and the .venv that `make test` creates")
    result = subprocess.run(
        ["python3", str(CHECKER), provider], cwd=PROJECT_DIR, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1].endswith("real fixtures pass")
