"""The pages: pasting, uploading, errors that keep the paste, the viewer."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from citeview.dumps.models import Dump
from tests.builders import sonar_object
from tests.conftest import own_fixture, sse
from tests.core.parsing.providers.test_anthropic import stream_events

pytestmark = pytest.mark.django_db

HOME = "/"


def test_every_page_requires_login(client):
    dump_pk = 1
    for url in (HOME, f"/dumps/{dump_pk}/", f"/dumps/{dump_pk}/normalized.json", f"/dumps/{dump_pk}/raw"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_pasting_a_stream_stores_it_and_opens_the_viewer(editor_client, editor):
    raw = own_fixture("agent-seed-incomplete.sse")
    response = editor_client.post(HOME, {"text": raw.decode()})
    dump = Dump.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/dumps/{dump.pk}/"
    assert bytes(dump.raw) == raw and dump.uploaded_by == editor
    assert (dump.framing, dump.apis, dump.status) == ("sse", "perplexity.agent", "incomplete")
    page = editor_client.get(response["Location"]).content.decode()
    assert "stream ended without response.completed" in page
    assert 'href="#cv-r0-src-1"' in page and 'id="cv-r0-src-1"' in page
    assert "cv-unresolved" in page and "条件C" in page


def test_uploading_a_file_keeps_its_name_and_bytes_verbatim(editor_client):
    raw = own_fixture("sonar-stream-full-mode-crlf.sse")  # CRLF line ends must survive
    editor_client.post(HOME, {"file": SimpleUploadedFile("地震.sse", raw)})
    dump = Dump.objects.get()
    assert bytes(dump.raw) == raw and dump.filename == "地震.sse" and dump.size == len(raw)


def test_the_same_bytes_again_open_the_existing_dump(editor_client):
    raw = json.dumps(sonar_object("x[1]", ["https://example.org"]))
    first = editor_client.post(HOME, {"text": raw})
    second = editor_client.post(HOME, {"text": raw}, follow=True)
    assert Dump.objects.count() == 1
    assert second.redirect_chain[-1][0] == first["Location"]
    assert "stored already" in second.content.decode()


@pytest.mark.parametrize(
    ("text", "status", "words"),
    [
        ("", 400, "empty"),
        ("<html><body>saved page</body></html>", 415, "HTML page"),
        ('{"id": "resp_1", "output": [', 400, "cut off"),
        ('{"hello": "world"}', 400, "not a response from a provider citeview knows"),
    ],
)
def test_a_bad_paste_gets_its_message_and_stays_in_the_box(editor_client, text, status, words):
    response = editor_client.post(HOME, {"text": text})
    page = response.content.decode()
    assert response.status_code == status
    assert words in page
    if text:
        assert response.context["form"]["text"].value() == text
    assert Dump.objects.count() == 0


def test_a_binary_or_non_utf8_file_is_refused_with_a_message(editor_client):
    response = editor_client.post(HOME, {"file": SimpleUploadedFile("dump.json", '{"a": "東京"}'.encode("shift_jis"))})
    assert response.status_code == 415 and "not valid UTF-8" in response.content.decode()
    response = editor_client.post(HOME, {"file": SimpleUploadedFile("dump.json", b"%PDF-1.7\n...")})
    assert response.status_code == 415 and "PDF" in response.content.decode()


def test_a_file_of_another_kind_is_refused_by_its_name(editor_client):
    response = editor_client.post(HOME, {"file": SimpleUploadedFile("answer.pdf", b"{}")})
    assert response.status_code == 415 and ".json, .jsonl, .sse and .txt" in response.content.decode()


def test_paste_and_file_together_is_an_error_that_keeps_the_paste(editor_client):
    response = editor_client.post(HOME, {"text": "{}", "file": SimpleUploadedFile("a.json", b"{}")})
    assert response.status_code == 400 and "not both" in response.content.decode()


@pytest.mark.parametrize(("extra", "stored"), [(-1, True), (0, True), (1, False)])
def test_the_size_limit_is_enforced_below_at_and_above(editor_client, settings, extra, stored):
    raw = json.dumps(sonar_object("x", [])).encode()
    settings.CITEVIEW_MAX_DUMP_BYTES = len(raw) - extra
    response = editor_client.post(HOME, {"file": SimpleUploadedFile("a.json", raw)})
    assert Dump.objects.exists() is stored
    if not stored:
        assert response.status_code == 413 and f"limit is {len(raw) - 1:,} bytes" in response.content.decode()


def test_a_body_far_over_the_limit_is_refused_before_it_is_read(editor_client, settings):
    settings.CITEVIEW_MAX_DUMP_BYTES = 1000
    response = editor_client.post(HOME, {"text": "x" * 200_000})
    assert response.status_code == 413 and "the limit is 1,000 bytes" in response.content.decode()


def test_a_paste_somewhat_over_the_limit_is_refused_and_kept_in_the_box(editor_client, settings):
    settings.CITEVIEW_MAX_DUMP_BYTES = 1000
    paste = "条" * 500  # 1,500 bytes in UTF-8
    response = editor_client.post(HOME, {"text": paste})
    assert response.status_code == 413 and "limit is 1,000 bytes" in response.content.decode()
    assert response.context["form"]["text"].value() == paste


def test_the_home_page_lists_dumps_newest_first(editor_client):
    for word in ("older", "newer"):
        editor_client.post(HOME, {"text": json.dumps(sonar_object(f"{word} answer", []))})
    page = editor_client.get(HOME).content.decode()
    assert page.index("newer answer") < page.index("older answer")


def test_the_viewer_shows_status_diagnostics_sources_searches_and_raw(editor_client):
    editor_client.post(HOME, {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    dump = Dump.objects.get()
    page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert "cv-banner-warning" in page  # the incomplete status, at the top
    assert "was given with two different URLs" in page  # the conflict diagnostic, in words
    assert "https://news.example.com/2026/jouken" in page and "https://www.mhlw.go.jp/stf/jouken-a.html" in page
    assert "2 searches, as received" in page
    assert '<details class="cv-card cv-raw">' in page and "response.reasoning.search_results" in page
    assert reverse("pages:normalized", args=[dump.pk]) in page


def test_the_normalised_json_downloads_as_the_contract(editor_client):
    editor_client.post(HOME, {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    dump = Dump.objects.get()
    response = editor_client.get(reverse("pages:normalized", args=[dump.pk]))
    assert response["Content-Disposition"].startswith("attachment;")
    body = json.loads(response.content)
    assert body["citeview"] == 1 and body["dump"]["sha256"] == dump.sha256


def test_the_raw_dump_downloads_byte_for_byte_and_is_never_rendered(editor_client):
    raw = own_fixture("sonar-stream-full-mode-crlf.sse")
    editor_client.post(HOME, {"file": SimpleUploadedFile("s.sse", raw)})
    response = editor_client.get(reverse("dumps:raw", args=[Dump.objects.get().pk]))
    assert response.content == raw and response["Content-Type"] == "application/octet-stream"


def test_a_stored_result_from_older_parsers_is_rebuilt_from_the_bytes(editor_client):
    editor_client.post(HOME, {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    Dump.objects.update(result_version=0, result={"responses": []}, rendered=[])
    page = editor_client.get(Dump.objects.get().get_absolute_url()).content.decode()
    assert "条件A" in page and Dump.objects.get().result["responses"]


def test_wrong_methods_are_refused(editor_client):
    assert editor_client.put(HOME).status_code == 405
    assert editor_client.post("/dumps/1/").status_code == 405


def test_a_missing_dump_is_a_404(editor_client):
    assert editor_client.get("/dumps/999/").status_code == 404


def test_pages_carry_a_strict_content_security_policy(editor_client):
    csp = editor_client.get(HOME)["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp


def test_staff_can_browse_dumps_in_the_admin_without_their_raw_bytes(client, django_user_model):
    staff = django_user_model.objects.create_superuser(username="admin", password="an-admin-password")
    client.force_login(staff)
    client.post(HOME, {"text": own_fixture("agent-seed-incomplete.sse").decode()})
    dump = Dump.objects.get()
    assert client.get("/admin/dumps/dump/").status_code == 200
    page = client.get(f"/admin/dumps/dump/{dump.pk}/change/")
    assert page.status_code == 200 and dump.sha256 in page.content.decode()


def test_pages_speak_japanese_to_a_japanese_browser_and_english_otherwise(editor_client):
    assert "回答を読み込む" in editor_client.get(HOME, HTTP_ACCEPT_LANGUAGE="ja-JP,ja;q=0.9").content.decode()
    assert "Read the dump" in editor_client.get(HOME, HTTP_ACCEPT_LANGUAGE="en-US").content.decode()
    response = editor_client.post("/i18n/setlang/", {"language": "ja", "next": HOME}, HTTP_ACCEPT_LANGUAGE="en-US")
    assert response.status_code == 302
    assert "回答を読み込む" in editor_client.get(HOME, HTTP_ACCEPT_LANGUAGE="en-US").content.decode()


def test_a_paste_is_stored_with_the_line_ends_the_box_shows(editor_client):
    raw = own_fixture("agent-seed-incomplete.sse")
    editor_client.post(HOME, {"text": raw.decode().replace("\n", "\r\n")})  # as a browser sends a textarea
    dump = Dump.objects.get()
    assert bytes(dump.raw) == raw
    editor_client.post(HOME, {"file": SimpleUploadedFile("seed.sse", raw)})
    assert Dump.objects.count() == 1  # the same bytes, whether pasted or uploaded


def test_back_links_go_only_to_citations_on_the_page_and_the_rest_are_counted(editor_client):
    from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS

    # Source 1 is cited in the rendered part and past it; source 2 only past it.
    text = "始まり[1]。" + "あ" * MAX_MARKDOWN_CHARS + "終わり[1][2]。"
    editor_client.post(HOME, {"text": json.dumps(sonar_object(text, ["https://a.example/", "https://b.example/"]))})
    page = editor_client.get(Dump.objects.get().get_absolute_url()).content.decode()
    assert page.count('href="#cv-r0-cite-') == 1  # the one back-link, to the one footnote drawn
    assert page.count("cited once more where no footnote is drawn") == 2  # once for each source
    assert "not cited" not in page


def test_an_upload_sent_by_the_script_is_told_where_the_dump_is_and_keeps_its_message(editor_client):
    # The page's script sends a file by XMLHttpRequest, which would follow a redirect out of sight:
    # it is told the address, and the browser goes there itself, so Back returns to the form.
    raw = own_fixture("sonar-stream-full-mode-crlf.sse")
    upload = {"HTTP_X_CITEVIEW_UPLOAD": "1"}
    first = editor_client.post(HOME, {"file": SimpleUploadedFile("地震.sse", raw)}, **upload)
    dump = Dump.objects.get()
    assert first.status_code == 204 and first["X-Citeview-Location"] == f"/dumps/{dump.pk}/"
    again = editor_client.post(HOME, {"file": SimpleUploadedFile("地震.sse", raw)}, **upload)
    assert again.status_code == 204 and again["X-Citeview-Location"] == f"/dumps/{dump.pk}/"
    assert "stored already" in editor_client.get(again["X-Citeview-Location"]).content.decode()  # not spent


def test_a_refused_upload_sent_by_the_script_is_the_page_with_its_message(editor_client):
    refused = editor_client.post(HOME, {"file": SimpleUploadedFile("a.json", b"%PDF-1.7")}, HTTP_X_CITEVIEW_UPLOAD="1")
    assert refused.status_code == 415 and "X-Citeview-Location" not in refused and "PDF" in refused.content.decode()


def test_the_list_shows_a_dump_of_several_responses_as_one_row_with_their_count(editor_client):
    editor_client.post("/", {"text": sse(*stream_events(), *stream_events()).decode()})
    page = editor_client.get("/").content.decode()
    assert page.count('class="cv-dump-row"') == 1 and "2 responses" in page
    assert "応答 2 件" in editor_client.get("/", HTTP_ACCEPT_LANGUAGE="ja").content.decode()
