"""A dump above CITEVIEW_READ_IN_TASK_ABOVE in a real browser, read by a real worker (``manage.py
worker``, a process of its own on the live server's database file): its page shows the progress,
then the viewer in its place with no reload asked of the reader; one that cannot be read shows why,
and Try again queues it again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from citeview.dumps.models import Dump
from tests.builders import sonar_object
from tests.tasks.workers import start_worker, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

ANSWER = "ワーカーが読んだ大きな回答です"
PANEL = ".cv-reading[data-status-url]"  # the progress panel (a viewer's raw text is .cv-reading too)


@pytest.fixture(autouse=True)
def read_in_a_worker(settings: Any, database_queue: None) -> None:
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 100  # every dump here goes to the worker


@pytest.fixture
def pause_file(tmp_path: Path) -> Path:
    """While it exists the worker waits in the middle of the task, with the dump marked being read."""
    held = tmp_path / "hold-the-task"
    held.touch()
    return held


@pytest.fixture
def worker(blob_folder: Path, pause_file: Path) -> Iterator[None]:
    process = start_worker("browser-1", blob_folder, "--verbosity", "0", pause_file=pause_file)
    yield
    process.terminate()
    process.wait(timeout=30)


def upload(page: Any, name: str, raw: bytes) -> None:
    page.goto("/")
    page.set_input_files("#id_file", {"name": name, "mimeType": "application/json", "buffer": raw})
    page.click(".cv-intake button[type=submit]")
    page.wait_for_selector(PANEL)


def test_the_progress_panel_gives_way_to_the_viewer(signed_in: Any, worker: None, pause_file: Path) -> None:
    page = signed_in  # in Japanese
    raw = json.dumps(sonar_object(ANSWER + "[1]", ["https://example.jp/a"]), ensure_ascii=False).encode()
    upload(page, "大きな回答.json", raw)
    dump = Dump.objects.get()
    assert page.locator("progress").is_visible()
    # The worker has begun and waits: the panel says so, from the status it asks for.
    page.wait_for_selector(".cv-reading-label:text-is('読み込み中')", timeout=30_000)
    pause_file.unlink()
    page.wait_for_selector(f"text={ANSWER}", timeout=30_000)
    # The answer may show while the page is being swapped for the viewer: wait for the panel to go.
    expect(page.locator(PANEL)).to_have_count(0, timeout=30_000)
    assert page.url.endswith(dump.get_absolute_url())
    assert not page.console_errors, page.console_errors


def test_a_dump_that_cannot_be_read_shows_why_and_can_be_tried_again(
    browser: Any, live_server: Any, account: Any, worker: None, pause_file: Path
) -> None:
    from tests.browser.conftest import PASSWORD

    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("#id_username", account.username)
    page.fill("#id_password", PASSWORD)
    page.click(".cv-login button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    pause_file.unlink()
    upload(page, "broken.json", b'{"choices": [' + b" " * 200)
    page.wait_for_selector(".cv-error[role=alert]", timeout=30_000)
    assert "This dump could not be read." in page.inner_text(PANEL)
    assert page.locator(".cv-reading-error").inner_text().strip()
    page.click(f"{PANEL} button:has-text('Try again')")
    page.wait_for_selector(".cv-message")
    wait_for(lambda: Dump.objects.get().read_attempts == 2, seconds=30)
    page.wait_for_selector(".cv-error[role=alert]", timeout=30_000)
    context.add_cookies([{"name": "django_language", "value": "ja", "url": live_server.url}])  # as the switch sets
    page.reload()
    assert "この回答データは読み込めませんでした。" in page.inner_text(PANEL)
    assert "やり直す" in page.inner_text(f"{PANEL} button")
    context.close()
