"""A Japanese reviewer reads citeview's own words in Japanese: diagnostics, statuses, errors, and
the words inside the rendered answer and evidence. What the dump says is never translated."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.html import escape

from citeview.core.common.phrases import phrase_text
from citeview.dumps.models import Dump
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

JA = {"HTTP_ACCEPT_LANGUAGE": "ja-JP,ja;q=0.9"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en-US"}


def stored(client, fixture: str) -> Dump:
    client.post("/", {"text": own_fixture(fixture).decode()})
    return Dump.objects.get()


def japanese(stored_phrase: dict) -> str:
    with translation.override("ja"):
        return phrase_text(stored_phrase, translation.gettext)


def test_diagnostics_and_the_status_of_an_incomplete_stream_are_in_the_pages_language(editor_client):
    dump = stored(editor_client, "agent-seed-incomplete.sse")
    response = dump.result["responses"][0]
    ja = editor_client.get(dump.get_absolute_url(), **JA).content.decode()
    en = editor_client.get(dump.get_absolute_url(), **EN).content.decode()

    assert response["status"] == "incomplete" and response["diagnostics"]
    assert escape(response["status_detail"]) in en
    assert escape(japanese(response["status_detail_phrase"])) in ja
    for diagnostic in response["diagnostics"]:
        assert escape(diagnostic["message"]) in en
        assert escape(japanese(diagnostic["phrase"])) in ja
        assert escape(diagnostic["message"]) not in ja, diagnostic["code"]
    assert "stream ended without response.completed" not in ja


def test_the_words_inside_the_answer_follow_the_language_and_the_dump_text_does_not(editor_client):
    dump = stored(editor_client, "agent-seed-incomplete.sse")
    ja = editor_client.get(dump.get_absolute_url(), **JA).content.decode()
    en = editor_client.get(dump.get_absolute_url(), **EN).content.decode()

    assert '<span class="cv-unresolved-label">出典なし</span>' in ja
    assert '<span class="cv-unresolved-label">no source</span>' in en
    assert 'aria-label="出典 ' in ja and 'aria-label="source ' not in ja
    assert 'aria-label="source ' in en
    assert "条件C" in ja and "条件C" in en  # the answer itself stays as written
    assert set(dump.rendered) == {"en", "ja"}


def test_evidence_locations_are_written_in_the_pages_language(editor_client):
    dump = stored(editor_client, "claude-ja-documents-exchange.json")
    ja = editor_client.get(dump.get_absolute_url(), **JA).content.decode()
    en = editor_client.get(dump.get_absolute_url(), **EN).content.decode()
    assert "chars 16–46" in en
    assert "16–46 文字目" in ja and "chars 16–46" not in ja


def test_a_dump_that_cannot_be_read_is_explained_in_japanese_with_the_paste_kept(editor_client):
    response = editor_client.post("/", {"text": "まだ JSON ではない"}, **JA)
    page = response.content.decode()
    assert response.status_code == 400
    assert "JSON、JSON Lines、イベントストリームのいずれでもありません" in page
    assert "This is not JSON" not in page
    assert "まだ JSON ではない" in page


def test_an_oversized_dump_is_refused_in_japanese(editor_client, settings):
    settings.CITEVIEW_MAX_DUMP_BYTES = 1000
    response = editor_client.post("/", {"text": "{" + " " * 1200 + "}"}, **JA)
    assert response.status_code == 413
    assert "上限は 1,000 バイト" in response.content.decode()


def test_the_api_keeps_english_messages_and_adds_the_phrase_to_translate_them(editor_client):
    dump = stored(editor_client, "agent-seed-incomplete.sse")
    body = editor_client.get(f"/api/dumps/{dump.pk}", **JA).json()
    diagnostic = body["responses"][0]["diagnostics"][0]
    assert diagnostic["message"] == phrase_text(diagnostic["phrase"])
    assert body["responses"][0]["status_detail"] == phrase_text(body["responses"][0]["status_detail_phrase"])


def test_a_document_and_a_conflict_in_the_source_list_are_told_in_words(editor_client):
    documents = stored(editor_client, "claude-ja-documents-exchange.json")
    ja = editor_client.get(documents.get_absolute_url(), **JA).content.decode()
    assert "リクエストの 1 番目の文書" in ja and "リクエストの 2 番目の文書" in ja  # counted from 1, as people count
    assert "(#0)" not in ja
    Dump.objects.all().delete()
    conflict = stored(editor_client, "agent-seed-incomplete.sse")
    ja = editor_client.get(conflict.get_absolute_url(), **JA).content.decode()
    assert ja.count("レスポンスは番号 2 に複数の URL を挙げています") == 2  # both sources numbered 2
    assert "キー 2#2" not in ja
