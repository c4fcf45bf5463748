"""What a team relies on: a backup (dumpdata/loaddata for the database, a copy of the blob folder or
bucket for the bytes) restores everything exactly, and two requests storing the same dump at once make
one row."""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from citeview.core.parsing.attached import AttachedFile
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.models import Check, CheckRevision, Comment
from tests.conftest import own_fixture
from tests.documents import POLICY, REPORT_PAGES, pdf_of, policy_and_report_answer
from tests.storage.blob_stores import blobs, s3_server  # noqa: F401 (fixtures)

BACKED_UP = ("agent-seed-incomplete.sse", "claude-ja-documents-exchange.json", "sonar-stream-full-mode-crlf.sse")


@pytest.mark.django_db(transaction=True)
def test_dumpdata_and_loaddata_with_the_blobs_copied_restore_dumps_byte_for_byte_with_checks_and_revisions(
    client,
    editor,
    second_editor,
    tmp_path,
    blobs,  # noqa: F811 (the fixture imported above)
):
    dumps = [dump_ingest(raw=own_fixture(name), uploaded_by=editor, filename=name)[0] for name in BACKED_UP]
    documents = [AttachedFile("policy.txt", POLICY.encode()), AttachedFile("heat-report.pdf", pdf_of(*REPORT_PAGES))]
    dump_ingest(raw=policy_and_report_answer(), uploaded_by=editor, request=documents)
    request = own_fixture("claude-content-blocks-search-results.request.json")
    dump_ingest(raw=own_fixture("claude-content-blocks-search-results.json"), uploaded_by=editor, request=request)
    client.force_login(editor)
    client.post(reverse("dumps:details", args=[dumps[0].pk]), {"title": "条件の確認", "tags": "health, 2026"})
    for version, verdict in enumerate(("none", "partial")):
        body = {"version": str(version), "verdict": verdict, "verification_worthy": "yes", "note": "年度を確認"}
        client.post(reverse("review:item", args=[dumps[0].pk, "r0-c1"]), body)
    client.post(reverse("review:comment", args=[dumps[0].pk]), {"text": "引き継ぎます", "item_key": "r0-c1"})
    before = {
        "raw": {d.sha256: bytes(d.raw) for d in Dump.objects.all()},
        "attached": {d.sha256: d.attachment() for d in Dump.objects.all()},
        "results": {d.sha256: d.result for d in Dump.objects.all()},
        "checks": sorted(Check.objects.values_list("item_key", "editor__username", "verdict", "note")),
        "revisions": sorted(map(str, CheckRevision.objects.values_list("check_record__item_key", "before", "after"))),
        "comments": list(Comment.objects.values_list("text", "item_key")),
        "tags": sorted(Dump.objects.get(title="条件の確認").tags.values_list("name", flat=True)),
    }

    backup = tmp_path / "backup.json"
    call_command(
        "dumpdata",
        "--natural-foreign",
        "--natural-primary",
        "--exclude=contenttypes",
        "--exclude=auth.permission",
        "--exclude=sessions",
        "--exclude=accounts",
        "--exclude=dumps.dumppage",
        output=str(backup),
        verbosity=0,
    )
    blobs.back_up(tmp_path / "blobs-backup")
    call_command("flush", "--noinput", verbosity=0)
    blobs.wipe()
    assert not Dump.objects.exists() and not blobs.names()
    call_command("loaddata", str(backup), verbosity=0)
    blobs.restore(tmp_path / "blobs-backup")

    assert {d.sha256: bytes(d.raw) for d in Dump.objects.all()} == before["raw"]
    assert {d.sha256: d.attachment() for d in Dump.objects.all()} == before["attached"]
    assert {d.sha256: d.result for d in Dump.objects.all()} == before["results"]
    assert sorted(Check.objects.values_list("item_key", "editor__username", "verdict", "note")) == before["checks"]
    assert (
        sorted(map(str, CheckRevision.objects.values_list("check_record__item_key", "before", "after")))
        == before["revisions"]
    )
    assert list(Comment.objects.values_list("text", "item_key")) == before["comments"]
    assert sorted(Dump.objects.get(title="条件の確認").tags.values_list("name", flat=True)) == before["tags"]
    client.force_login(type(editor).objects.get(username=editor.username))  # restored, perhaps under a new id
    page = client.get(reverse("review:item", args=[Dump.objects.get(title="条件の確認").pk, "r0-c1"]))
    assert page.status_code == 200 and "年度を確認" in page.content.decode()


@pytest.mark.django_db(transaction=True)
def test_two_requests_storing_the_same_dump_at_once_make_one_row(editor):
    if connection.vendor == "sqlite":
        pytest.skip("SQLite lets one writer in at a time; this race is run against PostgreSQL (scripts/test-postgres)")
    raw = own_fixture("agent-seed-incomplete.sse")
    start = threading.Barrier(4)
    results: list[tuple[int, bool]] = []

    def store() -> None:
        start.wait()
        try:
            dump, created = dump_ingest(raw=raw, uploaded_by=editor)
            results.append((dump.pk, created))
        finally:
            connection.close()

    threads = [threading.Thread(target=store) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Dump.objects.count() == 1
    assert len({pk for pk, _ in results}) == 1 and sorted(created for _, created in results) == [
        False,
        False,
        False,
        True,
    ]
