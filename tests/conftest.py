"""Shared test helpers: the real recorded fixtures beside the project, our own small dumps, people."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[1]
OWN_FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED_FIXTURES = PROJECT_DIR.parent / "shared" / "fixtures"


def real_fixtures(provider: str) -> list[Path]:
    """Every recorded dump of a provider in ../shared/fixtures.

    They are required in CI: a missing folder there fails the run instead of skipping silently.
    """
    folder = SHARED_FIXTURES / provider
    if not folder.is_dir():
        if os.environ.get("CI") == "true":
            raise RuntimeError(f"CI=true but the real fixtures are missing: {folder}")
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in (".json", ".sse"))


def recorded_providers() -> list[str]:
    """The providers with a folder of real recordings (the exports, Vercel's and LangChain's, have none)."""
    if not SHARED_FIXTURES.is_dir():
        if os.environ.get("CI") == "true":
            raise RuntimeError(f"CI=true but the real fixtures are missing: {SHARED_FIXTURES}")
        return []
    return sorted(folder.name for folder in SHARED_FIXTURES.iterdir() if folder.is_dir())


def fixture_ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def own_fixture(name: str) -> bytes:
    return (OWN_FIXTURES / name).read_bytes()


def sse(*events: dict[str, Any], named: bool = True, done: bool = False, newline: str = "\n") -> bytes:
    """A stream as a provider sends it: `event:` + `data:` lines, a blank line after each event."""
    lines = []
    for event in events:
        if named and "type" in event:
            lines.append(f"event: {event['type']}")
        lines.append("data: " + json.dumps(event, ensure_ascii=False))
        lines.append("")
    if done:
        lines += ["data: [DONE]", ""]
    return (newline.join(lines) + newline).encode("utf-8")


def user_with_role(django_user_model: Any, username: str, role: str) -> Any:
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(username=username, password="a-long-test-password")
    user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def editor(django_user_model: Any) -> Any:
    return user_with_role(django_user_model, "hanako", "editor")


@pytest.fixture
def second_editor(django_user_model: Any) -> Any:
    return user_with_role(django_user_model, "taro", "editor")


@pytest.fixture
def reviewer(django_user_model: Any) -> Any:
    return user_with_role(django_user_model, "yuki", "reviewer")


@pytest.fixture
def editor_client(client: Any, editor: Any) -> Any:
    client.force_login(editor)
    return client


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    """Password hashing is slow on purpose; tests log in often and test nothing about the hash."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def blob_folder(settings: Any, tmp_path: Path) -> Path:
    """Each test's blobs (the bytes of its dumps) in a folder of its own, never in the checkout's var/.
    Not synced to disk: nothing survives a test. tests/storage runs the same tests on an S3 bucket."""
    folder = tmp_path / "blobs"
    settings.STORAGES = {
        **settings.STORAGES,
        "blobs": {"BACKEND": "citeview.dumps.blobs.BlobFolderStorage", "OPTIONS": {"location": folder, "fsync": False}},
    }
    return folder


@pytest.fixture(autouse=True)
def tasks_run_at_once(settings: Any) -> None:
    """Tasks run as they are queued, in the test's own transaction: a test sees what a worker would
    have made. Tests of the queue itself use ``database_queue`` and real workers (tests/tasks)."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture
def database_queue(settings: Any, tasks_run_at_once: None) -> None:
    """Tasks queued in the database as in a deployment, for a worker (``manage.py worker``) to run."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None, tmp_path_factory: Any) -> None:
    """SQLite's test database in a file, not in memory: a worker started as its own process
    (tests/tasks) must open the same database as the test."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("database") / "test.sqlite3")
