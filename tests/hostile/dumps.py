"""Small dumps of each provider with a hostile value in one chosen place."""

from __future__ import annotations

import json
from typing import Any

from tests.builders import agent_object
from tests.conftest import own_fixture

OK_URL = "https://ok.example/a"


def agent_dump(*, answer: str = "ok", title: str = "t", url: str = OK_URL, snippet: str = "s") -> bytes:
    """A Perplexity agent response: the answer cites [1] (the hostile source) and [2]; [3] is
    unresolved. The snippet goes in the result's snippet and its dates."""
    obj = agent_object(f"{answer} claim[1][2] and [3]", [(1, url, title), (2, "https://ok.example/b", "fine")])
    result = obj["output"][0]["results"][0]
    result.update(snippet=snippet, date=snippet, last_updated=snippet)
    return json.dumps(obj).encode()


def failed_agent_dump(payload: str, *, model: str | None = None) -> bytes:
    """A failed Perplexity agent response whose error message (and model name, unless given) is the payload."""
    obj = agent_object("ok claim[1]", [(1, OK_URL, "t")], status="failed")
    obj["model"] = payload if model is None else model
    obj["error"] = {"message": payload, "type": payload}
    return json.dumps(obj).encode()


def claude_exchange(*, cited_text: str | None = None, document_title: str | None = None) -> bytes:
    """The recorded Claude documents exchange (request and response in one file), with the first
    document's title and the first citation's quote replaced; a web search citation quotes too."""
    exchange = json.loads(own_fixture("claude-ja-documents-exchange.json"))
    document = exchange["request"]["messages"][0]["content"][0]
    cited_block = exchange["response"]["content"][1]
    citation = cited_block["citations"][0]
    if document_title is not None:
        document["title"] = document_title
        for block in exchange["response"]["content"]:
            for other in block.get("citations") or []:
                if other.get("document_index") == 0:
                    other["document_title"] = document_title
    if cited_text is not None:
        citation["cited_text"] = cited_text
        cited_block["citations"].append(
            {
                "type": "web_search_result_location",
                "url": "https://ok.example/w",
                "title": "web",
                "cited_text": cited_text,
                "encrypted_index": "x",
            }
        )
    return json.dumps(exchange, ensure_ascii=False).encode()


def gemini_dump(payload: str, *, suggestions: str | None = None) -> bytes:
    answer = f"{payload} 東京。"
    grounding: dict[str, Any] = {
        "webSearchQueries": [payload],
        "groundingChunks": [
            {"web": {"uri": "https://ok.example/g", "title": payload}},
            {
                "retrievedContext": {
                    "title": payload,
                    "text": payload,
                    "documentName": payload,
                    "fileSearchStore": payload,
                }
            },
        ],
        "groundingSupports": [
            {"segment": {"endIndex": len(answer.encode()), "text": answer}, "groundingChunkIndices": [0, 1]}
        ],
    }
    if suggestions is not None:
        grounding["searchEntryPoint"] = {"renderedContent": suggestions}
    body = {
        "candidates": [
            {"content": {"parts": [{"text": answer}]}, "finishReason": "STOP", "groundingMetadata": grounding}
        ]
    }
    return json.dumps(body).encode()


def openai_dump(payload: str) -> bytes:
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
    return json.dumps(body).encode()
