"""A check plan's estimates, on the figures page, the plan's report (Markdown, JSON), its exports (CSV,
JSON) and the API: each with its 95% interval, n checked and N in scope, from final verdicts (settled,
and agreed; a disagreement nobody settled counts nowhere), an unfinished plan saying so, and a citation
plan explaining why it gives no recall.

The plan is drawn over the ten-item dump of ``report_dump`` (two editors checked everything): its eight
citations (a citation plan), or its six statements (a statement plan), every unit drawn."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citeview.review.models import CheckPlan, PlanItem
from citeview.review.selectors import dump_check_items
from tests.conftest import user_with_role
from tests.review.report_dump import SETTLE_REASON, check_everything, settle, ten_item_dump

pytestmark = pytest.mark.django_db

SEED = 4_611_686_018_427_387_903  # the largest seed new_seed makes: it must survive every reader
STRATUM = "anthropic · claude-sonnet-4-5"


def make_plan(dump, lead, unit: str, drawn: int | None = None, more: tuple = ()) -> CheckPlan:
    """Every unit of ``dump`` drawn (or the first ``drawn``), and of each dump of ``more``, as the plan's
    draw would store them (the draw is tested apart)."""
    keys, population = [], 0
    for each in (dump, *more):
        units = units_of(each, unit)
        population += len(units)
        keys += [(each, key, response) for key, response in units[:drawn]]
    plan = CheckPlan.objects.create(
        name="July sample",
        unit=unit,
        scope_kind="batch",
        scope_dump=dump,
        requested_size=len(keys),
        size=len(keys),
        population=population,
        seed=SEED,
        strata={STRATUM: {"population": population, "drawn": len(keys)}},
        scope_dump_ids=[each.pk for each in (dump, *more)],
        made_by=lead,
    )
    for position, (each, key, response) in enumerate(keys):
        PlanItem.objects.create(
            plan=plan, dump=each, item_key=key, response_index=response, stratum=STRATUM, position=position
        )
    return plan


def units_of(dump, unit: str) -> list[tuple[str, int]]:
    items = dump_check_items(dump)
    if unit == "citation":
        return [(item.key, item.response) for item in items if item.kind == "citation"]
    return list(dict.fromkeys((item.statement_key, item.response) for item in items))


@pytest.fixture
def lead(django_user_model):
    return user_with_role(django_user_model, "sato", "lead")


@pytest.fixture
def citation_plan(checked, lead) -> CheckPlan:
    return make_plan(checked, lead, "citation")


@pytest.fixture
def statement_plan(checked, lead) -> CheckPlan:
    return make_plan(checked, lead, "statement")


def estimates(client, plan: CheckPlan) -> dict[str, dict]:
    found = client.get(reverse("api:plan", args=[plan.pk])).json()
    return {e["name"]: e for e in found["estimates"]}


def figures_page(client, plan: CheckPlan) -> str:
    return client.get(reverse("review:figures"), {"plan": plan.pk}, HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_precision_counts_agreed_and_settled_verdicts_and_leaves_out_the_unsettled(client, reviewer, citation_plan):
    client.force_login(reviewer)
    precision = estimates(client, citation_plan)["citation_precision"]
    # [1] [2] [4] [7] complete (agreed), [5] partial (settled) on a statement supported together: 5 count;
    # [6] none and [8] supports and refutes do not; [3] (partial ≠ none, not settled) is left out.
    assert precision["checked"] == 7 and precision["population"] == 8 and precision["drawn"] == 8
    assert precision["value"] == pytest.approx(5 / 7)
    assert precision["low"] < 5 / 7 < precision["high"]
    assert precision["complete"] is False


def test_settling_the_disagreement_brings_its_citation_into_the_estimates(client, reviewer, checked, citation_plan):
    settle(checked, user_with_role(type(reviewer), "kimura2", "lead"), "[3]", "none", SETTLE_REASON)
    client.force_login(reviewer)
    found = client.get(reverse("api:plan", args=[citation_plan.pk])).json()
    precision = {e["name"]: e for e in found["estimates"]}["citation_precision"]
    assert precision["checked"] == 8 and precision["value"] == pytest.approx(5 / 8)
    assert found["complete"] is True and found["items_checked"] == 8


def test_the_figures_page_shows_each_estimate_with_its_interval_n_and_N(client, reviewer, citation_plan):
    client.force_login(reviewer)
    html = figures_page(client, citation_plan)
    row = re.search(r'<tr class="cv-estimate-citation_precision">(.*?)</tr>', html, re.S).group(1)
    assert re.search(r"71\.4% \(\d+\.\d%–\d+\.\d%\), 7 of 8 citations checked", row), row
    assert 'class="cv-bar-interval"' in html  # the interval drawn, not a bare bar
    assert str(SEED) in html


def test_an_unfinished_plan_says_its_estimates_cover_the_items_checked_so_far(client, reviewer, citation_plan):
    client.force_login(reviewer)
    html = figures_page(client, citation_plan)
    assert "This plan is not finished: the estimates cover the 7 of 8 drawn items checked so far." in html


def test_a_citation_plan_explains_why_it_gives_no_recall(client, reviewer, citation_plan):
    client.force_login(reviewer)
    recall = estimates(client, citation_plan)["citation_recall"]
    assert recall["value"] is None and recall["not_estimated_because"] == "citation_plan_has_no_recall"
    html = figures_page(client, citation_plan)
    row = re.search(r'<tr class="cv-estimate-citation_recall">(.*?)</tr>', html, re.S).group(1)
    assert "A citation plan cannot estimate recall" in row and "%" not in row


def test_a_statement_plan_estimates_recall(client, reviewer, statement_plan):
    client.force_login(reviewer)
    recall = estimates(client, statement_plan)["citation_recall"]
    # S1 and S3 are supported together; S2 and S4 not, S5 contradicted; S6 claims nothing.
    assert recall["checked"] == 5 and recall["value"] == pytest.approx(2 / 5)
    assert recall["population"] == 6 and recall["low"] <= 0.4 <= recall["high"]  # every statement checked: exact


def test_the_share_of_each_verdict_is_estimated_from_final_verdicts(client, reviewer, citation_plan):
    client.force_login(reviewer)
    found = estimates(client, citation_plan)
    assert found["verdict_complete"]["value"] == pytest.approx(4 / 7)
    assert found["verdict_partial"]["value"] == pytest.approx(1 / 7)  # [5], settled
    assert found["verdict_none"]["value"] == pytest.approx(1 / 7)  # [6]; [3]'s "none" is taro's alone


def test_the_plans_report_gives_scope_seed_strata_and_each_interval(client, reviewer, citation_plan):
    client.force_login(reviewer)
    markdown = client.get(reverse("review:plan_report_md", args=[citation_plan.pk])).content.decode()
    assert f"Seed: {SEED}" in markdown
    assert "Drawn: 8 of 8 citations in scope" in markdown
    assert f"| {STRATUM} | 8 | 8 |" in markdown
    assert re.search(r"- Citation precision: 71\.4% \(\d+\.\d%–\d+\.\d%\), 7 of 8 citations checked", markdown)
    assert "Not finished: the estimates cover the 7 of 8 drawn items checked so far" in markdown
    report = client.get(reverse("review:plan_report_json", args=[citation_plan.pk])).json()
    assert report["plan"]["seed"] == SEED and report["plan"]["strata"][0]["stratum"] == STRATUM


def test_the_plans_report_escapes_the_markdown_of_strata_and_usernames(client, reviewer, checked, django_user_model):
    maker = user_with_role(django_user_model, "a_lead_", "lead")
    plan = make_plan(checked, maker, "citation")
    plan.strata = {"openai · [gpt](https://evil.example/) <b>|": {"population": 8, "drawn": 8}}
    plan.save(update_fields=["strata"])
    client.force_login(reviewer)
    markdown = client.get(reverse("review:plan_report_md", args=[plan.pk])).content.decode()
    assert "| openai · \\[gpt\\](https://evil.example/) \\<b\\>\\| | 8 | 8 |" in markdown
    assert "made by a\\_lead\\_ on" in markdown


def test_the_estimates_export_as_csv_and_json(client, reviewer, citation_plan):
    client.force_login(reviewer)
    text = client.get(reverse("review:plan_estimates_csv", args=[citation_plan.pk])).content.decode()
    rows = {row["estimate"]: row for row in csv.DictReader(io.StringIO(text.lstrip("\ufeff")))}
    assert rows["citation_precision"]["checked"] == "7" and rows["citation_precision"]["population"] == "8"
    assert rows["citation_precision"]["seed"] == str(SEED) and float(rows["citation_precision"]["low"]) > 0
    exported = client.get(reverse("review:plan_estimates_json", args=[citation_plan.pk])).json()
    assert exported["plan"]["seed"] == SEED and len(exported["estimates"]) == 8


def test_the_api_lists_plans_with_their_seed_and_strata(client, reviewer, citation_plan):
    client.force_login(reviewer)
    listed = client.get("/api/plans").json()
    assert listed["count"] == 1
    assert listed["results"][0]["seed"] == SEED and listed["results"][0]["strata"][0]["population"] == 8
    assert client.get("/api/plans/999999").status_code == 404


def test_an_editor_reads_no_estimate_from_checks_blind_first_hides(client, editor, django_user_model, lead, checked):
    # A third editor who has checked nothing reads no one's verdicts, so no estimate either.
    newcomer = user_with_role(django_user_model, "jiro", "editor")
    plan = make_plan(checked, lead, "citation")
    client.force_login(newcomer)
    found = client.get(reverse("api:plan", args=[plan.pk])).json()
    assert found["hidden_until_you_check"] > 0
    assert all(e["value"] is None for e in found["estimates"])


def test_hidden_until_you_check_counts_the_plans_items_each_in_its_own_dump(
    client, editor, second_editor, django_user_model, lead, checked
):
    """One citation of each of two dumps, both checked by two editors: 2 items hidden, not 4 checks."""
    other = ten_item_dump(editor, response_id="resp_second")
    check_everything(other, editor, 0)
    check_everything(other, second_editor, 1)
    plan = make_plan(checked, lead, "citation", drawn=1, more=(other,))
    client.force_login(user_with_role(django_user_model, "jiro", "editor"))
    assert client.get(reverse("api:plan", args=[plan.pk])).json()["hidden_until_you_check"] == 2


def test_strangers_and_anonymous_readers_get_no_estimates(client, citation_plan, django_user_model):
    urls = (
        reverse("api:plan", args=[citation_plan.pk]),
        "/api/plans",
        reverse("review:plan_report_md", args=[citation_plan.pk]),
        reverse("review:plan_report_json", args=[citation_plan.pk]),
        reverse("review:plan_estimates_csv", args=[citation_plan.pk]),
        reverse("review:plan_estimates_json", args=[citation_plan.pk]),
    )
    for url in urls:
        assert client.get(url).status_code in (302, 401), url
    client.force_login(django_user_model.objects.create_user("no-role", password="a-long-test-password"))
    for url in urls:
        assert client.get(url).status_code == 403, url


def test_the_exports_refuse_a_write(client, reviewer, citation_plan):
    client.force_login(reviewer)
    assert client.post(reverse("review:plan_estimates_csv", args=[citation_plan.pk])).status_code == 405
    assert client.post(reverse("api:plan", args=[citation_plan.pk])).status_code == 405


def test_the_plans_page_shows_the_same_estimates_as_the_figures_page(client, reviewer, citation_plan):
    client.force_login(reviewer)
    html = client.get(reverse("review:plan", args=[citation_plan.pk]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = re.search(r'<tr class="cv-estimate-citation_precision">(.*?)</tr>', html, re.S).group(1)
    figures_row = re.search(
        r'<tr class="cv-estimate-citation_precision">(.*?)</tr>', figures_page(client, citation_plan), re.S
    )
    assert row == figures_row.group(1) and "7 of 8 citations checked" in row
    assert 'class="cv-bar-interval"' in html


def test_a_statement_plans_estimates_take_as_many_queries_for_two_dumps_as_for_one(
    client, reviewer, editor, checked, lead
):
    other = ten_item_dump(editor, response_id="resp_second")
    one, both = make_plan(checked, lead, "statement"), make_plan(checked, lead, "statement", more=(other,))
    client.force_login(reviewer)
    client.get(reverse("api:plan", args=[one.pk]))  # the session and the rate budget, read once
    counts = []
    for plan in (one, both):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("api:plan", args=[plan.pk])).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_a_plans_estimates_take_as_many_queries_for_one_item_as_for_all(client, reviewer, checked, lead):
    client.force_login(reviewer)
    for unit in ("citation", "statement"):
        whole, one = make_plan(checked, lead, unit), make_plan(checked, lead, unit, drawn=1)
        client.get(reverse("api:plan", args=[one.pk]))  # the session and the rate budget, read once
        counts = []
        for plan in (one, whole):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(reverse("api:plan", args=[plan.pk])).status_code == 200
            counts.append(len(queries))
        assert counts[0] == counts[1], unit


def test_a_stratum_with_nothing_checked_is_named_as_left_out_of_the_estimates(client, reviewer, citation_plan):
    # A plan smaller than its strata draws nothing from the smallest: its estimates are of the strata
    # checked, and the pages say how many units in scope they leave out.
    citation_plan.strata = {**citation_plan.strata, "perplexity · sonar": {"population": 40, "drawn": 0}}
    citation_plan.population += 40
    citation_plan.save()
    client.force_login(reviewer)
    precision = estimates(client, citation_plan)["citation_precision"]
    assert precision["uncovered"] == 40 and precision["complete"] is False
    html = figures_page(client, citation_plan)
    assert "40 units in scope are in strata with nothing checked yet: the estimates leave them out." in html
