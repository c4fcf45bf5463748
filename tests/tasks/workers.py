"""Real workers (``manage.py worker``) as processes of their own, on the test's database and blob folder."""

from __future__ import annotations

import os
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


def start_worker(
    worker_id: str, blobs: Path, *options: str, pause_file: Path | None = None, **environment: str
) -> subprocess.Popen[bytes]:
    """``manage.py worker`` with ``options``, and ``environment`` set (``CITEVIEW_WORKER_HEARTBEAT_SECONDS="1"``)."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "BLOB_ROOT": str(blobs),
        "BLOB_FSYNC": "false",
        "CITEVIEW_TEST_TASK_PAUSE_FILE": str(pause_file or ""),
        **environment,
    }
    command = [sys.executable, "manage.py", "worker", "--worker-id", worker_id, "--no-reload", "--no-startup-delay"]
    return subprocess.Popen([*command, "--interval", "0.1", *options], cwd=PROJECT_DIR, env=env)


def wait_for(condition: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s in vain")
        time.sleep(0.1)
