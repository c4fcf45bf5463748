"""The figures page: every rate a percentage with its n, an empty figure saying why it is empty, and
charts whose words do not scale with the chart."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"  # one statement citing [2] (two URLs) and [9], and an unresolved [8]


def figures_page(client, language: str = "en") -> str:
    return client.get(reverse("review:figures"), HTTP_ACCEPT_LANGUAGE=language).content.decode()


def save(client, dump, key: str, **values: str) -> None:
    version = dump.item_states.filter(key=key).values_list("version", flat=True).first() or 0
    response = client.post(reverse("review:item", args=[dump.pk, key]), {"version": str(version), **values})
    assert response.status_code == 302


def test_with_nothing_checked_every_empty_figure_says_so(client, editor):
    dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)
    client.force_login(editor)
    page = figures_page(client)
    assert "Cannot be computed yet: nothing has been checked yet." in page
    assert "No verdicts recorded yet." in page  # the verdict chart, instead of six empty bars
    assert "no citation has verdicts from two editors yet" in page
    figures = client.get(reverse("review:figures_json")).json()["overall"]
    assert figures["citation_recall"] == {
        "numerator": 0,
        "denominator": 0,
        "value": None,
        "percent": None,
        "empty_because": "nothing_checked",
    }


def test_verdicts_without_a_statement_answer_say_that_is_what_recall_waits_for(client, editor):
    """The editor's day: five verdicts by keyboard, no statement question answered, and the figures
    showed "—" with no reason."""
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    for key in ("r0-c0-1", "r0-c0-2", "r0-c1"):
        save(client, dump, key, verdict="complete")
    page = figures_page(client)
    assert "Cannot be computed yet: no statement has an answer to “verification-worthy” yet." in page
    assert (
        "Recall and precision cannot be computed yet: no statement has an answer to “verification-worthy” yet." in page
    )
    japanese = figures_page(client, "ja")
    assert "まだ計算できません（「検証の対象」に回答した文がまだありません）。" in japanese
    overall = client.get(reverse("review:figures_json")).json()["overall"]
    assert overall["citation_recall"]["empty_because"] == overall["citation_precision"]["empty_because"]
    assert overall["citation_recall"]["empty_because"] == "no_worthy_answer"
    # What is known is still shown, as a percentage with its n.
    assert overall["unresolved_marker_rate"]["percent"] == 33.3  # [8] of [2], [9] and [8]
    assert "33.3%" in page and "1 of 3 markers" in page


def test_once_judged_every_rate_is_a_percentage_with_its_n(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    statement = {"verification_worthy": "yes", "supported_together": "no"}  # sent with each, as the form does
    save(client, dump, "r0-c0-1", verdict="complete", **statement)
    save(client, dump, "r0-c0-2", verdict="partial", **statement)
    save(client, dump, "r0-c1", verdict="none", **statement)
    overall = client.get(reverse("review:figures_json")).json()["overall"]
    # One worthy statement, not supported together: recall 0 of 1. Precision: [2] complete of its two
    # URLs, partial (not supported together), [9] none, the unresolved [8]: 1 of 4.
    assert (overall["citation_recall"]["percent"], overall["citation_precision"]["percent"]) == (0.0, 25.0)
    assert overall["citation_recall"]["empty_because"] is None
    page = figures_page(client)
    assert "0.0%" in page and "0 of 1 statement" in page
    assert "25.0%" in page and "1 of 4 citations" in page
    assert "mean of 1 answer" in page
    assert not re.search(r">\s*0\.\d{3}\s*<", page), "a rate written as a ratio"
    # The verdict table gives each verdict's share; agreement is a percentage too.
    assert "33.3%" in page
    japanese = figures_page(client, "ja")
    assert "1 文中 0 文" in japanese and "4 件中 1 件の引用" in japanese


def test_agreement_is_a_percentage(client, editor, second_editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    for user, verdict in ((editor, "complete"), (second_editor, "none")):
        client.force_login(user)
        save(client, dump, "r0-c1", verdict=verdict)
        save(client, dump, "r0-c0-1", verdict="complete")
    page = figures_page(client)
    assert "50.0%" in page  # one citation agreed on of two judged by both


def test_the_charts_are_drawn_unscaled_so_their_words_keep_their_size(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    save(client, dump, "r0-c1", verdict="partial", verification_worthy="yes", supported_together="yes")
    page = figures_page(client)
    charts = re.findall(r"<svg [^>]*>", page)
    assert len(charts) == 2
    for chart in charts:
        assert "viewBox" not in chart and 'width="100%"' in chart  # no viewBox: no scaling of its text
    assert re.search(r'<rect [^>]*width="[\d.]+%"[^>]*class="cv-bar"', page)  # bars as shares of the width
