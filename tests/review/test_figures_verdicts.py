"""The figures chart the final verdicts by default (settled, else agreed: what the report and recall and
precision count), labelled as such, and a plain link switches to each editor's verdicts, labelled as
such. The JSON gives both, each by its name. The walk found 16 verdicts charted, "No support 3", beside
a report that said "No support 1", with nothing to say why."""

from __future__ import annotations

import html as html_escape
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def page(client, language: str = "en", **query: str) -> str:
    return client.get(reverse("review:figures"), query, HTTP_ACCEPT_LANGUAGE=language).content.decode()


def verdict_rows(html: str) -> dict[str, int]:
    table = re.search(r'<div class="cv-figure-pair">.*?</table>', html, re.S).group(0)
    rows = re.findall(r'<tr><th scope="row">(.*?)</th><td class="cv-num">(\d+)</td>', table)
    return {name: int(count) for name, count in rows}


def caption(html: str) -> str:
    table = re.search(r'<div class="cv-figure-pair">.*?</table>', html, re.S).group(0)
    return re.search(r"<caption>(.*?)</caption>", table).group(1)


def switch(html: str) -> str:
    return re.search(r'<p class="cv-figure-switch">(.*?)</p>', html, re.S).group(1)


def test_the_json_gives_the_final_verdicts_and_each_editors_by_name(client, reviewer, checked):
    client.force_login(reviewer)
    for url in (reverse("review:figures_json"), "/api/metrics"):
        overall = client.get(url).json()["overall"]
        assert overall["final_verdicts"] == {
            "complete": 4,  # [1] [2] [4] [7], agreed
            "partial": 1,  # [5], settled
            "none": 1,  # [6]
            "inaccessible": 0,
            "supports_and_refutes": 1,  # [8]
            "unclear": 0,
        }
        assert overall["final_verdicts_left_out"] == 1  # [3]: partial ≠ none, not settled
        assert overall["editor_verdicts"]["none"] == 3 and sum(overall["editor_verdicts"].values()) == 16
        assert "verdicts" not in overall  # no count that does not say which


def test_the_page_charts_the_final_verdicts_by_default_and_says_so(client, reviewer, checked):
    client.force_login(reviewer)
    html = page(client)
    assert caption(html) == "Final verdicts: settled or agreed"
    assert re.search(r"<figcaption>Final verdicts: settled or agreed</figcaption>", html)
    assert verdict_rows(html)["No support"] == 1 and verdict_rows(html)["Complete support"] == 4
    assert "1 citation its editors disagree on, not settled yet, is left out of this chart." in html
    assert '<strong aria-current="true">Final verdicts (7)</strong>' in switch(html)
    # The report says the same of the dump.
    report = client.get(reverse("review:report_json", args=[checked.pk])).json()["summary"]["final_verdicts"]
    assert report["none"] == verdict_rows(html)["No support"]


def test_a_plain_link_switches_to_each_editors_verdicts_and_back_keeping_the_filters(client, reviewer, checked):
    client.force_login(reviewer)
    html = page(client, since="2020-01-01")
    link = html_escape.unescape(
        re.search(r'<a href="([^"]+)">Each editor\'s verdicts \(16\)</a>', switch(html)).group(1)
    )
    assert "since=2020-01-01" in link and "verdicts=editors" in link and link.endswith("#figures-verdicts")
    editors = client.get(link.split("#")[0], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert html_escape.unescape(caption(editors)) == "Each editor's verdicts"
    assert verdict_rows(editors)["No support"] == 3 and sum(verdict_rows(editors).values()) == 16
    assert "a citation two editors judged counts twice" in editors and "left out of this chart" not in editors
    back = html_escape.unescape(re.search(r'<a href="([^"]+)">Final verdicts \(7\)</a>', switch(editors)).group(1))
    assert "verdicts=" not in back and "since=2020-01-01" in back


def test_the_switch_reads_in_japanese(client, reviewer, checked):
    client.force_login(reviewer)
    html = page(client, "ja")
    assert caption(html) == "最終判定：裁定済み、または編集者の判定が一致したもの"
    assert "編集者ごとの判定 (16)" in switch(html)
    assert "まだ裁定されていない 1 件の引用は、このグラフに含めていません。" in html
    assert caption(page(client, "ja", verdicts="editors")) == "編集者ごとの判定"
