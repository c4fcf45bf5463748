"""The figures count what lies behind the citations (evidence text, a snapshot, a passage found, a
figure or date that differs), sliced like the rest; the handover report lists each citation's
evidence, its snapshot (URL, time, hash) and the passage found, as JSON, Markdown and its page."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from citeview.review.exports import shown_time
from citeview.snapshots.services import snapshot_paste
from tests.builders import sonar_object
from tests.conftest import OWN_FIXTURES

pytestmark = pytest.mark.django_db

TOKYO = "https://www.metro.tokyo.example/population"
OSAKA = "https://www.city.osaka.example/population"


def page_text(name: str) -> str:
    return (OWN_FIXTURES / "snapshots" / name).read_text(encoding="utf-8")


@pytest.fixture
def dumps(editor):
    """A Sonar answer citing Tokyo's page (with a search snippet) and Osaka's (without); a second
    answer cites Tokyo's page too. Tokyo's page has a snapshot that gives another figure."""
    results = [{"title": "Population of Tokyo", "url": TOKYO, "snippet": "Tokyo's population is estimated monthly."}]
    first = sonar_object(
        "As of January 2024, the population of Tokyo was about 14.1 million[1]. Osaka grew too[2].",
        [TOKYO, OSAKA],
        search_results=results,
    )
    second = sonar_object("Tokyo's population grew by 0.3%[1].", [TOKYO + "#latest"])
    stored = [dump_ingest(raw=json.dumps(raw).encode(), uploaded_by=editor)[0] for raw in (first, second)]
    snapshot_paste(url=TOKYO, text=page_text("en-population-other-figure.txt"), taken_by=editor)
    return stored


def test_the_figures_count_evidence_snapshots_passages_and_mismatches(editor_client, dumps):
    figures = editor_client.get(reverse("review:figures_json")).json()["overall"]
    assert figures["evidence_text_share"]["numerator"] == 1 and figures["evidence_text_share"]["denominator"] == 3
    assert (figures["snapshot_share"]["numerator"], figures["snapshot_share"]["denominator"]) == (2, 3)
    assert (figures["passage_found_share"]["numerator"], figures["passage_found_share"]["denominator"]) == (2, 2)
    # 14.1 million against 13.9 million; the 0.3% claim agrees with its passage.
    assert (figures["figure_mismatch_share"]["numerator"], figures["figure_mismatch_share"]["denominator"]) == (1, 2)
    by_provider = editor_client.get(reverse("review:figures_json")).json()["by_provider"]
    assert [p["label"] for p in by_provider] == ["perplexity"] and by_provider[0]["snapshot_share"]["numerator"] == 2
    page = editor_client.get(reverse("review:figures")).content.decode()
    assert "The evidence behind the citations" in page and "2 of 3 citations" in page
    assert "1 of 2 passages found" in page


def test_figures_without_snapshots_say_why_they_are_empty(editor_client, editor):
    dump_ingest(raw=json.dumps(sonar_object("Osaka grew[1].", [OSAKA])).encode(), uploaded_by=editor)
    figures = editor_client.get(reverse("review:figures_json")).json()["overall"]
    assert figures["passage_found_share"]["empty_because"] == "no_snapshots"
    assert figures["figure_mismatch_share"]["empty_because"] == "no_passages"
    page = editor_client.get(reverse("review:figures"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "スナップショットのある引用ページがまだありません" in page


def test_the_report_lists_each_citations_evidence_snapshot_and_passage(editor_client, dumps):
    first = dumps[0]
    report = editor_client.get(reverse("review:report_json", args=[first.pk])).json()
    tokyo, osaka = report["responses"][0]["evidence"]  # per source, its citations under it
    assert tokyo["source_url"] == TOKYO and tokyo["markers"] == ["[1]"] and tokyo["item_keys"] == ["r0-c0"]
    assert tokyo["evidence"] == {"kind": "search_snippet", "text": "Tokyo's population is estimated monthly."}
    assert tokyo["snapshot"]["url"] == TOKYO and len(tokyo["snapshot"]["sha256"]) == 64
    (passage,) = tokyo["passages"]
    assert passage["found"] and "13.9 million" in passage["text"] and passage["differs"] and passage["score"] >= 35
    assert osaka["snapshot"] is None and osaka["passages"] == [] and osaka["evidence"] is None

    markdown = editor_client.get(reverse("review:report_md", args=[first.pk])).content.decode()
    assert "### Evidence per citation" in markdown
    # Pasted text is said to be pasted, by whom and when, never as a page citeview read from its address.
    assert (tokyo["snapshot"]["method"], tokyo["snapshot"]["taken_by"]) == ("paste", "hanako")
    taken = shown_time(tokyo["snapshot"]["taken_at"])
    assert f"Snapshot: pasted by hanako, {taken} (SHA-256 {tokyo['snapshot']['sha256']})" in markdown
    assert f"` {TOKYO} `, taken" not in markdown
    assert "Cited by: \\[1\\]" in markdown
    assert (
        "13.9 million" in markdown
        and "The claim and the passage differ in a date, figure, qualifier or negation" in markdown
    )
    assert "In the dump (a search snippet): “Tokyo's population is estimated monthly.”" in markdown
    assert "Snapshot: none" in markdown

    page = editor_client.get(reverse("review:report", args=[first.pk])).content.decode()
    assert "Evidence per citation" in page and tokyo["snapshot"]["sha256"] in page and "13.9 million" in page
    assert f"pasted by hanako, {taken}" in page
    japanese = editor_client.get(reverse("review:report_md", args=[first.pk]), {"lang": "ja"}).content.decode()
    assert "### 引用ごとの根拠" in japanese and "スナップショット：なし" in japanese
