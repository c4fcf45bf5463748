"""Peak memory while storing one generated dump, measured in a fresh process with its own database.

``python -m bench.memory PROVIDER SIZE`` prints ``{"dump_bytes": ..., "peak_bytes": ..., "seconds": ...}``: the
resident memory the process reached while storing the dump (writing its bytes to the blob storage,
reading them back, parsing and rendering them, writing its row to the database), beyond what it held
before (the dump's bytes among it). A dump above ``CITEVIEW_READ_IN_TASK_ABOVE`` is read by a worker,
so the read is run here as the worker runs it: the process measured is the one that does the work.
Linux only: it reads and resets the peak in ``/proc/self``. ``python -m bench.memory --stages PROVIDER
SIZE`` prints where the peak is reached (``measure_stages``).
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.serving import production_env

MARKERS_ONLY = "markers only"  # the densest dump (bench.inputs.sonar_markers_only), besides the providers


def resident_bytes(field: str) -> int:
    """``VmRSS`` (now) or ``VmHWM`` (the peak since the last reset) of this process."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/self/status has no {field}")


def reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # "5" resets VmHWM to the current resident size


def measure(provider: str, size: int) -> dict[str, int]:
    import django

    django.setup()
    from django.core.management import call_command

    from bench.inputs import GENERATORS, sonar_markers_only
    from citeview.dumps.reading import dump_read_begin, dump_read_stored
    from citeview.dumps.services import dump_ingest

    generators = {**GENERATORS, MARKERS_ONLY: sonar_markers_only}
    call_command("migrate", verbosity=0)
    raw = generators[provider](size)
    dump_ingest(raw=generators[provider](100_000), uploaded_by=None)  # every module loaded and warm
    gc.collect()
    reset_peak()
    before = resident_bytes("VmRSS")
    started = time.perf_counter()
    dump, _ = dump_ingest(raw=raw, uploaded_by=None, filename=f"bench-{provider}.txt")
    if not dump.is_ready:  # queued for a worker: its task's work, in this process
        dump_read_begin(pk=dump.pk, task_id="bench")
        dump_read_stored(pk=dump.pk)
    seconds = time.perf_counter() - started
    return {"dump_bytes": len(raw), "peak_bytes": resident_bytes("VmHWM") - before, "seconds": seconds}


def measure_stages(provider: str, size: int) -> None:
    """Where the peak is reached: a worker's read of the dump done with ``dump_read_stored``'s own
    steps, one at a time, the resident memory (beyond what the process held before, the dump's bytes
    among it) printed after each step, now and at its peak so far, as multiples of the dump's size.
    A diagnosis, not a figure with a target: ``measure`` is that."""
    import django

    django.setup()
    from django.core.management import call_command

    from bench.inputs import GENERATORS
    from citeview.dumps.derived import fields_of_result, normalised_result
    from citeview.dumps.models import Dump
    from citeview.dumps.reading import encoded as encoded_now
    from citeview.dumps.services import dump_ingest

    call_command("migrate", verbosity=0)
    raw = GENERATORS[provider](size)
    dump, _ = dump_ingest(raw=GENERATORS[provider](100_000), uploaded_by=None)  # warm; its row is written below
    gc.collect()
    reset_peak()
    before = resident_bytes("VmRSS")

    def step(name: str) -> None:
        now, peak = resident_bytes("VmRSS") - before, resident_bytes("VmHWM") - before
        print(f"{provider:10} {name:32} now {now / len(raw):5.2f}×  peak {peak / len(raw):5.2f}×", flush=True)

    result = normalised_result(raw, None, None)
    step("parsed: the normalised JSON")
    derived = fields_of_result(result)
    del result
    step("rendered, and the other fields")
    encoded = encoded_now(derived)
    del derived
    step("encoded for the row")
    Dump.objects.filter(pk=dump.pk).update(**encoded)
    step("row written")


def main() -> None:
    stages = sys.argv[1] == "--stages"
    provider, size = sys.argv[1 + stages], int(sys.argv[2 + stages])
    with tempfile.TemporaryDirectory(prefix="citeview-bench-") as directory:
        # Production mode: with DEBUG on, Django keeps each query's text, dump bytes included.
        # The blobs, like the database, in the throwaway folder.
        os.environ.update(
            production_env(Path(directory)), CITEVIEW_MAX_DUMP_BYTES=str(4 * size), BLOB_ROOT=f"{directory}/blobs"
        )
        if stages:
            measure_stages(provider, size)
        else:
            print(json.dumps(measure(provider, size)))


if __name__ == "__main__":
    main()
