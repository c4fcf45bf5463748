"""Azure OpenAI On Your Data (provider-formats.md §12): the retrieved chunks in the message's context,
at its root (2024+) or in a tool message encoded twice (2023's extensions API), cited as [docN] from 1.
The real recording is read in place from ../shared/fixtures/azure/; the 2024 shapes, streams and odd
values are built here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import render_answer
from tests.conftest import fixture_ids, real_fixtures, sse

FIXTURES = real_fixtures("azure")
MANUAL = "https://contoso.blob.core.windows.net/manuals/返品規定.md"
FAQ = "https://contoso.blob.core.windows.net/manuals/faq.md"
CHUNKS = [
    {
        "content": "返品は購入から30日以内に限り受け付けます。\n\n開封済みの商品は対象外です。",
        "title": "返品規定",
        "url": MANUAL,
        "filepath": "返品規定.md",
        "chunk_id": "0",
    },
    {
        "content": "<h2>送料</h2>\n<p>返品の送料はお客様のご負担です。<script>alert(1)</script></p><table><tr><td>国内</td><td>800円</td></tr></table>",
        "title": "よくある質問",
        "url": FAQ,
        "filepath": "faq.md",
        "chunk_id": "3",
    },
]
ANSWER = "返品は購入から30日以内です[doc1]。送料はお客様の負担です[doc2]。開封済みは対象外です[doc1][doc3]。"
INTENT = json.dumps(["返品 期限", "返品 送料"], ensure_ascii=False)


def completion(content: str = ANSWER, context: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": content, "context": context or {"citations": CHUNKS, "intent": INTENT}}
    return {
        "id": "chatcmpl-9AzureSample",
        "object": "chat.completion",
        "created": 1733000000,
        "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        **extra,
    }


def read(value: Any) -> dict[str, Any]:
    raw = value if isinstance(value, bytes) else json.dumps(value, ensure_ascii=False).encode()
    (response,) = parse_dump(raw).to_json()["responses"]
    return response


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_the_recorded_extensions_answer_is_azure_with_every_chunk_a_source(path: Path):
    recorded = json.loads(path.read_bytes())
    tool_message = recorded["choices"][0]["message"]["context"]["messages"][0]
    chunks = json.loads(tool_message["content"])["citations"]  # the second encoding, undone apart
    response = read(path.read_bytes())
    assert (response["provider"], response["api"], response["status"]) == ("azure", "azure.on_your_data", "completed")
    assert [(s["key"], s["url"], s["title"]) for s in response["sources"]] == [
        (f"doc{n}", c["url"], c["title"]) for n, c in enumerate(chunks, 1)
    ]
    # The chunk's HTML is evidence text, never markup: its headings and list items as lines.
    snippet = response["sources"][0]["extra"]["snippet"]
    assert snippet.startswith("AI Cognitive Services SDK Releases\n- ") and "<" not in snippet
    (search,) = response["searches"]
    assert search["queries"][0] == "What is the most common feedback customers give about our product?"


def test_docn_markers_cite_the_chunks_in_order_from_one_and_an_unknown_number_stays_unresolved():
    response = read(completion())
    cited = [(ANSWER[c["start"] : c["end"]], c["source_keys"]) for c in response["citations"]]
    assert cited == [("[doc1]", ["doc1"]), ("[doc2]", ["doc2"]), ("[doc1]", ["doc1"])]
    assert [m["marker"] for m in response["unresolved"]] == ["[doc3]"]
    (unresolved,) = [d for d in response["diagnostics"] if d["code"] == "unresolved_marker"]
    assert unresolved["severity"] == "warning" and "lists 2" in unresolved["message"]
    assert "unknown_notation" not in codes(response)  # [docN] is this API's own notation


def test_each_chunk_is_a_source_with_its_text_as_the_retrieved_passage():
    first, second = read(completion())["sources"]
    assert (first["kind"], first["url"], first["title"]) == ("document", MANUAL, "返品規定")
    assert first["extra"] == {
        "document_name": "返品規定.md",
        "chunk_id": "0",
        "snippet": CHUNKS[0]["content"],  # plain text kept as it came, blank line and all
        "snippet_kind": "retrieved_passage",
    }
    assert second["extra"]["snippet"] == "送料\n返品の送料はお客様のご負担です。\n| 国内 | 800円 |"


def test_the_intent_is_the_search_queries_and_a_cut_off_intent_is_shown_as_it_came():
    response = read(completion())
    assert response["searches"] == [{"queries": ["返品 期限", "返品 送料"], "source_keys": ["doc1", "doc2"]}]
    cut = read(completion(context={"citations": CHUNKS, "intent": '["返品 期限", "返品 送'}))
    assert cut["searches"][0]["queries"] == ['["返品 期限", "返品 送']


def test_the_2023_extensions_shape_reads_the_tool_message_encoded_twice():
    inner = json.dumps({"citations": CHUNKS, "intent": INTENT}, ensure_ascii=False)
    context = {"messages": [{"role": "tool", "content": inner, "end_turn": False}]}
    value = completion(context=context, object="extensions.chat.completion", id="2f7210ba-afb2-4013-b3b7-1975842a8147")
    response = read(value)
    assert response["provider"] == "azure" and [s["key"] for s in response["sources"]] == ["doc1", "doc2"]
    assert len(response["citations"]) == 3


def test_a_stream_reads_the_context_from_its_delta_and_the_answer_from_the_rest():
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {
            "id": "chatcmpl-9AzureStream",
            "object": "chat.completion.chunk",
            "model": "gpt-4o",
            "choices": [choice],
        }

    pieces = [
        "返品は購入から30日以内です[do",
        "c1]。送料はお客様の負担です[doc2]。",
        "開封済みは対象外です[doc1][doc3]。",
    ]
    chunks = [chunk({"role": "assistant", "context": {"citations": CHUNKS, "intent": INTENT}})]
    chunks += [chunk({"content": piece}) for piece in pieces] + [chunk({}, "stop")]
    response = read(sse(*chunks, named=False, done=True))
    assert (response["provider"], response["streamed"], response["status"]) == ("azure", True, "completed")
    assert response["text"] == ANSWER and len(response["citations"]) == 3


def test_a_plain_openai_completion_with_markers_is_not_azure():
    value = completion()
    del value["choices"][0]["message"]["context"]
    assert read(value)["provider"] == "openai"


def test_the_rendered_answer_links_each_docn_to_its_chunk_and_escapes_the_rest():
    response = read(completion(content="返品は30日以内です[doc1]。<b>注意</b>[doc3]"))
    html = render_answer(response, "r0")
    assert html.count('class="cv-cite-link"') == 1 and "<b>" not in html and "&lt;b&gt;" in html
    assert "cv-unresolved" in html and "[doc3]" in html


def test_a_claim_is_read_without_its_docn_markers_and_a_marker_alone_is_no_statement():
    from citeview.core.checking.side_by_side import claim_words
    from citeview.core.checking.statements import statements

    assert claim_words("返品は30日以内です[doc1][doc2]。") == "返品は30日以内です。"
    response = read(completion(content="返品は30日以内です。\n\n[doc1]"))
    assert [s.text for s in statements(response)] == ["返品は30日以内です。"]
