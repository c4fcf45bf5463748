"""Production mode, from the environment: `check --deploy` clean, a clear error without a secret key,
strict headers, secure cookies, hashed static files served by the app, and gunicorn's view of it.
And `make run`, production mode over plain http on loopback (scripts/run-env, scripts/serve).

Settings are read once per process, so each check runs a fresh Python with production variables.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from contextlib import closing
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


RUN_ENV = PROJECT_DIR / "scripts" / "run-env"


def make_run_env(production: dict[str, str], **extra: str) -> dict[str, str]:
    """The production fixture's database and collected static files, with nothing of a deployment's
    settings: what `make run` serves with is scripts/run-env's alone. The secret key is given, as
    run-env would otherwise keep one in the checkout's var/ (the next test makes one elsewhere)."""
    return {k: v for k, v in production.items() if k not in ("DEBUG", "ALLOWED_HOSTS")} | extra


RUN_PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.test import Client
client = Client(HTTP_HOST="127.0.0.1:8000")
login = client.get("/accounts/login/")
html = login.content.decode()
start = html.index('/static/citeview/citeview.')
css = html[start:html.index('"', start)]
missing = client.get("/no/such/page")
print(json.dumps({
    "debug": settings.DEBUG,
    "fetch": settings.CITEVIEW_SNAPSHOT_FETCH,
    "login": login.status_code,
    "hsts": login.get("Strict-Transport-Security"),
    "csrf_secure": login.cookies["csrftoken"]["secure"],
    "css": css,
    "static": client.get(css).status_code,
    "missing": [missing.status_code, missing.content.decode()],
}))
"""


def test_make_run_serves_with_debug_off_over_plain_http_with_fetch_on_and_its_static_files(production):
    result = subprocess.run(
        [str(RUN_ENV), sys.executable, "-c", RUN_PROBE],
        env=make_run_env(production),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["debug"] is False and seen["fetch"] is True
    assert seen["login"] == 200 and seen["hsts"] is None and not seen["csrf_secure"]  # no HTTPS on loopback
    assert seen["css"] != "/static/citeview/citeview.css" and seen["static"] == 200  # hashed, by WhiteNoise
    status, page = seen["missing"]
    assert status == 404 and "Page not found" in page and "URLconf" not in page


def test_make_run_makes_its_secret_key_once_and_keeps_it_for_the_owner_alone(tmp_path):
    (tmp_path / "scripts").mkdir()
    run_env = shutil.copy(RUN_ENV, tmp_path / "scripts" / "run-env")
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    keys = [
        subprocess.run([run_env, "printenv", "SECRET_KEY"], env=env, capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert keys[0].stdout == keys[1].stdout and len(keys[0].stdout.strip()) >= 50
    assert stat.S_IMODE((tmp_path / "var" / "secret-key").stat().st_mode) == 0o600


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fetched(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def processes_with(marker: str) -> list[int]:
    """The processes whose environment holds ``marker``: those the test started, and their children."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker.encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def running_queues(production: dict[str, str]) -> list[str]:
    """The queues each running worker takes, as it recorded them (manage.py worker's heartbeat)."""
    database = production["DATABASE_URL"].removeprefix("sqlite:///")
    with closing(sqlite3.connect(database, timeout=20)) as db:
        rows = db.execute("SELECT queues FROM dumps_workerheartbeat WHERE stopped_at IS NULL").fetchall()
    return sorted(queues for (queues,) in rows)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="finds what is left running through /proc")
def test_make_runs_server_answers_pages_and_static_files_and_ctrl_c_stops_it_and_its_worker(production):
    port, marker = free_port(), f"citeview-test-{uuid.uuid4()}"
    env = make_run_env(production, CITEVIEW_TEST_RUN=marker)
    serving = subprocess.Popen(
        [str(RUN_ENV), "scripts/serve", f"127.0.0.1:{port}"],
        cwd=PROJECT_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a terminal of its own, to press Ctrl-C in
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if fetched(f"{base}/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.3)
        status, login = fetched(f"{base}/accounts/login/")
        assert status == 200
        start = login.index("/static/citeview/citeview.")
        assert fetched(base + login[start : login.index('"', start)])[0] == 200
        status, missing = fetched(f"{base}/no/such/page")
        assert status == 404 and "Page not found" in missing and "URLconf" not in missing
        # Every queue is served, and webhook deliveries by a worker of their own (a slow receiver
        # holds it, never the dumps' reads): what the workers record as they start.
        deadline = time.monotonic() + 60
        while running_queues(production) != ["default,snapshots", "webhooks"] and time.monotonic() < deadline:
            time.sleep(0.3)
        assert running_queues(production) == ["default,snapshots", "webhooks"]
        os.killpg(serving.pid, signal.SIGINT)  # what Ctrl-C sends the terminal's processes
        serving.wait(timeout=60)
        for _ in range(50):
            if not processes_with(marker):
                break
            time.sleep(0.2)
        assert processes_with(marker) == []  # the server and the worker both stopped
    finally:
        for pid in processes_with(marker):
            os.kill(pid, signal.SIGKILL)
