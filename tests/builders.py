"""Small dumps built in code, for the traps the real fixtures do not cover."""

from __future__ import annotations

from typing import Any

RESPONSE_ID = "resp_0b6c2f9e-3a71-4c55-9d0e-2f1a7b8c9d00"


def agent_created(model: str = "fast") -> dict[str, Any]:
    return {
        "type": "response.created",
        "sequence_number": 0,
        "response": {"id": RESPONSE_ID, "object": "response", "status": "in_progress", "model": model, "output": []},
    }


def agent_search(call_id: str, query: str, results: list[tuple[int, str, str]]) -> list[dict[str, Any]]:
    return [
        {"type": "response.reasoning.search_queries", "call_id": call_id, "queries": [query]},
        {
            "type": "response.reasoning.search_results",
            "call_id": call_id,
            "results": [
                {"id": i, "url": url, "title": title, "snippet": f"{title}の抜粋", "source": "web"}
                for i, url, title in results
            ],
        },
    ]


def agent_deltas(*pieces: str) -> list[dict[str, Any]]:
    return [
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": p}
        for p in pieces
    ]


def agent_completed(text: str, results: list[tuple[int, str, str]], status: str = "completed") -> dict[str, Any]:
    return {
        "type": "response.completed",
        "response": {
            "id": RESPONSE_ID,
            "object": "response",
            "status": status,
            "model": "openai/gpt-5.2",
            "output": [
                {
                    "type": "search_results",
                    "queries": ["q"],
                    "results": [{"id": i, "url": u, "title": t, "snippet": "", "source": "web"} for i, u, t in results],
                },
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                },
            ],
            "usage": {
                "input_tokens": 1,
                "output_tokens": 1,
                "total_tokens": 2,
                "cost": {"currency": "USD", "total_cost": 0.001},
            },
        },
    }


def agent_object(text: str, results: list[tuple[int, str, str]], status: str = "completed") -> dict[str, Any]:
    return agent_completed(text, results, status)["response"]


def sonar_object(
    content: str, citations: list[str], finish_reason: str | None = "stop", **extra: Any
) -> dict[str, Any]:
    return {
        "id": "6f1d2a3b-0000-4000-8000-000000000001",
        "model": "sonar",
        "object": "chat.completion",
        "created": 1767225600,
        "citations": citations,
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "message": {"role": "assistant", "content": content},
                "delta": {"role": "assistant", "content": ""},
            }
        ],
        **extra,
    }
