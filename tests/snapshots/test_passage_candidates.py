"""Issue 30: the check panel shows up to three candidate passages, best first, each with its score and
the figures and dates it holds; the worker finds them once and keeps them with the passage."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from citeview.core.common.version import PASSAGE_VERSION
from citeview.dumps.services import dump_ingest
from citeview.snapshots.kept_passages import passages_refresh
from citeview.snapshots.models import Snapshot, SnapshotPassage
from citeview.snapshots.services import snapshot_paste
from tests.builders import sonar_object
from tests.core.evidence.test_passages import VOTE_CLAIM, VOTE_PAGE

pytestmark = pytest.mark.django_db

UN = "https://news.un.example/story/2025/09/declaration"
CITY = "https://www.city.example.jp/kurashi/jidouteate"
JA_PAGE = (
    "児童手当制度のご案内（令和7年度）\n\n"
    "令和6年10月分から制度が改正され、第3子以降の支給額の増額などが行われました。\n\n"
    "■支給額（児童1人当たりの月額）\n"
    "| 児童の年齢 | 第1子・第2子 | 第3子以降 |\n"
    "| --- | --- | --- |\n"
    "| 3歳未満 | 15,000円 | 30,000円 |\n\n"
    "改正前の制度では、第3子以降は月額1万5000円でした。\n\n"
    "児童手当は、偶数月の各15日に、前月分までの2か月分を支給します。"
)
JA_CLAIM = "児童手当は、3歳未満の第3子以降について月額3万円が支給される。"


def stored(editor, text: str, url: str):
    return dump_ingest(raw=json.dumps(sonar_object(text, [url])).encode(), uploaded_by=editor)[0]


def panel(client, dump, language: str = "en") -> str:
    page = client.get(reverse("review:item", args=[dump.pk, "r0-c0"]), HTTP_ACCEPT_LANGUAGE=language)
    html = page.content.decode()
    return html[html.index('id="cv-snapshot"') : html.index("</section>", html.index('id="cv-snapshot"'))]


def test_three_candidates_are_kept_best_first_the_figure_holding_paragraph_first(editor):
    stored(editor, VOTE_CLAIM.replace(".", "[1]."), UN)
    snapshot_paste(url=UN, text=VOTE_PAGE, taken_by=editor)
    (kept,) = SnapshotPassage.objects.all()
    assert kept.finder == PASSAGE_VERSION and len(kept.candidates) == 3
    assert kept.text == kept.candidates[0]["text"] == "The text was adopted 142-12, with 10 abstentions."
    assert [c["score"] for c in kept.candidates] == sorted((c["score"] for c in kept.candidates), reverse=True)
    assert all(VOTE_PAGE[c["start"] : c["end"]] == c["text"] for c in kept.candidates)


def test_the_panel_shows_each_candidate_with_its_score_and_its_figures_and_dates(editor_client, editor):
    dump = stored(editor, VOTE_CLAIM.replace(".", "[1]."), UN)
    snapshot_paste(url=UN, text=VOTE_PAGE, taken_by=editor)
    kept = SnapshotPassage.objects.get()
    html = panel(editor_client, dump)
    # The first beside the claim, compared; its figures listed under it.
    first = html[html.index('id="cv-snapshot-passage"') : html.index("cv-snapshot-candidates")]
    assert "142-12, with 10 abstentions" in first
    figures = re.findall(r'class="cv-chip cv-chip-muted cv-passage-figure">([^<]*)<', first)
    assert figures[:3] == ["142", "12", "10"]
    # The others in order, each with its score, its own figures (or none) and its own quote button.
    others = html[html.index("cv-snapshot-candidates") :]
    assert '<ol class="cv-candidates" start="2">' in others
    for number, candidate in enumerate(kept.candidates[1:], 2):
        assert f'id="cv-snapshot-candidate-{number}"' in others
        assert f"score {candidate['score']} / 100" in others
    assert others.index("The UN General Assembly on Friday") < others.index("The New York Declaration endorsed")
    second = others[others.index('id="cv-snapshot-candidate-2"') : others.index('id="cv-snapshot-candidate-3"')]
    # Its "Friday" is no kind the claim states (issue 45: chips show the figures and dates of the claim's kinds).
    assert re.findall(r'class="cv-chip cv-chip-muted cv-passage-figure">([^<]*)<', second) == []
    assert [s for s in re.findall(r"score (\d+) / 100", html)] == [str(c["score"]) for c in kept.candidates]


def test_a_candidate_without_figures_or_dates_says_so(editor_client, editor):
    page = (
        "The council approved the new library plan after a long debate.\n\n"
        "Residents had asked the council for a new library near the station.\n\n"
        "The library plan includes a reading room for children."
    )
    dump = stored(editor, "The council approved the library plan[1].", UN)
    snapshot_paste(url=UN, text=page, taken_by=editor)
    html = panel(editor_client, dump)
    assert 'id="cv-snapshot-candidate-2"' in html
    assert "Figures and dates of the claim's kinds in it:" not in html
    assert "No figures or dates of the claim's kinds in it." in html[html.index("cv-snapshot-candidates") :]


def test_the_panel_of_a_japanese_page_in_japanese(editor_client, editor):
    dump = stored(editor, JA_CLAIM.replace("。", "[1]。"), CITY)
    snapshot_paste(url=CITY, text=JA_PAGE, taken_by=editor)
    kept = SnapshotPassage.objects.get()
    assert kept.text == "| 3歳未満 | 15,000円 | 30,000円 |"  # the row, under its header, holding 3万円
    html = panel(editor_client, dump, "ja")
    assert "スナップショットで見つかった箇所" in html and f"一致度 {kept.score} / 100" in html
    assert "主張と同じ種類の数値・日付：" in html and ">30,000<" in html
    assert "ほかの候補（順位順。主張と照合したのは1番目の箇所）" in html
    assert 'id="cv-snapshot-candidate-2"' in html
    assert "Other candidates" not in html and "score " not in html


def test_passages_kept_by_other_code_are_read_by_no_page_and_found_again_with_their_candidates(editor_client, editor):
    """PASSAGE_VERSION is a digest of the evidence code: a row kept before candidates were (its finder
    another version, no candidates) is never shown; refreshing finds it again, candidates and all."""
    dump = stored(editor, VOTE_CLAIM.replace(".", "[1]."), UN)
    snapshot_paste(url=UN, text=VOTE_PAGE, taken_by=editor)
    SnapshotPassage.objects.update(finder="0" * 64, candidates=[], text="An old passage.")
    Snapshot.objects.update(passages_found_by="0" * 64)
    assert passages_refresh() == 1  # the tests' queue runs it at once
    kept = SnapshotPassage.objects.get()
    assert kept.finder == PASSAGE_VERSION and len(kept.candidates) == 3
    html = panel(editor_client, dump)
    assert "An old passage." not in html and "142-12" in html


def test_each_candidate_has_its_own_button_to_take_it_as_the_quote(editor_client, editor):
    dump = stored(editor, VOTE_CLAIM.replace(".", "[1]."), UN)
    snapshot_paste(url=UN, text=VOTE_PAGE, taken_by=editor)
    html = panel(editor_client, dump)
    # one "Use as the evidence quote" (the first, beside the claim), one "Quote this candidate instead" each
    assert html.count(">Use as the evidence quote<") == 1
    assert html.count('data-quote-from="cv-snapshot-candidate-') == html.count("Quote this candidate instead") == 2
