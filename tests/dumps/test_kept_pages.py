"""The viewer's body is rendered once per dump and language and kept, but never shown out of date."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError

from citeview.dumps import code_fingerprint
from citeview.dumps.models import Dump, DumpPage
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

RESPONSE = "claude-content-blocks-search-results.json"
REQUEST = "claude-content-blocks-search-results.request.json"


def viewer(client, **headers) -> str:
    return client.get(Dump.objects.get().get_absolute_url(), **headers).content.decode()


def test_the_body_is_kept_in_every_language_by_the_task_its_first_view_queues(editor_client):
    editor_client.post("/", {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    assert not DumpPage.objects.exists()  # the request that read it keeps nothing more
    first = viewer(editor_client)  # the task it queues runs at once in the tests
    assert "条件A" in first and sorted(DumpPage.objects.values_list("language", flat=True)) == ["en", "ja"]
    DumpPage.objects.update(html=b"<p>the kept body</p>")
    assert "the kept body" in viewer(editor_client)


def test_the_page_around_the_kept_body_is_whole_and_says_its_length(editor_client):
    editor_client.post("/", {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    for _view in range(2):  # made, then kept
        response = editor_client.get(Dump.objects.get().get_absolute_url())
        page = response.content.decode()
        assert int(response["Content-Length"]) == len(response.content)
        assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
        assert page.count("条件A") >= 1 and "<!--cv-" not in page


def test_attaching_the_request_later_shows_its_quote_checks_at_once(editor_client):
    editor_client.post("/", {"file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE))})
    assert "quote matches the document" not in viewer(editor_client)
    editor_client.post(
        "/",
        {"file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE)), "request_text": own_fixture(REQUEST).decode()},
    )
    assert viewer(editor_client).count("quote matches the document") == 3


def test_a_stale_result_is_shown_as_kept_until_its_queued_rebuild_is_done(editor_client):
    editor_client.post("/", {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    viewer(editor_client)
    DumpPage.objects.update(html=b"<p>made from the old result</p>")
    Dump.objects.update(result_version=0)
    assert "made from the old result" in viewer(editor_client)  # and its rebuild queued (run at once here)
    page = viewer(editor_client)
    assert "made from the old result" not in page and "条件A" in page


def test_a_body_kept_by_other_code_or_templates_is_made_again(editor_client):
    editor_client.post("/", {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    viewer(editor_client)
    DumpPage.objects.update(html=b"<p>made by the code before a deploy</p>", made_by="0" * 64)
    page = viewer(editor_client)
    assert "made by the code before a deploy" not in page and "条件A" in page


def test_each_language_keeps_its_own_body(editor_client):
    editor_client.post("/", {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    assert "Raw dump" in viewer(editor_client, HTTP_ACCEPT_LANGUAGE="en-US")
    assert "元の回答データ" in viewer(editor_client, HTTP_ACCEPT_LANGUAGE="ja-JP,ja;q=0.9")
    assert sorted(DumpPage.objects.values_list("language", flat=True)) == ["en", "ja"]


def test_the_fingerprint_changes_with_a_template_at_once_in_development(settings, tmp_path):
    template = tmp_path / "page.html"
    template.write_text("<p>one</p>")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path]}]
    settings.DEBUG = True
    before = code_fingerprint.running_code_fingerprint()
    template.write_text("<p>two</p>")
    assert code_fingerprint.running_code_fingerprint() != before


def test_a_page_that_cannot_be_kept_is_still_shown(editor_client, monkeypatch):
    editor_client.post("/", {"text": own_fixture("agent-seed-incomplete.sse").decode()})

    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr("django.db.models.query.QuerySet.create", locked)
    page = editor_client.get(Dump.objects.get().get_absolute_url())
    assert page.status_code == 200 and "条件A" in page.content.decode() and not DumpPage.objects.exists()
