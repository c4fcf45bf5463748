"""``make bench``, sections "serving" and "upload": the pages under load, served as in production.

gunicorn (2 workers, DEBUG off) serves a throwaway SQLite database on loopback; wrk, a second process
with a fixed number of connections, loads the viewer of a 100 KB and of a 1 MB dump and the list with
10,000 dumps stored. Each is compared with the trivial page (``bench/urls.py``): logged in, checked
and laid out like every page, and doing nothing else. The health check, which has no session at all,
is reported beside it. The list's query count is counted at 100 and at 10,000 dumps, and a 10 MB
dump is timed from its upload to its first view.

Settings are read once per process, so the measuring runs in a fresh Python: ``serving_figures``
starts ``python -m bench.serving --measure DIR`` with the production environment and reads back the
figures it writes. ``python -m bench.serving [--quick]`` prints them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.figures import Figure, print_table, ratio_figure
from bench.inputs import sonar_answer, sonar_batch

PROJECT_DIR = Path(__file__).resolve().parents[1]
TRIVIAL_PAGE = "/bench/trivial"  # served by bench/urls.py
HOST = "127.0.0.1"
WORKERS = 2
PAGE_TARGET = 0.5  # a page must keep at least half the trivial page's requests per second
LISTED_DUMPS = 10_000
FEW_DUMPS = 100
SECRET_KEY = "bench-only-secret-key-never-used-for-anything-but-a-throwaway-database-0123456789"


def serving_figures(quick: bool = False) -> list[Figure]:
    """The serving and upload figures, measured in a fresh Python against a throwaway database."""
    with tempfile.TemporaryDirectory(prefix="citeview-bench-") as directory:
        workdir = Path(directory)
        command = [sys.executable, "-m", "bench.serving", "--measure", str(workdir)]
        if quick:
            command.append("--quick")
        subprocess.run(command, cwd=PROJECT_DIR, env=production_env(workdir), check=True)
        return [Figure(**item) for item in json.loads((workdir / "figures.json").read_text())]


def production_env(workdir: Path) -> dict[str, str]:
    """Production mode on plain HTTP over loopback, with everything it writes inside ``workdir``;
    the settings are production's plus the trivial page."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DEBUG="false",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS=f"{HOST},testserver",
        DATABASE_URL=f"sqlite:///{workdir / 'db.sqlite3'}",
        STATIC_ROOT=str(workdir / "static"),
        BLOB_ROOT=str(workdir / "blobs"),
        BLOB_FSYNC="false",  # the figures measure serving, not the disk's flush
        SECURE_SSL_REDIRECT="false",  # wrk and urllib speak plain HTTP; no proxy ends TLS here
        LOG_LEVEL="WARNING",
    )
    return env


# --- The dumps ---------------------------------------------------------------------------------


def fill_dumps(total: int, user: Any) -> None:
    """Store small dumps until ``total`` are stored: one through the real service, the rest copies
    of its stored result with bytes of their own (distinct SHA-256), fast enough for 10,000."""
    from citeview.dumps.models import Dump
    from citeview.dumps.services import dump_ingest

    template, _new = dump_ingest(raw=sonar_answer(3000, answer_id="bench-copy"), uploaded_by=user)
    copies = []
    for n in range(Dump.objects.count(), total):
        raw = sonar_answer(3000, answer_id=f"bench-copy-{n}")
        copies.append(
            Dump(
                sha256=hashlib.sha256(raw).hexdigest(),
                raw=raw,
                size=len(raw),
                filename=f"copy-{n}.json",
                uploaded_by=template.uploaded_by,
                **{name: getattr(template, name) for name in Dump.DERIVED_FIELDS},
            )
        )
    Dump.objects.bulk_create(copies, batch_size=500)


# --- The server and the load ---------------------------------------------------------------------


@contextmanager
def gunicorn_server(workdir: Path) -> Iterator[str]:
    """gunicorn with 2 workers on a free loopback port, as docs/deploying.md deploys it; yields its base URL."""
    port = _free_port()
    log = (workdir / "gunicorn.log").open("wb")
    command = [str(PROJECT_DIR / ".venv/bin/gunicorn"), "citeview.wsgi", "-w", str(WORKERS)]
    command += ["-b", f"{HOST}:{port}", "--timeout", "120"]  # a 10 MB upload is parsed in the request
    server = subprocess.Popen(command, cwd=PROJECT_DIR, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://{HOST}:{port}"
    try:
        _wait_until_up(server, base_url, workdir / "gunicorn.log")
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def _wait_until_up(server: subprocess.Popen, base_url: str, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn stopped at start:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not answer within 30 s:\n{log.read_text()}")


def find_wrk() -> str | None:
    """wrk from Debian's packages, installed when missing and we are root; None (and how to get it) otherwise."""
    if path := shutil.which("wrk"):
        return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("Installing wrk for the serving benchmark", file=sys.stderr)
        quiet = {"stdout": subprocess.DEVNULL, "env": {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}}
        subprocess.run(["apt-get", "update", "-qq"], check=False, **quiet)
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False, **quiet)
        if path := shutil.which("wrk"):
            return path
    print("The serving figures need wrk: sudo apt-get install wrk (they are reported as missing)", file=sys.stderr)
    return None


def wrk_load(wrk: str, url: str, cookie: str, seconds: int) -> tuple[float, float]:
    """Requests per second and the 99th percentile latency in ms, under 8 connections from 2 threads.

    When wrk stops, the requests it left in flight still occupy the workers; waiting about two of
    the slowest answers lets them finish, so that they do not slow down the next measurement."""
    command = [wrk, "-t2", "-c8", f"-d{seconds}s", "--timeout", "30s", "--latency", "-H", f"Cookie: {cookie}", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    if "Non-2xx or 3xx responses" in output or "Socket errors" in output:
        raise RuntimeError(f"wrk saw failed requests on {url}:\n{output}")
    per_second = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE).groups()
    p99_ms = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    time.sleep(0.5 + 2 * p99_ms / 1000)
    return per_second, p99_ms


def get_page(url: str, cookie: str) -> bytes:
    """One GET that must answer 200 itself (a redirect to the login page would be a fast wrong page)."""
    request = urllib.request.Request(url, headers={"Cookie": cookie})
    opener = urllib.request.build_opener(_NoRedirects)
    with opener.open(request, timeout=120) as answer:
        if answer.status != 200:
            raise RuntimeError(f"{url} answered {answer.status}, not 200")
        return answer.read()


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def upload_then_view(base_url: str, cookie: str, csrf_token: str, raw: bytes) -> float:
    """Seconds from posting ``raw`` as a file through the web form to its viewer answering 200."""
    boundary = "citeview-bench-boundary"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench-10mb.json"\r\n'
        f"Content-Type: application/json\r\n\r\n".encode()
        + raw
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {
        "Cookie": cookie,
        "X-CSRFToken": csrf_token,
        "Content-Type": f"multipart/form-data; boundary={boundary}",
    }
    opener = urllib.request.build_opener(_NoRedirects)
    start = time.perf_counter()
    try:
        opener.open(urllib.request.Request(f"{base_url}/", data=body, headers=headers), timeout=300)
        raise RuntimeError("the upload did not redirect to its viewer")
    except urllib.error.HTTPError as answer:  # urllib reports the unfollowed redirect as an error
        if answer.code != 302:
            raise RuntimeError(f"the upload answered {answer.code}: {answer.read()[:500]!r}") from None
        viewer = answer.headers["Location"]
    get_page(base_url + viewer, cookie)
    return time.perf_counter() - start


# --- The figures ---------------------------------------------------------------------------------


def page_figures(name: str, load: tuple[float, float], ceiling: float, target: bool = True) -> list[Figure]:
    per_second, p99 = load
    ratio = per_second / ceiling
    return [
        Figure("serving", f"{name}: requests per second", round(per_second, 1), "req/s"),
        Figure("serving", f"{name}: p99 latency", round(p99, 1), "ms"),
        Figure(
            "serving",
            f"{name}: share of the trivial page's requests per second",
            round(ratio, 2),
            "× trivial",
            f"≥ {PAGE_TARGET}" if target else "",
            ratio >= PAGE_TARGET if target else None,
        ),
    ]


def missing_page_figures(name: str, target: bool = True) -> list[Figure]:
    """Without wrk nothing was measured: the figures are shown as missing, and a target as not met."""
    return [
        Figure("serving", f"{name}: requests per second (missing: no wrk)", math.nan, "req/s"),
        Figure("serving", f"{name}: p99 latency (missing: no wrk)", math.nan, "ms"),
        Figure(
            "serving",
            f"{name}: share of the trivial page's requests per second (missing: no wrk)",
            math.nan,
            "× trivial",
            f"≥ {PAGE_TARGET}" if target else "",
            False if target else None,
        ),
    ]


def measure(workdir: Path, quick: bool) -> list[Figure]:
    """Everything, inside the fresh Python whose environment ``production_env`` made."""
    import django

    django.setup()
    from django.core.management import call_command

    from citeview.dumps.reading import dump_pages_keep
    from citeview.dumps.services import dump_ingest

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)  # production pages link hashed file names
    editor, client, cookie, csrf_token = logged_in_editor()

    # The dumps whose viewers are loaded go through the real service: parsed, rendered, counted.
    medium, _new = dump_ingest(raw=sonar_answer(100_000, seed=2), uploaded_by=editor, filename="bench-100kb.json")
    large, _new = dump_ingest(raw=sonar_answer(1_000_000, seed=3), uploaded_by=editor, filename="bench-1mb.json")
    for dump in (medium, large):
        # A GET keeps nothing: a viewer's first view queues the keeping of its body, and a worker keeps
        # it within moments. No worker runs beside the load, so its part is done here.
        dump_pages_keep(pk=dump.pk)
    batch, batch_figures = batch_page_figures(client, editor)
    figures = query_count_figures(client, editor)  # leaves 10,000 dumps stored
    figures += batch_figures

    medium_viewer = f"viewer, {medium.size / 1000:.0f} KB dump"
    batch_viewer = f"batch of {BATCH_BENCHED:,} responses ({batch.size / 1_000_000:.0f} MB), its first page"
    pages = {
        f"list page, {LISTED_DUMPS:,} dumps": ("/", True),
        medium_viewer: (medium.get_absolute_url(), True),
        f"viewer, {large.size / 1_000_000:.1f} MB dump": (large.get_absolute_url(), False),  # no target
        batch_viewer: (batch.get_absolute_url(), False),  # held against the 100 KB viewer, below
    }
    seconds, rounds = (2, 1) if quick else (5, 3)
    wrk = find_wrk()
    with gunicorn_server(workdir) as base_url:
        if wrk is None:
            for name, (_path, target) in pages.items():
                figures += missing_page_figures(name, target)
        else:
            figures += load_figures(wrk, base_url, cookie, pages, seconds, rounds)
            figures.append(_batch_against_viewer(figures, batch_viewer, medium_viewer))
        upload = sonar_answer(10_000_000, seed=4)
        seconds_to_view = upload_then_view(base_url, cookie, csrf_token, upload)
    name = f"{len(upload) / 1_000_000:.0f} MB dump: web upload until its viewer answers 200"
    figures.append(Figure("upload", name, round(seconds_to_view, 2), "s"))
    return figures


BATCH_BENCHED = 1_000
BATCH_PAGE_EXTRA_BYTES = (
    100_000  # issue 32: a batch's first page is no larger than its largest response's page and this
)
BATCH_PAGE_SLOWER = 2.0  # ... and answers within twice the time of the 100 KB viewer
BATCH_REPORT_SECONDS = 3.0  # ... and its report's summary is ready within 3 s


def batch_page_figures(client: Any, editor: Any) -> tuple[Any, list[Figure]]:
    """A batch of ``BATCH_BENCHED`` responses read as a worker reads it, and its first page's size held
    against the page of its largest response stored alone."""
    from citeview.dumps.reading import dump_read_begin, dump_read_stored
    from citeview.dumps.services import dump_ingest

    raw = sonar_batch(BATCH_BENCHED)
    stored = []
    for name, data in (("bench-batch.jsonl", raw), ("bench-batch-largest.json", max(raw.splitlines(), key=len))):
        dump, _new = dump_ingest(raw=data, uploaded_by=editor, filename=name)
        if not dump.is_ready:  # queued for a worker: its task's work, here
            dump_read_begin(pk=dump.pk, task_id="bench")
            dump_read_stored(pk=dump.pk)
        stored.append(dump)
    batch, largest = stored
    started = time.perf_counter()
    first = client.get(batch.get_absolute_url())  # its rows are made on this first view
    first_seconds = time.perf_counter() - started
    first_bytes = len(client.get(batch.get_absolute_url()).content)
    largest_bytes = len(client.get(largest.get_absolute_url()).content)
    assert first.status_code == 200, first.status_code
    report_seconds, report_bytes = _report_page_time(client, batch)
    limit = largest_bytes + BATCH_PAGE_EXTRA_BYTES
    name = f"batch of {BATCH_BENCHED:,} responses: first page / its largest response's page alone + 100 KB"
    return batch, [
        Figure("serving", f"batch of {BATCH_BENCHED:,} responses: first page", round(first_bytes / 1000, 1), "KB"),
        Figure("serving", "the page of its largest response alone", round(largest_bytes / 1000, 1), "KB"),
        Figure("serving", name, round(first_bytes / limit, 2), "×", "≤ 1.0", first_bytes <= limit),
        Figure(
            "serving",
            f"batch of {BATCH_BENCHED:,} responses: first view ever (its rows made)",
            round(first_seconds, 2),
            "s",
        ),
        Figure(
            "serving",
            f"batch of {BATCH_BENCHED:,} responses: its report's page, the summary of all and the first "
            f"responses' details ({report_bytes / 1000:.0f} KB), median of 3",
            round(report_seconds, 2),
            "s",
            f"≤ {BATCH_REPORT_SECONDS}",
            report_seconds <= BATCH_REPORT_SECONDS,
        ),
    ]


def _report_page_time(client: Any, batch: Any) -> tuple[float, int]:
    """The median time of three requests for the batch's report page, and its size."""
    from django.urls import reverse

    url = reverse("review:report", args=[batch.pk])
    times, size = [], 0
    for _round in range(3):
        started = time.perf_counter()
        answer = client.get(url)
        times.append(time.perf_counter() - started)
        assert answer.status_code == 200, answer.status_code
        size = len(answer.content)
    return statistics.median(times), size


def _batch_against_viewer(figures: list[Figure], batch_viewer: str, medium_viewer: str) -> Figure:
    """How much longer the batch's page takes than the 100 KB viewer, from their requests per second."""
    rate = {f.name: f.value for f in figures if f.unit == "req/s"}
    slower = rate[f"{medium_viewer}: requests per second"] / rate[f"{batch_viewer}: requests per second"]
    return ratio_figure("serving", f"{batch_viewer}: time per request / the 100 KB viewer's", slower, BATCH_PAGE_SLOWER)


def logged_in_editor() -> tuple[Any, Any, str, str]:
    """An editor, a test client logged in as them, and the cookie (session and CSRF) for HTTP clients:
    the session is in the database, so gunicorn's workers accept it too."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client
    from django.utils.crypto import get_random_string

    from citeview.accounts.roles import EDITOR

    editor = get_user_model().objects.create_user(username="bench-editor", password=get_random_string(20))
    editor.groups.add(Group.objects.get(name=EDITOR))
    client = Client()
    client.force_login(editor)
    csrf_token = get_random_string(32)  # Django accepts its own 32-character secret as the token too
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    cookie = f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={csrf_token}"
    return editor, client, cookie, csrf_token


def query_count_figures(client: Any, editor: Any) -> list[Figure]:
    """The list page's queries with 100 and with 10,000 dumps stored, its rows and forms made afresh
    (the cache emptied) and then kept: neither may grow."""
    from django.core.cache import cache

    counts = {}
    for total in (FEW_DUMPS, LISTED_DUMPS):
        fill_dumps(total, editor)
        cache.clear()
        counts[total] = list_query_count(client), list_query_count(client)
    (few, few_kept), (many, many_kept) = counts[FEW_DUMPS], counts[LISTED_DUMPS]
    return [
        Figure("serving", f"list page: queries with {FEW_DUMPS} dumps, rows made", few, "queries"),
        Figure("serving", f"list page: queries with {FEW_DUMPS} dumps, rows kept", few_kept, "queries"),
        Figure(
            "serving",
            f"list page: queries with {LISTED_DUMPS:,} dumps, rows made",
            many,
            "queries",
            f"= {few}",
            many == few,
        ),
        Figure(
            "serving",
            f"list page: queries with {LISTED_DUMPS:,} dumps, rows kept",
            many_kept,
            "queries",
            f"= {few_kept}",
            many_kept == few_kept,
        ),
    ]


def list_query_count(client: Any) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        answer = client.get("/")
    if answer.status_code != 200:
        raise RuntimeError(f"the list page answered {answer.status_code}")
    return len(queries)


def load_figures(
    wrk: str, base_url: str, cookie: str, pages: dict[str, tuple[str, bool]], seconds: int, rounds: int
) -> list[Figure]:
    """Each page under the same load and cookie as the trivial page, which sets the ceiling.

    The machines are shared and noisy: the pages take turns, ``rounds`` times, and each keeps its
    median, so that a slow moment hits all of them alike."""
    paths = ["/healthz", TRIVIAL_PAGE, *(path for path, _target in pages.values())]
    for path in paths:
        get_page(base_url + path, cookie)  # answers 200 (logged in, not sent to the login page)
        wrk_load(wrk, base_url + path, cookie, 1)  # both workers load their templates and translations
    loads: dict[str, list[tuple[float, float]]] = {path: [] for path in paths}
    for _round in range(rounds):
        for path in paths:
            loads[path].append(wrk_load(wrk, base_url + path, cookie, seconds))
    medians = {
        path: (statistics.median(rate for rate, _p99 in runs), statistics.median(p99 for _rate, p99 in runs))
        for path, runs in loads.items()
    }
    health_per_second, health_p99 = medians["/healthz"]
    per_second, p99 = medians[TRIVIAL_PAGE]
    figures = [
        Figure("serving", "health check (no session): requests per second", round(health_per_second, 1), "req/s"),
        Figure("serving", "health check (no session): p99 latency", round(health_p99, 1), "ms"),
        Figure("serving", "trivial page (logged in, laid out): requests per second", round(per_second, 1), "req/s"),
        Figure("serving", "trivial page (logged in, laid out): p99 latency", round(p99, 1), "ms"),
        Figure(
            "serving", "trivial page / health check, requests per second", round(per_second / health_per_second, 2), "×"
        ),
    ]
    for name, (path, target) in pages.items():
        figures += page_figures(name, medians[path], per_second, target)
    return figures


if __name__ == "__main__":
    if "--measure" in sys.argv:
        workdir = Path(sys.argv[sys.argv.index("--measure") + 1])
        results = measure(workdir, quick="--quick" in sys.argv)
        (workdir / "figures.json").write_text(json.dumps([f.as_dict() for f in results], ensure_ascii=False))
    else:
        print_table(serving_figures(quick="--quick" in sys.argv))
