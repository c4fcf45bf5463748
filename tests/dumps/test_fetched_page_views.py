"""A page Claude fetched, as the viewer and the report show it: its text labelled as the page the
model read, when it was fetched and from where, in English and in Japanese."""

from __future__ import annotations

import json

from citeview.dumps.models import Dump
from tests.core.parsing.providers.test_anthropic import message, text
from tests.core.parsing.providers.test_anthropic_web_fetch import PAGE_TEXT, PAGE_URL, call, failed, fetched

CALLER = {"type": "code_execution_20260120", "tool_id": "srv_0"}


def post_fetches(client) -> Dump:
    dump = message(
        call("srv_1", PAGE_URL, caller=CALLER),
        fetched("srv_1", PAGE_URL, PAGE_TEXT, caller=CALLER),
        call("srv_2", "https://example.jp/<b>"),
        failed("srv_2", "url_not_accessible"),
        text("年平均気温は15.8℃です。"),
    )
    client.post("/", {"text": json.dumps(dump, ensure_ascii=False)})
    return Dump.objects.get()


def test_the_viewer_shows_the_fetched_page_as_the_page_the_model_read(editor_client):
    page = editor_client.get(post_fetches(editor_client).get_absolute_url()).content.decode()
    assert "The page as the model fetched it" in page and "観測地点：北の丸公園" in page
    assert "Fetched and read by the model at 2026-11-30T01:02:03Z" in page
    assert "called from code the model ran (code_execution_20260120)" in page
    assert "Claude&#x27;s fetch of https://example.jp/&lt;b&gt; failed: url_not_accessible." in page
    assert "https://example.jp/<b>" not in page
    assert "cv-source-unused" not in page  # read by the model: not greyed out as a page nobody used


def test_the_viewer_says_it_in_japanese(editor_client):
    dump = post_fetches(editor_client)
    page = editor_client.get(dump.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "モデルが取得したときのページ" in page and "モデルが 2026-11-30T01:02:03Z に取得して読みました" in page
    assert "の取得が失敗しました：url_not_accessible。" in page
