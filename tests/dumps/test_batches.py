"""A batch (a dump of many responses) is browsed one response at a time: a navigator lists its
responses with their status, markers, warnings and checks, a page of them at a time and filtered, and
the page shows the one response chosen, alone."""

from __future__ import annotations

import json
import re

import pytest

from citeview.dumps.batches import BATCH_RESPONSES
from citeview.dumps.models import Dump, DumpResponse
from citeview.dumps.viewer_body import ROWS_PER_PAGE


def sonar_line(number: int, *, finish: str = "stop", unresolved: bool = False) -> str:
    text = f"回答{number}：東京の人口は約1400万人です[1]。" + ("出典のない数字です[3]。" if unresolved else "")
    value = {
        "id": f"6f1d2a3b-0000-4000-8000-{number:012d}",
        "model": "sonar",
        "object": "chat.completion",
        "citations": ["https://www.metro.tokyo.lg.jp/", "https://ja.wikipedia.org/wiki/東京都"],
        "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": text}}],
    }
    return json.dumps(value, ensure_ascii=False)


def batch_of(count: int) -> str:
    """Responses 1…count; every seventh one cut off at the token limit, every fifth with a marker of no source."""
    lines = [
        sonar_line(n, finish="length" if n % 7 == 0 else "stop", unresolved=n % 5 == 0) for n in range(1, count + 1)
    ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def batch(editor_client):
    editor_client.post("/", {"text": batch_of(60)})
    return Dump.objects.get()


def sections(page: str) -> list[str]:
    return re.findall(r'<section class="cv-response" id="([^"]+)"', page)


def listed(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr class="cv-batch-row[^"]*">\s*<td class="cv-num"><a [^>]*>(\d+)</a>', page)]


def test_a_batch_shows_a_page_of_its_responses_and_only_the_first_response(editor_client, batch):
    page = editor_client.get(batch.get_absolute_url()).content.decode()
    assert "A batch of 60 responses" in page
    assert listed(page) == list(range(1, ROWS_PER_PAGE + 1))
    assert sections(page) == ["cv-r0"] and "Response 1 of 60" in page
    assert "回答1：" in page and "回答2：" not in page.split("cv-r0")[1]
    assert "Responses 1–50 of 60" in page
    assert DumpResponse.objects.filter(dump=batch).count() == 60


def test_choosing_a_response_shows_it_alone_with_its_neighbours_linked(editor_client, batch):
    page = editor_client.get(batch.get_absolute_url(), {"response": 35}).content.decode()
    assert sections(page) == ["cv-r34"] and "Response 35 of 60" in page
    assert "?response=34#cv-r33" in page and "?response=36#cv-r35" in page
    assert 'aria-current="true">35<' in page


def test_the_filters_list_only_the_responses_that_need_a_look(editor_client, batch):
    incomplete = editor_client.get(batch.get_absolute_url(), {"status": "incomplete"}).content.decode()
    assert listed(incomplete) == [7, 14, 21, 28, 35, 42, 49, 56]
    assert sections(incomplete) == ["cv-r6"]  # the first response listed is the one shown
    unresolved = editor_client.get(batch.get_absolute_url(), {"needs": "unresolved"}).content.decode()
    assert listed(unresolved) == [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60]
    assert "needs=unresolved&amp;response=10#cv-r9" in unresolved  # the next one listed, not the next in the batch
    second = editor_client.get(batch.get_absolute_url(), {"page": 2}).content.decode()
    assert listed(second) == list(range(51, 61))


def test_a_filter_nothing_matches_says_so(editor_client, batch):
    page = editor_client.get(batch.get_absolute_url(), {"status": "failed"}).content.decode()
    assert "No response of this batch matches these filters." in page and sections(page) == []


def test_a_dump_of_few_responses_is_shown_whole(editor_client):
    editor_client.post("/", {"text": batch_of(BATCH_RESPONSES)})
    page = editor_client.get(Dump.objects.get().get_absolute_url()).content.decode()
    assert len(sections(page)) == BATCH_RESPONSES and "cv-batch" not in page
    assert not DumpResponse.objects.exists()


def test_the_rows_are_made_again_when_the_result_is_rebuilt(editor_client, batch):
    editor_client.get(batch.get_absolute_url())
    first = DumpResponse.objects.get(dump=batch, index=0).derived_at
    from citeview.dumps.reading import dump_rebuild

    dump_rebuild(dump=Dump.objects.get())
    editor_client.get(batch.get_absolute_url())
    rows = DumpResponse.objects.filter(dump=batch)
    assert rows.count() == 60 and rows.get(index=0).derived_at > first


def test_the_batch_page_speaks_japanese(editor_client, batch):
    page = editor_client.get(batch.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "60 件の応答のバッチ" in page and "応答 1–50 件目（全 60 件）" in page


def test_a_saved_check_shows_in_the_navigator_at_once(editor_client, batch):
    from django.urls import reverse

    def first_row_checked() -> str:
        page = editor_client.get(batch.get_absolute_url()).content.decode()
        return re.search(r'<td class="cv-nowrap">(\d+ / \d+)</td>', page).group(1)

    before = first_row_checked()
    assert before.startswith("0 / ")
    saved = editor_client.post(
        reverse("review:item", args=[batch.pk, "r0-c0"]), {"version": "0", "verdict": "complete"}
    )
    assert saved.status_code in (200, 302)
    assert first_row_checked() == "1 / " + before.split(" / ")[1]


def test_the_report_of_a_batch_gives_a_line_for_each_response(editor_client, batch):
    from django.urls import reverse

    editor_client.post(reverse("review:item", args=[batch.pk, "r4-c0"]), {"version": "0", "verdict": "none"})
    summary = editor_client.get(reverse("review:report_json", args=[batch.pk])).json()["summary"]
    lines = summary["responses"]
    assert len(lines) == 60 and [line["index"] for line in lines] == list(range(60))
    fifth = lines[4]
    assert (fifth["status"], fifth["citations"], fifth["unresolved"]) == ("completed", 1, 1)
    assert (fifth["recorded"], fifth["unsupported"]) == (1, 1) and fifth["items"] >= 2
    assert lines[6]["status"] == "incomplete" and lines[6]["recorded"] == 0
    markdown = editor_client.get(reverse("review:report_md", args=[batch.pk])).content.decode()
    assert "### Responses" in markdown
    assert (
        f"- 5. “回答5：東京の人口は約1400万人です。” · completed · 1 citation(s), 1 unresolved · 1 of {fifth['items']} item(s) "
        "checked · 1 not supported" in markdown
    )
    assert markdown.count("Provider and model: Perplexity · Perplexity Sonar") == 1
    page = editor_client.get(reverse("review:report", args=[batch.pk])).content.decode()
    table = re.search(r'<table class="cv-table cv-report-responses">.*?</table>', page, re.S).group(0)
    assert table.count('<tr><td class="cv-num">') == 60


def report_sections(page: str) -> list[str]:
    return re.findall(r'<h2 id="report-(\d+)">', page)


def test_the_report_page_of_a_batch_details_a_page_of_responses_after_the_whole_summary(editor_client, batch):
    from django.urls import reverse

    editor_client.post(reverse("review:item", args=[batch.pk, "r24-c0"]), {"version": "0", "verdict": "none"})
    url = reverse("review:report", args=[batch.pk])
    first = editor_client.get(url).content.decode()
    assert report_sections(first) == [str(n) for n in range(BATCH_RESPONSES)]
    assert "Response 1 of 60" in first and "Responses 1–10 of 60 in detail." in first
    # The summary covers every response, each line linked to the page that details it.
    table = re.search(r'<table class="cv-table cv-report-responses">.*?</table>', first, re.S).group(0)
    assert table.count('<tr><td class="cv-num">') == 60
    assert f'<a href="{url}?page=3#report-24">25</a>' in table
    assert "回答25：東京の人口は約1400万人です" in first  # the unsupported claim, from a response not detailed here
    third = editor_client.get(url, {"page": 3}).content.decode()
    assert report_sections(third) == [str(n) for n in range(20, 30)]
    assert "Response 25 of 60" in third and 'rel="prev"' in third and 'rel="next"' in third
    last = editor_client.get(url, {"page": 99}).content.decode()  # past the end: the last page
    assert report_sections(last) == [str(n) for n in range(50, 60)] and 'rel="next"' not in last


def test_the_downloads_of_a_batch_report_hold_every_response(editor_client, batch):
    from django.urls import reverse

    report = editor_client.get(reverse("review:report_json", args=[batch.pk])).json()
    assert len(report["responses"]) == 60
    markdown = editor_client.get(reverse("review:report_md", args=[batch.pk])).content.decode()
    assert "Response 60 of 60" in markdown and "Response 1 of 60" in markdown


def test_the_report_of_a_dump_of_few_responses_is_one_page(editor_client):
    from django.urls import reverse

    editor_client.post("/", {"text": batch_of(BATCH_RESPONSES)})
    page = editor_client.get(reverse("review:report", args=[Dump.objects.get().pk])).content.decode()
    assert len(report_sections(page)) == BATCH_RESPONSES and "in detail." not in page and 'rel="next"' not in page
