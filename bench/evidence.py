"""``make bench``, section "evidence": the handover report of a dump whose 1,000 statements all cite
one page with a 10 MB snapshot, against the same report of the same statements citing a page with no
snapshot (issue 29's target: within 3×), and how long a worker takes to find the passages once.

The report reads the passages a worker kept: the snapshot's size must not show in it. Measured in a
fresh Python with a throwaway database, in production mode (``python -m bench.evidence [--quick]``
prints the figures as JSON).
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from bench.figures import Figure, medians_side_by_side, ratio_figure
from bench.serving import production_env

REPORT_RATIO_LIMIT = 3.0
STATEMENTS = 1_000
SNAPSHOT_BYTES = 10 * 1_000_000
WITH_SNAPSHOT = "https://www.stat.example/wards/annual-report"
WITHOUT_SNAPSHOT = "https://www.stat.example/wards/another-report"
# A page's words, the common ones far more often than the rare (Zipf's law, as in real text).
_VOCABULARY = [f"w{n}" for n in range(20_000)]
_COMMON = [
    "the",
    "of",
    "and",
    "in",
    "to",
    "a",
    "is",
    "was",
    "for",
    "on",
    "that",
    "by",
    "with",
    "as",
    "at",
    "from",
    "households",
    "population",
    "ward",
    "tokyo",
]


def statement(n: int) -> str:
    return f"Ward {n} of Tokyo had {10_000 + n} households and {n % 7 + 2} schools in 2024[1]."


def dump_citing(url: str, statements: int) -> bytes:
    from tests.builders import sonar_object

    answer = " ".join(statement(n) for n in range(statements))
    return json.dumps(sonar_object(answer, [url])).encode()


def snapshot_text(size: int, statements: int, seed: int = 29) -> str:
    """About ``size`` bytes of sentences, the words drawn as in real text, with what every tenth
    statement says somewhere among them (the others are not on the page: no passage is found)."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(_VOCABULARY))]
    sentences, length, said = [], 0, 0
    while length < size:
        words = [*rng.choices(_COMMON, k=4), *rng.choices(_VOCABULARY, weights=weights, k=10)]
        rng.shuffle(words)
        if said < statements and rng.random() < 0.002:
            sentence = statement(said).replace("[1]", "")
            said += 10
        else:
            sentence = " ".join(words).capitalize() + "."
        sentences.append(sentence)
        length += len(sentence) + 1
    return "\n".join(sentences)


def measure(quick: bool) -> list[dict[str, object]]:
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.test import Client

    from citeview.dumps.services import dump_ingest
    from citeview.snapshots.kept_passages import snapshot_passages_find
    from citeview.snapshots.models import SnapshotPassage
    from citeview.snapshots.worker import snapshot_store

    call_command("migrate", verbosity=0)
    editor = User.objects.create_user("bench-editor", password="bench-password-never-used")
    editor.groups.add(Group.objects.get(name="editor"))
    statements = 100 if quick else STATEMENTS
    size = SNAPSHOT_BYTES // 10 if quick else SNAPSHOT_BYTES
    with_snapshot = dump_ingest(raw=dump_citing(WITH_SNAPSHOT, statements), uploaded_by=editor)[0]
    without = dump_ingest(raw=dump_citing(WITHOUT_SNAPSHOT, statements), uploaded_by=editor)[0]
    content = snapshot_text(size, statements).encode()
    snapshot, _new = snapshot_store(
        url=WITH_SNAPSHOT, content=content, content_type="text/plain; charset=utf-8", method="paste", taken_by=editor
    )
    # The worker's run, here in this process (the queue is the database's, and no worker runs).
    started = time.perf_counter()
    while snapshot_passages_find(snapshot_id=snapshot.pk):
        pass  # a run cut at its time limit leaves the rest to the next
    finding = time.perf_counter() - started
    found = SnapshotPassage.objects.filter(snapshot=snapshot, found=True).count()

    client = Client()
    client.force_login(editor)

    def report(dump_id: int) -> None:
        response = client.get(f"/dumps/{dump_id}/report.json")
        assert response.status_code == 200, response.status_code

    report(with_snapshot.pk), report(without.pk)  # warm, and every kept piece made
    repeat = 3 if quick else 7
    plain, snapshotted = medians_side_by_side([lambda: report(without.pk), lambda: report(with_snapshot.pk)], repeat)
    label = f"report of {statements:,} statements citing one {len(content) / 1_000_000:.0f} MB snapshot"
    figures = [
        Figure("evidence", f"{label}: time", round(snapshotted, 3), "s"),
        Figure("evidence", f"{label}, without the snapshot: time", round(plain, 3), "s"),
        ratio_figure("evidence", f"{label}: with / without the snapshot", snapshotted / plain, REPORT_RATIO_LIMIT),
        Figure("evidence", f"a worker finding the passages of {statements:,} statements in it", round(finding, 1), "s"),
        Figure("evidence", "of them, passages found", found, "passages"),
    ]
    return [figure.as_dict() for figure in figures]


def evidence_figures(quick: bool = False) -> list[Figure]:
    """The figures, measured in a fresh Python against a throwaway database."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="citeview-bench-") as directory:
        command = [sys.executable, "-m", "bench.evidence", *(["--quick"] if quick else [])]
        env = {**production_env(Path(directory)), "CITEVIEW_SNAPSHOT_MAX_TEXT_CHARS": str(SNAPSHOT_BYTES)}
        finished = subprocess.run(command, env=env, capture_output=True, text=True)
        if finished.returncode:
            raise RuntimeError(f"bench.evidence failed:\n{finished.stderr}")
        return [Figure(**item) for item in json.loads(finished.stdout)]


def main() -> None:
    quick = "--quick" in sys.argv
    if "DJANGO_SETTINGS_MODULE" not in os.environ:  # run by hand: the same throwaway setup
        for figure in evidence_figures(quick):
            print(figure)
        return
    print(json.dumps(measure(quick)))


if __name__ == "__main__":
    main()
