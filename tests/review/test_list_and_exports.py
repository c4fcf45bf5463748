"""The list's filters, search and paging; the handover report; verdict exports; the figures."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest, dump_organise
from citeview.review.services import editors_assign
from tests.builders import sonar_object
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"


def store(editor, raw: bytes, **details) -> Dump:
    dump = dump_ingest(raw=raw, uploaded_by=editor)[0]
    if details:
        dump_organise(dump=dump, title=details.get("title", ""), tag_names=details.get("tags", []))
    if details.get("assignee"):
        editors_assign(dump=dump, editors=[details["assignee"]], by=editor, checks_needed=1)
    return dump


def sonar(text: str, url: str = "https://example.org/a") -> bytes:
    return json.dumps(sonar_object(text, [url])).encode()


def listed(client, **query) -> str:
    return client.get(reverse("pages:home"), query).content.decode()


def test_the_list_filters_by_provider_status_tag_assignee_and_progress(client, editor, second_editor):
    seed = store(editor, own_fixture(SEED), title="厚労省の条件", tags=["health"], assignee=second_editor)
    other = store(editor, sonar("大阪の人口は増えた[1]。"), title="大阪の人口")
    client.force_login(editor)
    assert "厚労省の条件" in listed(client, provider="perplexity") and "大阪の人口" in listed(
        client, provider="perplexity"
    )
    assert "大阪の人口" not in listed(client, status="incomplete") and "厚労省の条件" in listed(
        client, status="incomplete"
    )
    assert "大阪の人口" not in listed(client, tag="health")
    assert "厚労省の条件" in listed(client, assignee="taro") and "厚労省の条件" not in listed(client, assignee="-")
    assert "厚労省の条件" not in listed(client, progress="in_progress")
    client.post(reverse("review:item", args=[seed.pk, "r0-c0-1"]), {"version": "0", "verdict": "complete"})
    assert "厚労省の条件" in listed(client, progress="in_progress") and "大阪の人口" in listed(
        client, progress="unchecked"
    )
    assert "1 / 4" in listed(client) and "hanako: 1" in listed(client)  # progress, per editor
    assert other.item_count == 1


def test_the_search_looks_in_titles_answers_and_source_urls(client, editor):
    store(editor, sonar("大阪の人口は増えた[1]。", "https://stats.example.jp/osaka"), title="人口の回答")
    store(editor, own_fixture(SEED))
    client.force_login(editor)
    assert "人口の回答" in listed(client, q="人口の回答")
    assert "人口の回答" in listed(client, q="増えた") and "条件A" not in listed(client, q="増えた")
    assert "人口の回答" in listed(client, q="stats.example.jp")
    assert "No dump matches these filters." in listed(client, q="存在しない言葉")


def test_the_list_pages_in_a_constant_number_of_queries(client, editor, second_editor):
    client.force_login(editor)

    def queries_for_the_list() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("pages:home")).status_code == 200
        return len(captured)

    store(editor, own_fixture(SEED), tags=["a", "b"], assignee=second_editor)
    cache.clear()  # each count makes every row and form afresh (tests/dumps/test_kept_fragments.py: kept ones)
    few = queries_for_the_list()
    for n in range(30):
        store(editor, sonar(f"回答 {n} は正しい[1]。"), title=f"回答 {n}", tags=["a"], assignee=second_editor)
    cache.clear()
    assert queries_for_the_list() == few
    assert "Page 1 of 2" in listed(client) and "回答 29" in listed(client) and "回答 3" not in listed(client)
    assert "回答 3" in listed(client, page=2)


def test_the_handover_report_has_what_the_handover_needs(client, editor, second_editor):
    dump = store(editor, own_fixture(SEED), title="条件の確認")
    client.force_login(editor)
    body = {
        "version": "0",
        "verdict": "partial",
        "subject": "yes",
        "evidence_quote": "条件Aについて",
        "note": "年度は未確認",
    }
    client.post(reverse("review:item", args=[dump.pk, "r0-c0-1"]), {**body, "verification_worthy": "yes"})
    report = client.get(reverse("review:report_json", args=[dump.pk])).json()
    response = report["responses"][0]
    assert response["api"] == "perplexity.agent" and "search result id" in response["citation_notation"]
    assert [b["queries"] for b in response["search_batches"]] == [["条件A"], ["条件B"]]
    assert response["search_batches"][1]["results"][0] == {
        "id": "9",
        "url": "https://www.city.example.jp/jouken-b",
        "title": "条件Bの解説",
    }
    assert response["unresolved"] == [{"marker": "[8]", "ref": "8", "label": "[8]"}]
    assert response["status"] == "incomplete" and "response.completed" in response["status_detail"]
    assert response["statements_needing_check"] == [
        {"statement": "条件A[2]、条件B[9]、条件C[8]", "unchecked_items": ["r0-c0-2", "r0-c1", "r0-u0"]}
    ]
    verdict = next(v for v in response["verdicts"] if v["kind"] == "citation")
    assert (verdict["verdict"], verdict["editor"], verdict["evidence_quote"], verdict["note"]) == (
        "partial",
        "hanako",
        "条件Aについて",
        "年度は未確認",
    )
    markdown = client.get(reverse("review:report_md", args=[dump.pk]), {"lang": "en"}).content.decode()
    for heading in (
        "## Response 1 of 1",
        "### Search results as received",
        "### Statements still needing a content check",
    ):
        assert heading in markdown
    assert "Unresolved numbers: \\[8\\]" in markdown and "    - Partial support — hanako, " in markdown
    assert "      - Evidence quote: “条件Aについて”\n      - Note: 年度は未確認\n" in markdown
    assert (
        "\\[9\\] 条件Bの解説 — ` https://www.city.example.jp/jouken-b `" in markdown
    )  # a URL is shown, never followed
    assert "Completed: no (incomplete" in markdown
    page = client.get(reverse("review:report", args=[dump.pk])).content.decode()
    assert "年度は未確認" in page and "条件Bの解説" in page


def test_the_exports_show_a_statement_as_text_and_keep_its_markdown_in_a_column_of_its_own(client, editor):
    dump = store(editor, sonar("**発表基準**：暑さ指数が**33以上**[1]。"))
    client.force_login(editor)
    client.post(reverse("review:item", args=[dump.pk, "r0-c0"]), {"version": "0", "verdict": "complete"})
    text = b"".join(client.get(reverse("review:verdicts_csv")).streaming_content).decode("utf-8-sig")
    (row,) = csv.DictReader(io.StringIO(text))
    assert row["statement"] == "発表基準：暑さ指数が33以上[1]。"
    assert row["statement_markdown"] == "**発表基準**：暑さ指数が**33以上**[1]。"
    (line,) = b"".join(client.get(reverse("review:verdicts_jsonl")).streaming_content).decode().splitlines()
    assert (json.loads(line)["statement"], json.loads(line)["statement_markdown"]) == (
        row["statement"],
        row["statement_markdown"],
    )
    # The report's JSON keeps what was judged as it was written, for tools; people read it as text.
    report = client.get(reverse("review:report_json", args=[dump.pk])).json()["responses"][0]["verdicts"][0]
    assert report["statement"] == row["statement_markdown"]
    page = client.get(reverse("review:report", args=[dump.pk])).content.decode()
    markdown = client.get(reverse("review:report_md", args=[dump.pk])).content.decode()
    assert "発表基準：暑さ指数が33以上[1]。" in page and "**" not in page
    assert "“発表基準：暑さ指数が33以上\\[1\\]。”" in markdown and "\\*\\*" not in markdown


def test_verdicts_export_as_csv_and_jsonl_filtered_like_the_list(client, editor):
    dump = store(editor, own_fixture(SEED), tags=["health"])
    store(editor, sonar("別の回答[1]。"))
    client.force_login(editor)
    body = {"version": "0", "verdict": "none", "verification_worthy": "yes", "note": '=HYPERLINK("x")'}
    client.post(reverse("review:item", args=[dump.pk, "r0-c0-1"]), body)
    lines = (
        b"".join(client.get(reverse("review:verdicts_jsonl"), {"tag": "health"}).streaming_content)
        .decode()
        .splitlines()
    )
    rows = [json.loads(line) for line in lines]
    assert [r["kind"] for r in rows] == ["citation"]  # one row per citation check
    citation = rows[0]
    assert (citation["provider"], citation["verdict"], citation["editor"]) == ("perplexity", "none", "hanako")
    assert (citation["verification_worthy"], citation["dump_title"]) == ("yes", "条件A、条件B、条件C")
    assert (
        citation["source_url"] == "https://www.mhlw.go.jp/stf/jouken-a.html" and citation["note"] == '=HYPERLINK("x")'
    )
    assert citation["statement"] == "条件A[2]、条件B[9]、条件C[8]"
    text = b"".join(client.get(reverse("review:verdicts_csv")).streaming_content).decode("utf-8-sig")
    table = list(csv.DictReader(io.StringIO(text)))
    assert len(table) == len(rows)
    assert next(r for r in table if r["kind"] == "citation")["note"] == '\'=HYPERLINK("x")'  # never a formula
    assert b"".join(client.get(reverse("review:verdicts_jsonl"), {"tag": "none-such"}).streaming_content) == b""


def test_the_figures_reflect_what_editors_recorded(client, editor, second_editor):
    dump = store(editor, own_fixture(SEED), tags=["health"])
    for user, verdicts in ((editor, ("complete", "partial")), (second_editor, ("complete", "none"))):
        client.force_login(user)
        for key, verdict in zip(("r0-c0-1", "r0-c1"), verdicts, strict=True):
            version = dump.item_states.filter(key=key).values_list("version", flat=True).first() or 0
            body = {
                "version": str(version),
                "verdict": verdict,
                "verification_worthy": "yes",
                "supported_together": "yes",
            }
            assert client.post(reverse("review:item", args=[dump.pk, key]), body).status_code == 302
    figures = client.get(reverse("review:figures_json")).json()
    overall = figures["overall"]
    assert overall["editor_verdicts"] == {
        "complete": 2,
        "partial": 1,
        "none": 1,
        "inaccessible": 0,
        "supports_and_refutes": 0,
        "unclear": 0,
    }
    # Each citation once: [2] agreed complete; [9] disputed, left out of the final count.
    assert overall["final_verdicts"]["complete"] == 1 and sum(overall["final_verdicts"].values()) == 1
    assert overall["final_verdicts_left_out"] == 1
    # The dump's final figures: the statement once, supported together by both. Precision: [2] is complete
    # by both; [9] is disputed (partial, none) and left out until settled; the unresolved [8] supports
    # nothing: 1 of 2.
    assert overall["citation_recall"]["value"] == 1.0
    assert (overall["citation_precision"]["numerator"], overall["citation_precision"]["denominator"]) == (1, 2)
    assert overall["unsettled"] == 1 and [item["item"] for item in figures["unsettled"]["items"]] == ["r0-c1"]
    assert overall["unresolved_marker_rate"]["value"] == pytest.approx(1 / 3)
    assert overall["incomplete_response_share"]["value"] == 1.0
    assert figures["agreement"]["verdicts"]["percent"] == 0.5 and figures["agreement"]["verdicts"]["raters"] == 2
    assert [row["label"] for row in figures["by_tag"]] == ["health"]
    assert [row["label"] for row in figures["by_uploader"]] == ["hanako"]
    page = client.get(reverse("review:figures")).content.decode()
    assert "<svg" in page and "Krippendorff" in page and "<caption>" in page
    assert client.get(reverse("review:figures_json"), {"provider": "gemini"}).json()["overall"]["dumps"] == 0
