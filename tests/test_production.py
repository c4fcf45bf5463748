"""Production mode, from the environment: `check --deploy` clean, a clear error without a secret key,
strict headers, secure cookies, hashed static files served by the app, and gunicorn's view of it.

Settings are read once per process, so each check runs a fresh Python with production variables.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR

SECRET = "a-production-secret-key-that-is-long-and-random-enough-0123456789abcdef"


def production_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(
        DEBUG="false",
        SECRET_KEY=SECRET,
        ALLOWED_HOSTS="citeview.example.org",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        STATIC_ROOT=str(tmp_path / "static"),
        DJANGO_SETTINGS_MODULE="citeview.settings",
    )
    env.update(overrides)
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def production(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = production_env(tmp_path_factory.mktemp("production"))
    for command in (["migrate", "--noinput"], ["collectstatic", "--noinput"]):
        result = manage(env, *command)
        assert result.returncode == 0, result.stderr
    return env


def test_check_deploy_is_clean_in_production_mode(production):
    result = manage(production, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_without_a_secret_key_production_refuses_to_start_and_says_why(tmp_path):
    result = manage(production_env(tmp_path, SECRET_KEY=""), "check")
    assert result.returncode != 0 and "SECRET_KEY must be set when DEBUG is off" in result.stderr


SCRIPT = """
import json, django
django.setup()
from django.test import Client
client = Client(HTTP_HOST="citeview.example.org")
plain = client.get("/accounts/login/")
health = client.get("/healthz")
page = client.get("/accounts/login/", secure=True)
html = page.content.decode()
start = html.index('/static/citeview/citeview.')
css = html[start:html.index('"', start)]
static = client.get(css, secure=True)
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location", "")],
    "health": health.status_code,
    "status": page.status_code,
    "headers": dict(page.headers),
    "cookies": {name: dict(morsel) for name, morsel in page.cookies.items()},
    "css": css,
    "static": [static.status_code, static.get("Cache-Control", "")],
}))
"""


def test_pages_carry_strict_headers_secure_cookies_and_hashed_static_files(production):
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=PROJECT_DIR, env=production, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [301, "https://citeview.example.org/accounts/login/"]
    assert seen["health"] == 200  # load balancers probe over plain HTTP: no redirect for them
    assert seen["status"] == 200
    headers = seen["headers"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    policy = headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy
    assert headers["X-Frame-Options"] == "DENY" and headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Content-Type-Options"] == "nosniff"
    csrf = seen["cookies"]["csrftoken"]
    assert csrf["secure"] is True and csrf["samesite"] == "Lax"
    assert seen["css"] != "/static/citeview/citeview.css"  # a hashed name: cached for good, never stale
    assert seen["static"][0] == 200 and "immutable" in seen["static"][1]


def test_gunicorn_loads_the_application(production):
    result = subprocess.run(
        [str(Path(sys.executable).with_name("gunicorn")), "--check-config", "citeview.wsgi"],
        cwd=PROJECT_DIR,
        env=production,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
