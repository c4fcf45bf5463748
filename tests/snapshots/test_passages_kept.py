"""The passages of a snapshot are found once, by a worker, for every statement citing its page, and
kept: the check page, the report and the figures read what was kept and never read the snapshot's
text (an editor's 10,000,000-character snapshot once made a report of 40 statements take 100 s and
every figures page 77 s). The figures kept of a dump change with its own evidence, not with a snapshot
of a page it does not cite. The same bytes taken twice of a page are one snapshot, and every page and
report says how a snapshot was taken and by whom."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citeview.core.evidence import passages as passages_module
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review import citation_evidence as evidence_module
from citeview.review.exports import shown_time
from citeview.snapshots.kept_passages import snapshot_passages_find
from citeview.snapshots.models import Snapshot, SnapshotPassage
from citeview.snapshots.services import snapshot_paste
from citeview.snapshots.worker import snapshot_read_run
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db

TOKYO = "https://www.metro.tokyo.example/population"
OSAKA = "https://www.city.osaka.example/stats"
PAGE = (
    "Population statistics.\n"
    "As of January 1, 2024, the population of Tokyo was estimated at 13.9 million.\n"
    "The average household in Tokyo has 1.9 people.\n"
)


def statements(n: int) -> str:
    """``n`` statements, each its own claim, all citing source 1."""
    return " ".join(f"Ward {i} of Tokyo had {1000 + i} households in 2024[1]." for i in range(n))


def stored(editor, text: str, urls: list[str]) -> Dump:
    return dump_ingest(raw=json.dumps(sonar_object(text, urls)).encode(), uploaded_by=editor)[0]


def reads_snapshot_text(queries: list[dict[str, str]]) -> bool:
    """Whether any query read the text column of the snapshots (not just a passage's own text)."""
    return any('"snapshots_snapshot"."text"' in query["sql"] for query in queries)


def test_a_snapshot_is_cut_into_sentences_once_for_every_statement_citing_its_page(editor, monkeypatch):
    dump = stored(editor, statements(30), [TOKYO])
    cuts = []
    original = passages_module._sentences
    monkeypatch.setattr(passages_module, "_sentences", lambda text: cuts.append(len(text)) or original(text))
    snapshot_paste(url=TOKYO, text=PAGE * 50, taken_by=editor)
    assert len(cuts) == 1  # not once per statement
    assert SnapshotPassage.objects.count() == 30
    assert Dump.objects.get(pk=dump.pk).evidence_version > 0


def test_the_pages_reports_and_figures_read_the_kept_passages_and_never_the_snapshots_text(
    editor_client, editor, monkeypatch
):
    dump = stored(editor, "As of January 2024, the population of Tokyo was about 14.1 million[1].", [TOKYO])
    snapshot_paste(url=TOKYO, text=PAGE, taken_by=editor)

    def no_finding(*args, **kwargs):
        raise AssertionError("a page looked for a passage itself")

    monkeypatch.setattr(passages_module, "passages_of_claims", no_finding)
    views = [
        reverse("review:item", args=[dump.pk, "r0-c0"]),
        reverse("review:report", args=[dump.pk]),
        reverse("review:report_json", args=[dump.pk]),
        reverse("review:report_md", args=[dump.pk]),
        reverse("review:figures"),
        reverse("review:figures_json"),
        f"/api/dumps/{dump.pk}/report",
        "/api/metrics",
        dump.get_absolute_url(),
    ]
    for url in views:
        with CaptureQueriesContext(connection) as queries:
            response = editor_client.get(url)
        assert response.status_code == 200, url
        assert not reads_snapshot_text(queries.captured_queries), url
    page = editor_client.get(views[0]).content.decode()
    assert "cv-snapshot-passage" in page and "13.9 million" in page


def test_a_statement_stored_after_the_snapshot_has_its_passage_found_by_a_worker(editor_client, editor):
    snapshot_paste(url=TOKYO, text=PAGE, taken_by=editor)
    assert SnapshotPassage.objects.count() == 0  # no dump cites the page yet
    dump = stored(editor, "The average household in Tokyo has 1.9 people[1].", [TOKYO])
    (kept,) = SnapshotPassage.objects.all()
    assert kept.found and "1.9 people" in kept.text
    page = editor_client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()
    assert "cv-snapshot-passage" in page


def test_a_passage_not_found_yet_is_said_to_be_looked_for_and_the_page_waits_for_it(editor_client, editor):
    dump = stored(editor, "As of January 2024, the population of Tokyo was about 14.1 million[1].", [TOKYO])
    snapshot_paste(url=TOKYO, text=PAGE, taken_by=editor)
    SnapshotPassage.objects.all().delete()  # as if the worker has not come to it yet
    Snapshot.objects.update(passages_found_by="")
    # The page asks a worker again (here the tests' queue runs it at once): the next view shows it.
    page = editor_client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()
    assert "Looking for the passage" in page and "data-status-url" in page
    status = editor_client.get(reverse("review:snapshot_status", args=[dump.pk, "r0-c0"])).json()
    assert status["pending"] is False
    assert "cv-snapshot-passage" in editor_client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()

    SnapshotPassage.objects.all().delete()
    report = editor_client.get(reverse("review:report_json", args=[dump.pk])).json()
    (passage,) = report["responses"][0]["evidence"][0]["passages"]
    assert passage["pending"] is True and passage["found"] is None
    markdown = editor_client.get(reverse("review:report_md", args=[dump.pk])).content.decode()
    assert "Passage: still being looked for in the snapshot" in markdown
    figures = editor_client.get(reverse("review:figures_json")).json()["overall"]
    assert figures["passages_pending"] == {"count": 1}
    assert figures["passage_found_share"]["denominator"] == 0  # not counted as not found


def test_a_snapshot_of_another_page_leaves_the_figures_kept_of_a_dump_as_they_are(editor_client, editor, monkeypatch):
    tokyo = stored(editor, "As of January 2024, the population of Tokyo was about 14.1 million[1].", [TOKYO])
    stored(editor, "Osaka grew[1].", [OSAKA])
    assert editor_client.get(reverse("review:figures")).status_code == 200
    counted = []
    original = evidence_module._evidence_groups
    monkeypatch.setattr(evidence_module, "_evidence_groups", lambda dump: counted.append(dump.pk) or original(dump))
    snapshot_paste(url=OSAKA, text="Osaka grew in 2024.", taken_by=editor)
    assert editor_client.get(reverse("review:figures")).status_code == 200
    assert tokyo.pk not in counted and len(counted) == 1  # only Osaka's dump is counted again
    snapshot_paste(url=TOKYO, text=PAGE, taken_by=editor)
    figures = editor_client.get(reverse("review:figures_json")).json()["overall"]
    assert tokyo.pk in counted and figures["snapshot_share"]["numerator"] == 2


def test_the_passages_of_an_older_snapshot_are_not_looked_for(editor):
    stored(editor, "The average household in Tokyo has 1.9 people[1].", [TOKYO])
    old = snapshot_paste(url=TOKYO, text=PAGE, taken_by=editor).snapshot
    snapshot_paste(url=TOKYO, text=PAGE + "Updated.", taken_by=editor)
    SnapshotPassage.objects.filter(snapshot=old).delete()
    assert snapshot_passages_find(snapshot_id=old.pk) == 0
    assert not SnapshotPassage.objects.filter(snapshot=old).exists()


def test_the_same_text_pasted_again_is_one_snapshot_and_the_editor_is_told(editor_client, editor, second_editor):
    dump = stored(editor, "The average household in Tokyo has 1.9 people[1].", [TOKYO])
    address = reverse("review:snapshot", args=[dump.pk, "r0-c0"])
    for _ in range(5):
        page = editor_client.post(address, {"take": "paste", "text": PAGE}, follow=True).content.decode()
    assert Snapshot.objects.count() == 1
    assert "holds exactly this already" in page
    # Another editor pasting the same text is told who took it; the snapshot stays theirs.
    again = snapshot_paste(url=TOKYO + "#top", text=PAGE, taken_by=second_editor)
    assert again.state == "done" and again.task_id == ""  # nothing to read: no task queued
    assert again.snapshot.taken_by == editor and Snapshot.objects.count() == 1
    # The same text for another page is that page's own snapshot.
    snapshot_paste(url=OSAKA, text=PAGE, taken_by=editor)
    assert Snapshot.objects.count() == 2


def test_every_page_and_report_says_how_a_snapshot_was_taken_and_by_whom(editor_client, editor, reviewer, client):
    dump = stored(editor, "The average household in Tokyo has 1.9 people[1].", [TOKYO])
    snapshot = snapshot_paste(url=TOKYO, text=PAGE, taken_by=editor).snapshot
    taken = shown_time(snapshot.taken_at.isoformat())
    said = f"pasted by hanako, {taken}"
    client.force_login(reviewer)
    for url in (
        dump.get_absolute_url(),
        reverse("review:item", args=[dump.pk, "r0-c0"]),
        reverse("review:report", args=[dump.pk]),
    ):
        assert said in client.get(url).content.decode(), url
    markdown = client.get(reverse("review:report_md", args=[dump.pk])).content.decode()
    assert f"Snapshot: {said} (SHA-256 {snapshot.sha256})" in markdown
    japanese = client.get(reverse("review:report_md", args=[dump.pk]), {"lang": "ja"}).content.decode()
    assert "hanako" in japanese and "貼り付け" in japanese
    entry = client.get(reverse("review:report_json", args=[dump.pk])).json()["responses"][0]["evidence"][0]
    assert entry["snapshot"]["method"] == "paste" and entry["snapshot"]["taken_by"] == "hanako"


def test_a_long_finding_stops_in_time_and_queues_the_rest_behind_the_work_waiting(editor, monkeypatch, database_queue):
    from django_tasks_db.models import DBTaskResult

    from citeview.snapshots import kept_passages

    stored(editor, statements(5), [TOKYO])
    reading = snapshot_paste(url=TOKYO, text=PAGE, taken_by=editor)  # queued, not run
    assert snapshot_read_run(fetch_id=reading.pk) == "done"  # the worker's reading: its finding is queued
    snapshot = Snapshot.objects.get()
    monkeypatch.setattr(kept_passages, "PASSAGES_TASK_SECONDS", 0)
    monkeypatch.setattr(kept_passages, "_ROWS_WRITTEN_AT_ONCE", 2)
    queued = DBTaskResult.objects.filter(task_path="citeview.snapshots.tasks.find_passages")
    assert queued.count() == 1
    assert [snapshot_passages_find(snapshot_id=snapshot.pk) for _ in range(3)] == [2, 2, 1]
    assert SnapshotPassage.objects.count() == 5
    assert queued.count() == 3  # the first, and one for what each of the two cut runs left
    assert Snapshot.objects.get(pk=snapshot.pk).passages_found_by  # the third finished
