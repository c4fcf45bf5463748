"""What the Japanese interface says: no jargon 「ダンプ」, a translated empty choice in the assignee
menu, and an import page that says when it has finished."""

from __future__ import annotations

import polib
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from tests.conftest import PROJECT_DIR, own_fixture, user_with_role
from tests.zips import archive

pytestmark = pytest.mark.django_db

JA = {"HTTP_ACCEPT_LANGUAGE": "ja-JP,ja;q=0.9"}


def test_no_japanese_translation_says_dump():
    catalogue = polib.pofile(str(PROJECT_DIR / "locale" / "ja" / "LC_MESSAGES" / "django.po"))
    saying_dump = [
        e.msgid
        for e in catalogue
        if not e.obsolete and any("ダンプ" in s for s in (e.msgstr, *e.msgstr_plural.values()))
    ]
    assert saying_dump == []


def test_the_japanese_pages_call_a_dump_a_saved_answer(editor_client, editor):
    dump, _ = dump_ingest(raw=own_fixture("claude-ja-documents-exchange.json"), uploaded_by=editor)
    for url in ("/", "/imports/", dump.get_absolute_url(), "/accounts/", f"/dumps/{dump.pk}/check/"):
        response = editor_client.get(url, follow=True, **JA)
        assert response.status_code == 200 and "ダンプ" not in response.content.decode(), url
    assert "保存した回答" in editor_client.get("/", **JA).content.decode()


def test_the_assignee_filter_and_the_assignment_speak_the_pages_language(client, editor, django_user_model):
    dump, _ = dump_ingest(raw=own_fixture("claude-ja-documents-exchange.json"), uploaded_by=editor)
    lead_client = client
    lead_client.force_login(user_with_role(django_user_model, "sato", "lead"))  # who assigns editors
    listed = lead_client.get("/", **JA).content.decode()
    menu = listed.split('name="assignee"')[1].split("</select>")[0]
    assert '<option value="-">未割り当て</option>' in menu
    japanese = lead_client.get(dump.get_absolute_url(), **JA).content.decode()
    assignment = japanese.split('class="cv-details-form cv-assign"')[1].split("</details>")[0]
    assert "確認する編集者" in assignment and "2 人の編集者がそれぞれ独立に確認" in assignment
    english = lead_client.get(dump.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "two editors check each item, independently" in english
    assert "Select an option" not in japanese + english and "---------" not in japanese + english


def _imported_page(client, **headers) -> str:
    batch = {"一つ目.json": own_fixture("claude-ja-documents-exchange.json"), "壊れた.json": b'{"choices": ['}
    response = client.post(
        "/imports/", {"file": SimpleUploadedFile("batch.zip", archive(batch))}, follow=True, **headers
    )
    return response.content.decode()


def test_the_import_page_says_it_has_finished_with_the_counts(editor_client):
    page = _imported_page(editor_client, **JA)
    assert "保存しています" not in page  # nothing on the finished page says it is still saving
    summary = page.split('class="cv-import-summary"')[1].split("</p>")[0]
    assert "完了：取り込んだ 2 件をすべて処理しました。" in summary
    assert "1 件を保存" in summary and "0 件は保存済み" in summary and "1 件は保存できませんでした" in summary
    assert "この取り込みには 2 件あります。" in page.split('class="cv-import-rows"')[0]
    english = _imported_page(editor_client, HTTP_ACCEPT_LANGUAGE="en")
    assert "Storing" not in english and "Finished: all 2 dumps of the import have been read." in english
    assert Dump.objects.count() == 1
