"""The viewer's diagnostics read as words, with their codes behind a toggle: the sources never cited
are one row linking to each, every row that has a place in the page links to it (a footnote, an
unresolved marker, a source), and a box per severity shows or hides its rows."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.utils import translation

import citeview.dumps
from citeview.dumps.models import Dump
from citeview.dumps.viewer_body import technical_value
from tests.builders import sonar_object
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

JA = {"HTTP_ACCEPT_LANGUAGE": "ja-JP,ja;q=0.9"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en-US"}
SAMPLES = Path(citeview.dumps.__file__).parent / "samples"


@dataclass
class Row:
    classes: str
    text: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)  # (href, text)
    technical: str = ""


class ViewerPage(HTMLParser):
    """The diagnostic rows of a viewer page, every id on it and the unresolved chips' links."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[Row] = []
        self.ids: set[str] = set()
        self.chips: list[str] = []
        self.filters: list[str] = []
        self._row: Row | None = None
        self._depth = 0
        self._link: list[str] | None = None
        self._technical = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        classes = values.get("class", "").split()
        if values.get("id"):
            self.ids.add(values["id"])
        if tag == "a" and "cv-unresolved-chip" in classes:
            self.chips.append(values["href"])
        choice = [c for c in classes if c.startswith("cv-severity-choice-")]
        if tag == "input" and values.get("type") == "checkbox" and choice:
            self.filters.append(choice[0].removeprefix("cv-severity-choice-"))
        if tag == "li" and "cv-diagnostic" in classes:
            self._row, self._depth = Row(values["class"]), 0
        if self._row is None:
            return
        if tag == "li":
            self._depth += 1
        if tag == "a":
            self._link = [values["href"], ""]
        if tag == "p" and "cv-technical" in classes:
            self._technical = True

    def handle_endtag(self, tag: str) -> None:
        if self._row is None:
            return
        if tag == "a" and self._link:
            self._row.links.append((self._link[0], self._link[1].strip()))
            self._link = None
        if tag == "p":
            self._technical = False
        if tag == "li":
            self._depth -= 1
            if not self._depth:
                self.rows.append(self._row)
                self._row = None

    def handle_data(self, data: str) -> None:
        if self._row is None:
            return
        if self._technical:
            self._row.technical += data
        else:
            self._row.text += data
        if self._link is not None:
            self._link[1] += data


def viewer(client, raw: bytes, **headers) -> tuple[Dump, ViewerPage]:
    client.post("/", {"text": raw.decode()})
    dump = Dump.objects.latest("pk")
    return dump, ViewerPage(client.get(dump.get_absolute_url(), **headers).content.decode())


def words(text: str) -> str:
    return " ".join(text.split())


EIGHT_SOURCES = [f"https://example.jp/kiji/{n}" for n in range(1, 9)]


def test_the_sources_never_cited_are_one_row_that_links_to_each(editor_client):
    raw = json.dumps(sonar_object("東京は首都です[1]。大阪は西にあります[5]。", EIGHT_SOURCES)).encode()
    _, page = viewer(editor_client, raw, **EN)
    (row,) = [row for row in page.rows if "sources are never cited" in row.text]
    assert words(row.text).startswith("ℹ note 6 sources are never cited: [2] [3] [4] [6] [7] [8]")
    assert row.links == [(f"#cv-r0-src-{n}", f"[{n}]") for n in (2, 3, 4, 6, 7, 8)]
    assert all(href[1:] in page.ids for href, _ in row.links)
    assert not [r for r in page.rows if "never cites it" in r.text]  # no row per source any more


def test_the_grouped_row_says_so_in_japanese(editor_client):
    raw = json.dumps(sonar_object("東京は首都です[1]。", EIGHT_SOURCES[:3])).encode()
    _, page = viewer(editor_client, raw, **JA)
    (row,) = [row for row in page.rows if row.links and row.links[0][0] == "#cv-r0-src-2"]
    assert "2 件の出典はどこにも引用されていません" in words(row.text)


def test_codes_and_values_are_behind_the_toggle_and_words_come_first(editor_client):
    _, page = viewer(editor_client, own_fixture("agent-seed-incomplete.sse"), **JA)
    conflict = next(row for row in page.rows if "source_conflict" in row.technical)
    assert "source_conflict" not in conflict.text and "2#2" not in conflict.text
    assert "keys: 2, 2#2" in conflict.technical  # the key, for whoever reads the JSON
    html = editor_client.get(Dump.objects.get().get_absolute_url(), **JA).content.decode()
    assert 'class="cv-show-codes"' in html and "コードと値を表示" in html


def test_each_row_with_a_place_links_to_it(editor_client):
    _, page = viewer(editor_client, own_fixture("agent-seed-incomplete.sse"), **EN)
    places = {next(code for code in row.technical.split() if "_" in code): row.links for row in page.rows}
    assert places["unresolved_marker"] == [("#cv-r0-unresolved-0", "Show in the answer →")]
    assert places["source_conflict"] == [("#cv-r0-src-1", "Show the source →")]
    for links in places.values():
        assert all(href[1:] in page.ids for href, _ in links)


def test_a_quote_that_differs_from_the_document_links_to_its_footnote(editor_client):
    _, page = viewer(editor_client, own_fixture("claude-ja-documents-exchange.json"), **EN)
    mismatch = [row for row in page.rows if "cited_text_mismatch" in row.technical]
    assert mismatch and all(row.links for row in mismatch)
    for row in mismatch:
        ((href, label),) = row.links
        assert href.startswith("#cv-r0-cite-") and href[1:] in page.ids and label == "Show in the answer →"


def test_the_unresolved_chip_leads_to_the_first_unresolved_marker(editor_client):
    text = "東京は首都です[1]。大阪[7]、名古屋[8]。"
    _, page = viewer(editor_client, json.dumps(sonar_object(text, EIGHT_SOURCES[:1])).encode(), **EN)
    assert page.chips == ["#cv-r0-unresolved-0"] and "cv-r0-unresolved-0" in page.ids
    unresolved = [row for row in page.rows if "unresolved_marker" in row.technical]
    assert [row.links for row in unresolved] == [
        [("#cv-r0-unresolved-0", "Show in the answer →")],
        [("#cv-r0-unresolved-1", "Show in the answer →")],
    ]


def test_unresolved_markers_past_the_drawn_footnotes_lead_to_the_diagnostics(editor_client, settings):
    # The chip leads to the top of the response, where the diagnostics list them.
    settings.CITEVIEW_MAX_CITATIONS_DRAWN = 1
    text = "東京[1]。" * 3 + "大阪[7]。"
    _, page = viewer(editor_client, json.dumps(sonar_object(text, EIGHT_SOURCES[:1])).encode(), **EN)
    assert page.chips == ["#cv-r0"] and "cv-r0" in page.ids
    (row,) = [row for row in page.rows if "unresolved_marker" in row.technical]
    assert row.links == []  # no footnote is drawn there to go to


def test_the_severity_filter_offers_the_severities_there_are(editor_client):
    text = "東京は首都です[1]。大阪[7]。"  # an unresolved marker (a warning), sources never cited (a note)
    _, page = viewer(editor_client, json.dumps(sonar_object(text, EIGHT_SOURCES[:3])).encode(), **EN)
    assert page.filters == ["warning", "info"]
    assert [row.classes.split()[1] for row in page.rows] == ["cv-severity-warning", "cv-severity-info"]


def test_one_severity_shows_no_filter(editor_client):
    raw = json.dumps(sonar_object("東京は首都です[1]。", EIGHT_SOURCES[:2])).encode()
    _, page = viewer(editor_client, raw, **EN)
    assert page.filters == [] and len(page.rows) == 1


def test_a_token_of_an_unknown_notation_is_named_with_a_way_to_find_it(editor_client):
    text = "東京は首都です[static_doc_1]。人口は約1400万人です[static_doc_2]。"
    dump, page = viewer(editor_client, json.dumps(sonar_object(text, EIGHT_SOURCES[:1])).encode(), **JA)
    (row,) = [row for row in page.rows if "unknown_notation" in row.technical]
    assert "cv-severity-warning" in row.classes
    assert "[static_doc_1] [static_doc_2]" in row.text and "citeview が読めない" in row.text
    html = editor_client.get(dump.get_absolute_url(), **JA).content.decode()
    assert 'data-find="[static_doc_1]"' in html


def test_an_incomplete_response_links_to_where_its_answer_stops(editor_client):
    _, page = viewer(editor_client, own_fixture("agent-seed-incomplete.sse"), **EN)
    (incomplete,) = [row for row in page.rows if "incomplete" in row.technical]
    assert ("#cv-r0-end", "Show in the answer →") in incomplete.links
    assert "cv-r0-end" in page.ids


def test_a_flag_among_the_values_reads_yes_in_english_and_japanese_never_as_pythons_true(editor_client):
    raw = (SAMPLES / "20-gemini-ja-rag-recitation.json").read_bytes()  # recitations placed, their unit assumed
    _, english = viewer(editor_client, raw, **EN)
    (unit,) = [row for row in english.rows if "offset_unit" in row.technical]
    assert words(unit.technical).endswith("· unit: utf8 · assumed: yes")
    _, japanese = viewer(editor_client, raw, **JA)
    (unit,) = [row for row in japanese.rows if "offset_unit" in row.technical]
    assert words(unit.technical).endswith("· unit: utf8 · assumed: はい")
    assert not [row for row in english.rows + japanese.rows if "True" in row.technical]


def test_empty_and_absent_values_are_left_out_and_a_lists_flags_are_words():
    assert (
        technical_value(None) == technical_value([]) == technical_value({"a": 1}) == technical_value([None, ""]) == ""
    )
    with translation.override("en"):
        assert technical_value(["2", None, "", False, 3]) == "2, no, 3"
    with translation.override("ja"):
        assert technical_value([True, "utf8"]) == "はい, utf8"
