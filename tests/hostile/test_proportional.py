"""Every reader of a dump costs in proportion to the dump, even the densest one: a dump that is nothing
but citations. Each view of a marker-dense dump of two sizes is read (the viewer, the check page, the
API, the report, the exports and the figures), and its answer must grow no faster than the dump and stay
within a stated multiple of it. A reader that copies a statement, a source or a card into each of N
citations grows with N × its length and fails here (a 60 KB answer once made a 1.15 GB API answer)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from citeview.review.services import check_save
from citeview.snapshots.services import snapshot_paste
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db

LONG_URL = "https://example.org/" + "very-long-path/" * 130  # about 2 KB, in the dump once
LONG_TITLE = "長いタイトル" * 60


def sonar_markers(n: int) -> bytes:
    """Resolved markers and nothing else, all citing one source with a long address."""
    return json.dumps(sonar_object("[1]" * n, [LONG_URL])).encode()


def sonar_unresolved(n: int) -> bytes:
    """Markers that resolve to no source: each is drawn with its explanation and has a diagnostic."""
    return json.dumps(sonar_object("[9]" * n, [LONG_URL])).encode()


def gemini_supports(n: int) -> bytes:
    """A support per two-byte sentence, each citing three sources with long titles."""
    answer = "a." * n
    chunks = [{"web": {"uri": f"https://vertexaisearch.cloud.google.com/r/{i}", "title": LONG_TITLE}} for i in range(3)]
    supports = [
        {"segment": {"startIndex": 2 * i, "endIndex": 2 * i + 2, "text": "a."}, "groundingChunkIndices": [0, 1, 2]}
        for i in range(n)
    ]
    candidate = {
        "content": {"role": "model", "parts": [{"text": answer}]},
        "finishReason": "STOP",
        "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
    }
    return json.dumps({"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}).encode()


DUMPS: dict[str, Callable[[int], bytes]] = {
    "sonar markers": sonar_markers,
    "sonar unresolved": sonar_unresolved,
    "gemini supports": gemini_supports,
}
SIZES = (1_500, 3_000)  # citations: both below the default caps, so nothing is cut and growth shows

# The stated multiple: no view's answer is larger than this many times the dump's bytes, nor grows by
# more than this per byte of dump. The densest input sets them: a three-byte marker draws a footnote
# with its source card on the pages (about 600 bytes), and is a citation of the contract JSON (about
# 170 bytes) with, when unresolved, a diagnostic that explains it (about 450 more). The report and the
# exports hold a row per recorded check (here one item in ten is checked), each with its statement
# (at most MAX_STATEMENT_CHARS) and its source as the dump gives them.
MULTIPLE = {
    "viewer": 300,
    "check page": 300,
    "check page, last item": 300,
    "normalised json": 250,
    "api dump": 150,
    "api checks": 80,
    "api report": 150,
    "api report md": 150,
    "report page": 150,
    "report json": 150,
    "report md": 150,
    # Each row carries its statement twice: as text, and as the Markdown it was judged in.
    "verdicts csv": 175,
    "verdicts jsonl": 175,
    "figures page": 10,
    "figures json": 10,
    "api metrics": 10,
    "list": 10,
}


def pk_in_addresses(pk: int) -> re.Pattern[bytes]:
    """The dump's id in an address: a page links each item at /dumps/<id>/…, so the id's digits (9 or
    10, by how many dumps the worker made before) would count once per link, not per byte of dump."""
    return re.compile(rb"(?<=/)%d(?=[/?#\"])" % pk)


def read_every_view(client, dump: Dump, queries: dict[str, list[str]] | None = None) -> dict[str, int]:
    """The size of each view's answer, in bytes; with ``queries``, each view's SQL too."""
    items = dump_check_items(dump)
    urls = {
        "viewer": dump.get_absolute_url(),
        "check page": reverse("review:item", args=[dump.pk, items[0].key]),
        "check page, last item": reverse("review:item", args=[dump.pk, items[-1].key]),
        "normalised json": reverse("pages:normalized", args=[dump.pk]),
        "api dump": f"/api/dumps/{dump.pk}",
        "api checks": f"/api/dumps/{dump.pk}/checks",
        "api report": f"/api/dumps/{dump.pk}/report",
        "api report md": f"/api/dumps/{dump.pk}/report.md",
        "report page": reverse("review:report", args=[dump.pk]),
        "report json": reverse("review:report_json", args=[dump.pk]),
        "report md": reverse("review:report_md", args=[dump.pk]),
        "verdicts csv": reverse("review:verdicts_csv"),
        "verdicts jsonl": reverse("review:verdicts_jsonl"),
        "figures page": reverse("review:figures"),
        "figures json": reverse("review:figures_json"),
        "api metrics": "/api/metrics",
        "list": reverse("pages:home") + "?q=a",
    }
    sizes = {}
    for name, url in urls.items():
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
            assert response.status_code == 200, (name, response.status_code)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            sizes[name] = len(pk_in_addresses(dump.pk).sub(b"0", body))
        if queries is not None:
            queries[name] = [query["sql"] for query in captured.captured_queries]
    return sizes


@contextmanager
def rolled_back() -> Iterator[None]:
    """What is stored inside is gone after it (a dump with checks is never deleted: its history is kept)."""
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def stored_with_checks(raw: bytes, editor) -> Dump:
    """The dump, with a check of every tenth item: the report and the exports have rows to grow with."""
    dump = dump_ingest(raw=raw, uploaded_by=editor)[0]
    for item in dump_check_items(dump)[::10]:
        check_save(
            dump=dump,
            item=item,
            editor=editor,
            values={"verdict": "partial", "note": "確認した"}
            if item.citation is not None
            else {
                "verification_worthy": "yes",
                "note": "確認した",
            },
            statement_values={"verification_worthy": "yes", "supported_together": "no"},
            seen_version=0,
        )
    return Dump.objects.get(pk=dump.pk)


@pytest.mark.parametrize("shape", DUMPS)
def test_every_view_grows_no_faster_than_the_dump_and_stays_within_its_multiple(client, editor, shape):
    client.force_login(editor)
    dump_sizes, read_sizes = [], []
    for size in SIZES:
        raw = DUMPS[shape](size)
        with rolled_back():  # the next size is read alone (the list and the figures)
            dump = stored_with_checks(raw, editor)
            dump_sizes.append(len(raw))
            read_sizes.append(read_every_view(client, dump))
    (small_dump, large_dump), (small, large) = dump_sizes, read_sizes
    for name, multiple in MULTIPLE.items():
        # What each further byte of dump adds to the answer: a reader that copies something into each
        # citation adds more the larger the dump is, and shows here even below the stated multiple.
        growth = (large[name] - small[name]) / (large_dump - small_dump)
        assert growth <= multiple, f"{name} grows by {growth:.0f} bytes per byte of dump ({shape})"
        assert large[name] <= multiple * large_dump, f"{name} is {large[name] / large_dump:.0f}× the dump ({shape})"
        assert small[name] <= multiple * small_dump, f"{name} is {small[name] / small_dump:.0f}× the dump ({shape})"


# A snapshot of the page every statement cites: the passage of each is found once, by a worker, and the
# views read what was kept. No view reads the snapshot's text, so none grows with it: an editor's
# 10,000,000-character snapshot once made a report of 40 statements take 100 s.
SNAPSHOT_URL = "https://www.metro.tokyo.example/wards"
SNAPSHOT_STATEMENTS = (150, 300)
SNAPSHOT_CHARS = (100_000, 1_000_000)


def statements_citing_one_page(n: int) -> bytes:
    text = " ".join(f"Ward {i} of Tokyo had {1000 + i} households in 2024[1]." for i in range(n))
    return json.dumps(sonar_object(text, [SNAPSHOT_URL])).encode()


def ward_page(chars: int) -> str:
    """A long page of sentences about the wards, with the one the statements say in its middle."""
    filler = "The survey of the wards of Tokyo counts its people every year.\n"
    text = filler * (chars // len(filler))
    middle = len(text) // 2
    return text[:middle] + "Ward 7 of Tokyo had 1007 households in 2024.\n" + text[middle:]


def test_every_view_of_a_dump_with_a_snapshot_grows_with_the_dump_and_not_with_the_snapshot(client, editor):
    client.force_login(editor)
    sizes: dict[tuple[int, int], dict[str, int]] = {}
    dump_bytes: dict[int, int] = {}
    for statements in SNAPSHOT_STATEMENTS:
        raw = statements_citing_one_page(statements)
        dump_bytes[statements] = len(raw)
        for chars in SNAPSHOT_CHARS:
            with rolled_back():
                dump = stored_with_checks(raw, editor)
                snapshot_paste(url=SNAPSHOT_URL, text=ward_page(chars), taken_by=editor)
                queries: dict[str, list[str]] = {}
                sizes[(statements, chars)] = read_every_view(client, dump, queries)
            for name, sql in queries.items():
                assert not any('"snapshots_snapshot"."text"' in query for query in sql), f"{name} read the snapshot"
    (small_dump, large_dump), (small_page, large_page) = SNAPSHOT_STATEMENTS, SNAPSHOT_CHARS
    for name, multiple in MULTIPLE.items():
        for statements in SNAPSHOT_STATEMENTS:
            # Ten times the snapshot, the same answer: only its passages are shown, each once.
            grown = sizes[(statements, large_page)][name] - sizes[(statements, small_page)][name]
            assert abs(grown) <= 200, f"{name} grew by {grown} bytes with the snapshot ({statements} statements)"
            assert sizes[(statements, large_page)][name] <= multiple * dump_bytes[statements], name
        growth = (sizes[(large_dump, large_page)][name] - sizes[(small_dump, large_page)][name]) / (
            dump_bytes[large_dump] - dump_bytes[small_dump]
        )
        assert growth <= multiple, f"{name} grows by {growth:.0f} bytes per byte of dump, with a snapshot"
