"""The pages a search consulted but the answer does not cite: listed apart, after the cited ones,
under a heading that says what they are, in English and in Japanese."""

from __future__ import annotations

import json
import re

from citeview.dumps.models import Dump
from tests.core.parsing.providers.test_openai import LINK, URL, body, message_item, search_call, url_citation


def test_consulted_pages_are_listed_apart_after_the_cited_ones(editor_client):
    text = f"東京。{LINK}"
    call = search_call(
        {"type": "url", "url": URL.split("?")[0]},
        {"type": "url", "url": "https://www.metro.tokyo.lg.jp/"},
        {"type": "api", "name": "oai-weather"},
    )
    editor_client.post(
        "/", {"text": json.dumps(body(call, message_item((text, [url_citation(text)]))), ensure_ascii=False)}
    )
    page = editor_client.get(Dump.objects.get().get_absolute_url()).content.decode()
    sources = re.search(r'<aside class="cv-sources".*?</aside>', page, re.S).group(0)
    cited, _, apart = sources.partition("Consulted by the search, not cited (2)")
    assert apart, "the heading of the consulted sources"
    assert "nikkei.com" in cited and "metro.tokyo.lg.jp" not in cited
    assert "metro.tokyo.lg.jp" in apart and "oai-weather" in apart and "nikkei.com" not in apart
    japanese = editor_client.get(Dump.objects.get().get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "検索で参照、引用なし（2 件）" in japanese
