"""The handover report hands over: page one sums up the dump (who checked, the final verdicts, recall
and precision, what is not supported, what is still disputed, the markers that cite nothing), and
the detail follows statement by statement. Blind first holds in the summary too."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from citeview.review.selectors import dump_check_items
from tests.conftest import user_with_role
from tests.review.report_dump import NO_SUPPORT_QUOTE, SETTLE_REASON, check_everything, settle, ten_item_dump

pytestmark = pytest.mark.django_db

S1 = "熱中症警戒アラートは、暑さ指数（WBGT）が33以上と予測された日に発表されます[1][2]。"
S2 = "発表は府県予報区ごとに、前日の17時ごろと当日の5時ごろに行われます[3]。"
S4 = "特別警戒アラートは、県内の一部の地点で暑さ指数が35以上と予測されると発表されます[6][9]。"
S5 = "アラートの日は、エアコンを使い、外出を控えるよう推奨されています[7][8]。"


def report_json(client, dump):
    return client.get(reverse("review:report_json", args=[dump.pk])).json()


def report_page(client, dump, language="ja"):
    return client.get(reverse("review:report", args=[dump.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()


def report_md(client, dump, language="ja"):
    return client.get(reverse("review:report_md", args=[dump.pk]), {"lang": language}).content.decode()


def statement_of(report, key):
    return next(s["statement"] for s in report["responses"][0]["statements"] if s["key"] == key)


def source_of(report, key):
    return next(s for s in report["responses"][0]["sources"] if s["key"] == key)


def marker_of(report, item_key):
    items = (i for s in report["responses"][0]["statements"] for i in s["items"])
    return next(i["marker"] for i in items if i["item"] == item_key)


def summary_of(html):
    return re.search(r'<section class="cv-card cv-report cv-report-summary".*?</section>', html, re.S).group(0)


def test_the_summary_counts_the_citations_by_final_verdict(client, editor, checked):
    client.force_login(editor)
    summary = report_json(client, checked)["summary"]
    assert summary["final_verdicts"] == {
        "complete": 4,  # [1] [2] [4] [7], both editors
        "partial": 1,  # [5], settled
        "none": 1,
        "inaccessible": 0,
        "supports_and_refutes": 1,
        "unclear": 0,
        "unsettled": 1,  # [3]
        "unchecked": 0,
        "hidden": 0,
    }
    html = summary_of(report_page(client, checked))
    assert '<li class="cv-report-count-complete">完全に裏付ける <strong>4</strong></li>' in html
    assert '<li class="cv-report-count-unsettled">判定が食い違い、未裁定 <strong>1</strong></li>' in html
    assert "不明確" not in html  # a verdict nobody gave is not counted at all
    assert "Perplexity · Perplexity Agent API · openai/gpt-5.2" in html
    assert [e["editor"] for e in summary["checked_by"]] == ["hanako", "taro"]
    assert summary["checked_by"][0]["items"] == 10
    assert [(e["editor"], e["items"]) for e in summary["settled_by"]] == [("kimura", 1)]


def test_recall_and_precision_are_the_dumps_own_from_final_verdicts(client, editor, checked):
    client.force_login(editor)
    summary = report_json(client, checked)["summary"]
    # Worthy statements S1-S5; supported together: S1 and S3 only.
    assert (summary["citation_recall"]["numerator"], summary["citation_recall"]["denominator"]) == (2, 5)
    # Citations judged on them: all but [3] (unsettled), plus the marker [9] that supports nothing;
    # supporting: [1] [2] [4] [7], and [5] settled partial on a statement supported together.
    assert (summary["citation_precision"]["numerator"], summary["citation_precision"]["denominator"]) == (5, 8)
    html = summary_of(report_page(client, checked))
    assert "<strong>40.0%</strong>" in html and "5 文中 2 文" in html
    assert "<strong>62.5%</strong>" in html and "8 件中 5 件の引用" in html


def test_an_unsettled_item_is_left_out_of_precision_until_a_lead_settles_it(client, editor, second_editor, lead):
    dump = ten_item_dump(editor)
    check_everything(dump, editor, 0)
    check_everything(dump, second_editor, 1)
    client.force_login(editor)
    precision = report_json(client, dump)["summary"]["citation_precision"]
    assert (precision["numerator"], precision["denominator"]) == (4, 7)  # [3] and [5] counted nowhere
    settle(dump, lead, "[5]", "complete", "本文に基準の記述がある")
    precision = report_json(client, dump)["summary"]["citation_precision"]
    assert (precision["numerator"], precision["denominator"]) == (5, 8)


def test_the_claims_not_supported_are_listed_with_their_source_and_quote(client, editor, checked):
    client.force_login(editor)
    report = report_json(client, checked)
    unsupported = report["summary"]["unsupported"]
    assert [(e["kind"], e.get("marker", ""), e["final"]) for e in unsupported] == [
        ("citation", "[6]", "none"),
        ("citation", "[8]", "supports_and_refutes"),
        ("statement", "", "contradict"),
    ]
    no_support = unsupported[0]
    # The statement and the source are named by key, each written once in the response.
    assert statement_of(report, no_support["statement_key"]) == S4
    assert source_of(report, no_support["source"])["url"] == "https://www.wbgt.env.go.jp/special_alert.php"
    assert no_support["quotes"] == [{"editor": "hanako", "text": NO_SUPPORT_QUOTE}]  # the same quote once
    assert [marker_of(report, key) for key in unsupported[2]["citations"]] == ["[7]", "[8]"]
    html = summary_of(report_page(client, checked))
    listed = re.search(r'<ul class="cv-report-list cv-report-unsupported">.*?</ul>', html, re.S).group(0)
    assert S4 in listed and "https://www.wbgt.env.go.jp/special_alert.php" in listed and NO_SUPPORT_QUOTE in listed
    assert "裏付けない" in listed and "引用全体で矛盾する" in listed and S5 in listed
    assert S1 not in listed


def test_the_disagreements_not_yet_settled_name_each_editors_verdict(client, editor, checked):
    client.force_login(editor)
    report = report_json(client, checked)
    (disputed,) = report["summary"]["disagreements"]  # [5] is settled
    assert (disputed["marker"], statement_of(report, disputed["statement_key"])) == ("[3]", S2)
    assert disputed["given"] == [{"editor": "hanako", "value": "partial"}, {"editor": "taro", "value": "none"}]
    html = summary_of(report_page(client, checked))
    assert "hanako <strong>一部を裏付ける</strong> ≠ taro <strong>裏付けない</strong>" in html


def test_the_unresolved_markers_are_in_the_summary_with_their_statement(client, editor, checked):
    client.force_login(editor)
    report = report_json(client, checked)
    (marker,) = report["summary"]["unresolved"]
    assert (marker["marker"], statement_of(report, marker["statement_key"])) == ("[9]", S4)
    html = summary_of(report_page(client, checked))
    assert re.search(r"未解決マーカー.*\[9\].*" + re.escape(S4), html, re.S)


def test_the_detail_is_grouped_by_statement_with_its_answers_under_it(client, editor, checked):
    client.force_login(editor)
    statements = report_json(client, checked)["responses"][0]["statements"]
    assert [s["statement"] for s in statements][:2] == [S1, S2]
    assert [i["marker"] for i in statements[0]["items"]] == ["[1]", "[2]"]
    assert [i["marker"] for i in statements[3]["items"]] == ["[6]", "[9]"]
    assert statements[0]["answers"]["supported_together"] == {"final": "yes", "how": "agreed"}
    html = report_page(client, checked)
    blocks = re.findall(r'<li class="cv-report-statement"[^>]*>(.*?)\n</li>', html, re.S)
    assert len(blocks) == 6
    first = blocks[0]
    assert (
        first.index(S1)
        < first.index("この文は事実についての主張ですか（検証の対象か）？</span> <strong>はい</strong>")
        < first.index('cv-report-marker">[1]')
    )
    assert "hanako, taro" in first and S2 not in first
    assert '完全に裏付ける</strong> <span class="cv-muted">対象 はい</span>' in first
    assert "cv-report-verdicts" not in html  # no table of check rows, statements mixed with citations


def test_subject_time_and_conditions_left_empty_are_left_out(client, editor, checked):
    client.force_login(editor)
    html, markdown = report_page(client, checked), report_md(client, checked)
    assert "対象 はい · 条件 いいえ" in html  # [6]: what was answered, and only that
    for empty in ("時点 —", "条件 —", "対象 —"):
        assert empty not in html
    for empty in ("時点：—", "条件：—", "対象：—"):
        assert empty not in markdown
    assert (
        "    - 裏付けない（hanako、" in markdown
        and "JST）（対象 はい · 条件 いいえ）\n      - 根拠の引用：" in markdown
    )


def test_disagreements_are_marked_and_a_settlement_shows_its_verdict_and_reason(client, editor, checked):
    client.force_login(editor)
    html = report_page(client, checked)
    items = re.findall(r'<li class="cv-report-item( cv-report-differs)?"[^>]*>(.*?)\n    </li>', html, re.S)
    by_marker = {re.search(r'cv-report-marker">(\[\d\])', body).group(1): (differs, body) for differs, body in items if "cv-report-marker" in body}  # fmt: skip
    differs, three = by_marker["[3]"]
    assert differs and "≠ 一部を裏付ける" in three and "≠ 裏付けない" in three and "判定が食い違い、未裁定" in three
    differs, five = by_marker["[5]"]
    assert differs and "裁定 · kimura" in five and "<strong>一部を裏付ける</strong>" in five and SETTLE_REASON in five
    assert "判定が食い違い、未裁定" not in five
    assert not by_marker["[1]"][0] and "≠" not in by_marker["[1]"][1]
    markdown = report_md(client, checked)
    assert "裁定：一部を裏付ける（kimura、" in markdown and f"理由：{SETTLE_REASON}" in markdown


def test_an_editor_who_has_not_checked_is_told_how_many_items_are_hidden(client, editor, second_editor):
    dump = ten_item_dump(editor)
    check_everything(dump, editor, 0)  # ten items, and five statements' answers: fifteen check rows
    client.force_login(second_editor)
    assert report_json(client, dump)["hidden_until_you_check"] == 10
    html = report_page(client, dump)
    sentence = re.findall(r'<p class="cv-report-hidden" role="note">(.*?)</p>', html, re.S)
    assert sentence == [
        "ほかの編集者の判定は、あなたがその項目を確認するまで表示しません（先入観を避けるため）。非表示の項目：10"
    ]
    assert "15" not in sentence[0] and "判定はまだ記録されていません" not in html
    english = report_page(client, dump, "en")
    assert "(blind first): 10 items are hidden." in english
    assert "ほかの編集者の判定は、あなたが確認するまで表示しません：10 項目" in report_md(client, dump)
    # Having checked three of them, three fewer are hidden.
    from citeview.review.selectors import item_version
    from citeview.review.services import check_save

    for item in dump_check_items(dump)[:3]:
        values, answers = {"verdict": "complete"}, {"verification_worthy": "yes"}
        seen = item_version(dump, item.key)
        check_save(dump=dump, item=item, editor=second_editor, values=values, statement_values=answers, seen_version=seen)  # fmt: skip
    assert report_json(client, dump)["hidden_until_you_check"] == 7


def test_the_summary_tells_an_editor_who_has_not_checked_nothing_of_others_verdicts(client, django_user_model, checked):
    newcomer = user_with_role(django_user_model, "jiro", "editor")
    client.force_login(newcomer)
    report = report_json(client, checked)
    summary = report["summary"]
    assert summary["final_verdicts"]["hidden"] == 8
    assert sum(count for code, count in summary["final_verdicts"].items() if code != "hidden") == 0
    assert summary["unsupported"] == [] and summary["disagreements"] == []
    assert summary["checked_by"] == [] and summary["settled_by"] == []
    assert summary["citation_recall"]["denominator"] == 0 and summary["citation_precision"]["denominator"] == 0
    assert report["hidden_until_you_check"] == 10
    for shown in (report_page(client, checked), report_md(client, checked), str(report)):
        assert NO_SUPPORT_QUOTE not in shown and SETTLE_REASON not in shown
        assert "kimura" not in shown and "taro" not in shown
    html = summary_of(report_page(client, checked))
    # No count of hidden verdicts beside the others: the figure says what it is computed on instead.
    assert "cv-report-count-hidden" not in html
    assert '<span class="cv-scope">全 10 項目のうち、あなたに表示できる 0 項目について</span>' in html
    assert "裏付けない" not in html and "完全に裏付ける" not in html


def test_a_reviewer_reads_the_whole_summary_and_no_hidden_sentence(client, reviewer, checked):
    client.force_login(reviewer)
    report = report_json(client, checked)
    assert report["hidden_until_you_check"] == 0 and report["summary"]["final_verdicts"]["complete"] == 4
    assert "cv-report-hidden" not in report_page(client, checked)


def test_the_markdown_and_the_json_carry_the_summary(client, editor, checked):
    client.force_login(editor)
    markdown = report_md(client, checked)
    summary = markdown[markdown.index("## 概要") : markdown.index("## レスポンス 1 / 1")]
    assert "- プロバイダとモデル：Perplexity · Perplexity Agent API (` perplexity.agent `) · openai/gpt-5.2" in summary
    assert "- 確認した人：hanako（10 項目、最終 " in summary and "taro（10 項目、最終 " in summary
    assert "- 裁定した人：kimura（1 項目、最終 " in summary
    assert (
        "- 引用の最終判定：完全に裏付ける 4 · 一部を裏付ける 1 · 裏付けない 1 · 裏付けと矛盾の両方 1 · 判定が食い違い、未裁定 1"
        in summary
    )
    assert "- 引用再現率：40.0%（5 文中 2 文）" in summary and "- 引用適合率：62.5%（8 件中 5 件の引用）" in summary
    assert f"  - 根拠の引用（hanako）：「{NO_SUPPORT_QUOTE}」" in summary
    assert (
        "\\[3\\] 発表の時間｜環境省 — ` https://www.wbgt.env.go.jp/alert_timing.php `：hanako：一部を裏付ける ≠ taro：裏付けない"
        in summary
    )
    assert "- 「" + S4.replace("[", "\\[").replace("]", "\\]") + "」の \\[9\\]" in summary
    assert markdown.index("## 概要") < markdown.index("### 文ごとの判定")
    english = report_md(client, checked, "en")
    assert "- Citation recall: 40.0% (2 of 5 statements)" in english
    assert "### Not supported or contradicted" in english and "### Disagreements not yet settled" in english
    report = report_json(client, checked)
    assert set(report["summary"]) >= {
        "responses",
        "checked_by",
        "settled_by",
        "final_verdicts",
        "citation_recall",
        "citation_precision",
        "unsupported",
        "disagreements",
        "unresolved",
    }
    assert report["summary"]["citation_recall"]["percent"] == 40.0
