"""PDF bombs uploaded as snapshots do not stall the site (issue 42, finding 2): served as ``make run``
serves (gunicorn, two sync workers, and a task worker beside them), two 1 KB form-XObject bombs
uploaded at once are stored and queued, and ``/healthz`` answers at once all the while the task worker
reads them. Before, each upload was read in its request: two held both web workers for the whole
reading budget, and ``/healthz`` took 18.5 s."""

from __future__ import annotations

import json
import re
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from django.conf import settings
from django.test import Client
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from citeview.snapshots.models import SnapshotFetch
from tests.builders import sonar_object
from tests.core.pdfs import pdf_form_bomb
from tests.tasks.workers import start_web_server, start_worker

pytestmark = pytest.mark.django_db(transaction=True)

# The reading budget of the web server and the worker: short, so that the test ends soon, and still
# six times the bound /healthz is held to.
READING_SECONDS = "3"
HEALTHZ_SECONDS = 0.5  # the bound


def signed_in(base: str, editor: Any) -> requests.Session:
    """A browser's session on the real server: the test's login (the sessions are in the database)."""
    client = Client()
    client.force_login(editor)
    session = requests.Session()
    session.cookies.set(settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value)
    return session


def upload_form(session: requests.Session, base: str, check_page: str) -> tuple[str, str]:
    """The check page's upload form as a browser has it: its action and CSRF token."""
    form = session.get(base + check_page, timeout=60).text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    address = re.search(r'<form method="post" action="([^"]+)" enctype="multipart/form-data"', form)
    assert token is not None and address is not None
    return base + address.group(1), token.group(1)


def upload_bomb(
    session: requests.Session, form: tuple[str, str], bomb: bytes, answers: list[tuple[int, float]]
) -> None:
    address, token = form
    start = time.monotonic()
    answer = session.post(
        address,
        data={"take": "upload", "csrfmiddlewaretoken": token},
        files={"page": ("report.pdf", bomb, "application/pdf")},
        allow_redirects=False,
        timeout=120,
    )
    answers.append((answer.status_code, time.monotonic() - start))


def test_two_pdf_bombs_uploaded_at_once_leave_healthz_answering_within_half_a_second(
    editor, database_queue, blob_folder
):
    dump = dump_ingest(
        raw=json.dumps(
            sonar_object("Tokyo had 14.1 million people[1].", ["https://stats.example/report.pdf"])
        ).encode(),
        uploaded_by=editor,
    )[0]
    check_page = reverse("review:item", args=[dump.pk, "r0-c0"])
    server, base = start_web_server(blob_folder, CITEVIEW_SNAPSHOT_EXTRACT_SECONDS=READING_SECONDS)
    worker = start_worker("bombs-1", blob_folder, CITEVIEW_SNAPSHOT_EXTRACT_SECONDS=READING_SECONDS)
    try:
        bombs = [pdf_form_bomb(shows=1_000), pdf_form_bomb(shows=1_001)]  # two files, not the same one twice
        assert all(len(bomb) < 1_100 for bomb in bombs)
        sessions = [signed_in(base, editor) for _ in bombs]
        # Both web workers warmed (the first request of each loads the URLs and the templates) and each
        # browser's form in hand before the clock starts.
        with ThreadPoolExecutor(len(sessions)) as browsers:
            for _ in range(3):
                forms = list(browsers.map(lambda session: upload_form(session, base, check_page), sessions))
        answers: list[tuple[int, float]] = []
        uploads = [
            threading.Thread(target=upload_bomb, args=(session, form, bomb, answers))
            for session, form, bomb in zip(sessions, forms, bombs, strict=True)
        ]
        for upload in uploads:
            upload.start()
        healthz: list[float] = []
        deadline = time.monotonic() + 90
        # Asked all the while: the uploads sent, then the worker reading both bombs to their end.
        while time.monotonic() < deadline:
            start = time.monotonic()
            assert requests.get(f"{base}/healthz", timeout=60).status_code == 200
            healthz.append(time.monotonic() - start)
            uploads_done = not any(upload.is_alive() for upload in uploads)
            readings = list(SnapshotFetch.objects.values_list("state", flat=True))
            if uploads_done and len(readings) == 2 and "refused" == readings[0] == readings[1]:
                break
            time.sleep(0.1)
        for upload in uploads:
            upload.join(timeout=120)
    finally:
        server.send_signal(signal.SIGTERM)
        worker.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        worker.wait(timeout=60)
    print(f"/healthz: {len(healthz)} answers, the slowest in {max(healthz):.3f} s; uploads: {answers}")
    assert max(healthz) < HEALTHZ_SECONDS, healthz  # 18.5 s before
    assert len(healthz) >= 10  # asked all through the reading, not once
    assert [status for status, _ in answers] == [302, 302]
    assert max(seconds for _, seconds in answers) < 3, answers  # stored and queued, not read
    readings = SnapshotFetch.objects.order_by("pk")
    assert [(r.method, r.state, r.error_code) for r in readings] == [("upload", "refused", "too_slow")] * 2
