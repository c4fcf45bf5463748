"""The caps on what one dump may cost: items an editor can check, footnotes drawn, diagnostics listed.
Reaching one is said where it applies, never a silent cut."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db


def marker_dump(editor, text: str, citations: list[str] | None = None) -> Dump:
    raw = json.dumps(sonar_object(text, citations or ["https://example.org/a"])).encode()
    return dump_ingest(raw=raw, uploaded_by=editor)[0]


def test_a_dump_offers_at_most_the_item_cap_for_checking_and_says_how_many_it_has(client, editor, settings):
    settings.CITEVIEW_MAX_ITEMS_PER_DUMP = 5
    dump = marker_dump(editor, "東京です[1]。" * 12)
    assert dump.item_count == 12 and dump.checkable_item_count == 5
    client.force_login(editor)
    page = client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()
    assert "Check 1 of 5" in page and "This dump has 12 items; the first 5 can be checked here" in page
    assert "CITEVIEW_MAX_ITEMS_PER_DUMP" in client.get(dump.get_absolute_url()).content.decode()
    assert client.get(reverse("review:item", args=[dump.pk, "r0-c7"])).status_code == 404  # past the cap
    checks = client.get(f"/api/dumps/{dump.pk}/checks").json()
    assert len(checks["items"]) == 5 and checks["uncheckable_item_count"] == 7
    summary = client.get("/api/dumps").json()["results"][0]
    assert summary["item_count"] == 5 and summary["uncheckable_item_count"] == 7
    report = client.get(reverse("review:report_md", args=[dump.pk])).content.decode()
    assert "Not offered for checking: 7 item(s)" in report


def test_a_dump_whose_checkable_items_are_all_checked_is_done_in_the_list(client, editor, settings):
    settings.CITEVIEW_MAX_ITEMS_PER_DUMP = 2
    settings.CITEVIEW_CHECKS_PER_ITEM = 1  # a team that checks each item once
    dump = marker_dump(editor, "東京です[1]。" * 4)
    client.force_login(editor)
    for key in ("r0-c0", "r0-c1"):
        client.post(reverse("review:item", args=[dump.pk, key]), {"version": "0", "verdict": "complete"})
    assert client.get("/api/dumps?progress=done").json()["count"] == 1
    assert "2 / 2" in client.get(reverse("pages:home")).content.decode()


def test_each_citation_of_a_statement_reads_as_its_words_but_only_the_first_at_length(client, editor):
    words = "東京の人口はとても多いです、" * 6
    dump = marker_dump(editor, words + "[1]" * 40 + "。")
    client.force_login(editor)
    page = client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()
    nav = page[page.index('class="cv-card cv-item-list"') :]
    # No bare "[1]" row: every item starts with its statement's words; the second on, in 30 characters.
    assert nav.count("<li") == 40 and nav.count(words[:29] + "…") == 39
    assert nav.count(words[:60]) == 1


def test_the_viewer_lists_a_few_diagnostics_of_each_kind_and_counts_the_rest(client, editor):
    dump = marker_dump(editor, "[9]" * 50)  # fifty markers that point at no source
    client.force_login(editor)
    page = client.get(dump.get_absolute_url()).content.decode()
    assert page.count('<code class="cv-code">unresolved_marker</code>') == 10
    assert "and 40 more like it, all in the normalised JSON" in page
    assert len(client.get(reverse("pages:normalized", args=[dump.pk])).json()["responses"][0]["unresolved"]) == 50


def test_footnotes_past_the_drawn_cap_are_shown_as_written(client, editor, settings):
    settings.CITEVIEW_MAX_CITATIONS_DRAWN = 3
    dump = marker_dump(editor, "東京です[1]。" * 5)
    client.force_login(editor)
    page = client.get(dump.get_absolute_url()).content.decode()
    assert page.count('class="cv-cite-link"') == 3 and "Footnotes are drawn up to character" in page
    assert "cited 2 more times where no footnote is drawn" in page
