"""A batch (a dump of many responses) is named as a batch, of how many responses and which providers,
not by its first answer's first sentence; its report's summary says what each response is about (its
first sentence: the normalised result keeps no prompt) with its counts, and stands once, on the first
page: later pages link back to it."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from citeview.dumps.derived import result_version
from citeview.dumps.models import Dump
from tests.conftest import own_fixture
from tests.dumps.test_batches import batch_of, sonar_line

pytestmark = pytest.mark.django_db

OPENAI = "openai/openai-responses-lenticular-markers-built.json"


@pytest.fixture
def batch(editor_client):
    editor_client.post("/", {"text": batch_of(60)})
    return Dump.objects.get()


def get(client, url: str, language: str = "en", **query) -> str:
    response = client.get(url, query, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def test_a_batch_is_titled_as_a_batch_of_its_responses_and_providers(editor_client):
    openai = json.dumps(json.loads(own_fixture(OPENAI)), ensure_ascii=False)
    editor_client.post("/", {"text": "\n".join([*(sonar_line(n) for n in range(1, 12)), openai]) + "\n"})
    dump = Dump.objects.get()
    assert dump.headline == "Perplexity, OpenAI"
    assert dump.display_title == "Batch of 12 responses · Perplexity, OpenAI"
    for language, title in (("en", "Batch of 12 responses · Perplexity, OpenAI"), ("ja", "12 件の回答のバッチ · Perplexity, OpenAI")):  # fmt: skip
        listed = get(editor_client, reverse("pages:home"), language)
        assert f'<a class="cv-dump-link" href="{dump.get_absolute_url()}">{title}</a>' in listed, language
        viewer = get(editor_client, dump.get_absolute_url(), language)
        assert f"<h1>{title}</h1>" in viewer and f"<title>{title}" in viewer, language
        assert f'<p class="cv-report-title">{title}</p>' in get(
            editor_client, reverse("review:report", args=[dump.pk]), language
        )
    assert "回答1：" not in dump.display_title


def test_a_title_someone_gave_a_batch_stands(editor_client, batch):
    Dump.objects.filter(pk=batch.pk).update(title="週次の評価")
    assert Dump.objects.get().display_title == "週次の評価"


def test_a_few_responses_are_no_batch_and_keep_their_first_line(editor_client):
    editor_client.post("/", {"text": batch_of(3)})
    assert Dump.objects.get().display_title.startswith("回答1：東京の人口は約1400万人です")


def test_a_batch_stored_before_is_retitled_when_its_result_is_rebuilt(editor_client, batch):
    """Its headline is derived (``result_version``): refresh_dumps rebuilds it, as a first view would."""
    Dump.objects.filter(pk=batch.pk).update(headline="回答1：東京の人口は約1400万人です。", result_version="older code")
    call_command("refresh_dumps")
    stored = Dump.objects.get()
    assert stored.result_version == result_version() and stored.headline == "Perplexity"
    assert stored.display_title == "Batch of 60 responses · Perplexity"


def summary_of(html: str) -> str | None:
    found = re.search(r'<section class="cv-card cv-report cv-report-summary".*?</section>', html, re.S)
    return found.group(0) if found else None


def test_the_batch_summary_says_what_each_response_is_about_once_on_the_first_page(editor_client, batch):
    url = reverse("review:report", args=[batch.pk])
    first = get(editor_client, url)
    summary = summary_of(first)
    rows = re.findall(r'<td class="cv-report-opening"><a href="([^"]+)">(.*?)</a></td>', summary)
    assert len(rows) == 60
    assert rows[24] == (f"{url}?page=3#report-24", "回答25：東京の人口は約1400万人です。")  # no [1]
    assert "Answer begins" in summary
    third = get(editor_client, url, page=3)
    assert summary_of(third) is None and "cv-report-responses" not in third
    back = re.search(r'<p class="cv-report-summary-elsewhere cv-screen-only"><a href="([^"]+)">', third).group(1)
    assert back == f"{url}#report-summary" and 'id="report-summary"' in first
    assert "すべての回答の概要は最初のページにあります" in get(editor_client, url, "ja", page=3)
    report = editor_client.get(reverse("review:report_json", args=[batch.pk])).json()
    assert report["summary"]["responses"][24]["first_sentence"] == "回答25：東京の人口は約1400万人です。"
    markdown = get(editor_client, reverse("review:report_md", args=[batch.pk]), lang="en")
    assert markdown.count("## Summary") == 1
    assert "- 25. “回答25：東京の人口は約1400万人です。” · completed · 1 citation(s), 1 unresolved · " in markdown
    japanese = get(editor_client, reverse("review:report_md", args=[batch.pk]), lang="ja")
    assert "- 25. 「回答25：東京の人口は約1400万人です。」 · 完了 · 引用 1 件" in japanese
