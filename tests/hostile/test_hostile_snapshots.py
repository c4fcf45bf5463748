"""A source's snapshot is a page an LLM's answer pointed at: its HTML (scripts, on* attributes,
javascript: links, frames, forms) and a PDF's text never reach the check panel as markup. Only the
text extracted from them is shown, escaped, with our own marks around what differs."""

from __future__ import annotations

import json
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from citeview.snapshots.models import Snapshot, SnapshotFetch
from citeview.snapshots.worker import snapshot_read_run
from tests.builders import sonar_object
from tests.core.pdfs import pdf_form_bomb, pdf_with_filter, pdf_with_pages
from tests.hostile.corpus import TEXT, TEXT_SHORT, params
from tests.hostile.pages import assert_escaped, assert_inert, shown_text
from tests.snapshots.pages import LONG_HEADER_LINE, MANY_HEADERS, SSH_BANNER, html_route, page_server, raw_page_server

pytestmark = pytest.mark.django_db

CLAIM = "The population of Tokyo was 14.1 million in 2024[1]."
SENTENCE = "The population of Tokyo was 13.9 million in 2024."
HOSTILE_PAGE = """<!doctype html><html><head><meta http-equiv="refresh" content="0;url=javascript:alert(1)">
<base href="javascript:alert(1)//"><script>alert("head")</script><style>body{{background:url(javascript:x)}}</style></head>
<body onload="alert('body')"><main><article>
<p onclick="alert('p')">{sentence} {payload}</p>
<p><a href="javascript:alert('link')">Read more</a> <img src=x onerror="alert('img')"></p>
<iframe src="javascript:alert('frame')"></iframe><form action="https://evil.example/"><input name="csrfmiddlewaretoken"></form>
<svg><script>alert('svg')</script></svg>
</article></main></body></html>"""


def check_page(client, editor, url: str, **take) -> str:
    dump = dump_ingest(raw=json.dumps(sonar_object(CLAIM, [url])).encode(), uploaded_by=editor)[0]
    address = reverse("review:snapshot", args=[dump.pk, "r0-c0"])
    assert client.post(address, take).status_code == 302
    response = client.get(reverse("review:item", args=[dump.pk, "r0-c0"]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("payload", params(TEXT))
def test_hostile_html_in_an_uploaded_page_never_reaches_the_panel_as_markup(editor_client, editor, payload):
    page = HOSTILE_PAGE.format(sentence=SENTENCE, payload=payload).encode()
    upload = SimpleUploadedFile("saved.html", page, content_type="text/html")
    html = check_page(editor_client, editor, "https://stats.example/tokyo", take="upload", page=upload)
    assert Snapshot.objects.count() == 1
    assert_inert(html)
    for word in ("alert('", 'alert("head")', "evil.example/", "javascript:alert"):
        assert word not in html, word
    assert "13.9 million" in shown_text(html, cls="cv-snapshot-passage")


@pytest.mark.parametrize("payload", params(TEXT))
def test_hostile_text_pasted_as_the_page_is_shown_escaped(editor_client, editor, payload):
    html = check_page(editor_client, editor, "https://stats.example/tokyo", take="paste", text=f"{SENTENCE} {payload}")
    assert_inert(html)
    assert_escaped(html, payload)


@pytest.mark.parametrize("payload", params(TEXT_SHORT))
def test_hostile_text_in_a_pdf_is_shown_escaped(editor_client, editor, payload):
    pdf = pdf_with_pages(["Annual report.", f"{SENTENCE} {payload}"])
    upload = SimpleUploadedFile("report.pdf", pdf, content_type="application/pdf")
    html = check_page(editor_client, editor, "https://stats.example/report.pdf", take="upload", page=upload)
    assert Snapshot.objects.get().source_type == "pdf"
    assert_inert(html)
    assert_escaped(html, payload)
    assert "page 2" in html


def test_a_hostile_page_fetched_is_shown_as_its_text(editor_client, editor, settings):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    settings.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    page = HOSTILE_PAGE.format(sentence=SENTENCE, payload="<script>alert(1)</script>").encode()
    with page_server({"/tokyo": html_route(page)}) as base:
        html = check_page(editor_client, editor, f"{base}/tokyo", take="fetch")
    assert Snapshot.objects.get().method == "fetch"
    assert_inert(html)
    assert "javascript:alert" not in html and "alert('" not in html


# --- issue 29: saved pages that would run away, or make the parsers raise ------------------------

TOKYO = "https://stats.example/report"


def take_snapshot(client, editor, url: str = TOKYO, **take):
    """Take a snapshot from the check panel; the response to the POST (a redirect to the panel) and
    the panel it leads to."""
    dump = dump_ingest(raw=json.dumps(sonar_object(CLAIM, [url])).encode(), uploaded_by=editor)[0]
    response = client.post(reverse("review:snapshot", args=[dump.pk, "r0-c0"]), take)
    panel = client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()
    return response, panel, dump


@pytest.fixture
def short_budget(settings):
    settings.CITEVIEW_SNAPSHOT_EXTRACT_SECONDS = 2
    return settings


def test_an_uploaded_pdf_form_bomb_is_queued_at_once_and_its_reading_ends_refused_within_the_budget(
    editor_client, editor, short_budget, database_queue
):
    upload = SimpleUploadedFile("report.pdf", pdf_form_bomb(), content_type="application/pdf")
    start = time.monotonic()
    response, panel, dump = take_snapshot(editor_client, editor, take="upload", page=upload)
    assert time.monotonic() - start < 5  # the request read it for the whole budget (issue 42, finding 2)
    assert response.status_code == 302 and "Reading the uploaded page…" in panel
    start = time.monotonic()
    assert snapshot_read_run(fetch_id=SnapshotFetch.objects.get().pk) == "refused"  # in the worker
    assert time.monotonic() - start < 15  # it ran for 129 s (issue 29, finding 2)
    assert not Snapshot.objects.exists()
    panel = editor_client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()
    assert "The snapshot was not kept: Reading the saved page took longer than 2 seconds" in panel


def test_a_fetched_pdf_form_bomb_ends_the_fetch_refused_with_the_reason(editor_client, editor, short_budget):
    short_budget.CITEVIEW_SNAPSHOT_FETCH = True
    short_budget.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    with page_server({"/report.pdf": (200, "application/pdf", pdf_form_bomb(), {})}) as base:
        _, panel, _ = take_snapshot(editor_client, editor, url=f"{base}/report.pdf", take="fetch")
    fetch = SnapshotFetch.objects.get()
    assert (fetch.state, fetch.error_code) == ("refused", "too_slow") and not Snapshot.objects.exists()
    assert "The page was not fetched: Reading the saved page took longer than 2 seconds" in panel


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (SSH_BANNER, "did not answer in HTTP"),
        (MANY_HEADERS, "sent more than 100 headers"),
        (LONG_HEADER_LINE, "sent a line longer than 65,536 bytes in its headers"),
    ],
    ids=["ssh-banner", "many-headers", "long-header-line"],
)
def test_a_server_that_answers_no_http_ends_the_fetch_refused_and_a_new_press_fetches_again(
    editor_client, editor, settings, answer, said
):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    settings.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    with raw_page_server({"/": answer}) as base:
        _, panel, dump = take_snapshot(editor_client, editor, url=f"{base}/", take="fetch")
        fetch = SnapshotFetch.objects.get()
        assert (fetch.state, fetch.error_code) == ("refused", "protocol")  # it stayed "fetching" for ever
        assert "The page was not fetched:" in panel and said in panel
        editor_client.post(reverse("review:snapshot", args=[dump.pk, "r0-c0"]), {"take": "fetch"})
    assert SnapshotFetch.objects.count() == 2  # pressed again: a new fetch, not the old one pending


@pytest.mark.parametrize("name", [b"/Foo", b"/Fl"])
def test_an_uploaded_pdf_with_a_filter_pypdf_cannot_read_is_refused_not_an_error_page(editor_client, editor, name):
    upload = SimpleUploadedFile("report.pdf", pdf_with_filter(name), content_type="application/pdf")
    response, panel, _ = take_snapshot(editor_client, editor, take="upload", page=upload)
    assert response.status_code == 302 and not Snapshot.objects.exists()  # it answered 500
    assert "The snapshot was not kept: The PDF cannot be read (" in panel


def test_an_uploaded_text_of_ten_million_characters_is_cut_at_the_cap_and_says_so(editor_client, editor, settings):
    upload = SimpleUploadedFile("page.txt", f"{SENTENCE}\n".encode() * 200_000, content_type="text/plain")
    assert upload.size >= 10_000_000  # it was kept whole (finding 1)
    _, panel, _ = take_snapshot(editor_client, editor, take="upload", page=upload)
    assert len(Snapshot.objects.get().text) == settings.CITEVIEW_SNAPSHOT_MAX_TEXT_CHARS == 5_000_000
    assert "The text stops after 5,000,000 characters, the most citeview keeps of a page." in panel
