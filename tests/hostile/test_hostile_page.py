"""Hostile text from a dump, in every place it reaches the viewer page, stays inert.

Each case is checked on the parsed HTML of the real page: no script from input, no event-handler
attribute, no link that is not http(s) or our own, no element id taken from the dump.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.dumps.models import Dump
from tests.builders import agent_object

pytestmark = pytest.mark.django_db

SCRIPTY = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "<svg onload=alert(1)><math><mi xlink:href=javascript:alert(1)>x</mi></math>",
    '<a href="javascript:alert(1)" id="cv-r0-src-1">clobber</a>',
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    '<form id="login"><input name="attributes"></form>',
]
UNSAFE_URLS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\u200bscript:alert(1)",
    " javascript:alert(1)",
    "jav&#x09;ascript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "//evil.example/path",
    "https:/\\evil.example",
]
ANSWER_MARKDOWN = [
    "[x](javascript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](data:text/html,<script>alert(1)</script>)",
    '<a href="javascript:alert(1)">raw</a>',
    "[x](//evil.example)",
    '<iframe src="https://evil.example"></iframe>',
    "![pixel](https://tracker.example/p.gif)",
    "[x]( javascript:alert(1) )",
    "<details open ontoggle=alert(1)>",
    "`<script>alert(1)</script>`",
]


class PageElements(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


OUR_IDS = re.compile(
    r"^(cv-r\d+(-[a-z0-9]+)*|main|id_[a-z_]+|(intake|list|review)-(title|error)|cv-(item|others|comments|keys|conflict)"
    r"(-title)?|cv-check-form|report-\d+)$"
)


def assert_inert(html: str) -> None:
    for tag, attrs in PageElements(html).tags:
        assert tag not in ("iframe", "object", "embed", "svg", "math", "img", "noscript"), (tag, attrs)
        if tag == "form":
            assert attrs.get("action", "/").startswith("/") and "id" not in attrs, attrs
        if tag == "script":
            assert attrs.get("src", "").startswith("/static/"), attrs
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name, value)
            assert name != "style", (tag, attrs)
        if "href" in attrs:
            href = attrs["href"]
            scheme = urlsplit(href).scheme.lower()
            assert scheme in ("http", "https") or (
                scheme == "" and href.startswith(("/", "#")) and not href.startswith("//")
            ), href
            if scheme:
                assert urlsplit(href).netloc, href
        if "id" in attrs:
            assert OUR_IDS.match(attrs["id"]), attrs["id"]


def hostile_dump(title: str, url: str, text: str) -> bytes:
    results = [(1, url, title), (2, "https://ok.example/a", title)]
    obj = agent_object(f"{text} claim[1][2] and [3]", results)
    obj["output"][0]["results"][0]["snippet"] = title
    return json.dumps(obj).encode()


def viewer_page(client, raw: bytes, filename: str = "dump.json") -> str:
    client.post("/", {"file": SimpleUploadedFile(filename, raw)})
    dump = Dump.objects.get()
    return client.get(dump.get_absolute_url()).content.decode() + client.get("/").content.decode()


@pytest.mark.parametrize("payload", SCRIPTY)
def test_titles_snippets_and_file_names_cannot_inject_markup(editor_client, payload):
    html = viewer_page(editor_client, hostile_dump(payload, "https://ok.example/x", "ok"), filename=f"{payload}.json")
    assert_inert(html)


@pytest.mark.parametrize("url", UNSAFE_URLS)
def test_source_urls_that_are_not_plain_http_are_text_with_a_warning(editor_client, url):
    html = viewer_page(editor_client, hostile_dump("t", url, "ok"))
    assert_inert(html)
    assert "Not an http(s) link" in html
    dump = Dump.objects.get()
    assert any(d["code"] == "unsafe_url" for d in dump.result["responses"][0]["diagnostics"])


@pytest.mark.parametrize("text", ANSWER_MARKDOWN)
def test_answer_markdown_cannot_inject_markup_or_unsafe_links(editor_client, text):
    html = viewer_page(editor_client, hostile_dump("t", "https://ok.example/x", text))
    assert_inert(html)


@pytest.mark.parametrize("payload", SCRIPTY)
def test_claude_quotes_and_document_titles_cannot_inject_markup(editor_client, payload):
    citation = {
        "type": "char_location",
        "cited_text": payload + " 80%",
        "document_index": 0,
        "document_title": payload,
        "start_char_index": 0,
        "end_char_index": 3,
    }
    web = {"type": "web_search_result_location", "url": "https://ok.example/x", "title": payload, "cited_text": payload}
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "stop_reason": "end_turn",
        "content": [{"type": "text", "text": payload + " 62%", "citations": [citation, web]}],
    }
    request = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "title": payload,
                        "source": {"type": "text", "media_type": "text/plain", "data": payload},
                    }
                ],
            }
        ]
    }
    html = viewer_page(editor_client, json.dumps({"request": request, "response": message}).encode())
    assert "Evidence, side by side" in html
    assert_inert(html)


@pytest.mark.parametrize("payload", SCRIPTY)
def test_gemini_and_openai_titles_and_texts_cannot_inject_markup(editor_client, payload):
    answer = f"{payload} 東京。"
    gemini = {
        "candidates": [
            {
                "content": {"parts": [{"text": answer}]},
                "finishReason": "STOP",
                "groundingMetadata": {
                    "webSearchQueries": [payload],
                    "groundingChunks": [
                        {"web": {"uri": "https://ok.example/g", "title": payload}},
                        {"retrievedContext": {"title": payload, "text": payload}},
                    ],
                    "groundingSupports": [
                        {"segment": {"endIndex": len(answer.encode()), "text": answer}, "groundingChunkIndices": [0, 1]}
                    ],
                },
            }
        ]
    }
    html = viewer_page(editor_client, json.dumps(gemini).encode())
    assert_inert(html)


@pytest.mark.parametrize("payload", SCRIPTY)
def test_openai_annotation_titles_and_file_names_cannot_inject_markup(editor_client, payload):
    text = f"{payload} ([ok.example](https://ok.example/o))"
    start = text.index("([")
    body = {
        "id": "resp_68e6",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "type": "file_search_call",
                "queries": [payload],
                "results": [{"file_id": "f1", "filename": payload, "text": payload}],
            },
            {
                "type": "message",
                "content": [
                    {
                        "type": "output_text",
                        "text": text,
                        "annotations": [
                            {
                                "type": "url_citation",
                                "start_index": start,
                                "end_index": len(text),
                                "url": "https://ok.example/o",
                                "title": payload,
                            },
                            {"type": "file_citation", "file_id": "f1", "filename": payload, "index": 1},
                        ],
                    }
                ],
            },
        ],
    }
    html = viewer_page(editor_client, json.dumps(body).encode())
    assert_inert(html)
