"""Hostile text from a dump, in every place it reaches a page, stays inert and stays readable.

One parametrised test per place: answer Markdown, source titles, source URLs, snippets, Claude
`cited_text` and request document titles, Gemini's and OpenAI's titles and texts, the provider's
own words (model name, error message), and the intake's error messages that quote the upload.
Each builds its dump once with the service and reads the pages the place is shown on (the viewer,
the list, the check page, the report) as parsed HTML.
"""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.core.common.bidi_controls import show_bidi_controls
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from tests.hostile.corpus import MARKDOWN, TEXT, TEXT_SHORT, URLS_HTTP, URLS_NOT_HTTP, params
from tests.hostile.dumps import agent_dump, claude_exchange, failed_agent_dump, gemini_dump, openai_dump
from tests.hostile.pages import (
    assert_markdown_report_inert,
    assert_pages_inert,
    dump_pages,
    get_ok,
    norm,
    parsed,
    report_downloads,
    shown_text,
)

pytestmark = pytest.mark.django_db


def stored(editor, raw: bytes) -> Dump:
    return dump_ingest(raw=raw, uploaded_by=editor, filename="dump.json")[0]


@pytest.mark.parametrize("text", params(MARKDOWN))
def test_answer_markdown(editor_client, editor, text):
    dump = stored(editor, agent_dump(answer=text))
    # The answer on the viewer and the check page, its first words as the dump's headline in the
    # list, the statement it makes on the check page.
    pages = dump_pages(editor_client, dump, "viewer", "list", "check")
    assert_pages_inert(pages, text)
    for name in ("viewer", "check"):
        answer = [e for e in parsed(pages[name]).elements if e.within(cls="cv-answer")]
        assert answer and "claim" in shown_text(pages[name], cls="cv-answer")
        # In the answer, a link is one of our footnotes or an http(s) page: never a path on this site.
        links = [e.attrs["href"] for e in answer if "href" in e.attrs]
        assert all(h.startswith(("#cv-r0-", "https://", "http://")) for h in links), links


@pytest.mark.parametrize("title", params(TEXT))
def test_source_titles(editor_client, editor, title):
    dump = stored(editor, agent_dump(title=title))
    pages = dump_pages(editor_client, dump, "viewer", "check", "report")
    assert_pages_inert(pages, title)
    named = norm(show_bidi_controls(title))  # a title's bidi controls are written out, not obeyed
    assert named in shown_text(pages["viewer"], cls="cv-source-title")
    assert named in shown_text(pages["check"], cls="cv-check-source")
    assert named in shown_text(pages["report"], cls="cv-report")
    markdown, _report = report_downloads(editor_client, dump)
    assert_markdown_report_inert(markdown, title)


@pytest.mark.parametrize("snippet", params(TEXT))
def test_snippets_and_dates(editor_client, editor, snippet):
    dump = stored(editor, agent_dump(snippet=snippet))
    pages = dump_pages(editor_client, dump, "viewer", "check")
    assert_pages_inert(pages, snippet)
    assert norm(snippet) in shown_text(pages["viewer"], cls="cv-snippet")
    assert norm(f"published {snippet} · updated {snippet}") in shown_text(pages["viewer"], cls="cv-source-body")
    assert norm(snippet) in shown_text(pages["check"], cls="cv-snippet")


@pytest.mark.parametrize("url", params(URLS_NOT_HTTP))
def test_source_urls_that_are_not_plain_http_are_text_with_a_warning(editor_client, editor, url):
    dump = stored(editor, agent_dump(url=url))
    pages = dump_pages(editor_client, dump, "viewer", "check", "report")
    assert_pages_inert(pages, url)
    assert "Not an http(s) link" in pages["viewer"]
    assert norm(show_bidi_controls(url)) in shown_text(pages["viewer"], cls="cv-warning")  # shown, so it is seen
    assert any(d["code"] == "unsafe_url" for d in dump.result["responses"][0]["diagnostics"])
    assert_markdown_report_inert(report_downloads(editor_client, dump)[0], url)


@pytest.mark.parametrize("url", params(URLS_HTTP))
def test_source_urls_with_markup_stay_one_attribute(editor_client, editor, url):
    dump = stored(editor, agent_dump(url=url))
    pages = dump_pages(editor_client, dump, "viewer", "check", "report")
    assert_pages_inert(pages, url)
    hrefs = {e.attrs.get("href") for e in parsed(pages["viewer"]).elements}
    # A link to exactly this URL (its attribute was not broken out of), or text with a warning.
    assert url in hrefs or "Not an http(s) link" in pages["viewer"]
    assert norm(show_bidi_controls(url)) in shown_text(pages["viewer"], cls="cv-source-body")


@pytest.mark.parametrize("quote", params(TEXT))
def test_claude_cited_text(editor_client, editor, quote):
    dump = stored(editor, claude_exchange(cited_text=quote))
    pages = dump_pages(editor_client, dump, "viewer", "check")
    assert "Evidence, side by side" in pages["viewer"]
    assert_pages_inert(pages, quote)
    assert norm(quote) in shown_text(pages["viewer"], cls="cv-evidence")
    assert norm(quote) in shown_text(pages["check"], cls="cv-quote")


@pytest.mark.parametrize("title", params(TEXT))
def test_claude_document_titles(editor_client, editor, title):
    dump = stored(editor, claude_exchange(document_title=title))
    pages = dump_pages(editor_client, dump, "viewer", "check")
    assert_pages_inert(pages, title)
    named = norm(show_bidi_controls(title))
    assert named in shown_text(pages["viewer"], cls="cv-source-title")
    assert named in shown_text(pages["viewer"], cls="cv-evidence")
    assert named in shown_text(pages["check"], cls="cv-check-source")


@pytest.mark.parametrize("payload", params(TEXT))
def test_gemini_titles_queries_and_retrieved_texts(editor_client, editor, payload):
    dump = stored(editor, gemini_dump(payload))
    pages = dump_pages(editor_client, dump, "viewer", "check")
    assert_pages_inert(pages, payload)
    named = show_bidi_controls(payload)
    assert norm(named) in shown_text(pages["viewer"], cls="cv-source-title")
    assert norm(f"{named} · {named}") in shown_text(pages["viewer"], cls="cv-source-body")  # file search
    assert norm(payload) in shown_text(pages["viewer"], cls="cv-searches")


@pytest.mark.parametrize("payload", params(TEXT))
def test_openai_annotation_titles_file_names_and_queries(editor_client, editor, payload):
    dump = stored(editor, openai_dump(payload))
    pages = dump_pages(editor_client, dump, "viewer", "check")
    assert_pages_inert(pages, payload)
    assert norm(payload) in shown_text(pages["viewer"], cls="cv-sources")


@pytest.mark.parametrize("payload", params(TEXT_SHORT))
def test_provider_model_names_and_error_messages(editor_client, editor, payload):
    dump = stored(editor, failed_agent_dump(payload))
    pages = dump_pages(editor_client, dump, "viewer", "list", "report")
    assert_pages_inert(pages, payload)
    assert norm(payload) in shown_text(pages["viewer"], cls="cv-banner")  # the provider's message, as it came
    assert norm(payload) in shown_text(pages["viewer"], cls="cv-diagnostics")
    assert norm(payload) in shown_text(pages["viewer"], cls="cv-summary")  # the model
    assert norm(payload) in shown_text(pages["report"], cls="cv-report")
    assert report_downloads(editor_client, dump)[1]["responses"][0]["model"] == payload


@pytest.mark.parametrize("payload", params(TEXT_SHORT))
def test_report_markdown_quotes_the_providers_error_message_as_text(editor_client, editor, payload):
    dump = stored(editor, failed_agent_dump(payload, model="sonar"))
    assert_markdown_report_inert(report_downloads(editor_client, dump)[0], payload)


def test_report_markdown_quotes_the_model_name_as_text(editor_client, editor):
    payload = '"><img src=x onerror=alert(1)>'
    dump = stored(editor, failed_agent_dump("failed", model=payload))
    assert_markdown_report_inert(report_downloads(editor_client, dump)[0], payload)


@pytest.mark.parametrize("payload", params(TEXT_SHORT))
def test_intake_errors_that_quote_the_upload(editor_client, payload):
    # A JSON object of no known shape: the error names its keys. A file that is not a dump file:
    # the error names the file.
    unknown = editor_client.post("/", {"text": json.dumps({payload: 1, "b": 2})})
    upload = editor_client.post("/", {"file": SimpleUploadedFile(f"{payload}.html", b"{}")})
    assert (unknown.status_code, upload.status_code) == (400, 415)
    pages = {"unknown keys": unknown.content.decode(), "not a dump file": upload.content.decode()}
    assert_pages_inert(pages, payload)
    assert norm(payload) in shown_text(pages["unknown keys"], cls="cv-error")


@pytest.mark.parametrize("where", ["answer", "title", "url", "snippet"])
def test_a_nul_character_in_dump_text_is_stored_or_refused_never_a_server_error(client, editor, where):
    # "\u0000" is valid JSON; SQLite stores it, PostgreSQL refuses it in text and jsonb columns.
    client.force_login(editor)
    client.raise_request_exception = False
    values = {"answer": "ok", "title": "t", "url": "https://ok.example/a", "snippet": "s"}
    values[where] = "a\x00b" if where != "url" else "https://ok.example/\x00"
    response = client.post("/", {"text": agent_dump(**values).decode()})
    assert response.status_code in (302, 400), response.status_code
    if response.status_code == 302:
        assert_pages_inert({"viewer": get_ok(client, response["Location"])})
