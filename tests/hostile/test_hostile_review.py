"""Hostile text typed or uploaded by people stays inert and readable on every page that shows it.

One parametrised test per place: file names, dump titles, tags, the list's search and filters,
editors' notes, evidence quotes and comments. Each goes in through the real form or API (the
check panel, the comment form, the details form, the upload), then every page and download that
shows it is read: the check page, the viewer, the list, the report and report.md/report.json.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from citeview.core.common.bidi_controls import show_bidi_controls
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from tests.conftest import own_fixture
from tests.hostile.corpus import TEXT, TEXT_SHORT, params
from tests.hostile.dumps import agent_dump
from tests.hostile.pages import (
    assert_markdown_report_inert,
    assert_pages_inert,
    check_url,
    dump_pages,
    get_ok,
    item_keys,
    norm,
    parsed,
    report_downloads,
    shown_text,
    truncated,
)

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"  # items r0-c0-1, r0-c0-2 (one citation, two URLs) and r0-c1


@pytest.fixture
def seed(editor) -> Dump:
    return dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]


def record(client, dump: Dump, key: str, **fields: str) -> None:
    data = {"version": "0", "verdict": "complete", "verification_worthy": "yes", **fields}
    response = client.post(check_url(dump, key), data)
    assert response.status_code == 302, response.content.decode()[:2000]


@pytest.mark.parametrize("name", params(TEXT))
def test_file_names(editor_client, editor, name):
    # Uploaded through the page's form with the hostile name (a browser sends `"` as %22 in it), and
    # sent as the API's X-Filename, which the form's file-name handling never sees.
    upload = SimpleUploadedFile(f"{name}.json".replace('"', "%22"), agent_dump(answer="uploaded"))
    assert editor_client.post("/", {"file": upload}).status_code == 302
    response = editor_client.post(
        "/api/dumps", agent_dump(answer="sent"), content_type="application/json", HTTP_X_FILENAME=name
    )
    assert response.status_code == 201
    for dump in Dump.objects.all():
        pages = dump_pages(editor_client, dump, "viewer", "list")
        assert_pages_inert(pages, name)
        named = norm(show_bidi_controls(dump.filename))  # its bidi controls written out, not obeyed
        assert dump.filename and named in shown_text(pages["viewer"], cls="cv-meta")
        assert named in shown_text(pages["list"], cls="cv-table")
    assert Dump.objects.filter(filename=name).exists()  # the API's name, kept as sent


@pytest.mark.parametrize("title", params(TEXT))
def test_dump_titles(editor_client, seed, title):
    response = editor_client.post(reverse("dumps:details", args=[seed.pk]), {"title": title, "tags": ""})
    assert response.status_code == 302
    seed.refresh_from_db()
    assert seed.title == title.strip()
    pages = dump_pages(editor_client, seed, "viewer", "list", "check", "report")
    assert_pages_inert(pages, title)
    named = show_bidi_controls(seed.title)  # its bidi controls written out, not obeyed
    assert shown_text(pages["viewer"], tag="h1") == norm(truncated(named, 120))
    assert norm(truncated(named, 80)) in shown_text(pages["list"], cls="cv-table")
    assert norm(truncated(named, 100)) in shown_text(pages["check"], cls="cv-dump-header")
    assert norm(truncated(named, 100)) in shown_text(pages["report"], cls="cv-dump-header")
    markdown, report = report_downloads(editor_client, seed)
    assert report["dump"]["title"] == seed.title
    assert_markdown_report_inert(markdown, seed.title)


@pytest.mark.parametrize("payload", params(TEXT))
def test_tags(editor_client, seed, payload):
    names = list(dict.fromkeys(n for n in (p.strip()[:50].strip() for p in payload.split(",")) if n))
    response = editor_client.post(reverse("dumps:details", args=[seed.pk]), {"title": "", "tags": ", ".join(names)})
    assert response.status_code == 302
    assert sorted(seed.tags.values_list("name", flat=True)) == sorted(names)
    pages = dump_pages(editor_client, seed, "viewer", "list")
    pages["list, filtered by the tag"] = get_ok(editor_client, reverse("pages:home"), tag=names[0])
    assert_pages_inert(pages, payload)
    for page in pages.values():
        chips = [norm("".join(e.text)) for e in parsed(page).elements if e.matches("span", "cv-chip")]
        assert all(norm(n) in chips for n in names), (names, chips)


@pytest.mark.parametrize("payload", params(TEXT_SHORT))
def test_list_search_and_filters_reflect_the_query(editor_client, seed, payload):
    editor_client.post(reverse("dumps:details", args=[seed.pk]), {"title": payload, "tags": ""})
    filters = {"tag": payload[:50], "provider": payload, "status": payload, "assignee": payload, "page": payload}
    pages = {
        "searched": get_ok(editor_client, reverse("pages:home"), q=payload),
        "filtered": get_ok(editor_client, reverse("pages:home"), q=payload, **filters),
    }
    assert_pages_inert(pages, payload)
    assert norm(truncated(payload.strip(), 80)) in shown_text(pages["searched"], cls="cv-table")  # found


@pytest.mark.parametrize("note", params(TEXT))
def test_editors_notes(client, editor, reviewer, seed, note):
    key = item_keys(seed)[0]
    client.force_login(editor)
    record(client, seed, key, note=note)
    own = get_ok(client, check_url(seed, key))  # the editor's own form and the item's history
    client.force_login(reviewer)  # a reviewer reads every editor's check
    pages = {"own check": own, **dump_pages(client, seed, "viewer", "list", "check", "report")}
    assert_pages_inert(pages, note)
    shown = note.strip()
    assert norm(shown) in shown_text(own, cls="cv-history")
    assert norm(shown) in shown_text(pages["check"], cls="cv-other")
    assert norm(show_bidi_controls(shown)) in shown_text(pages["report"], cls="cv-report")  # a document for people
    markdown, report = report_downloads(client, seed)
    assert [v["note"] for v in report["responses"][0]["verdicts"] if v["item"] == key] == [shown]
    assert_markdown_report_inert(markdown, shown)


@pytest.mark.parametrize("quote", params(TEXT))
def test_evidence_quotes(client, editor, reviewer, seed, quote):
    key = item_keys(seed)[0]
    client.force_login(editor)
    record(client, seed, key, evidence_quote=quote)
    client.force_login(reviewer)
    pages = dump_pages(client, seed, "viewer", "check", "report")
    assert_pages_inert(pages, quote)
    shown = quote.strip()
    assert norm(shown) in shown_text(pages["check"], cls="cv-history")
    assert norm(shown) in shown_text(pages["check"], cls="cv-quote")
    assert norm(show_bidi_controls(shown)) in shown_text(pages["report"], cls="cv-report")  # a document for people
    markdown, report = report_downloads(client, seed)
    assert [v["evidence_quote"] for v in report["responses"][0]["verdicts"] if v["item"] == key] == [shown]
    assert_markdown_report_inert(markdown, shown)


@pytest.mark.parametrize("text", params(TEXT))
def test_comments(client, reviewer, seed, text):
    key = item_keys(seed)[0]
    client.force_login(reviewer)  # reviewers comment too
    comment_url = reverse("review:comment", args=[seed.pk])
    assert client.post(comment_url, {"text": text, "item_key": key}).status_code == 302
    assert client.post(comment_url, {"text": f"on the dump: {text}", "item_key": ""}).status_code == 302
    # An item key the page did not offer: kept as a comment on the dump, never put in a link.
    assert client.post(comment_url, {"text": "key", "item_key": text[:40]}).status_code == 302
    assert seed.comments.count() == 3 and set(seed.comments.values_list("item_key", flat=True)) == {key, ""}
    pages = dump_pages(client, seed, "viewer", "check")
    assert_pages_inert(pages, text)
    assert norm(text) in shown_text(pages["check"], cls="cv-comments-list")
    assert norm(f"on the dump: {text}") in shown_text(pages["viewer"], cls="cv-comments")
