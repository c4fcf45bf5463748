"""Snapshots of a citation's source, taken from the check panel three ways (upload, paste, Fetch from a
loopback server the tests start, allow-listed), shared by every dump citing the URL, and the passage
found for the claim shown beside it with what differs marked. A refused fetch says why on the page."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from citeview.core.common.url_keys import source_url_key
from citeview.dumps.blobs import blob_read
from citeview.dumps.services import dump_ingest
from citeview.review.models import Check
from citeview.snapshots.models import Snapshot, SnapshotFetch
from citeview.snapshots.selectors import newest_snapshot, newest_snapshots
from citeview.snapshots.services import snapshot_paste
from tests.builders import sonar_object
from tests.core.pdfs import pdf_with_pages
from tests.snapshots.pages import POPULATION_PAGE, html_route, page_server

pytestmark = pytest.mark.django_db

CLAIM = "As of January 2024, the population of Tokyo was about 14.1 million[1]."
PAGE_URL = "https://www.metro.tokyo.example/population"


def sonar_dump(editor, url: str = PAGE_URL, claim: str = CLAIM):
    raw = json.dumps(sonar_object(claim, [url])).encode()
    return dump_ingest(raw=raw, uploaded_by=editor)[0]


def item_page(client, dump, key: str = "r0-c0") -> str:
    response = client.get(reverse("review:item", args=[dump.pk, key]))
    assert response.status_code == 200
    return response.content.decode()


def take(client, dump, key: str = "r0-c0", **data):
    return client.post(reverse("review:snapshot", args=[dump.pk, key]), data, follow=True)


@pytest.fixture
def fetching(settings):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    settings.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    return settings


def test_a_source_url_is_keyed_without_its_fragment_and_with_its_host_lowercased():
    assert source_url_key("HTTPS://Example.ORG:443/a/B?x=1#:~:text=foo") == "https://example.org/a/B?x=1"
    assert source_url_key(" http://example.org ") == "http://example.org/"
    assert source_url_key("http://example.org:8080/p#top") == "http://example.org:8080/p"


def test_a_pasted_snapshot_is_kept_in_the_blob_storage_and_shared_by_every_dump_citing_the_url(editor):
    taken = snapshot_paste(url=PAGE_URL + "#section", text="Tokyo had 13.9 million people.", taken_by=editor)
    first = taken.snapshot
    assert (taken.state, taken.method, taken.content_sha256) == ("done", "paste", first.sha256)  # read by its task
    assert blob_read(first.sha256) == b"Tokyo had 13.9 million people."
    assert (first.method, first.content_type, first.taken_by, first.url) == (
        "paste",
        "text/plain; charset=utf-8",
        editor,
        PAGE_URL,
    )
    assert first.requested_url == first.final_url == PAGE_URL
    assert first.taken_at == taken.requested_at  # when it was sent, not when a worker read it
    newer = snapshot_paste(url=PAGE_URL, text="Tokyo had 14.0 million people.", taken_by=editor).snapshot
    assert newest_snapshot(PAGE_URL + "#other") == newer  # several per URL over time: the newest is used
    assert newest_snapshots([PAGE_URL, "https://elsewhere.example/"]) == {PAGE_URL: newer}
    assert Snapshot.objects.count() == 2


def test_pasting_the_page_shows_the_passage_beside_the_claim_with_the_differing_figure_marked(editor_client, editor):
    dump = sonar_dump(editor)
    assert "No snapshot of this page yet." in item_page(editor_client, dump)
    page = take(editor_client, dump, take="paste", text=(open_fixture("en-population-other-figure.txt"))).content
    page = page.decode()
    assert "Snapshot kept" in page
    assert '<mark class="cv-number-diff">14.1 million</mark>' in page  # the claim's side
    assert '<mark class="cv-number-diff">13.9 million</mark>' in page  # the passage's side
    assert "cv-snapshot-passage" in page and "score " in page and "Use as the evidence quote" in page
    assert "#:~:text=" in page  # the passage on the live page
    assert "January 2024" in page and "January 1, 2024" in page  # the time hints, both sides
    # A snapshot records no verdict by itself.
    assert not Check.objects.exists()


def test_another_dump_citing_the_same_page_reuses_its_snapshot(editor_client, editor):
    snapshot_paste(url=PAGE_URL, text=open_fixture("en-population.txt"), taken_by=editor)
    other = sonar_dump(editor, url=PAGE_URL + "#:~:text=population", claim="Tokyo's population grew by 0.3%[1].")
    assert "cv-snapshot-passage" in item_page(editor_client, other)


def test_a_page_that_does_not_say_the_claim_says_no_passage_was_found(editor_client, editor):
    dump = sonar_dump(editor)
    take(editor_client, dump, take="paste", text=open_fixture("en-unrelated.txt"))
    page = item_page(editor_client, dump)
    assert "No passage found in the snapshot" in page and "cv-snapshot-passage" not in page


def test_an_uploaded_pdf_shows_the_page_the_passage_is_on(editor_client, editor):
    dump = sonar_dump(editor)
    pdf = pdf_with_pages(
        [
            "Annual report of the Tokyo Metropolitan Government.",
            "Households reached 7.4 million.",
            "As of January 1, 2024, the population of Tokyo was estimated at 13.9 million.",
        ]
    )
    upload = _upload("report.pdf", pdf, "application/pdf")
    page = take(editor_client, dump, take="upload", page=upload).content.decode()
    assert "Snapshot kept" in page
    assert "page 3" in page and '<mark class="cv-number-diff">13.9 million</mark>' in page
    snapshot = Snapshot.objects.get()
    assert (snapshot.method, snapshot.filename, snapshot.source_type) == ("upload", "report.pdf", "pdf")


def test_an_uploaded_html_page_is_shown_as_its_text_never_as_html(editor_client, editor):
    dump = sonar_dump(editor)
    page = take(editor_client, dump, take="upload", page=_upload("tokyo.html", POPULATION_PAGE, "text/html"))
    body = page.content.decode()
    assert "13.9 million" in body and "document.title" not in body and "<nav>" not in body


def test_an_upload_that_yields_no_text_is_refused_with_the_reason(editor_client, editor):
    dump = sonar_dump(editor)
    body = take(editor_client, dump, take="upload", page=_upload("a.png", b"\x89PNG....", "image/png")).content
    assert "The snapshot was not kept: A saved page of type image/png cannot be read" in body.decode()
    body = take(editor_client, dump, take="upload", page=_upload("a.txt", b"   ", "text/plain")).content.decode()
    assert "The saved page is empty" in body
    assert not Snapshot.objects.exists()


def test_fetch_takes_the_page_from_the_loopback_server_and_shows_the_passage(editor_client, editor, fetching):
    with page_server({"/tokyo": html_route(POPULATION_PAGE)}) as base:
        dump = sonar_dump(editor, url=f"{base}/tokyo")
        page = take(editor_client, dump, take="fetch").content.decode()
    snapshot = Snapshot.objects.get()
    assert (snapshot.method, snapshot.http_status, snapshot.requested_url, snapshot.final_url) == (
        "fetch",
        200,
        f"{base}/tokyo",
        f"{base}/tokyo",
    )
    assert snapshot.content_type == "text/html; charset=utf-8" and snapshot.taken_by == editor
    assert blob_read(snapshot.sha256) == POPULATION_PAGE
    assert SnapshotFetch.objects.get().state == "done"
    assert "HTTP 200" in page and snapshot.sha256[:12] in page
    assert '<mark class="cv-number-diff">13.9 million</mark>' in page
    assert "document.title" not in page  # the page's script is no text of it


def test_a_fetch_that_redirects_keeps_the_final_url(editor_client, editor, fetching):
    routes = {"/old": (301, "text/html", b"", {"Location": "/new"}), "/new": html_route(POPULATION_PAGE)}
    with page_server(routes) as base:
        dump = sonar_dump(editor, url=f"{base}/old")
        page = take(editor_client, dump, take="fetch").content.decode()
    snapshot = Snapshot.objects.get()
    assert (snapshot.requested_url, snapshot.final_url) == (f"{base}/old", f"{base}/new")
    assert f'Redirected to <span class="cv-url">{base}/new' in page


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/missing", "answered 404: there is no page to keep."),
        ("/image", "is image/png; only HTML, PDF and plain text pages are kept."),
        ("/to-private", "a private address, which citeview never fetches from."),
        ("/loop", "redirects in a loop"),
    ],
)
def test_a_refused_fetch_says_why_on_the_page(editor_client, editor, fetching, path, said):
    routes = {
        "/image": (200, "image/png", b"\x89PNG", {}),
        "/to-private": (302, "text/html", b"", {"Location": "http://10.0.0.1/admin"}),
        "/loop": (302, "text/html", b"", {"Location": "/loop2"}),
        "/loop2": (302, "text/html", b"", {"Location": "/loop"}),
    }
    with page_server(routes) as base:
        dump = sonar_dump(editor, url=f"{base}{path}")
        page = take(editor_client, dump, take="fetch").content.decode()
    assert "The page was not fetched:" in page and said in page
    assert "Upload a saved copy of the page or paste its text instead." in page
    assert not Snapshot.objects.exists() and SnapshotFetch.objects.get().state == "refused"


def test_a_loopback_address_is_refused_unless_allow_listed_and_said_so_in_japanese(client, editor, settings):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    settings.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS = []
    client.force_login(editor)
    with page_server({"/tokyo": html_route(POPULATION_PAGE)}) as base:
        dump = sonar_dump(editor, url=f"{base}/tokyo")
        page = client.post(
            reverse("review:snapshot", args=[dump.pk, "r0-c0"]),
            {"take": "fetch"},
            follow=True,
            HTTP_ACCEPT_LANGUAGE="ja",
        ).content.decode()
    assert "ページは取得されませんでした" in page and "127.0.0.1" in page
    assert SnapshotFetch.objects.get().error_code == "forbidden_address"


def test_fetching_off_offers_upload_and_paste_only(editor_client, editor, settings):
    settings.CITEVIEW_SNAPSHOT_FETCH = False
    dump = sonar_dump(editor)
    page = item_page(editor_client, dump)
    assert "Fetch the page" not in page and "This deployment does not fetch pages" in page
    page = take(editor_client, dump, take="fetch").content.decode()
    assert "CITEVIEW_SNAPSHOT_FETCH is off" in page and not SnapshotFetch.objects.exists()


def test_a_queued_fetch_shows_fetching_and_its_status(editor_client, editor, fetching, database_queue):
    dump = sonar_dump(editor)
    page = take(editor_client, dump, take="fetch").content.decode()
    assert "Fetching the page…" in page and "data-status-url" in page
    status = editor_client.get(reverse("review:snapshot_status", args=[dump.pk, "r0-c0"])).json()
    assert status == {"state": "queued", "pending": True, "label": "waiting for a worker"}
    take(editor_client, dump, take="fetch")  # pressed again: still the one fetch
    assert SnapshotFetch.objects.count() == 1


def test_a_waiting_panel_holds_the_sentence_for_a_fetch_that_takes_too_long_hidden_until_needed(
    client, editor, fetching, database_queue
):
    """check.js stops asking after three minutes and shows this sentence, written by the server in the
    reader's language: the script writes no words of its own."""
    client.force_login(editor)
    dump = sonar_dump(editor)
    address = reverse("review:snapshot", args=[dump.pk, "r0-c0"])
    page = client.post(address, {"take": "fetch"}, follow=True).content.decode()
    assert (
        '<span class="cv-fetch-late" hidden>The fetch is taking longer than expected: this page has stopped '
        "checking on it.</span>" in page
    )
    japanese = client.get(reverse("review:item", args=[dump.pk, "r0-c0"]), HTTP_ACCEPT_LANGUAGE="ja").content
    assert '<span class="cv-fetch-late" hidden>取得に予想より時間がかかっています' in japanese.decode()


def test_a_fetch_whose_task_ended_without_ending_it_no_longer_blocks_the_url(
    editor_client, editor, fetching, database_queue
):
    """A fetch left "fetching" by a task that failed (as NotImplementedError did before issue 29) or a
    dead worker: pressing Fetch again ends it refused and queues a new one, rather than waiting on it."""
    from django.tasks import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    dump = sonar_dump(editor)
    take(editor_client, dump, take="fetch")
    stuck = SnapshotFetch.objects.get()
    SnapshotFetch.objects.filter(pk=stuck.pk).update(state="fetching")
    DBTaskResult.objects.filter(pk=stuck.task_id).update(status=TaskResultStatus.FAILED)
    page = take(editor_client, dump, take="fetch").content.decode()
    assert SnapshotFetch.objects.count() == 2 and "Fetching the page…" in page
    stuck.refresh_from_db()
    assert (stuck.state, stuck.error_code) == ("refused", "lost") and stuck.finished_at is not None


def test_a_fetch_that_fails_in_an_unforeseen_way_ends_refused_with_its_kind(
    editor_client, editor, fetching, monkeypatch
):
    from citeview.dumps.blobs import BlobError
    from citeview.snapshots import worker

    def storage_down(data: bytes) -> str:
        raise BlobError("the blob storage is unreachable")

    monkeypatch.setattr(worker, "blob_store", storage_down)
    with page_server({"/tokyo": html_route(POPULATION_PAGE)}) as base:
        dump = sonar_dump(editor, url=f"{base}/tokyo")
        page = take(editor_client, dump, take="fetch").content.decode()
    fetch = SnapshotFetch.objects.get()
    assert (fetch.state, fetch.error_code) == ("refused", "failed") and fetch.finished_at is not None
    assert f"The page was not fetched: {base}/tokyo could not be fetched: BlobError." in page


def test_reviewers_read_the_passage_but_only_editors_take_snapshots(client, editor, reviewer):
    dump = sonar_dump(editor)
    snapshot_paste(url=PAGE_URL, text=open_fixture("en-population.txt"), taken_by=editor)
    client.force_login(reviewer)
    page = item_page(client, dump)
    assert "cv-snapshot-passage" in page and "Fetch the page" not in page and "Use as the evidence quote" not in page
    refused = client.post(reverse("review:snapshot", args=[dump.pk, "r0-c0"]), {"take": "paste", "text": "x"})
    assert refused.status_code == 403 and Snapshot.objects.count() == 1


def test_a_source_without_a_web_address_has_no_snapshot_panel(editor_client, editor):
    dump = sonar_dump(editor, url="javascript:alert(1)")
    assert "cv-snapshot" not in item_page(editor_client, dump)
    response = editor_client.post(reverse("review:snapshot", args=[dump.pk, "r0-c0"]), {"take": "fetch"})
    assert response.status_code == 404


def test_the_passage_recorded_as_the_evidence_quote(editor_client, editor):
    dump = sonar_dump(editor)
    take(editor_client, dump, take="paste", text=open_fixture("en-population-other-figure.txt"))
    passage = "As of January 1, 2024, the population of Tokyo was estimated at 13.9 million"
    editor_client.post(
        reverse("review:item", args=[dump.pk, "r0-c0"]),
        {"version": "0", "verdict": "partial", "evidence_quote": passage, "verification_worthy": "yes"},
    )
    check = Check.objects.get(item_key="r0-c0")
    assert (check.verdict, check.evidence_quote) == ("partial", passage)


def open_fixture(name: str) -> str:
    from tests.conftest import OWN_FIXTURES

    return (OWN_FIXTURES / "snapshots" / name).read_text(encoding="utf-8")


def _upload(name: str, content: bytes, content_type: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type=content_type)


def openai_web_dump(
    editor, url: str = PAGE_URL, claim: str = "As of January 2024, Tokyo had about 14.1 million people."
):
    """An OpenAI Responses answer with a web search's ``url_citation`` over its claim (characters 0–n)."""
    response = {
        "id": "resp_snapshot",
        "object": "response",
        "created_at": 1767225600,
        "status": "completed",
        "model": "gpt-4.1",
        "output": [
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "q"},
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {
                        "type": "output_text",
                        "text": claim,
                        "annotations": [
                            {
                                "type": "url_citation",
                                "start_index": 0,
                                "end_index": len(claim),
                                "url": url,
                                "title": "Population",
                            }
                        ],
                    }
                ],
            },
        ],
    }
    return dump_ingest(raw=json.dumps(response).encode(), uploaded_by=editor)[0]


def test_an_openai_web_citation_takes_a_fetched_snapshot_and_its_passage_as_the_quote(editor_client, editor, fetching):
    with page_server({"/tokyo": html_route(POPULATION_PAGE)}) as base:
        dump = openai_web_dump(editor, url=f"{base}/tokyo")
        assert dump.result["responses"][0]["api"] == "openai.responses"
        page = take(editor_client, dump, take="fetch").content.decode()
    assert "cv-snapshot-passage" in page and "Use as the evidence quote" in page
    assert '<mark class="cv-number-diff">13.9 million</mark>' in page  # the page says another figure
    passage = "As of January 1, 2024, the population of Tokyo was estimated at 13.9 million"
    editor_client.post(
        reverse("review:item", args=[dump.pk, "r0-c0"]),
        {"version": "0", "verdict": "none", "evidence_quote": passage, "verification_worthy": "yes"},
    )
    check = Check.objects.get(item_key="r0-c0")
    assert (check.verdict, check.evidence_quote) == ("none", passage)
