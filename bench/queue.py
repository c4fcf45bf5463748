"""The queue's figures (``make bench``; ``--only upload`` and ``--only import``), each run in a fresh
process on a database and blob folder of its own, with real workers (``manage.py worker``).

- **upload**: a 10 MB dump sent to ``POST /api/dumps``. The request must answer within 1.5× of
  receiving, hashing and storing its bytes (the floor: the body read, SHA-256, the blob written), and
  the viewer be ready (a worker has read it) within 3× of the bare work on its answer: orjson
  decoding the dump, markdown-it-py rendering the answer and bleach cleaning that HTML.
- **import**: a 1,000-dump .zip through the queue, stored by one worker and then by two; dumps per
  second each. On PostgreSQL (started here as ``scripts/test-postgres`` does) two must reach 1.6× of
  one; on SQLite, which lets one writer in at a time, the figures are reported without a target.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path

from bench.figures import Figure, ratio_figure

PROJECT = Path(__file__).resolve().parents[1]
MB = 1_000_000
UPLOAD_LIMIT, VIEWER_LIMIT, TWO_WORKERS_AT_LEAST = 1.5, 3.0, 1.6
IMPORT_DUMPS = 1000
_POSTMASTER_PID: dict[str, str] = {}  # the throwaway PostgreSQL's pid file, by its URL


def queue_figures(which: str, quick: bool) -> list[Figure]:
    """Run one part in a process of its own (Django set up there) and read its figures back."""
    figures = []
    for database in _databases(which):
        with database as (url, label):
            command = [sys.executable, "-m", "bench.queue", which, url, label, "quick" if quick else "full"]
            env = {**os.environ, "BENCH_POSTMASTER_PID_FILE": _POSTMASTER_PID.get(url, "")}
            out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=PROJECT, env=env).stdout
            figures += [Figure(**f) for f in json.loads(out.strip().splitlines()[-1])]
    return figures


def _databases(which: str) -> list:
    folder = Path(tempfile.mkdtemp(prefix="citeview-bench-"))
    sqlite = _sqlite(folder)
    return [sqlite] if which == "upload" else [sqlite, _postgres()]


@contextmanager
def _sqlite(folder: Path) -> Iterator[tuple[str, str]]:
    try:
        yield f"sqlite:///{folder / 'db.sqlite3'}", "SQLite"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _postgres() -> Iterator[tuple[str, str]]:
    """A throwaway PostgreSQL on loopback, as scripts/test-postgres starts one; ``none`` if there is none."""
    bins = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
    if not bins:
        yield "none", "PostgreSQL (not installed: not measured)"
        return
    bindir, data = bins[-1], Path(tempfile.mkdtemp(prefix="citeview-bench-pg-"))
    as_server = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    if os.getuid() == 0:
        shutil.chown(data, "postgres")
    port = os.environ.get("PGBENCH_PORT", "55433")
    run = lambda *args: subprocess.run([*as_server, *args], check=True, capture_output=True)  # noqa: E731
    run(str(bindir / "initdb"), "-D", f"{data}/db", "-A", "trust", "-U", "citeview", "-E", "UTF8", "--locale=C.UTF-8")
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {data} -c fsync=off"
    run(str(bindir / "pg_ctl"), "-D", f"{data}/db", "-l", f"{data}/log", "-w", "-o", options, "start")
    run(str(bindir / "createdb"), "-h", "127.0.0.1", "-p", port, "-U", "citeview", "citeview")
    url = f"postgres://citeview@127.0.0.1:{port}/citeview"
    _POSTMASTER_PID[url] = f"{data}/db/postmaster.pid"
    try:
        yield url, "PostgreSQL"
    finally:
        subprocess.run([*as_server, str(bindir / "pg_ctl"), "-D", f"{data}/db", "-m", "immediate", "stop"], check=False)
        shutil.rmtree(data, ignore_errors=True)


# --- In the measuring process --------------------------------------------------------------------


def _set_up(url: str) -> Path:
    blobs = Path(tempfile.mkdtemp(prefix="citeview-bench-blobs-"))
    os.environ.update(
        DATABASE_URL=url,
        BLOB_ROOT=str(blobs),
        BLOB_FSYNC="false",
        DJANGO_SETTINGS_MODULE="citeview.settings",
        ALLOWED_HOSTS="testserver",
    )
    os.environ.setdefault("CITEVIEW_IMPORT_PIECE", "25")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return blobs


def _worker(name: str, log: Path | None = None) -> subprocess.Popen[bytes]:
    """A worker; with ``log``, what it says (its start, each task) is written there."""
    command = [sys.executable, "manage.py", "worker", "--worker-id", name, "--no-reload", "--no-startup-delay"]
    command += ["--interval", "0.05", "--verbosity", "1" if log else "0"]
    with log.open("wb") if log else nullcontext() as output:  # (its log lines go to standard error)
        return subprocess.Popen(command, cwd=PROJECT, env=os.environ.copy(), stdout=output, stderr=output)


def _wait_started(logs: list[Path], timeout: float = 120) -> None:
    """Until every worker has set Django up and looks for work (db_worker's "Starting worker" line)."""
    deadline = time.monotonic() + timeout
    while not all(b"Starting worker" in log.read_bytes() for log in logs):
        if time.monotonic() > deadline:
            raise RuntimeError(f"a worker did not start within {timeout:.0f} s: see {logs}")
        time.sleep(0.05)


def measure_upload(quick: bool) -> list[Figure]:
    from django.contrib.auth.models import User
    from django.test import Client
    from django_tasks_db.models import DBTaskResult
    from markdown_it import MarkdownIt

    from bench.inputs import sonar_answer
    from citeview.core.rendering.sanitize import sanitize_html
    from citeview.dumps.blobs import blob_store
    from citeview.dumps.models import Dump, Tag

    raw = sonar_answer(10 * MB)
    client = Client()
    client.force_login(User.objects.create_superuser("bench", password="bench-password"))
    # Once first with a small dump (read in its request): the first request of a process imports and
    # sets up what every later one finds ready.
    client.generic("POST", "/api/dumps", sonar_answer(2000, seed=9), content_type="application/json")
    # The request against its floor, like with like: each three times in turn (their medians), with
    # no worker running yet (one starting, or reading, takes a core of the two and SQLite's write
    # lock), other bytes each time. The floor is the body read, hashed and its blob written (not
    # synced to disk, BLOB_FSYNC=false, as the request's blob), and one small row committed, which
    # SQLite syncs to disk as it does the request's one commit (of the dump's row and its task's):
    # without it, the sync alone (1 to 15 ms here) would be most of what the request adds.
    floors, answers = [], []
    for seed in range(3):
        other = sonar_answer(10 * MB, seed=100 + seed)
        start = time.perf_counter()
        received = io.BytesIO(other).read()
        blob_store(received + b" ", hashlib.sha256(received + b" ").hexdigest())  # under another name
        Tag.objects.create(name=f"floor-{seed}")
        floors.append(time.perf_counter() - start)
        start = time.perf_counter()
        response = client.generic("POST", "/api/dumps", other, content_type="application/json")
        answers.append(time.perf_counter() - start)
        assert response.status_code == 202, response.content[:300]
    DBTaskResult.objects.all().delete()  # their reading is not measured
    Dump.objects.exclude(read_state="ready").delete()
    store_floor, answered = sorted(floors)[1], sorted(answers)[1]
    worker = _worker("bench-upload")
    try:
        # The worker started and idle (a dump just above the threshold read) before the one measured.
        warm_up = client.generic("POST", "/api/dumps", sonar_answer(1_100_000, seed=8), content_type="application/json")
        _wait_read(warm_up.json()["id"])
        start = time.perf_counter()
        response = client.generic("POST", "/api/dumps", raw, content_type="application/json")
        assert response.status_code == 202, response.content[:300]
        _wait_read(response.json()["id"])
        ready = time.perf_counter() - start
    finally:
        worker.terminate()
        worker.wait()
    text = json.loads(raw)["choices"][0]["message"]["content"]
    start = time.perf_counter()
    json.loads(raw)  # orjson below; json here warms the page cache of the string alike
    import orjson

    orjson.loads(raw)
    sanitize_html(MarkdownIt("js-default").disable("image").render(text))
    viewer_floor = time.perf_counter() - start
    return [
        Figure("upload", "10 MB dump: receive, hash and store (floor, median of 3)", round(store_floor, 3), "s"),
        Figure("upload", "10 MB dump: POST /api/dumps answered (202, median of 3)", round(answered, 3), "s"),
        ratio_figure("upload", "10 MB dump: answer / floor", answered / store_floor, UPLOAD_LIMIT),
        Figure("upload", "10 MB dump: decode + markdown-it + bleach (floor)", round(viewer_floor, 3), "s"),
        Figure("upload", "10 MB dump: viewer ready (worker done)", round(ready, 3), "s"),
        ratio_figure("upload", "10 MB dump: viewer ready / floor", ready / viewer_floor, VIEWER_LIMIT),
    ]


def _wait_read(pk: int) -> None:
    from citeview.dumps.models import Dump

    while Dump.objects.filter(pk=pk).values_list("read_state", flat=True).get() not in ("ready", "failed"):
        time.sleep(0.02)


def measure_import(label: str, quick: bool) -> list[Figure]:
    count = 200 if quick else IMPORT_DUMPS
    rates: dict[int, float] = {}
    cpu: dict[int, tuple[float, float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="citeview-bench-") as logs:
        for workers in (1, 2):
            rates[workers], cpu[workers] = _import_once(workers, count, Path(logs))
    figures = [
        Figure("import", f"{label}: {count:,}-dump .zip, one worker", round(rates[1], 1), "dumps/s"),
        Figure("import", f"{label}: {count:,}-dump .zip, two workers", round(rates[2], 1), "dumps/s"),
    ]
    # Where the CPU went: the workers' own, and the database server's (PostgreSQL's processes; SQLite
    # works inside the workers), against the wall time; two cores are 2 s of CPU per second at most.
    for workers, (own, database, elapsed) in cpu.items():
        spent = f"workers {own:.1f} s, database {database:.1f} s of CPU in {elapsed:.1f} s"
        figures.append(Figure("import", f"{label}: {workers} worker(s): {spent}", round(own + database, 1), "s CPU"))
    speedup = rates[2] / rates[1]
    if label == "PostgreSQL":
        figures.append(
            Figure(
                "import",
                f"{label}: two workers / one",
                round(speedup, 2),
                "×",
                f"≥ {TWO_WORKERS_AT_LEAST}",
                speedup >= TWO_WORKERS_AT_LEAST,
            )
        )
    else:
        figures.append(Figure("import", f"{label}: two workers / one", round(speedup, 2), "×"))
    return figures


def _import_once(workers: int, count: int, logs: Path) -> tuple[float, tuple[float, float, float]]:
    """A ``count``-dump .zip stored by ``workers`` workers: dumps per second, and the CPU seconds
    of the workers and of the database server against the wall time.

    The workers are started, and Django set up in each, before the import is queued: a deployment's
    workers run all day, so their start (about 1 s of CPU each, both at once on two cores) is no
    part of an import's rate."""
    from citeview.dumps.bulk import import_queue
    from citeview.dumps.models import Dump, ImportedEntry

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for number in range(count):
            bundle.writestr(f"run/{number}.json", _dump(workers, number))
    worker_logs = [logs / f"worker-{workers}-{n}.log" for n in range(workers)]
    running = [_worker(f"bench-{workers}-{n}", log) for n, log in enumerate(worker_logs)]
    try:
        _wait_started(worker_logs)
        started_cpu = sum(_cpu_seconds(worker.pid) for worker in running)
        start, database_before = time.perf_counter(), _database_cpu()
        batch = import_queue(name="bench.zip", data=archive.getvalue(), uploaded_by=None, tags=[])
        while ImportedEntry.objects.filter(batch=batch).count() < count:
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        worker_cpu = sum(_cpu_seconds(worker.pid) for worker in running) - started_cpu
    finally:
        for worker in running:
            worker.terminate()
        for worker in running:
            worker.wait()
    assert Dump.objects.count() >= count
    return count / elapsed, (worker_cpu, _database_cpu() - database_before, elapsed)


def _cpu_seconds(pid: int, children: bool = False) -> float:
    """User and system CPU time of a process (with ``children``, also of its children it has waited for)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = sum(int(f) for f in fields[11:15]) if children else int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _database_cpu() -> float:
    """PostgreSQL's CPU time so far: the postmaster, its live processes, and the backends it reaped."""
    pid_file = os.environ.get("BENCH_POSTMASTER_PID_FILE", "")
    if not pid_file or not Path(pid_file).exists():
        return 0.0
    postmaster = int(Path(pid_file).read_text().split()[0])
    total = _cpu_seconds(postmaster, children=True)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                total += _cpu_seconds(int(stat.parent.name), children=True)
    return total


def _dump(run: int, number: int) -> bytes:
    from bench.inputs import sonar_answer

    return sonar_answer(4000, seed=run * 10_000 + number, answer_id=f"bench-{run}-{number}")


def main() -> None:
    which, url, label, mode = sys.argv[1:5]
    if url == "none":
        print(json.dumps([Figure("import", label, 0, "dumps/s").as_dict()]))
        return
    blobs = _set_up(url)
    try:
        figures = measure_upload(mode == "quick") if which == "upload" else measure_import(label, mode == "quick")
    finally:
        shutil.rmtree(blobs, ignore_errors=True)
    print(json.dumps([f.as_dict() for f in figures]))


if __name__ == "__main__":
    main()
