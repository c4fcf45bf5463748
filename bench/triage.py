"""``make bench``, section "triage": how well "likely problems first" finds the claims that differ from
their evidence, on the labelled pairs of ``bench/labelled/hint_pairs.jsonl`` (issue 45).

Each pair is an item. Its signals are computed by the code the check panel uses for a claim against
its evidence: ``compare`` (a figure, date or qualifier that differs; a negation that differs) and the
passage finder (``find_passages``: no passage found, or a weak one), then the items are ordered by
``citeview.core.checking.triage.rank``. The pairs are shuffled once with a fixed seed before ranking,
so that items of equal weight, which ``rank`` keeps in the order given, are not in the file's order.

Printed, per language and split: of the pairs labelled "differs", the share that falls in the first 20%
and the first 40% of the order, against a random order (the mean over SHUFFLES shuffles, seeded; its
expected value is 20% and 40%). The weights were tuned on ``dev`` only; ``test`` is held out.

Also timed (``queue_figures``): the queue ordered "likely problems first" of an editor assigned the
1,000-answer batch of ``bench/inputs.py``, its first view (every item's signals made) and later ones
(kept), against the queue in its usual order; in a fresh Python with a throwaway database, in
production mode, as ``bench.evidence`` is.

    python -m bench.triage [PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.figures import Figure, median_seconds
from citeview.core.checking.triage import NEGATION_DIFFERS, VALUE_DIFFERS, passage_signals, rank
from citeview.core.evidence.compare import compare
from citeview.core.evidence.passages import find_passages

PAIRS = Path(__file__).with_name("labelled") / "hint_pairs.jsonl"
SPLITS, LANGUAGES = ("dev", "test"), ("en", "ja")
SHARES = (0.2, 0.4)
SEED, SHUFFLES = 45, 2_000


@dataclass(frozen=True)
class Pair:
    id: str
    lang: str
    split: str
    differs: bool  # labelled so
    signals: tuple[str, ...]


def pair_signals(claim: str, evidence: str) -> tuple[str, ...]:
    """The pair's signals, as the check panel computes them for a claim against its evidence."""
    comparison = compare(claim, evidence)
    signals: list[str] = []
    if comparison.negation_differs:
        signals.append(NEGATION_DIFFERS)
    if comparison.differs_in(("figure", "date", "qualifier")):
        signals.append(VALUE_DIFFERS)
    passages = find_passages(claim, evidence)
    signals += passage_signals(bool(passages), passages[0].score if passages else None)
    return tuple(signals)


def read_pairs(path: Path = PAIRS) -> list[Pair]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        Pair(p["id"], p["lang"], p["split"], p["label"] == "differs", pair_signals(p["claim"], p["evidence"]))
        for p in lines
    ]


def found_in_first(ordered: list[Pair], share: float) -> float:
    """Of the pairs labelled "differs", the share among the first ``share`` of ``ordered``."""
    differs = sum(pair.differs for pair in ordered)
    first = ordered[: round(len(ordered) * share)]
    return sum(pair.differs for pair in first) / differs if differs else 0.0


def triage_order(pairs: list[Pair], seed: int = SEED) -> list[Pair]:
    given = list(pairs)
    random.Random(seed).shuffle(given)
    return [entry.item for entry in rank((pair, pair.signals) for pair in given)]


def random_mean(pairs: list[Pair], share: float, shuffles: int = SHUFFLES, seed: int = SEED) -> float:
    rng, shuffled, total = random.Random(seed), list(pairs), 0.0
    for _ in range(shuffles):
        rng.shuffle(shuffled)
        total += found_in_first(shuffled, share)
    return total / shuffles


def triage_figures(path: Path = PAIRS) -> list[Figure]:
    if not path.exists():
        return [Figure("triage", f"no labelled pairs at {path}", 0, "pairs")]
    pairs = read_pairs(path)
    figures = []
    for split in SPLITS:
        for lang in LANGUAGES:
            chosen = [p for p in pairs if p.lang == lang and p.split == split]
            ordered = triage_order(chosen)
            name = f"{split} {lang} ({len(chosen)} pairs, {sum(p.differs for p in chosen)} differs)"
            for share in SHARES:
                first = f"in the first {share:.0%}"
                figures.append(
                    Figure("triage", f"{name}: differs {first}", round(found_in_first(ordered, share), 3), "")
                )
                mean = random_mean(chosen, share)
                figures.append(Figure("triage", f"{name}: differs {first}, random order", round(mean, 3), ""))
    return figures


QUEUE_ANSWERS = 1_000


def queue_figures(quick: bool = False) -> list[Figure]:
    """The queue's times, measured in a fresh Python against a throwaway database."""
    from bench.serving import production_env

    with tempfile.TemporaryDirectory(prefix="citeview-bench-") as directory:
        command = [sys.executable, "-m", "bench.triage", "--queue", *(["--quick"] if quick else [])]
        finished = subprocess.run(command, env=production_env(Path(directory)), capture_output=True, text=True)
        if finished.returncode:
            raise RuntimeError(f"bench.triage --queue failed:\n{finished.stderr}")
        return [Figure(**item) for item in json.loads(finished.stdout.strip().splitlines()[-1])]


def measure_queue(quick: bool) -> list[dict[str, object]]:
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from bench.inputs import sonar_batch
    from citeview.dumps.reading import dump_read_begin, dump_read_stored
    from citeview.dumps.services import dump_ingest
    from citeview.review.services import editors_assign

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)  # the pages link their static files
    editor = User.objects.create_user("bench-editor", password="bench-password-never-used")
    editor.groups.add(Group.objects.get(name="editor"))
    lead = User.objects.create_user("bench-lead", password="bench-password-never-used")
    lead.groups.add(Group.objects.get(name="lead"))
    answers = 100 if quick else QUEUE_ANSWERS
    batch, _new = dump_ingest(raw=sonar_batch(answers), uploaded_by=editor, filename="bench-batch.jsonl")
    if not batch.is_ready:  # queued for a worker: its task's work, here
        dump_read_begin(pk=batch.pk, task_id="bench")
        dump_read_stored(pk=batch.pk)
        batch.refresh_from_db()
    editors_assign(dump=batch, editors=[editor], by=lead)
    client = Client()
    client.force_login(editor)

    def get(query: str) -> int:
        response = client.get(f"/queue/{query}")
        assert response.status_code == 200, response.status_code
        return len(response.content)

    get("")  # the queue as ever, warm
    cache.clear()
    started = time.perf_counter()
    size = get("?order=problems")
    first = time.perf_counter() - started
    repeat = 3 if quick else 5
    kept = median_seconds(lambda: get("?order=problems"), repeat)
    usual = median_seconds(lambda: get(""), repeat)
    items = batch.checkable_item_count
    name = f"queue of one batch of {answers:,} answers ({items:,} items), likely problems first"
    figures = [
        Figure("triage", f"{name}: first view (every item's signals made)", round(first, 2), "s"),
        Figure("triage", f"{name}: later views (kept), median of {repeat}", round(kept, 3), "s"),
        Figure("triage", f"{name}: its page", round(size / 1000, 1), "KB"),
        Figure("triage", f"the same queue in its usual order, median of {repeat}", round(usual, 3), "s"),
    ]
    return [figure.as_dict() for figure in figures]


def main() -> int:
    if "--queue" in sys.argv:
        if "DJANGO_SETTINGS_MODULE" not in os.environ:  # run by hand: the same throwaway setup
            for figure in queue_figures("--quick" in sys.argv):
                print(figure)
            return 0
        print(json.dumps(measure_queue("--quick" in sys.argv)))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=PAIRS)
    options = parser.parse_args()
    for figure in triage_figures(options.path):
        print(f"{figure.name:<80} {figure.value:>6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
