"""The list of dumps fits a laptop's screen (issue 41): at 1366 and 1280 px its table, with long
Japanese titles and file names, several tags, three editors with long names assigned to one dump, two
editors' progress and the column of boxes that chooses dumps to assign at once, stays inside its box,
every column header in sight, in both languages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import Group

from citeview.dumps.services import dump_ingest, dump_organise
from citeview.review.selectors import dump_check_items
from citeview.review.services import check_save, editors_assign
from tests.browser.conftest import PASSWORD
from tests.browser.test_check_queue import sign_in
from tests.browser.test_reviewer_flows import SCREENSHOTS
from tests.builders import sonar_object
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = (
    "東京都の人口推計と世帯数の推移に関する回答（2024年1月1日現在）：区部と多摩地域の比較、"
    "転入超過の要因、自然増減の見通しについての出典確認"
)
TAGS = ["人口統計", "東京都", "要再確認", "2024年度", "デスク確認待ち", "sonar-pro"]
ASSIGNEE = "yamada.hanako@example.co.jp"
LEAD = "sato.jiro@example.co.jp"  # a lead reads the widest list: a box in each row, to assign
OVERFLOW = """() => {
    const wrap = document.querySelector('.cv-dump-table').closest('.cv-table-wrap');
    const table = wrap.querySelector('table');
    return {wrap: wrap.clientWidth, table: table.getBoundingClientRect().width, scroll: wrap.scrollWidth};
}"""


@pytest.fixture
def team(django_user_model: Any) -> dict[str, Any]:
    people = {}
    roles = {ASSIGNEE: "editor", "suzuki.taro@example.co.jp": "editor", LEAD: "lead"}
    for name, role in roles.items():
        people[name] = django_user_model.objects.create_user(username=name, password=PASSWORD)
        people[name].groups.add(Group.objects.get(name=role))
    return people


@pytest.fixture
def listed(team: dict[str, Any]) -> None:
    """Four dumps as a team's list has them: long titles and names, tags, an assignee, checks."""
    editor, other = team[ASSIGNEE], team["suzuki.taro@example.co.jp"]
    claim = "東京都の人口は約1410万人で、前年比0.3%増です[1]。世帯数は約740万世帯です[2]。"
    sources = ["https://www.toukei.metro.tokyo.lg.jp/jsuikei/js-index.htm", "https://example.jp/households"]
    raw = json.dumps(sonar_object(claim, sources), ensure_ascii=False).encode()
    long_name = "2026-12-01_東京都人口統計_perplexity_sonar-pro_回答データ_デスク確認用_最終版.json"
    first = dump_ingest(raw=raw, uploaded_by=editor, filename=long_name)[0]
    dump_organise(dump=first, title=TITLE, tag_names=TAGS)
    editors_assign(dump=first, editors=list(team.values()), by=editor)  # three editors with long names
    items = list(dump_check_items(first))
    for version, person in enumerate((editor, other)):
        values = {"verdict": "partial", "subject": "", "time": "", "conditions": "", "evidence_quote": "", "note": ""}
        check_save(dump=first, item=items[0], editor=person, values=values, statement_values={}, seen_version=version)
    second = dump_ingest(raw=own_fixture("agent-two-responses.jsonl"), uploaded_by=other, filename=long_name[:40])[0]
    dump_organise(dump=second, title=TITLE[:60], tag_names=TAGS[:3])
    editors_assign(dump=second, editors=[other], by=other)
    dump_ingest(raw=own_fixture("agent-seed-incomplete.sse"), uploaded_by=editor, filename="seed.sse")
    dump_ingest(raw=own_fixture("claude-ja-documents-exchange.json"), uploaded_by=editor)


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
@pytest.mark.parametrize("width", [1366, 1280])
def test_the_list_fits_a_laptop_with_every_column_in_sight(browser, live_server, team, listed, width, locale):
    page = sign_in(browser, live_server, team[LEAD], locale, width)
    try:
        page.set_viewport_size({"width": width, "height": 800})
        page.goto("/")
        assert page.locator(".cv-dump-table input[name=dumps]").count() == 4  # a box to tick per row
        for stage in ("today",):
            shown = page.evaluate(OVERFLOW)
            assert shown["scroll"] <= shown["wrap"] and shown["table"] <= shown["wrap"], (stage, shown)
            wrap = page.locator(".cv-dump-table").bounding_box()
            for header in page.locator(".cv-dump-table thead th").all():
                seen = header.bounding_box()
                assert seen["x"] >= wrap["x"] and seen["x"] + seen["width"] <= wrap["x"] + wrap["width"] + 0.5, (
                    stage,
                    header.inner_text(),
                )
            assert page.evaluate("document.documentElement.scrollWidth") <= width, stage
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            name = f"list-{width}-{locale[:2]}"
            page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    finally:
        page.context.close()


def test_the_box_in_the_header_ticks_every_dump_of_the_page_for_the_bulk_assignment(browser, live_server, team, listed):
    page = sign_in(browser, live_server, team[LEAD], "en-US", 1366)
    try:
        page.goto("/")
        boxes, every = page.locator(".cv-dump-table input[name=dumps]"), page.locator(".cv-choose-all")
        every.check()
        assert all(box.is_checked() for box in boxes.all())
        boxes.nth(1).uncheck()
        assert not every.is_checked() and every.evaluate("e => e.indeterminate")
        page.click(".cv-bulk-assign summary")
        page.check(f".cv-bulk-assign input[value='{ASSIGNEE}']")
        with page.expect_navigation():
            page.click(".cv-bulk-assign button[type=submit]")
        assert "3 dumps are assigned to yamada.hanako@example.co.jp." in page.inner_text(".cv-messages")
        assert not page.console_errors
    finally:
        page.context.close()
