"""Issue 33: each editor's progress (assigned, checked and remaining items, and the share of their
checks that later needed settling) on the work queue and the figures. An editor sees their own; a
lead and a reviewer see the whole team's."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest, dump_organise
from citeview.review.services import editors_assign
from tests.conftest import own_fixture, user_with_role
from tests.review.test_settling import AGREED, DISPUTED, SEED, save, settle

pytestmark = pytest.mark.django_db


@pytest.fixture
def work(client, editor, second_editor, lead) -> tuple[Dump, Dump]:
    """hanako's dump, which both editors checked and the lead settled; taro's, which nobody checked."""
    hers = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]
    his = dump_ingest(raw=own_fixture("agent-two-responses.jsonl"), uploaded_by=editor)[0]
    dump_organise(dump=hers, title="", tag_names=["経済"])
    editors_assign(dump=hers, editors=[editor], by=editor)
    editors_assign(dump=his, editors=[second_editor], by=editor)
    for user, verdicts in ((editor, {DISPUTED: "partial", AGREED: "complete"}), (second_editor, {DISPUTED: "none"})):
        client.force_login(user)
        for key, verdict in verdicts.items():
            save(client, hers, key, verdict)
    client.force_login(lead)
    assert settle(client, hers).status_code == 302
    hers.refresh_from_db()
    his.refresh_from_db()
    return hers, his


def rows(page: str) -> dict[str, list[str]]:
    table = re.search(r'<table class="cv-table cv-editor-progress">.*?</table>', page, re.S).group(0)
    found = {}
    for editor, cells in re.findall(r'<tr><th scope="row">([^<]+)</th>(.*?)</tr>', table, re.S):
        found[editor] = [
            re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", cells, re.S)
        ]
    return found


def test_an_editor_sees_their_own_progress_on_the_queue(client, editor, work):
    hers, _his = work
    client.force_login(editor)
    page = client.get(reverse("review:queue")).content.decode()
    assert "Your progress" in page and "You see your own progress; a lead sees the whole team's." in page
    total = hers.checkable_item_count
    assert rows(page) == {"hanako": [f"{total} in 1 dump", "2", str(total - 2), "", "1 of 2 (50%)"]}
    assert f'<progress max="{total}" value="2"' in page


def test_a_lead_and_a_reviewer_see_the_team(client, lead, reviewer, work):
    hers, his = work
    for user in (lead, reviewer):
        client.force_login(user)
        page = client.get(reverse("review:queue")).content.decode()
        assert "The team's progress" in page and "You see your own progress" not in page
        team = rows(page)
        assert list(team) == ["hanako", "taro"]
        assert team["taro"] == [
            f"{his.checkable_item_count} in 1 dump",
            "0",
            str(his.checkable_item_count),
            "",
            "1 of 1 (100%)",
        ]
        assert team["hanako"][1:3] == ["2", str(hers.checkable_item_count - 2)]


def test_the_figures_show_progress_per_person_as_the_queue_does_and_follow_the_filters(client, editor, lead, work):
    client.force_login(editor)
    mine = client.get(reverse("review:figures_json")).json()["by_editor"]
    assert [row["editor"] for row in mine] == ["hanako"]
    assert (mine[0]["checked_items"], mine[0]["checks"], mine[0]["settled_checks"], mine[0]["settled_share"]) == (
        2,
        2,
        1,
        0.5,
    )
    assert list(rows(client.get(reverse("review:figures")).content.decode())) == ["hanako"]
    client.force_login(lead)
    team = client.get(reverse("review:figures_json")).json()["by_editor"]
    assert [row["editor"] for row in team] == ["hanako", "taro"]
    tagged = client.get(reverse("review:figures_json"), {"tag": "経済"}).json()["by_editor"]
    assert [(row["editor"], row["assigned_dumps"], row["checks"]) for row in tagged] == [
        ("hanako", 1, 2),
        ("taro", 0, 1),
    ]


def test_an_editor_with_nothing_yet_is_told_so(client, django_user_model):
    client.force_login(user_with_role(django_user_model, "jiro", "editor"))
    page = client.get(reverse("review:queue"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "担当の保存した回答はなく、記録した確認もまだありません。" in page


def test_progress_per_person_speaks_japanese(client, lead, work):
    client.force_login(lead)
    page = client.get(reverse("review:figures"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "担当者ごとの進み具合" in page and "後で裁定された確認" in page and "1 件中 1 件" in page
