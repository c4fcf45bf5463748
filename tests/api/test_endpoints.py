"""What a pipeline does with the API: store dumps, list them, read and record checks, read reports."""

from __future__ import annotations

import json

import pytest

from citeview.dumps.models import Dump
from citeview.review.forms import MAX_CHECK_BYTES, MAX_NOTE_CHARS, MAX_QUOTE_CHARS
from tests.builders import sonar_object
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db


def store(client, raw: bytes, query: str = "", content_type: str = "application/json"):
    return client.generic("POST", f"/api/dumps{query}", raw, content_type=content_type)


def sonar(text: str) -> bytes:
    return json.dumps(sonar_object(text, ["https://example.jp/a"]), ensure_ascii=False).encode()


def first_citation(client, dump_id: int) -> dict:
    items = client.get(f"/api/dumps/{dump_id}/checks").json()["items"]
    return next(item for item in items if item["kind"] == "citation")


def test_a_dump_is_stored_with_title_tags_and_provider(editor_api):
    response = store(editor_api, sonar("東京の人口[1]"), "?title=人口の確認&tags=人口,2026-Q3&provider=perplexity")
    assert response.status_code == 201
    dump = Dump.objects.get()
    assert dump.title == "人口の確認" and sorted(dump.tags.values_list("name", flat=True)) == ["2026-Q3", "人口"]
    assert response.json()["responses"][0]["provider"] == "perplexity"


def test_invalid_title_or_tags_are_400_and_nothing_is_stored(editor_api):
    response = store(editor_api, sonar("x[1]"), "?title=" + "t" * 201)
    assert response.status_code == 400 and "title" in response.json()["error"]["fields"]
    assert not Dump.objects.exists()


def test_an_unknown_provider_hint_is_400(editor_api):
    response = store(editor_api, sonar("x[1]"), "?provider=acme")
    assert response.status_code == 400 and response.json()["error"]["code"] == "unknown_provider"


def test_the_list_filters_and_pages_like_the_web_list(editor_api):
    for n in range(3):
        store(editor_api, sonar(f"回答 {n}[1]"), f"?tags={'夜間' if n else '朝'}")
    store(editor_api, own_fixture("claude-ja-documents-exchange.json"))
    everything = editor_api.get("/api/dumps").json()
    assert everything["count"] == 4 and everything["next"] is None
    assert [d["title"] for d in everything["results"]][-1] == "回答 0"  # newest first
    tagged = editor_api.get("/api/dumps", {"tag": "夜間"}).json()
    assert tagged["count"] == 2 and all("夜間" in d["tags"] for d in tagged["results"])
    assert editor_api.get("/api/dumps", {"provider": "anthropic"}).json()["count"] == 1
    assert editor_api.get("/api/dumps", {"q": "回答 2"}).json()["count"] == 1
    first = editor_api.get("/api/dumps", {"page_size": 3}).json()
    second = editor_api.get(first["next"]).json()
    assert len(first["results"]) == 3 and len(second["results"]) == 1 and second["previous"]
    assert {d["id"] for d in first["results"] + second["results"]} == set(Dump.objects.values_list("pk", flat=True))


@pytest.mark.parametrize(
    ("query", "status"),
    [({"status": "sideways"}, 400), ({"page": "two"}, 400), ({"page_size": "500"}, 400), ({"page": "9"}, 404)],
)
def test_a_bad_list_query_says_what_is_wrong(editor_api, query, status):
    response = editor_api.get("/api/dumps", query)
    assert response.status_code == status and response.json()["error"]["message"]


def test_a_check_is_recorded_with_the_version_it_was_made_against(editor_api, editor):
    dump_id = store(editor_api, own_fixture("claude-ja-documents-exchange.json")).json()["id"]
    item = first_citation(editor_api, dump_id)
    assert item["version"] == 0 and item["checks"] == [] and item["source_key"]
    posted = {"item": item["key"], "version": 0, "verdict": "partial", "subject": "yes", "note": "年が違う"}
    saved = editor_api.post(f"/api/dumps/{dump_id}/checks", posted, "application/json")
    assert saved.status_code == 201
    body = saved.json()
    assert body["version"] == 1 and body["checks"][0]["verdict"] == "partial"
    assert body["checks"][0]["editor"] == editor.username and body["checks"][0]["note"] == "年が違う"
    assert Dump.objects.get().checked_item_count == 1
    stale = editor_api.post(f"/api/dumps/{dump_id}/checks", {**posted, "verdict": "none"}, "application/json")
    assert stale.status_code == 409 and stale.json()["error"]["version"] == 1
    again = editor_api.post(
        f"/api/dumps/{dump_id}/checks", {**posted, "version": 1, "verdict": "none"}, "application/json"
    )
    assert again.status_code == 201 and again.json()["checks"][0]["verdict"] == "none"


def test_a_check_is_held_to_the_check_pages_limits_and_the_largest_one_fits_the_body_cap(editor_api):
    dump_id = store(editor_api, own_fixture("claude-ja-documents-exchange.json")).json()["id"]
    item = first_citation(editor_api, dump_id)
    check = {"item": item["key"], "version": 0, "verdict": "partial"}
    url = f"/api/dumps/{dump_id}/checks"
    megabytes = editor_api.post(
        url, {**check, "evidence_quote": "Q" * 8_000_000, "note": "N" * 8_000_000}, "application/json"
    )
    assert megabytes.status_code == 413 and megabytes.json()["error"]["code"] == "too_large"
    too_long = editor_api.post(url, {**check, "evidence_quote": "引" * (MAX_QUOTE_CHARS + 1)}, "application/json")
    error = too_long.json()["error"]
    assert too_long.status_code == 413 and error["code"] == "too_large"
    assert f"At most {MAX_QUOTE_CHARS:,} characters" in error["fields"]["evidence_quote"][0]
    assert first_citation(editor_api, dump_id)["checks"] == []
    # The largest check, each character escaped as a surrogate pair (12 bytes), is under the body cap.
    largest = json.dumps({**check, "evidence_quote": "😀" * MAX_QUOTE_CHARS, "note": "😀" * MAX_NOTE_CHARS})
    assert len(largest) < MAX_CHECK_BYTES
    saved = editor_api.generic("POST", url, largest, content_type="application/json")
    assert saved.status_code == 201 and saved.json()["checks"][0]["evidence_quote"] == "😀" * MAX_QUOTE_CHARS


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("not json", 400, "invalid_json"),
        ('["a list"]', 400, "invalid_check"),
        ('{"item": "r9-c9", "version": 0}', 404, "not_found"),
        ('{"item": "ITEM", "version": 0, "verdict": "maybe"}', 400, "invalid_input"),
        ('{"item": "ITEM", "version": 0, "verdict": ["complete"]}', 400, "invalid_check"),
        ('{"item": "ITEM", "verdict": "complete"}', 400, "invalid_input"),
        ('{"item": "ITEM", "version": 0, "verdict": "complete", "note": "\\ud800"}', 400, "invalid_check"),
        ("[" * 100_000, 400, "invalid_json"),
    ],
)
def test_a_bad_check_says_what_is_wrong_and_records_nothing(editor_api, body, status, code):
    dump_id = store(editor_api, own_fixture("claude-ja-documents-exchange.json")).json()["id"]
    body = body.replace("ITEM", first_citation(editor_api, dump_id)["key"])
    response = editor_api.generic("POST", f"/api/dumps/{dump_id}/checks", body, content_type="application/json")
    assert response.status_code == status and response.json()["error"]["code"] == code
    assert first_citation(editor_api, dump_id)["checks"] == []


def test_an_editor_sees_others_checks_only_after_their_own(editor_api, django_user_model):
    from citeview.accounts.tokens import token_create
    from tests.api.conftest import bearer_client
    from tests.conftest import user_with_role

    dump_id = store(editor_api, own_fixture("claude-ja-documents-exchange.json")).json()["id"]
    item = first_citation(editor_api, dump_id)
    editor_api.post(
        f"/api/dumps/{dump_id}/checks", {"item": item["key"], "version": 0, "verdict": "complete"}, "application/json"
    )
    other = bearer_client(token_create(user=user_with_role(django_user_model, "jiro", "editor"), name="t")[1])
    before = other.get(f"/api/dumps/{dump_id}/checks").json()
    assert before["hidden_until_you_check"] == 1 and first_citation(other, dump_id)["checks"] == []
    other.post(
        f"/api/dumps/{dump_id}/checks", {"item": item["key"], "version": 1, "verdict": "none"}, "application/json"
    )
    assert len(first_citation(other, dump_id)["checks"]) == 2


def test_the_report_comes_as_json_and_markdown(editor_api):
    dump_id = store(editor_api, own_fixture("claude-ja-documents-exchange.json"), "?title=報告テスト").json()["id"]
    item = first_citation(editor_api, dump_id)
    editor_api.post(
        f"/api/dumps/{dump_id}/checks", {"item": item["key"], "version": 0, "verdict": "complete"}, "application/json"
    )
    report = editor_api.get(f"/api/dumps/{dump_id}/report").json()
    assert report["citeview_report"] == 1 and report["dump"]["title"] == "報告テスト"
    assert report["responses"][0]["verdicts"][0]["verdict"] == "complete"
    markdown = editor_api.get(f"/api/dumps/{dump_id}/report.md")
    assert markdown["Content-Type"].startswith("text/markdown") and "報告テスト" in markdown.content.decode()


def test_the_metrics_are_the_figures_page_as_json(editor_api):
    store(editor_api, own_fixture("claude-ja-documents-exchange.json"), "?tags=週次")
    figures = editor_api.get("/api/metrics", {"tag": "週次"}).json()
    assert figures["filters"] == {"tag": "週次"} and "overall" in figures
    assert editor_api.get("/api/metrics", {"since": "yesterday"}).status_code == 400


def test_missing_dumps_and_unknown_paths_are_json_404s(editor_api):
    for path in ("/api/dumps/999", "/api/dumps/999/checks", "/api/dumps/999/report", "/api/nothing/here"):
        response = editor_api.get(path)
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found", path
    assert editor_api.get(f"/api/dumps/{2**70}").status_code == 404


def test_a_script_stores_hundreds_of_dumps_and_reads_their_verdicts_back(editor_api, settings, no_api_rate_limits):
    """The issue's promise, through the documented API only: store, page through, check, report."""
    settings.CITEVIEW_CHECKS_PER_ITEM = 1  # a team that checks each item once
    ids = []
    for n in range(200):
        response = store(editor_api, sonar(f"回答 {n} の数字は {n * 7}[1]"), "?tags=batch-200")
        assert response.status_code == 201
        ids.append(response.json()["id"])
    listed, url = [], "/api/dumps?tag=batch-200&page_size=80"
    while url:
        page = editor_api.get(url).json()
        listed += [d["id"] for d in page["results"]]
        url = page["next"]
    assert sorted(listed) == sorted(ids)
    for dump_id in ids[:20]:
        item = first_citation(editor_api, dump_id)
        saved = editor_api.post(
            f"/api/dumps/{dump_id}/checks",
            {"item": item["key"], "version": item["version"], "verdict": "complete"},
            "application/json",
        )
        assert saved.status_code == 201
    reports = [editor_api.get(f"/api/dumps/{dump_id}/report").json() for dump_id in ids[:20]]
    assert all(r["responses"][0]["verdicts"][0]["verdict"] == "complete" for r in reports)
    done = editor_api.get("/api/dumps", {"tag": "batch-200", "progress": "done", "page_size": 200}).json()
    assert done["count"] == 20


def test_statement_answers_are_kept_when_a_later_check_leaves_them_out(editor_api):
    dump_id = store(editor_api, own_fixture("claude-ja-documents-exchange.json")).json()["id"]
    items = [i for i in editor_api.get(f"/api/dumps/{dump_id}/checks").json()["items"] if i["kind"] == "citation"]
    shared = [i for i in items if i["statement_key"] == items[0]["statement_key"]]
    first = {"item": shared[0]["key"], "version": 0, "verdict": "complete", "verification_worthy": "yes"}
    editor_api.post(f"/api/dumps/{dump_id}/checks", {**first, "supported_together": "yes"}, "application/json")
    last = shared[-1] if len(shared) > 1 else shared[0]
    version = 0 if len(shared) > 1 else 1
    saved = editor_api.post(
        f"/api/dumps/{dump_id}/checks",
        {"item": last["key"], "version": version, "verdict": "partial"},
        "application/json",
    ).json()
    assert saved["checks"][0]["verification_worthy"] == "yes" and saved["checks"][0]["supported_together"] == "yes"


def test_the_document_is_public_and_answers_other_methods_in_json(client):
    assert client.get("/api/openapi.json", headers={"Authorization": "Bearer wrong"}).status_code == 200
    response = client.post("/api/openapi.json")
    assert response.status_code == 405 and response.json()["error"]["code"] == "method_not_allowed"


def test_a_citation_with_no_source_is_an_item_of_its_own_kind_and_takes_its_statement_answers(editor_api):
    dump_id = store(editor_api, sonar("Osaka grew [1]. Kyoto shrank [8].")).json()["id"]
    items = editor_api.get(f"/api/dumps/{dump_id}/checks").json()["items"]
    (unresolved,) = [i for i in items if i["kind"] == "unresolved"]
    assert (unresolved["marker"], unresolved["ref"]) == ("[8]", "8")
    check = {"item": unresolved["key"], "version": unresolved["version"], "verification_worthy": "yes"}
    assert editor_api.post(f"/api/dumps/{dump_id}/checks", check, content_type="application/json").status_code == 201
    (saved,) = [i for i in editor_api.get(f"/api/dumps/{dump_id}/checks").json()["items"] if i["kind"] == "unresolved"]
    assert saved["checks"][0]["verification_worthy"] == "yes"
    report = editor_api.get(f"/api/dumps/{dump_id}/report.md?lang=en").content.decode()
    assert "Citation with no source: \\[8\\]" in report


def test_the_markdown_report_speaks_the_language_asked_for(editor_api):
    dump_id = store(editor_api, sonar("Osaka grew [1].")).json()["id"]
    japanese = editor_api.get(f"/api/dumps/{dump_id}/report.md?lang=ja").content.decode()
    english = editor_api.get(f"/api/dumps/{dump_id}/report.md?lang=en").content.decode()
    assert "引き継ぎ" in japanese and "Handover report" in english and "引き継ぎ" not in english
