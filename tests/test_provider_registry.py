"""A provider registered in one place, and nowhere else, is offered by every page, the API and parsedump."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from tests.builders import sonar_object
from tests.toy_provider import TOY_NOTATION, toy_answer, toy_registered

pytestmark = pytest.mark.django_db

TOKYO = json.dumps(toy_answer("Tokyo has 14 million people [1].", "https://example.org/tokyo")).encode()


@pytest.fixture
def toy():
    with toy_registered() as api:
        yield api


def test_the_dump_list_offers_a_registered_provider_and_filters_by_it(toy, editor, editor_client):
    toy_dump = dump_ingest(raw=TOKYO, uploaded_by=editor)[0]
    dump_ingest(
        raw=json.dumps(sonar_object("Osaka grew [1].", ["https://example.org/osaka"])).encode(), uploaded_by=editor
    )
    page = editor_client.get(reverse("pages:home")).content.decode()
    assert '<option value="toy">toy</option>' in page
    filtered = editor_client.get(reverse("pages:home"), {"provider": "toy"}).content.decode()
    assert toy_dump.get_absolute_url() in filtered and "Osaka grew" not in filtered
    assert "Tokyo has 14 million" in editor_client.get(toy_dump.get_absolute_url()).content.decode()


def test_the_figures_filter_offers_a_registered_provider_and_api(toy, editor_client):
    page = editor_client.get(reverse("review:figures")).content.decode()
    assert '<option value="toy">toy</option>' in page and '<option value="toy.answers">Toy Answers</option>' in page


def test_the_openapi_document_lists_a_registered_provider_in_its_enums(toy, client):
    document = client.get("/api/openapi.json").json()
    response = document["components"]["schemas"]["Response"]["properties"]
    assert "toy" in response["provider"]["enum"] and "toy.answers" in response["api"]["enum"]
    listing = {p["name"]: p["schema"] for p in document["paths"]["/api/dumps"]["get"]["parameters"]}
    storing = {p["name"]: p["schema"] for p in document["paths"]["/api/dumps"]["post"]["parameters"]}
    assert "toy" in listing["provider"]["enum"]
    assert {"toy", "toy.answers"} <= set(storing["provider"]["enum"])


def test_the_handover_report_gives_a_registered_apis_notation(toy, editor, editor_client):
    dump = dump_ingest(raw=TOKYO, uploaded_by=editor)[0]
    report = editor_client.get(f"/api/dumps/{dump.pk}/report").json()
    assert (report["responses"][0]["api_name"], report["responses"][0]["citation_notation"]) == (
        "Toy Answers",
        TOY_NOTATION,
    )


def test_parsedump_offers_a_registered_provider(toy, tmp_path, capsysbinary):
    path = tmp_path / "toy.json"
    path.write_bytes(TOKYO)
    call_command("parsedump", str(path), "--provider", "toy")
    assert json.loads(capsysbinary.readouterr().out)["responses"][0]["api"] == "toy.answers"


def test_parsedump_no_longer_offers_a_provider_once_it_is_gone(tmp_path):
    path = tmp_path / "toy.json"
    path.write_bytes(TOKYO)
    with toy_registered():
        pass
    with pytest.raises(CommandError, match="invalid choice: 'toy'"):
        call_command("parsedump", str(path), "--provider", "toy")
