"""Real workers (``manage.py worker``), and a real web server (gunicorn, as ``make run`` serves), as
processes of their own, on the test's database and blob folder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from django.db import connection

from tests.conftest import PROJECT_DIR


def database_url() -> str:
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"
    return f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


def _environment(blobs: Path, **environment: str) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "BLOB_ROOT": str(blobs),
        "BLOB_FSYNC": "false",
        **environment,
    }


def start_worker(
    worker_id: str, blobs: Path, *options: str, pause_file: Path | None = None, **environment: str
) -> subprocess.Popen[bytes]:
    """``manage.py worker`` with ``options``, and ``environment`` set (``CITEVIEW_WORKER_HEARTBEAT_SECONDS="1"``)."""
    env = _environment(blobs, CITEVIEW_TEST_TASK_PAUSE_FILE=str(pause_file or ""), **environment)
    command = [sys.executable, "manage.py", "worker", "--worker-id", worker_id, "--no-reload", "--no-startup-delay"]
    return subprocess.Popen([*command, "--interval", "0.1", *options], cwd=PROJECT_DIR, env=env)


def wait_for(condition: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s in vain")
        time.sleep(0.1)


def start_web_server(blobs: Path, **environment: str) -> tuple[subprocess.Popen[bytes], str]:
    """gunicorn with two sync workers, as ``make run`` serves (scripts/serve), and its address once it
    answers ``/healthz``. Each worker answers one request at a time: what holds one holds half the site."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    command = [gunicorn, "citeview.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2", "--timeout", "120"]
    server = subprocess.Popen(
        [*command, "--no-control-socket"], cwd=PROJECT_DIR, env=_environment(blobs, **environment)
    )
    base = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return server.poll() is not None  # ended: said by the caller's first request

    wait_for(answers)
    return server, base
