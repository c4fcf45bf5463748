"""The handover report ready to hand over in Japanese (and English): every coded value in words, the
notation translated, times as the pages write them, quote and note apart under their labels, and the
comments on the dump and on its items. The JSON keeps the codes."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import polib
import pytest
from django.urls import reverse
from django.utils import translation

from citeview.core.checking.items import CheckItem
from citeview.core.checking.report import handover_report, report_markdown
from citeview.core.checking.statements import Statement
from citeview.core.detection import registry
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.models import Check, Comment
from citeview.review.services import comment_add
from tests.conftest import PROJECT_DIR, own_fixture

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"
AT = datetime(2026, 12, 1, 6, 21, 42, 123456, tzinfo=UTC)  # 15:21 in Tokyo (settings.TIME_ZONE)


@pytest.fixture
def checked(client, editor):
    """The seed dump with one citation checked (quote and note), a comment on it and one on the dump,
    every time at AT."""
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    body = {
        "version": "0",
        "verdict": "partial",
        "subject": "yes",
        "time": "no",
        "evidence_quote": "条件Aについて",
        "note": "年度は未確認",
        "verification_worthy": "yes",
        "supported_together": "no",
    }
    assert client.post(reverse("review:item", args=[dump.pk, "r0-c0-1"]), body).status_code == 302
    comment_add(dump=dump, author=editor, text="年度の根拠を追記してください", item_key="r0-c0-1")
    comment_add(dump=dump, author=editor, text="全体として引き継ぎ可")
    Check.objects.update(updated_at=AT, created_at=AT)
    Comment.objects.update(created_at=AT)
    Dump.objects.filter(pk=dump.pk).update(created_at=AT)
    return dump


def page(client, dump, language: str) -> str:
    return client.get(reverse("review:report", args=[dump.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()


def markdown(client, dump, **query: str) -> str:
    return client.get(reverse("review:report_md", args=[dump.pk]), query).content.decode()


def test_the_japanese_page_says_every_value_in_words(client, checked):
    html = page(client, checked, "ja")
    assert "一部を裏付ける" in html and ">partial<" not in html
    assert "対象 はい · 時点 いいえ" in html and "条件 —" not in html  # conditions left unanswered: left out
    assert "この文は事実についての主張ですか（検証の対象か）？</span> <strong>はい</strong> · " in html
    assert "引用全体でこの文を裏付けていますか？</span> <strong>いいえ</strong>" in html
    assert "本文中の [n] と [web:n] のマーカー（n は検索結果の ID）" in html  # the notation
    assert "response.completed がないままストリームが終わっています" in html  # why it is incomplete
    shown = re.sub(r'datetime="[^"]*"', "", html)  # the machine-readable time stays exact
    assert "2026/12/01 15:21 JST" in shown and "06:21" not in shown and ".123456" not in shown


def test_quote_and_note_are_apart_under_their_own_labels(client, checked):
    html = page(client, checked, "ja")
    quote = re.search(r'<p class="cv-report-quote">(.*?)</p>', html, re.S)
    note = re.search(r'<p class="cv-report-note">(.*?)</p>', html, re.S)
    assert quote and "根拠の引用" in quote.group(1) and "条件Aについて" in quote.group(1)
    assert note and "メモ" in note.group(1) and "年度は未確認" in note.group(1)
    assert "年度は未確認" not in quote.group(1)


def test_the_comments_on_the_dump_and_on_its_items_are_in_the_report(client, checked):
    html = page(client, checked, "ja")
    assert "項目へのコメント" in html and "年度の根拠を追記してください" in html
    assert "対象の文：「条件A[2]、条件B[9]、条件C[8]」" in html
    assert "この回答へのコメント" in html and "全体として引き継ぎ可" in html
    report = client.get(reverse("review:report_json", args=[checked.pk])).json()
    assert report["comments"] == [{"author": "hanako", "time": AT.isoformat(), "text": "全体として引き継ぎ可"}]
    (on_item,) = report["responses"][0]["comments"]
    assert (on_item["item"], on_item["statement"], on_item["text"]) == (
        "r0-c0-1",
        "条件A[2]、条件B[9]、条件C[8]",
        "年度の根拠を追記してください",
    )


def test_the_markdown_is_in_the_language_asked_for(client, checked):
    japanese = markdown(client, checked, lang="ja")
    assert japanese.startswith("# 引き継ぎレポート：")
    assert "- 保存日時：2026/12/01 15:21 JST" in japanese
    assert "- 引用の表記：本文中の [n] と [web:n] のマーカー（n は検索結果の ID）" in japanese
    assert "- 完了：いいえ（未完了：response.completed がないままストリームが終わっています）" in japanese
    assert (
        "    - 一部を裏付ける（hanako、2026/12/01 15:21 JST）（対象 はい · 時点 いいえ）\n"
        "      - 根拠の引用：「条件Aについて」\n      - メモ：年度は未確認\n"
    ) in japanese
    assert (
        "  - この文は事実についての主張ですか（検証の対象か）？ はい · 引用全体でこの文を裏付けていますか？ いいえ — hanako"
        in japanese
        and "：—" not in japanese
    )
    assert "- hanako（2026/12/01 15:21 JST）：全体として引き継ぎ可" in japanese
    assert "partial" not in japanese and "Verdict" not in japanese
    # Without ?lang=, the request's language; English times are year first too.
    assert markdown(client, checked).startswith("# Handover report: ")
    english = client.get(reverse("review:report_md", args=[checked.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert english == japanese
    assert "- Stored: 2026-12-01 15:21 JST" in markdown(client, checked, lang="en")
    assert "# Handover report: " in markdown(client, checked, lang="fr")  # a language citeview lacks: the request's


def test_the_page_offers_the_markdown_in_its_own_language(client, checked):
    assert f'href="{reverse("review:report_md", args=[checked.pk])}?lang=ja"' in page(client, checked, "ja")


def test_the_json_keeps_the_codes_and_exact_times(client, checked):
    report = client.get(reverse("review:report_json", args=[checked.pk]), HTTP_ACCEPT_LANGUAGE="ja").json()
    verdict = next(v for v in report["responses"][0]["verdicts"] if v["kind"] == "citation")
    assert (verdict["verdict"], verdict["subject"], verdict["time_matches"]) == ("partial", "yes", "no")
    assert verdict["time"] == AT.isoformat()
    notation = report["responses"][0]["citation_notation"]
    assert notation == registry.api_format("perplexity.agent").citation_notation.template
    assert not any(key.endswith("_shown") for key in verdict)


def test_every_registered_notation_has_its_japanese():
    catalogue = {e.msgid: e for e in polib.pofile(str(PROJECT_DIR / "locale/ja/LC_MESSAGES/django.po"))}
    missing = []
    for api in registry.api_formats():
        entry = catalogue.get(api.citation_notation.template)
        if entry is None or not entry.msgstr or entry.fuzzy:
            missing.append(f"{api.name}: {api.citation_notation.template}")
    assert not missing, "translate in locale/ja/LC_MESSAGES/django.po:\n" + "\n".join(missing)
    with translation.override("ja"):
        shown = report_markdown(
            handover_report(
                {"id": 1, "title": "", "sha256": "", "stored_at": ""}, _one_response("gemini.generate_content"), [], []
            ),
            translation.gettext,
        )
    assert "groundingSupports：本文の区間を UTF-8 のバイト数で示し" in shown


def _one_response(api: str) -> dict:
    return {
        "responses": [
            {
                "api": api,
                "model": "",
                "status": "completed",
                "status_detail": None,
                "sources": [],
                "unresolved": [],
            }
        ]
    }


def test_an_item_of_any_kind_is_reported_by_its_fields():
    """The check panel adds kinds of item (a citation with no source, keyed like r0-u2): the report
    takes each by its CheckItem fields and each check by what it records and whether it is finished."""
    statement = Statement(0, 0, 12, "条件C[8]。", citations=[], unresolved=[0])
    items = [CheckItem("r0-u0", 0, statement, None)]
    check = {
        "item_key": "r0-u0",
        "kind": "unresolved",
        "is_item": True,
        "finished": True,
        "response_index": 0,
        "statement_text": "条件C[8]。",
        "marker": "[8]",
        "source_url": "",
        "source_title": "",
        "editor": "hanako",
        "updated_at": AT.isoformat(),
        "verdict": "",
        "subject": "",
        "time": "",
        "conditions": "",
        "evidence_quote": "",
        "note": "出典の番号が回答にない",
        "verification_worthy": "yes",
        "supported_together": "no",
    }
    result = _one_response("perplexity.sonar")
    report = handover_report({"id": 1, "title": "", "sha256": "", "stored_at": ""}, result, items, [check])
    (response,) = report["responses"]
    assert response["statements_needing_check"] == []  # finished, by the app's rule for its kind
    (verdict,) = response["verdicts"]
    assert (verdict["kind"], verdict["marker"], verdict["note"]) == ("unresolved", "[8]", "出典の番号が回答にない")
    text = report_markdown(report)
    assert "  - ` r0-u0 `\n    - By hanako, 2026-12-01 06:21 UTC\n      - Note: 出典の番号が回答にない" in text
    assert "—" not in text.split("### Verdicts by statement")[1].split("###")[0]  # nothing it does not record
    unfinished = handover_report(
        {"id": 1, "title": "", "sha256": "", "stored_at": ""}, result, items, [{**check, "finished": False}]
    )
    assert unfinished["responses"][0]["statements_needing_check"][0]["unchecked_items"] == ["r0-u0"]
