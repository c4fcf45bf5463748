"""A source's snapshot is a page an LLM's answer pointed at: its HTML (scripts, on* attributes,
javascript: links, frames, forms) and a PDF's text never reach the check panel as markup. Only the
text extracted from them is shown, escaped, with our own marks around what differs."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from citeview.snapshots.models import Snapshot
from tests.builders import sonar_object
from tests.core.pdfs import pdf_with_pages
from tests.hostile.corpus import TEXT, TEXT_SHORT, params
from tests.hostile.pages import assert_escaped, assert_inert, shown_text
from tests.snapshots.pages import html_route, page_server

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
