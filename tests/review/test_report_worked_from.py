"""The report can be worked from: a "disagreements only" filter (a plain link, no script) shows only the
statements where editors' given answers or verdicts differ, settled or not, with how many and the way
back; and every entry of the summary links to its item in the report's detail and to its check page."""

from __future__ import annotations

import html as html_escape
import re

import pytest
from django.urls import reverse

from citeview.review.selectors import item_version
from citeview.review.services import check_save
from tests.review.report_dump import check_everything, item_of, ten_item_dump

pytestmark = pytest.mark.django_db

S2 = "発表は府県予報区ごとに、前日の17時ごろと当日の5時ごろに行われます[3]。"
S3 = "2024年からは、より深刻な熱中症特別警戒アラートの運用も始まりました[4][5]。"


def report_page(client, dump, language: str = "en", **query: str) -> str:
    url = reverse("review:report", args=[dump.pk])
    return client.get(url, query, HTTP_ACCEPT_LANGUAGE=language).content.decode()


def statement_blocks(html: str) -> list[str]:
    return re.findall(r'<li class="cv-report-statement"[^>]*>(.*?)\n</li>', html, re.S)


def markers_in(block: str) -> list[str]:
    return re.findall(r'cv-report-marker">(\[\d\])', block)


def test_disagreements_only_shows_the_statements_and_items_editors_differ_on(client, reviewer, checked):
    client.force_login(reviewer)
    whole = report_page(client, checked)
    link = re.search(r'<a href="([^"]+)">≠ Show only the 2 statements where editors disagree</a>', whole)
    assert link and html_escape.unescape(link.group(1)) == "?only=disagreements"
    assert len(statement_blocks(whole)) == 6

    html = report_page(client, checked, only="disagreements")
    blocks = statement_blocks(html)
    assert [S2 in blocks[0], S3 in blocks[1]] == [True, True] and len(blocks) == 2
    assert markers_in(blocks[0]) == ["[3]"]  # disputed, not settled
    assert markers_in(blocks[1]) == ["[5]"]  # settled: the editors still differed; [4], agreed, is left out
    check = reverse("review:item", args=[checked.pk, item_of(checked, "[3]").key])
    assert f'<a href="{check}">Check page</a>' in blocks[0]  # each one opens where it is settled
    assert "Disagreements only: 2 statements where editors' answers or verdicts differ, settled or not." in (
        html_escape.unescape(html)
    )
    back = re.search(r'<a href="([^"]+)">Show the whole report</a>', html).group(1)
    assert back == reverse("review:report", args=[checked.pk])
    # The working view: no summary, no evidence tables, no search results.
    assert "cv-report-summary" not in html and "cv-report-evidence" not in html
    japanese = report_page(client, checked, "ja", only="disagreements")
    assert "食い違いのみ：編集者の回答または判定が食い違う文 2 件（裁定済みのものを含む）。" in japanese
    assert "レポート全体を表示" in japanese


def test_a_statement_answer_left_blank_is_no_disagreement_to_filter(client, editor, second_editor, reviewer):
    dump = ten_item_dump(editor)
    check_everything(dump, editor, 0, only={item_of(dump, "[1]").key})
    item = item_of(dump, "[1]")
    check_save(
        dump=dump,
        item=item,
        editor=second_editor,
        values={"verdict": "complete"},
        statement_values={"verification_worthy": "yes", "supported_together": ""},
        seen_version=item_version(dump, item.key),
    )
    client.force_login(reviewer)
    html = report_page(client, dump)
    assert "No statement where editors' answers or verdicts differ." in html_escape.unescape(html)
    assert statement_blocks(report_page(client, dump, only="disagreements")) == []


def summary_of(html: str) -> str:
    return re.search(r'<section class="cv-card cv-report cv-report-summary".*?</section>', html, re.S).group(0)


def test_every_summary_entry_links_to_its_detail_and_its_check_page(client, reviewer, checked):
    client.force_login(reviewer)
    html = report_page(client, checked)
    summary = summary_of(html)
    pk = checked.pk
    unsupported = re.search(r'<ul class="cv-report-list cv-report-unsupported">.*?</ul>', summary, re.S).group(0)
    disagreements = re.search(r'<ul class="cv-report-list cv-report-disagreements">.*?</ul>', summary, re.S).group(0)
    report = reverse("review:report", args=[pk])
    for marker in ("[6]", "[8]"):
        key = item_of(checked, marker).key
        assert f'href="{report}#cv-item-{key}"' in unsupported, marker
        assert f'href="{reverse("review:item", args=[pk, key])}"' in unsupported, marker
    contradicted = item_of(checked, "[7]")  # S5, whose citations together contradict it: its first item
    assert f'href="{report}#cv-statement-{contradicted.statement_key}"' in unsupported
    assert f'href="{reverse("review:item", args=[pk, contradicted.key])}"' in unsupported
    disputed = item_of(checked, "[3]").key
    assert f'href="{report}#cv-item-{disputed}"' in disagreements
    assert f'href="{reverse("review:item", args=[pk, disputed])}"' in disagreements
    unresolved = re.search(r"<h3>Unresolved markers.*?</ul>", summary, re.S).group(0)
    (marker_link,) = re.findall(r'<a class="cv-chip cv-chip-warning" href="([^"]+)">\[9\]</a>', unresolved)
    assert client.get(marker_link).status_code == 200 and "/check/r0-u" in marker_link
    # Every link into the detail lands on an element of the page; every check page opens.
    for anchor in re.findall(rf'href="{re.escape(report)}#([^"]+)"', summary):
        assert f'id="{anchor}"' in html, anchor
    for url in re.findall(r'href="(/dumps/\d+/check/[^"]+)"', summary):
        assert client.get(url).status_code == 200, url
    assert len(re.findall(r'class="cv-report-links cv-screen-only"', summary)) == 4  # [6] [8] S5 [3]


def test_the_json_names_the_item_each_summary_entry_opens(client, reviewer, checked):
    client.force_login(reviewer)
    summary = client.get(reverse("review:report_json", args=[checked.pk])).json()["summary"]
    assert [e["open"] for e in summary["disagreements"]] == [item_of(checked, "[3]").key]
    assert [e["open"] for e in summary["unsupported"]] == [
        item_of(checked, "[6]").key,
        item_of(checked, "[8]").key,
        item_of(checked, "[7]").key,  # S5's citations together contradict it: its first item
    ]
