"""The chips beside a snapshot's passages follow the passage (issue 45, the walk's findings): each
candidate shows the claim held against it, and the figures and dates it holds of the claim's kinds
only. The page is the forecast a Claude web search cited for "8% chance of precipitation"
(tests/fixtures/snapshots/en-weather.txt)."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from citeview.core.evidence.found import claims_kinds_in
from citeview.dumps.services import dump_ingest
from citeview.snapshots.services import snapshot_paste
from tests.builders import sonar_object
from tests.conftest import OWN_FIXTURES

pytestmark = pytest.mark.django_db

FORECAST = "https://www.wunderground.com/weather/us/ca/san-francisco"
PAGE = (OWN_FIXTURES / "snapshots" / "en-weather.txt").read_text(encoding="utf-8")
CLAIM = "Tomorrow there is an 8% chance of precipitation[1]."
FIGURE_CHIP = re.compile(r'class="cv-chip cv-chip-muted cv-passage-figure">([^<]*)<')


def panel(client, claim: str = CLAIM) -> str:
    dump = dump_ingest(raw=json.dumps(sonar_object(claim, [FORECAST])).encode(), uploaded_by=client.editor)[0]
    snapshot_paste(url=FORECAST, text=PAGE, taken_by=client.editor)
    html = client.get(reverse("review:item", args=[dump.pk, "r0-c0"]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    return html[html.index('id="cv-snapshot"') : html.index("</section>", html.index('id="cv-snapshot"'))]


@pytest.fixture
def weather(editor_client, editor):
    editor_client.editor = editor
    return editor_client


def candidates(html: str) -> list[str]:
    """The first passage's part of the panel, then each other candidate's."""
    first = html[html.index('id="cv-snapshot-passage"') : html.index("cv-snapshot-candidates")]
    others = html[html.index("cv-snapshot-candidates") :].split('class="cv-candidate"')[1:]
    return [first, *others]


def test_a_claim_about_the_chance_of_rain_lists_a_passages_percentages_not_its_weekdays_or_times():
    text = "Tonight Mon 09/15 Low · 57 °F · 8% Precip. Updated 9:12 AM."
    assert [f.text for f in claims_kinds_in("8% chance of precipitation", text)] == ["8"]


def test_a_claim_of_a_year_and_visitors_lists_years_and_counts_of_people_not_percentages():
    text = "2023年は2,507万人と、2019年比で78.6%まで回復した。"
    assert [f.text for f in claims_kinds_in("2023年の訪日客数は約2,500万人", text)] == ["2023年", "2,507万", "2019年"]


def test_the_panel_lists_only_the_figures_of_the_claims_kinds_under_each_candidate(weather):
    html = panel(weather)
    for part in candidates(html):
        assert set(FIGURE_CHIP.findall(part)) <= {"8", "20"}, part
    assert ">09<" not in html and ">Tue<" not in html and ">78<" not in html


def test_each_candidate_shows_the_claim_held_against_it(weather):
    first, *others = candidates(panel(weather))
    assert "8% Precip." in first and "figure differs" not in first
    decoy = next(part for part in others if "20% chance of precipitation" in part)
    assert "cv-candidate-hints" in decoy and "figure differs" in decoy
    holding = next(part for part in others if "8% Precip." in part)
    assert "figure differs" not in holding and "figure not stated in the evidence" not in holding
