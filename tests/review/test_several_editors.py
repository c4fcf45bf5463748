"""Several editors per dump (issue 41, finding 1): a dump is assigned to any number of editors from its
page, from the list and through the API; each sees it in their queue with their own progress; each item
needs the independent checks the dump asks for, and one checked once waits for a second check in the
queues of the assigned editors who have not checked it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.urls import reverse

import citeview.dumps
from citeview.accounts.tokens import token_create
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items, progress_per_editor, work_queue
from citeview.review.services import editors_assign
from tests.api.conftest import bearer_client
from tests.conftest import own_fixture, user_with_role

pytestmark = pytest.mark.django_db

SAMPLES = Path(citeview.dumps.__file__).parent / "samples"
CLAUDE = "06-claude-ja-documents-exchange.json"  # seven citations of two documents: seven items
SEED = "agent-seed-incomplete.sse"  # four items


@pytest.fixture
def dump(editor) -> Dump:
    return dump_ingest(raw=(SAMPLES / CLAUDE).read_bytes(), uploaded_by=editor, filename=CLAUDE)[0]


def page(client, url: str, **headers: str) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200
    return response.content.decode()


def check(client, dump: Dump, key: str, verdict: str = "complete") -> None:
    version = dump.item_states.filter(key=key).values_list("version", flat=True).first() or 0
    body = {"version": str(version), "verdict": verdict, "verification_worthy": "yes"}
    if key.split("-")[1].startswith("s"):
        body = {"version": str(version), "verification_worthy": "no"}
    assert client.post(reverse("review:item", args=[dump.pk, key]), body).status_code == 302


def citations(dump: Dump) -> list[str]:
    return [item.key for item in dump_check_items(dump) if item.kind == "citation"]


def test_a_lead_assigns_a_dump_to_two_editors_from_its_page(client, dump, editor, second_editor, lead):
    client.force_login(lead)
    viewer = page(client, dump.get_absolute_url())
    form = viewer.split('class="cv-details-form cv-assign"')[1].split("</details>")[0]
    assert f'value="{editor.pk}"' in form and f'value="{second_editor.pk}"' in form  # every editor offered
    answer = client.post(
        reverse("review:assign", args=[dump.pk]), {"editors": [editor.pk, second_editor.pk], "checks_needed": "2"}
    )
    assert answer.status_code == 302
    assert set(dump.assignees.all()) == {editor, second_editor}
    viewer = page(client, dump.get_absolute_url())
    assert "assigned to hanako, taro" in viewer
    for user in (editor, second_editor):
        client.force_login(user)
        queue = page(client, reverse("review:queue"))
        assert dump.display_title[:20] in queue and "7 items waiting for you" in queue


def test_the_second_editors_queue_and_progress_count_their_own_checks(client, dump, editor, second_editor, lead):
    """The walk found the second editor told that nothing was waiting, and 0 checked after 5 checks."""
    editors_assign(dump=dump, editors=[editor, second_editor], by=lead, checks_needed=2)
    client.force_login(second_editor)
    for key in citations(dump)[:5]:
        check(client, dump, key)
    (entry,) = work_queue(second_editor)
    assert (entry.mine, entry.waiting) == (5, 2)
    (own,) = progress_per_editor(second_editor)
    assert (own.editor, own.assigned_items, own.checked_items) == ("taro", 7, 5)
    team = {row.editor: row for row in progress_per_editor(lead)}
    assert (team["hanako"].checked_items, team["taro"].checked_items) == (0, 5)
    queue = page(client, reverse("review:queue"))
    assert "5 of 7 checked by you" in queue and "2 items waiting for you" in queue


def test_an_item_checked_once_waits_for_a_second_check_from_the_editors_who_have_not(
    client, dump, editor, second_editor, lead
):
    editors_assign(dump=dump, editors=[editor, second_editor], by=lead, checks_needed=2)
    client.force_login(editor)
    for key in citations(dump)[:3]:
        check(client, dump, key)
    client.force_login(second_editor)
    queue = page(client, reverse("review:queue"))
    assert "7 items waiting for you" in queue and "3 waiting for a second check" in queue
    (entry,) = work_queue(second_editor)
    assert entry.waiting_second == 3
    (mine,) = work_queue(editor)
    assert (mine.waiting, mine.waiting_second) == (4, 0)  # hanako's own three wait for taro, not for her


def test_with_one_check_needed_an_item_one_editor_checked_waits_for_no_one(client, dump, editor, second_editor):
    editors_assign(dump=dump, editors=[editor, second_editor], by=editor, checks_needed=1)
    client.force_login(editor)
    for key in [item.key for item in dump_check_items(dump)]:
        check(client, dump, key)
    dump.refresh_from_db()
    assert dump.complete_item_count == dump.checkable_item_count == 7
    assert work_queue(second_editor) == []  # the team asked for one check: nothing is left for taro
    client.force_login(second_editor)
    assert "Nothing assigned to you is waiting to be checked." in page(client, reverse("review:queue"))


def test_the_list_counts_an_item_done_only_with_the_checks_it_needs(client, dump, editor, second_editor):
    editors_assign(dump=dump, editors=[editor, second_editor], by=editor, checks_needed=2)
    everything = [item.key for item in dump_check_items(dump)]
    client.force_login(editor)
    for key in everything:
        check(client, dump, key)
    dump.refresh_from_db()
    assert (dump.checked_item_count, dump.complete_item_count) == (7, 0)
    assert client.get("/api/dumps", {"progress": "done"}).json()["count"] == 0
    assert client.get("/api/dumps", {"progress": "in_progress"}).json()["count"] == 1
    client.force_login(second_editor)
    for key in everything:
        check(client, dump, key)
    dump.refresh_from_db()
    assert dump.complete_item_count == 7
    assert client.get("/api/dumps", {"progress": "done"}).json()["count"] == 1
    listed = client.get(reverse("pages:home"), {"progress": "done"}).content.decode()
    assert "7 / 7 (100%)" in listed and "2 checks per item" in listed


def test_the_list_assigns_the_dumps_ticked_to_editors_keeping_those_assigned(
    client, editor, second_editor, lead, django_user_model
):
    first = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename="a.sse")[0]
    second = dump_ingest(raw=own_fixture(SEED) + b"\n", uploaded_by=editor, filename="b.sse")[0]
    third = dump_ingest(raw=own_fixture(SEED) + b"\n\n", uploaded_by=editor, filename="c.sse")[0]
    editors_assign(dump=first, editors=[lead], by=lead, checks_needed=2)
    client.force_login(lead)
    listed = page(client, reverse("pages:home"))
    assert 'id="cv-bulk-assign"' in listed
    assert f'name="dumps" value="{first.pk}" form="cv-bulk-assign"' in listed
    body = {"dumps": [first.pk, second.pk], "editors": ["hanako", "taro"], "checks_needed": "1", "query": "q=x"}
    response = client.post(reverse("review:assign_many"), body)
    assert response.status_code == 302 and response["Location"] == "/?q=x"
    for elsewhere in ("//evil.example/", "/\\evil.example/", "https://evil.example/"):  # never off the site
        answer = client.post(reverse("review:assign_many"), {**body, "query": elsewhere})
        assert answer["Location"].startswith("/?") and "//" not in answer["Location"].removeprefix("/?")
    assert set(first.assignees.all()) == {lead, editor, second_editor}  # sato stays
    assert set(second.assignees.all()) == {editor, second_editor} and not third.assignees.exists()
    assert Dump.objects.get(pk=second.pk).checks_needed == 1
    followed = page(client, response["Location"])
    assert "2 dumps are assigned to hanako, taro." in followed
    # A reviewer cannot assign, and the list offers them no boxes.
    reviewer = user_with_role(django_user_model, "yuki", "reviewer")
    client.force_login(reviewer)
    assert client.post(reverse("review:assign_many"), body).status_code == 403
    assert 'name="dumps"' not in page(client, reverse("pages:home"))


def test_the_list_says_what_is_wrong_with_a_bulk_assignment(client, editor, lead):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(lead)
    response = client.post(reverse("review:assign_many"), {"editors": ["hanako"]}, follow=True)
    assert "Nothing was assigned: Choose at least one dump." in response.content.decode()
    response = client.post(reverse("review:assign_many"), {"dumps": [dump.pk]}, follow=True)
    assert "Nothing was assigned: Choose at least one editor." in response.content.decode()
    assert not dump.assignees.exists()


def test_the_api_assigns_a_dump_to_editors_and_sets_the_checks_it_needs(dump, editor, second_editor, lead):
    api = bearer_client(token_create(user=lead, name="pipeline")[1])
    url = f"/api/dumps/{dump.pk}/assignees"
    body = json.dumps({"editors": ["hanako", "taro"], "checks_needed": 2})
    answer = api.put(url, body, content_type="application/json")
    assert answer.status_code == 200, answer.content
    assert answer.json() == {
        "dump": dump.pk,
        "editors": ["hanako", "taro"],
        "checks_needed": 2,
        "item_count": 7,
        "checked_item_count": 0,
        "complete_item_count": 0,
        "added": ["hanako", "taro"],
        "removed": [],
        "read_verdicts_before": [],
    }
    assert api.get(url).json()["editors"] == ["hanako", "taro"]
    summary = api.get("/api/dumps").json()["results"][0]
    assert (summary["assignees"], summary["checks_needed"]) == (["hanako", "taro"], 2)
    again = api.put(url, json.dumps({"editors": ["taro"]}), content_type="application/json").json()
    assert (again["editors"], again["removed"], again["checks_needed"]) == (["taro"], ["hanako"], 2)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ('{"editors": ["nobody-here"]}', "unknown_editors"),
        ('{"editors": "hanako"}', "invalid_assignment"),
        ('{"editors": [], "checks_needed": 3}', "invalid_assignment"),
        ('{"editors": [], "checks_needed": true}', "invalid_assignment"),
        ("[1, 2", "invalid_json"),
    ],
)
def test_the_api_says_what_is_wrong_with_an_assignment(dump, lead, body, code):
    api = bearer_client(token_create(user=lead, name="pipeline")[1])
    answer = api.put(f"/api/dumps/{dump.pk}/assignees", body, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == code
    assert not dump.assignees.exists()


@pytest.mark.parametrize("role", ["reviewer", "editor"])
def test_only_a_lead_or_staff_assign_a_dump_since_it_decides_who_is_blind(client, dump, django_user_model, role):
    """An editor who assigned could make a lead blind (and unable to settle), or let one read everything."""
    someone = user_with_role(django_user_model, "someone", role)
    api = bearer_client(token_create(user=someone, name="read")[1])
    url = f"/api/dumps/{dump.pk}/assignees"
    assert api.get(url).status_code == 200
    assert api.put(url, '{"editors": ["someone"]}', content_type="application/json").status_code == 403
    client.force_login(someone)
    assert client.post(reverse("review:assign", args=[dump.pk]), {"editors": [someone.pk]}).status_code == 403
    assert client.post(reverse("review:assign_many"), {"dumps": [dump.pk], "editors": ["someone"]}).status_code == 403
    assert not dump.assignees.exists()
    assert 'class="cv-details-form cv-assign"' not in page(client, dump.get_absolute_url())
    assert 'id="cv-bulk-assign"' not in page(client, reverse("pages:home"))


def test_the_dumps_page_says_when_fewer_editors_are_assigned_than_each_item_needs(client, dump, editor):
    editors_assign(dump=dump, editors=[editor], by=editor, checks_needed=2)
    client.force_login(editor)
    viewer = page(client, dump.get_absolute_url())
    assert "Each item needs 2 independent checks, and 1 editor is assigned." in viewer
    japanese = page(client, dump.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja")
    assert "各項目に 2 人の独立した確認が必要ですが、担当の編集者は 1 人です。" in japanese


def test_an_editor_unassigned_keeps_their_checks_and_leaves_the_queue(client, dump, editor, second_editor):
    editors_assign(dump=dump, editors=[editor, second_editor], by=editor, checks_needed=2)
    client.force_login(second_editor)
    check(client, dump, citations(dump)[0])
    editors_assign(dump=dump, editors=[editor], by=editor)
    assert work_queue(second_editor) == []
    assert dump.checks.filter(editor=second_editor).count() >= 1
    assert re.search(r"taro: 1", page(client, dump.get_absolute_url()))


def test_a_bulk_assignment_is_held_to_a_limit_and_says_so(client, editor, lead):
    from citeview.review.forms import MAX_BULK_ASSIGN

    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(lead)
    body = {"dumps": [dump.pk] * (MAX_BULK_ASSIGN + 1), "editors": ["hanako"]}
    response = client.post(reverse("review:assign_many"), body, follow=True)
    assert f"At most {MAX_BULK_ASSIGN} dumps are assigned at once; {MAX_BULK_ASSIGN + 1} were chosen." in (
        response.content.decode()
    )
    assert not dump.assignees.exists()
    body["dumps"] = [dump.pk] * MAX_BULK_ASSIGN
    assert client.post(reverse("review:assign_many"), body).status_code == 302 and dump.assignees.exists()


def test_a_check_given_not_blind_is_no_independent_check(client, dump, editor, lead):
    """An item checked by hanako, then by a lead who could read her verdict: not the two independent
    checks it needs, so it still waits for a second editor."""
    editors_assign(dump=dump, editors=[editor], by=lead, checks_needed=2)
    first = citations(dump)[0]
    client.force_login(editor)
    check(client, dump, first)
    client.force_login(lead)  # not assigned: reads every verdict
    check(client, dump, first)
    dump.refresh_from_db()
    assert (dump.checked_item_count, dump.complete_item_count) == (1, 0)
    (entry,) = work_queue(editor)
    assert (entry.mine, entry.waiting, entry.waiting_second) == (1, 6, 0)


def test_the_queue_finds_work_past_dumps_with_nothing_left_for_the_user(client, editor, second_editor, lead):
    """With a third editor, a dump can have nothing left for one editor though it is not complete."""
    third = user_with_role(
        __import__("django.contrib.auth", fromlist=["get_user_model"]).get_user_model(), "jiro", "editor"
    )
    dumps = [dump_ingest(raw=own_fixture(SEED) + b"\n" * n, uploaded_by=editor)[0] for n in range(4)]
    for dump in dumps:
        editors_assign(dump=dump, editors=[editor, second_editor, third], by=lead, checks_needed=2)
    for dump in dumps[:3]:  # taro and jiro complete every item but hanako's one; hanako checks that one
        keys = [item.key for item in dump_check_items(dump)]
        for user in (second_editor, third):
            client.force_login(user)
            for key in keys[1:]:
                check(client, dump, key)
        client.force_login(editor)
        check(client, dump, keys[0])
    entries = work_queue(editor, limit=1)
    assert [entry.dump.pk for entry in entries] == [dumps[3].pk]  # the first three have nothing for her
