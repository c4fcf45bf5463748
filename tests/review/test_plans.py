"""Check plans (issue 45, part 1): a lead draws a random sample of a scope's citations or statements,
stratified by provider · model, with a recorded seed; the plan's editors check its items through their
queue, in the plan's random order, blind first as for a dump; the plan says which dumps came later."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citeview.core.checking import sampling
from citeview.dumps.models import Dump, Tag
from citeview.review import plans
from citeview.review.management.commands.load_sample_review import PLAN_BATCH, PLAN_CHECKED, PLAN_SIZE
from citeview.review.models import Check, CheckPlan, HistoryIsKept, PlanItem
from citeview.review.plans import plan_redraw
from tests.conftest import user_with_role

pytestmark = pytest.mark.django_db


def sonar(number: int, model: str, provider_words: str = "東京の人口は約1400万人です") -> str:
    """One Perplexity response citing two results, [1] and [2]: two citation items, one statement each."""
    text = f"回答{number}：{provider_words}[1]。面積は約2200平方キロメートルです[2]。"
    value = {
        "id": f"6f1d2a3b-0000-4000-8000-{number:012d}",
        "model": model,
        "object": "chat.completion",
        "citations": ["https://www.metro.tokyo.lg.jp/", "https://ja.wikipedia.org/wiki/東京都"],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
    }
    return json.dumps(value, ensure_ascii=False)


def store_batch(client: Any, models: dict[str, int], start: int = 1) -> Dump:
    """A batch: ``models[m]`` responses of each model (two citations each), posted as an editor does."""
    lines, number = [], start
    for model, count in models.items():
        for _ in range(count):
            lines.append(sonar(number, model))
            number += 1
    before = set(Dump.objects.values_list("pk", flat=True))
    assert client.post("/", {"text": "\n".join(lines) + "\n"}).status_code == 302
    return Dump.objects.exclude(pk__in=before).get()


@pytest.fixture
def lead(django_user_model):
    return user_with_role(django_user_model, "sato", "lead")


@pytest.fixture
def batch(client, editor) -> Dump:
    """30 responses of sonar and 10 of sonar-pro: 60 and 20 citations."""
    client.force_login(editor)
    dump = store_batch(client, {"sonar": 30, "sonar-pro": 10})
    client.logout()
    return dump


def make_plan(client: Any, lead: Any, batch: Dump, editors: list[Any], **fields: Any) -> Any:
    client.force_login(lead)
    data = {
        "name": "週次サンプル",
        "unit": "citation",
        "scope_kind": "batch",
        "scope_dump": str(batch.pk),
        "size": "20",
        "editors": [str(editor.pk) for editor in editors],
        "checks_needed": "1",
        **fields,
    }
    return client.post(reverse("review:plan_new"), data)


def the_plan() -> CheckPlan:
    return CheckPlan.objects.get()


def version_of(dump: Dump, key: str) -> int:
    return dump.item_states.filter(key=key).values_list("version", flat=True).first() or 0


def save_verdict(client: Any, dump: Dump, key: str, verdict: str, plan: CheckPlan | None = None) -> Any:
    url = reverse("review:item", args=[dump.pk, key]) + (f"?plan={plan.pk}" if plan else "")
    body = {"version": str(version_of(dump, key)), "verdict": verdict, "verification_worthy": "yes"}
    return client.post(url, {"supported_together": "yes", **body})


# Making a plan ------------------------------------------------------------------------------------


def test_a_lead_draws_a_plan_whose_seed_gives_the_same_sample_again(client, lead, editor, batch):
    response = make_plan(client, lead, batch, [editor])
    plan = the_plan()
    assert response.status_code == 302 and response["Location"] == reverse("review:plan", args=[plan.pk])
    items = list(PlanItem.objects.filter(plan=plan).order_by("position"))
    assert (plan.size, plan.population, len(items)) == (20, 80, 20)
    assert plan.made_by == lead and list(plan.editors.all()) == [editor] and plan.scope_dump_ids == [batch.pk]
    # The recorded seed draws the same items in the same order, over the dumps recorded as in scope.
    again = plan_redraw(plan)
    assert [(item.stratum, f"{item.dump_id}:{item.item_key}") for item in items] == again
    # And it is the seed that decides: another seed draws another sample.
    units = {stratum: [key for s, key in again if s == stratum] for stratum, _ in again}
    assert sampling.draw(units, 20, plan.seed + 1) != again or len(again) == 0
    page = client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    assert str(plan.seed) in page and "20 of 80 in scope when it was drawn" in page


def test_the_strata_are_provider_and_model_drawn_in_proportion(client, lead, editor, batch):
    make_plan(client, lead, batch, [editor])
    plan = the_plan()
    assert plan.strata == {
        "perplexity · sonar": {"population": 60, "drawn": 15},
        "perplexity · sonar-pro": {"population": 20, "drawn": 5},
    }
    drawn = PlanItem.objects.filter(plan=plan)
    assert drawn.filter(stratum="perplexity · sonar").count() == 15
    assert drawn.filter(stratum="perplexity · sonar-pro").count() == 5
    page = client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    assert re.search(r"<th scope=\"row\">perplexity · sonar-pro</th><td>20</td><td>5</td>", page)


def test_a_margin_gives_the_size_the_statistics_compute(client, lead, editor, batch):
    make_plan(client, lead, batch, [editor], size="", margin="10")
    plan = the_plan()
    expected = sampling.sample_size_for_margin(0.10, {"perplexity · sonar": 60, "perplexity · sonar-pro": 20})
    assert 20 < expected < 80
    assert (plan.size, plan.requested_size, plan.target_margin) == (expected, None, 0.10)
    assert "a margin of ±10 points at 95%" in client.get(reverse("review:plan", args=[plan.pk])).content.decode()


def test_a_margin_that_needs_more_than_a_plan_draws_is_drawn_at_the_cap_and_says_so(
    client, lead, editor, batch, monkeypatch
):
    monkeypatch.setattr(plans, "MAX_PLAN_SIZE", 5)  # ±10 points over these 80 citations needs 40 or so
    make_plan(client, lead, batch, [editor], size="", margin="10")
    plan = the_plan()
    assert plan.size == 5
    page = client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    assert "it needs more units than a plan draws: drawn at the most, 5" in page


def test_a_date_range_ending_before_it_starts_is_a_form_error(client, lead, editor, batch):
    fields = {"scope_kind": "dates", "scope_from": "2026-07-10", "scope_to": "2026-07-01"}
    response = make_plan(client, lead, batch, [editor], **fields)
    assert response.status_code == 400 and not CheckPlan.objects.exists()
    assert "The last day comes before the first: the range holds no dump." in response.content.decode()


def test_a_long_model_name_is_cut_to_fit_the_items_stratum_and_kept_whole_in_the_plan(client, lead, editor):
    """PostgreSQL refuses a stratum over 200 characters; two long names sharing their start stay apart."""
    long_a, long_b = "m" * 250 + "-a", "m" * 250 + "-b"
    client.force_login(editor)
    batch = store_batch(client, {long_a: 2, long_b: 2})
    make_plan(client, lead, batch, [editor], size="8")
    plan = the_plan()
    labels = set(plan.items.values_list("stratum", flat=True))
    assert len(labels) == 2 and all(len(label) <= 200 for label in labels)
    assert {name.split(" · ")[1] for name in plan.strata} == {long_a, long_b}
    items = plan.items.order_by("position")
    assert [(item.stratum, f"{item.dump_id}:{item.item_key}") for item in items] == plan_redraw(plan)


def test_a_size_over_the_scope_takes_every_unit_and_says_so(client, lead, editor, batch):
    response = make_plan(client, lead, batch, [editor], size="500")
    plan = the_plan()
    assert (plan.size, plan.population, plan.requested_size) == (80, 80, 500)
    page = client.get(response["Location"]).content.decode()
    assert "The scope holds only 80 units, fewer than the 500 asked for: the plan takes them all." in page


def test_only_a_lead_makes_a_plan(client, lead, editor, batch):
    client.force_login(editor)
    assert client.get(reverse("review:plan_new")).status_code == 403
    assert make_plan(client, editor, batch, [editor]).status_code == 403
    assert not CheckPlan.objects.exists()
    assert client.get(reverse("review:plans")).status_code == 200  # anyone on the team reads plans


def test_an_empty_scope_is_a_clear_error_and_the_form_keeps_what_was_typed(client, lead, editor, batch):
    Tag.objects.create(name="空のタグ")
    tag = Tag.objects.get()
    response = make_plan(client, lead, batch, [editor], scope_kind="tag", scope_tag=str(tag.pk), name="タグの計画")
    assert response.status_code == 400 and not CheckPlan.objects.exists()
    page = response.content.decode()
    assert "The scope holds nothing to draw" in page
    assert 'value="タグの計画"' in page and f'<option value="{tag.pk}" selected>' in page


def test_dumps_added_to_the_scope_after_the_draw_are_named_and_not_in_it(client, lead, editor):
    client.force_login(editor)
    first = store_batch(client, {"sonar": 12})
    Tag.objects.create(name="週次")
    first.tags.add(Tag.objects.get())
    tag = Tag.objects.get()
    make_plan(client, lead, first, [editor], scope_kind="tag", scope_tag=str(tag.pk), scope_dump="", size="5")
    plan = the_plan()
    client.force_login(editor)
    later = store_batch(client, {"sonar-pro": 12}, start=100)
    later.tags.add(tag)
    client.force_login(lead)
    page = client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    assert "1 dump added to the scope since the plan was drawn is not in it:" in page
    assert later.get_absolute_url() in page
    assert not PlanItem.objects.filter(plan=plan, dump=later).exists()


def test_a_plan_and_its_items_are_never_deleted(client, lead, editor, batch):
    make_plan(client, lead, batch, [editor])
    with pytest.raises(HistoryIsKept):
        the_plan().delete()
    with pytest.raises(HistoryIsKept):
        PlanItem.objects.all().delete()


# Checking its items -------------------------------------------------------------------------------


@pytest.fixture
def plan(client, lead, editor, second_editor, batch) -> CheckPlan:
    make_plan(client, lead, batch, [editor, second_editor], checks_needed="2")
    client.logout()
    return the_plan()


def first_items(plan: CheckPlan, count: int) -> list[PlanItem]:
    return list(PlanItem.objects.filter(plan=plan).order_by("position")[:count])


def test_the_plans_editors_find_its_items_in_their_queue_and_walk_them_in_its_order(client, editor, plan, batch):
    client.force_login(editor)
    queue = client.get(reverse("review:queue")).content.decode()
    assert "週次サンプル" in queue and "20 items waiting for you" in queue
    # The editor is not assigned to the batch: the plan is what brings it to them.
    assert not batch.assignments.exists()
    first, second, third = first_items(plan, 3)
    start = client.get(reverse("review:plan_check", args=[plan.pk]))
    assert start["Location"] == reverse("review:item", args=[batch.pk, first.item_key]) + f"?plan={plan.pk}"
    page = client.get(start["Location"]).content.decode()
    assert "item 1 of 20, in the plan's random order" in page
    assert f'href="{reverse("review:item", args=[batch.pk, second.item_key])}?plan={plan.pk}" rel="next"' in page
    response = save_verdict(client, batch, first.item_key, "complete", plan)
    assert response.status_code == 302
    assert response["Location"] == reverse("review:item", args=[batch.pk, second.item_key]) + f"?plan={plan.pk}"
    assert Check.objects.get(editor=editor, item_key=first.item_key).verdict == "complete"
    # "Next" skips what the editor has checked: from the second item, after saving, to the third.
    response = save_verdict(client, batch, second.item_key, "none", plan)
    assert response["Location"].endswith(f"/check/{third.item_key}/?plan={plan.pk}")
    assert "18 items waiting for you" in client.get(reverse("review:queue")).content.decode()


def test_blind_first_holds_for_a_lead_who_checks_a_plans_items(client, django_user_model, editor, batch):
    """A lead not assigned to a dump reads every verdict on it; made an editor of a plan over it, they
    check it blind, as an assigned lead does, and may not settle it."""
    checker = user_with_role(django_user_model, "kimura", "lead")
    maker = user_with_role(django_user_model, "sato", "lead")
    make_plan(client, maker, batch, [editor, checker], checks_needed="2")
    plan = the_plan()
    first = first_items(plan, 1)[0]
    client.force_login(editor)
    save_verdict(client, batch, first.item_key, "partial", plan)
    client.force_login(checker)
    url = reverse("review:item", args=[batch.pk, first.item_key]) + f"?plan={plan.pk}"
    page = client.get(url).content.decode()
    assert "hanako" not in page.split('class="cv-card cv-item-list"')[0]  # the editor's verdict is hidden
    save_verdict(client, batch, first.item_key, "none", plan)
    revision = Check.objects.get(editor=checker, item_key=first.item_key).revisions.get()
    assert revision.not_blind is False
    assert "hanako" in client.get(url).content.decode()  # once theirs is saved, the other verdict shows
    # Blind to the dump as its editor, they do not settle the disagreement either.
    settle = reverse("review:settle", args=[batch.pk, first.item_key])
    client.post(settle, {"verdict": "partial", "reason": "r", "version": str(version_of(batch, first.item_key))})
    assert not Check.settlements.exists()


def test_a_second_editor_gets_an_item_until_it_has_the_checks_it_needs(client, editor, second_editor, plan, batch):
    first = first_items(plan, 1)[0]
    client.force_login(editor)
    save_verdict(client, batch, first.item_key, "complete", plan)
    client.force_login(second_editor)
    # Two checks per item: the item one editor checked still waits for the other.
    start = client.get(reverse("review:plan_check", args=[plan.pk]))
    assert start["Location"].endswith(f"/check/{first.item_key}/?plan={plan.pk}")


def test_one_who_is_not_the_plans_editor_gets_nothing_of_it(client, django_user_model, plan, batch):
    outsider = user_with_role(django_user_model, "jiro", "editor")
    client.force_login(outsider)
    queue = client.get(reverse("review:queue")).content.decode()
    assert "週次サンプル" not in queue
    page = client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    assert "waiting for you" not in page and reverse("review:plan_check", args=[plan.pk]) not in page


def test_the_plan_counts_its_items_with_a_final_verdict(client, editor, second_editor, plan, batch):
    first, second = first_items(plan, 2)
    for user in (editor, second_editor):
        client.force_login(user)
        save_verdict(client, batch, first.item_key, "complete", plan)
        save_verdict(client, batch, second.item_key, "complete" if user == editor else "none", plan)
    page = client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    # Agreed counts; a disagreement not settled does not.
    assert "1 of 20 items have a final verdict" in page


def test_one_editors_verdicts_are_not_final_while_the_plan_needs_two_checks(
    client, editor, second_editor, reviewer, lead, batch
):
    """Two checks per item, the first editor checked 8 items, the second none: the walk still offers all
    8 to the second, so neither progress nor the estimates may count them final."""
    make_plan(client, lead, batch, [editor, second_editor], checks_needed="2", size="8")
    plan = the_plan()
    client.force_login(editor)
    for item in first_items(plan, 8):
        save_verdict(client, batch, item.item_key, "complete", plan)
    client.force_login(second_editor)
    assert "8 items waiting for you" in client.get(reverse("review:queue")).content.decode()
    client.force_login(reviewer)
    assert "0 of 8 items have a final verdict" in client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    assert verdict_shares_checked(client, plan) == 0
    # The second editor's agreeing verdicts make them final.
    client.force_login(second_editor)
    for item in first_items(plan, 8):
        save_verdict(client, batch, item.item_key, "complete", plan)
    client.force_login(reviewer)
    assert "8 of 8 items have a final verdict" in client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    assert verdict_shares_checked(client, plan) == 8


def verdict_shares_checked(client: Any, plan: CheckPlan) -> int:
    """How many items the estimate of the share of "complete" verdicts counts (n checked)."""
    found = client.get(reverse("api:plan", args=[plan.pk])).json()["estimates"]
    return next(e["checked"] for e in found if e["name"] == "verdict_complete")


def test_a_statement_plan_draws_statements_and_opens_their_first_item(client, lead, editor, batch):
    make_plan(client, lead, batch, [editor], unit="statement", size="10")
    plan = the_plan()
    assert plan.population == 80  # two statements per response, each citing one source
    first = first_items(plan, 1)[0]
    assert re.fullmatch(r"r\d+-s\d+-\d+", first.item_key)
    client.force_login(editor)
    start = client.get(reverse("review:plan_check", args=[plan.pk]))["Location"]
    assert re.search(rf"/check/r\d+-c\d+/\?plan={plan.pk}$", start)
    assert "item 1 of 10" in client.get(start).content.decode()


def walk_queries(client: Any, plan: CheckPlan) -> list[str]:
    """The SQL of opening the plan's walk (its first waiting item)."""
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("review:plan_check", args=[plan.pk])).status_code == 302
    return [query["sql"] for query in queries]


@pytest.mark.parametrize("unit", ["citation", "statement"])
def test_the_walk_reads_no_dumps_heavy_fields_and_as_many_queries_for_two_dumps(client, lead, editor, batch, unit):
    client.force_login(editor)
    store_batch(client, {"sonar": 3}, start=100)
    make_plan(client, lead, batch, [editor], unit=unit, size="4")
    one = the_plan()
    make_plan(client, lead, batch, [editor], unit=unit, size="40", scope_kind="provider", scope_provider="perplexity")
    both = CheckPlan.objects.exclude(pk=one.pk).get()
    assert both.items.values("dump").distinct().count() == 2
    client.force_login(editor)
    walk_queries(client, one)  # the session, read once
    one_dump, two_dumps = walk_queries(client, one), walk_queries(client, both)
    assert len(one_dump) == len(two_dumps)
    assert not [sql for sql in two_dumps if '"rendered"' in sql or '"search_text"' in sql]


def test_the_queue_does_not_walk_a_plan_nobody_waits_on(client, lead, editor, batch):
    client.force_login(editor)
    with CaptureQueriesContext(connection) as before:
        client.get(reverse("review:queue"))
    make_plan(client, lead, batch, [editor], size="2")
    client.force_login(editor)
    for item in first_items(the_plan(), 2):
        save_verdict(client, batch, item.item_key, "complete", the_plan())
    with CaptureQueriesContext(connection) as after:
        queue = client.get(reverse("review:queue")).content.decode()
    assert "週次サンプル" not in queue
    assert len(after) == len(before)


# make run ----------------------------------------------------------------------------------------


def test_make_run_has_a_sample_plan_and_the_local_lead_can_make_one_over_the_sample_batch(client, capsys):
    call_command("ensure_local_account")
    call_command("load_sample_dumps")
    call_command("load_sample_review")
    assert "Sample plan: 40 citations of the sample batch, 16 checked" in capsys.readouterr().out
    plan = the_plan()
    assert plan.size == PLAN_SIZE and set(plan.strata) == {"perplexity · sonar", "perplexity · sonar-pro"}
    local = get_user_model().objects.get(username="editor")
    client.force_login(local)
    page = client.get(reverse("review:plan", args=[plan.pk])).content.decode()
    assert f"{PLAN_CHECKED} of {PLAN_SIZE} items have a final verdict" in page
    call_command("load_sample_review")  # once: run again, it changes nothing
    assert "Sample plan: already there." in capsys.readouterr().out and CheckPlan.objects.count() == 1

    batch = Dump.objects.get(filename=PLAN_BATCH)
    form = client.get(reverse("review:plan_new"), {"dump": batch.pk}).content.decode()
    assert f'<option value="{batch.pk}" selected>' in form
    response = make_plan(client, local, batch, [local], name="My plan", margin="", size="30")
    assert response.status_code == 302 and CheckPlan.objects.get(name="My plan").size == 30
