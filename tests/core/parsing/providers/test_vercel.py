"""The Vercel AI SDK's UIMessage and UI message stream: sources without positions, listed as cited.

No real recording exists (../shared/docs/provider-formats.md §9A): every dump here is built from
that section and vercel/ai's ``ui-messages.ts`` and ``ui-message-chunks.ts``, not recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES

SAMPLE = Path(__file__).resolve().parents[4] / "citeview/dumps/samples/18-vercel-ui-message-stream-ja.sse"
URL = "https://www.city.aoba.lg.jp/library/news/2026/shinkan-kaikan.html"


def parse_all(obj: Any) -> list[dict[str, Any]]:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj, ensure_ascii=False).encode()
    return parse_dump(raw).to_json()["responses"]


def parse(obj: Any) -> dict[str, Any]:
    (response,) = parse_all(obj)
    return response


def stream(*chunks: dict[str, Any], done: bool = True) -> bytes:
    """The UI message stream as the SDK writes it: `data:` lines only, then `data: [DONE]`."""
    lines = [f"data: {json.dumps(c, ensure_ascii=False, separators=(',', ':'))}\n\n" for c in chunks]
    return ("".join(lines) + ("data: [DONE]\n\n" if done else "")).encode()


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def test_a_ui_message_lists_every_source_as_cited_without_a_position():
    (user, assistant) = json.loads((OWN_FIXTURES / "vercel" / "ui-messages-built.json").read_text(encoding="utf-8"))
    response = parse([user, assistant])
    assert response["api"] == "vercel.ui_messages" and response["streamed"] is False
    assert response["id"] == assistant["id"] and response["status"] == "completed"
    assert response["text"] == "新館は4月11日に開館しました。蔵書は約62万冊です。\n\n学習席は240席あります。"
    assert response["citations"] == [] and response["unresolved"] == []
    assert response["cited_without_position"] == [URL, "doc-guide"]
    web, document = response["sources"]
    assert (web["kind"], web["url"], web["title"]) == ("web", URL, "中央図書館 新館が開館します - あおば市")
    assert (document["kind"], document["url"], document["title"]) == ("document", None, "利用案内（2026年4月版）")
    assert document["extra"]["filename"] == "riyou-annai.pdf" and document["extra"]["media_type"] == "application/pdf"
    assert "no_positions" in codes(response) and "unused_source" not in codes(response)
    assert response["reasoning"] == [{"kind": "thinking", "text": "開館日と蔵書数を確かめる。", "citations": []}]


def test_provider_metadata_keeps_the_quote_a_source_was_cited_for():
    quote = "中央図書館の新館は令和8年4月11日に開館します。"
    message = {
        "id": "m1",
        "role": "assistant",
        "parts": [
            {"type": "text", "text": "開館は4月11日です。"},
            {
                "type": "source-url",
                "sourceId": "s1",
                "url": URL,
                "providerMetadata": {"anthropic": {"type": "web_search_result_location", "cited_text": quote}},
            },
            {
                "type": "source-url",
                "sourceId": "s1",
                "url": URL,
                "providerMetadata": {"anthropic": {"citedText": "蔵書は約62万冊。", "encryptedIndex": "EpIBCioI"}},
            },
        ],
    }
    (source,) = parse(message)["sources"]
    assert source["extra"]["cited_text"] == f"{quote}\n\n…\n\n蔵書は約62万冊。"
    assert source["extra"]["snippet_kind"] == "retrieved_passage"
    assert source["extra"]["anthropic.type"] == "web_search_result_location"
    assert "anthropic.encryptedIndex" not in source["extra"]


def test_only_assistant_messages_are_answers():
    conversation = [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "開館日は？"}]},
        {"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "4月11日です。"}]},
        {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "時間は？"}]},
        {"id": "a2", "role": "assistant", "parts": [{"type": "step-start"}, {"type": "text", "text": "9時からです。"}]},
    ]
    responses = parse_all(conversation)
    assert [(r["id"], r["text"]) for r in responses] == [("a1", "4月11日です。"), ("a2", "9時からです。")]
    assert all("no_positions" not in codes(r) for r in responses)  # no sources, nothing to say


def test_a_dump_of_user_messages_only_has_no_answer():
    response = parse([{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "こんにちは"}]}])
    assert response["status"] == "incomplete" and "no assistant message" in response["status_detail"]


def test_a_part_still_streaming_is_incomplete_and_unknown_parts_are_noted():
    message = {
        "id": "m2",
        "role": "assistant",
        "parts": [
            {"type": "text", "text": "途中まで", "state": "streaming"},
            {"type": "tool-search", "toolCallId": "c1", "state": "output-available", "input": {}, "output": {}},
            {"type": "data-weather", "data": {"temp": 18}},
            {"type": "sticker", "name": "smile"},
        ],
    }
    response = parse(message)
    assert response["status"] == "incomplete" and "streaming" in response["status_detail"]
    assert [d["details"]["type"] for d in response["diagnostics"] if d["code"] == "unknown_event"] == ["sticker"]


def test_the_stream_sample_has_its_text_reasoning_and_sources():
    response = parse(SAMPLE.read_bytes())
    assert response["api"] == "vercel.ui_message_stream" and response["streamed"] is True
    assert response["id"] == "msg_9mT4qXbZ2rWc7LkP" and response["status"] == "completed"
    assert response["text"].startswith("あおば市立中央図書館の新館は、2026年4月11日に開館しました。")
    assert "\n\n開館時間は平日が9時から21時" in response["text"]
    assert response["reasoning"][0]["text"] == "市立図書館の新館について、開館日と蔵書数、利用時間を確かめる。"
    assert len(response["cited_without_position"]) == 3 and response["citations"] == []
    document = next(s for s in response["sources"] if s["kind"] == "document")
    assert document["extra"]["cited_text"] == "学習席（持込資料可）\u3000240席"
    assert document["extra"]["snippet_kind"] == "document_text"
    assert not [d for d in response["diagnostics"] if d["severity"] != "info"]
    assert [d["code"] for d in response["diagnostics"]] == ["no_positions"]  # start-step is a step, not unknown


def start() -> list[dict[str, Any]]:
    return [
        {"type": "start", "messageId": "msg_1"},
        {"type": "start-step"},
        {"type": "text-start", "id": "t1"},
        {"type": "text-delta", "id": "t1", "delta": "開館は"},
        {"type": "text-delta", "id": "t1", "delta": "4月11日です。"},
        {"type": "text-end", "id": "t1"},
        {"type": "source-url", "sourceId": "s1", "url": URL, "title": "あおば市"},
    ]


@pytest.mark.parametrize(
    ("end", "status", "detail"),
    [
        ([{"type": "finish-step"}, {"type": "finish"}], "completed", None),
        ([{"type": "finish", "finishReason": "tool-calls"}], "completed", None),
        ([{"type": "finish", "finishReason": "length"}], "incomplete", "token limit"),
        ([{"type": "abort", "reason": "user cancelled"}], "incomplete", "aborted (user cancelled)"),
        ([{"type": "error", "errorText": "Rate limit exceeded"}], "failed", "Rate limit exceeded"),
        ([], "incomplete", "without finish"),
    ],
)
def test_the_stream_ends_completed_only_with_a_finish(end: list[dict[str, Any]], status: str, detail: str | None):
    response = parse(stream(*start(), *end))
    assert response["status"] == status and response["text"] == "開館は4月11日です。"
    assert detail is None or detail in response["status_detail"]


def test_a_stream_saved_as_a_json_array_reads_the_same():
    response = parse([*start(), {"type": "finish"}])
    assert response["api"] == "vercel.ui_message_stream" and response["status"] == "completed"
    assert response["cited_without_position"] == ["s1"]


def test_text_parts_of_one_step_join_and_a_new_step_starts_a_paragraph():
    chunks = [
        {"type": "start"},
        {"type": "text-start", "id": "a"},
        {"type": "text-delta", "id": "a", "delta": "調べます。"},
        {"type": "text-start", "id": "b"},
        {"type": "text-delta", "id": "b", "delta": "少々"},
        {"type": "text-delta", "id": "a", "delta": "（検索）"},
        {"type": "text-delta", "id": "b", "delta": "お待ちください。"},
        {"type": "start-step"},
        {"type": "text-delta", "id": "c", "delta": "結果です。"},
        {"type": "data-progress", "data": {"step": 2}},
        {"type": "finish"},
    ]
    assert parse(stream(*chunks))["text"] == "調べます。（検索）少々お待ちください。\n\n結果です。"


def test_two_messages_in_one_stream_are_two_answers():
    first = [*start(), {"type": "finish"}]
    second = [
        {"type": "start", "messageId": "msg_2"},
        {"type": "text-delta", "id": "x", "delta": "次"},
        {"type": "finish"},
    ]
    assert [(r["id"], r["text"]) for r in parse_all(stream(*first, *second))] == [
        ("msg_1", "開館は4月11日です。"),
        ("msg_2", "次"),
    ]


def test_a_gemini_content_with_role_and_parts_is_no_ui_message():
    with pytest.raises(Exception) as caught:
        parse({"role": "model", "parts": [{"text": "こんにちは"}]})
    assert getattr(caught.value, "code", None) == "unknown_provider"


@pytest.mark.parametrize(
    "mangled",
    [
        {"id": 5, "role": "assistant", "parts": [{"type": "source-url"}, {"type": "source-document", "title": 3}, 7]},
        {"role": "assistant", "parts": [{"type": "text", "text": None}, {"type": "reasoning"}, {"type": {}}]},
        [{"type": "text-delta", "delta": 5}, {"type": "source-url", "url": []}, {"type": "finish", "finishReason": 2}],
        [{"type": "start"}, {"type": "reasoning-delta", "id": None, "delta": "x"}, {"type": "abort", "reason": {}}],
    ],
)
def test_damaged_parts_and_chunks_are_read_or_noted_never_a_crash(mangled: Any):
    for response in parse_all(mangled):
        assert response["provider"] == "vercel"
