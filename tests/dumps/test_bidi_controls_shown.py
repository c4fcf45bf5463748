"""Bidi controls in a dump's title, headline, file name or sources are shown on every page and in the
report for people (``invoice⟨U+202E⟩gpj.exe``), never obeyed; the data stays exact in the JSON."""

from __future__ import annotations

import json
import zipfile
from io import BytesIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from citeview.core.common.bidi_controls import BIDI_CONTROLS
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest, dump_organise
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db

RLO = "\u202e"
HEADLINE = f"請求書{RLO}fdp.exe の概要 [1]"
SOURCE_TITLE = f"公式{RLO}サイト"
SOURCE_URL = f"https://example.org/{RLO}gpj.exe"
FILENAME = f"answer{RLO}nosj.json"


def sonar_with_bidi(headline: str = HEADLINE) -> bytes:
    results = [{"title": SOURCE_TITLE, "url": SOURCE_URL, "snippet": "抜粋"}]
    return json.dumps(sonar_object(headline, [SOURCE_URL], search_results=results), ensure_ascii=False).encode()


def upload(client, raw: bytes) -> Dump:
    client.post("/", {"file": SimpleUploadedFile("plain.json", raw)})
    return Dump.objects.get()


def imported(editor, raw: bytes) -> Dump:
    """A file name as a .zip import or ``importdumps`` keeps it (Django drops bidi controls from the
    names of files uploaded in a form)."""
    return dump_ingest(raw=raw, uploaded_by=editor, filename=FILENAME)[0]


def pages(client, dump: Dump) -> dict[str, str]:
    check = client.get(reverse("review:start", args=[dump.pk]), follow=True)
    return {
        "list": client.get(reverse("pages:home")).content.decode(),
        "viewer": client.get(dump.get_absolute_url()).content.decode(),
        "check": check.content.decode(),
        "report": client.get(reverse("review:report", args=[dump.pk])).content.decode(),
        "report.md": client.get(reverse("review:report_md", args=[dump.pk])).content.decode(),
    }


def title_of(html: str) -> str:
    return html.split("<title>")[1].split("</title>")[0]


def header_of(html: str) -> str:
    return html.split('<header class="cv-dump-header">')[1].split("</header>")[0]


def assert_no_bidi_control(name: str, text: str) -> None:
    found = sorted({f"U+{ord(c):04X}" for c in text if c in BIDI_CONTROLS})
    assert not found, f"{name} holds {found}"


def assert_shown_marked(shown: dict[str, str], marked: str) -> None:
    """The list and the report hold nothing else from the dump; the viewer and the check page show
    the answer as it is, so there the title and the header are what must hold no control."""
    for name, text in shown.items():
        assert marked in text, name
        if name in ("viewer", "check"):
            text = title_of(text) + header_of(text)
            assert marked in text, name
        assert_no_bidi_control(name, text)


def test_a_headline_with_an_override_is_shown_marked_everywhere(editor_client):
    dump = upload(editor_client, sonar_with_bidi())
    assert dump.headline.startswith(f"請求書{RLO}")  # stored exactly
    shown = pages(editor_client, dump)
    assert_shown_marked(shown, "請求書⟨U+202E⟩fdp.exe")
    for name in ("viewer", "check", "report"):
        assert "請求書⟨U+202E⟩fdp.exe" in title_of(shown[name]), name


def test_a_title_with_an_override_is_shown_marked_everywhere(editor_client, editor):
    dump = upload(editor_client, sonar_with_bidi("A plain answer. [1]"))
    dump_organise(dump=dump, title=f"Q3 {RLO}serugif", tag_names=[])
    assert_shown_marked(pages(editor_client, dump), "Q3 ⟨U+202E⟩serugif")


def test_a_file_name_with_an_override_is_shown_marked_everywhere(editor_client, editor):
    dump = imported(editor, sonar_with_bidi(""))
    assert dump.filename == FILENAME and not dump.headline
    assert_shown_marked(pages(editor_client, dump), "answer⟨U+202E⟩nosj.json")


def test_a_file_name_beside_a_headline_is_shown_marked_on_the_list_and_the_viewer(editor_client, editor):
    dump = imported(editor, sonar_with_bidi("A plain answer. [1]"))
    shown = pages(editor_client, dump)
    assert "answer⟨U+202E⟩nosj.json" in shown["list"] and "answer⟨U+202E⟩nosj.json" in header_of(shown["viewer"])
    assert_no_bidi_control("list", shown["list"])


def test_a_source_title_and_url_with_an_override_are_shown_marked(editor_client):
    dump = upload(editor_client, sonar_with_bidi("A plain answer. [1]"))
    shown = pages(editor_client, dump)
    for name in ("viewer", "check", "report", "report.md"):
        assert "公式⟨U+202E⟩サイト" in shown[name], name
    for name in ("viewer", "report", "report.md"):
        assert "example.org/⟨U+202E⟩gpj.exe" in shown[name], name
    assert_no_bidi_control("report", shown["report"])


def test_an_import_row_shows_an_entrys_file_name_marked(editor_client):
    archive = BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr(FILENAME, sonar_with_bidi())
    upload_file = SimpleUploadedFile("batch.zip", archive.getvalue(), content_type="application/zip")
    response = editor_client.post(reverse("dumps:import"), {"file": upload_file}, follow=True)
    text = response.content.decode()
    assert_no_bidi_control("import", text)
    assert "answer⟨U+202E⟩nosj.json" in text


def test_the_json_keeps_the_exact_values(editor_client, editor):
    dump = imported(editor, sonar_with_bidi())
    listed = editor_client.get("/api/dumps").json()
    entry = next(d for d in listed["results"] if d["id"] == dump.pk)
    assert entry["title"] == dump.headline and entry["filename"] == FILENAME and RLO in entry["title"]
    result = editor_client.get(f"/api/dumps/{dump.pk}").json()
    assert result["responses"][0]["sources"][0]["title"] == SOURCE_TITLE
    report = editor_client.get(reverse("review:report_json", args=[dump.pk])).json()
    assert report["dump"]["title"] == dump.headline
    assert report["responses"][0]["search_batches"][0]["results"][0]["title"] == SOURCE_TITLE
