"""Mistral: Chat Completions' reference chunks (resolved against the request's tool results) and
Conversations' tool_reference chunks, streamed and not.

The only real recording is the degenerate chat in ../shared/fixtures/mistral/ (an empty reference
chunk). Every other dump here is built from ../shared/docs/provider-formats.md §7 and the
mistralai/client-python models it names, not recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeview.core.parsing.parse import parse_dump
from tests.conftest import OWN_FIXTURES, fixture_ids, real_fixtures, sse

FIXTURES = real_fixtures("mistral")
BUILT = OWN_FIXTURES / "mistral"
MISTRAL_ID = "0a7f3c9e5b2d4816a4e1c8b7d6f50392"

TOOL_RESULT = {
    "0": {
        "url": "https://www.jma.go.jp/bosai/sakura/2026/kaika.html",
        "title": "さくらの開花状況 2026",
        "snippets": [["東京のソメイヨシノは3月20日に開花しました。"], ["平年より4日早い開花です。"]],
        "date": "2026-03-20",
        "source": "気象庁",
    },
    "1": {"title": "社内メモ", "snippets": ["見ごろは3月末の見込み。"], "description": "花見の段取り"},
}
CLAIM_1 = "東京のソメイヨシノは3月20日に開花しました"
CLAIM_2 = "見ごろは3月末です"


def chat_body(content: Any, **extra: Any) -> dict[str, Any]:
    """A chat completion as the API returns it (§7A), built, not recorded."""
    body = {
        "id": MISTRAL_ID,
        "object": "chat.completion",
        "created": 1774000000,
        "model": "mistral-large-latest",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
    }
    return {**body, **extra}


def cited_content() -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": CLAIM_1},
        {"type": "reference", "reference_ids": [0]},
        {"type": "text", "text": "。" + CLAIM_2},
        {"type": "reference", "reference_ids": [0, 1]},
        {"type": "text", "text": "。"},
    ]


def chat_request(content: Any = None, **message: Any) -> dict[str, Any]:
    tool = {"role": "tool", "name": "search", "tool_call_id": "call_1", **message}
    tool.setdefault("content", json.dumps(TOOL_RESULT, ensure_ascii=False) if content is None else content)
    return {
        "model": "mistral-large-latest",
        "messages": [
            {"role": "user", "content": "桜はいつ開花しましたか？"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "function": {"name": "search"}}]},
            tool,
        ],
    }


def parse(obj: Any, request: Any = None, **options: Any) -> dict[str, Any]:
    raw = obj if isinstance(obj, bytes) else json.dumps(obj, ensure_ascii=False).encode()
    if request is not None:
        options["request"] = json.dumps(request, ensure_ascii=False).encode()
    return parse_dump(raw, **options).to_json()["responses"][0]


def spans(response: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(response["text"][c["start"] : c["end"]], c["source_keys"]) for c in response["citations"]]


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


# --- The real recording ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_the_recorded_empty_reference_joins_the_text_and_invents_no_citation(path: Path):
    (response,) = parse_dump(path.read_bytes()).to_json()["responses"]
    assert response["api"] == "mistral.chat_completions" and response["status"] == "completed"
    assert response["text"].startswith('ikuutaget_weather{"city": "Berlin"}') and len(response["text"]) == 269
    assert response["citations"] == [] and response["unresolved"] == [] and response["sources"] == []
    (empty,) = [d for d in response["diagnostics"] if d["code"] == "empty_reference"]
    assert empty["details"]["position"] == len("ikuutaget_weather")


# --- Chat: references without and with the request -----------------------------------------------------


def test_without_the_request_each_reference_stays_unresolved_where_it_stands():
    response = parse(chat_body(cited_content()))
    assert response["text"] == f"{CLAIM_1}。{CLAIM_2}。"
    first, second = len(CLAIM_1), len(CLAIM_1) + 1 + len(CLAIM_2)
    assert [(m["ref"], m["start"], m["end"], m["marker"]) for m in response["unresolved"]] == [
        ("0", first, first, ""),
        ("0", second, second, ""),
        ("1", second, second, ""),
    ]
    unresolved = [d for d in response["diagnostics"] if d["code"] == "unresolved_marker"]
    assert len(unresolved) == 3 and all("attach the request" in d["message"] for d in unresolved)
    assert response["citations"] == [] and response["status"] == "completed"


def test_the_attached_request_resolves_each_reference_to_the_text_before_it():
    response = parse(chat_body(cited_content()), chat_request())
    assert spans(response) == [(CLAIM_1, ["0"]), (CLAIM_2, ["0", "1"])]
    assert response["unresolved"] == [] and "unresolved_marker" not in codes(response)
    sources = {s["key"]: s for s in response["sources"]}
    assert sources["0"]["url"] == TOOL_RESULT["0"]["url"] and sources["0"]["kind"] == "web"
    assert (
        sources["0"]["extra"]["snippet"]
        == "東京のソメイヨシノは3月20日に開花しました。\n\n…\n\n平年より4日早い開花です。"
    )
    assert sources["0"]["extra"]["snippet_kind"] == "tool_output"
    assert sources["0"]["extra"]["date"] == "2026-03-20" and sources["0"]["extra"]["source"] == "気象庁"
    assert sources["1"]["kind"] == "tool" and sources["1"]["url"] is None and sources["1"]["title"] == "社内メモ"


def test_an_exchange_dump_carries_its_own_request():
    exchange = {"request": chat_request(), "response": chat_body(cited_content())}
    assert spans(parse(exchange)) == [(CLAIM_1, ["0"]), (CLAIM_2, ["0", "1"])]


def test_the_sample_resolves_every_reference_without_a_warning():
    path = Path(__file__).resolve().parents[4] / "citeview/dumps/samples/16-mistral-ja-chat-references-exchange.json"
    response = parse(path.read_bytes())
    assert response["api"] == "mistral.chat_completions" and len(response["citations"]) == 4
    assert not [d for d in response["diagnostics"] if d["severity"] != "info"]


def test_an_id_the_tool_result_lacks_stays_unresolved_and_says_so():
    content = [{"type": "text", "text": CLAIM_1}, {"type": "reference", "reference_ids": [0, 7]}]
    response = parse(chat_body(content), chat_request())
    assert spans(response) == [(CLAIM_1, ["0"])]
    assert [m["ref"] for m in response["unresolved"]] == ["7"]
    (missing,) = [d for d in response["diagnostics"] if d["code"] == "unresolved_marker"]
    assert "names no entry of the tool results" in missing["message"] and "0, 1" in missing["message"]


def test_a_request_without_tool_messages_says_it_holds_no_tool_result():
    request = {"model": "mistral-large-latest", "messages": [{"role": "user", "content": "こんにちは"}]}
    response = parse(chat_body(cited_content()), request)
    assert len(response["unresolved"]) == 3
    assert all(
        "holds no tool result" in d["message"] for d in response["diagnostics"] if d["code"] == "unresolved_marker"
    )


def test_a_tool_result_in_text_chunks_resolves_and_an_unreadable_one_is_noted():
    chunks = [{"type": "text", "text": json.dumps(TOOL_RESULT, ensure_ascii=False)}]
    assert spans(parse(chat_body(cited_content()), chat_request(chunks)))[0] == (CLAIM_1, ["0"])
    response = parse(chat_body(cited_content()), chat_request("晴れ、最高気温18度"))
    assert "tool_result_unreadable" in codes(response) and len(response["unresolved"]) == 3


def test_escapes_inside_the_tool_results_json_are_repaired_as_the_dumps_are():
    # The result is JSON inside a string: its \udc00 and \u0000 escapes are past the reader's repair.
    content = '{"0": {"url": "https://a.example/", "title": "half \\udc00", "snippets": ["nul \\u0000"]}}'
    response = parse(chat_body(cited_content()[:2]), chat_request(content))
    (source,) = response["sources"]
    assert source["title"] == "half \ufffd" and source["extra"]["snippet"] == "nul \ufffd"
    json.dumps(response, ensure_ascii=False).encode("utf-8")


def test_ids_as_strings_and_floats_name_the_same_entry():
    content = [{"type": "text", "text": CLAIM_1}, {"type": "reference", "reference_ids": ["0", 1.0, True, None]}]
    response = parse(chat_body(content), chat_request())
    assert spans(response) == [(CLAIM_1, ["0", "1"])]
    assert "invalid_reference" in codes(response)


def test_a_string_content_is_the_answer_and_the_request_only_lists_its_results():
    response = parse(chat_body("東京の桜は3月20日に開花しました。"), chat_request())
    assert response["text"] == "東京の桜は3月20日に開花しました。" and response["citations"] == []
    assert {s["key"] for s in response["sources"]} == {"0", "1"}
    assert codes(response).count("unused_source") == 2


def test_thinking_is_reasoning_and_its_references_are_not_the_answers():
    content = [
        {
            "type": "thinking",
            "thinking": [
                {"type": "text", "text": "検索結果の0番が気象庁の発表"},
                {"type": "reference", "reference_ids": [0]},
                {"type": "text", "text": "。"},
            ],
        },
        *cited_content(),
    ]
    without = parse(chat_body(content))
    assert without["text"] == f"{CLAIM_1}。{CLAIM_2}。"
    (thinking,) = without["reasoning"]
    assert thinking["kind"] == "thinking" and thinking["text"] == "検索結果の0番が気象庁の発表。"
    assert thinking["citations"] == [] and "unresolved_reference" in codes(without)
    assert len(without["unresolved"]) == 3  # the thinking's reference is no answer marker
    resolved = parse(chat_body(content), chat_request())
    (thinking,) = resolved["reasoning"]
    assert [(thinking["text"][c["start"] : c["end"]], c["source_keys"]) for c in thinking["citations"]] == [
        ("検索結果の0番が気象庁の発表", ["0"])
    ]
    assert "unresolved_reference" not in codes(resolved)


def test_chunks_that_are_not_text_are_noted_not_shown():
    content = [
        {"type": "text", "text": "図をご覧ください。"},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "hologram", "data": "…"},
        "そして文字列。",
    ]
    response = parse(chat_body(content))
    assert response["text"] == "図をご覧ください。そして文字列。"
    notes = {d["details"]["type"]: d["code"] for d in response["diagnostics"] if "type" in d["details"]}
    assert notes == {"image_url": "non_text_content", "hologram": "unknown_content"}


def test_a_stream_builds_the_same_answer_from_strings_and_chunk_lists():
    def chunk(content: Any, finish: str | None = None) -> dict[str, Any]:
        return {
            "id": MISTRAL_ID,
            "object": "chat.completion.chunk",
            "created": 1774000000,
            "model": "mistral-large-latest",
            "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}],
        }

    pieces = [
        chunk(""),
        chunk("東京のソメイヨシノは"),
        chunk("3月20日に開花しました"),
        chunk([{"type": "reference", "reference_ids": [0]}]),
        chunk([{"type": "text", "text": "。"}]),
        chunk(CLAIM_2),
        chunk([{"type": "reference", "reference_ids": [0, 1]}]),
        chunk("。", "stop"),
    ]
    raw = sse(*pieces, done=True)
    response = parse(raw, chat_request())
    assert response["streamed"] and response["status"] == "completed"
    assert spans(response) == [(CLAIM_1, ["0"]), (CLAIM_2, ["0", "1"])]
    cut = parse(sse(*pieces[:-1]))
    assert cut["status"] == "incomplete" and len(cut["unresolved"]) == 3


@pytest.mark.parametrize(
    ("finish", "status"), [("length", "incomplete"), ("model_length", "incomplete"), ("error", "failed")]
)
def test_a_finish_reason_other_than_stop_is_not_completed(finish: str, status: str):
    body = chat_body(cited_content())
    body["choices"][0]["finish_reason"] = finish
    assert parse(body)["status"] == status


# --- Detection in the chat shape -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        chat_body("x", id="cmpl-1", model="open-mistral-nemo"),
        chat_body("x", id="cmpl-2", model="ministral-8b-latest"),
        chat_body([{"type": "text", "text": "x"}], id="cmpl-3", model="custom"),
        chat_body("x", model="custom-model"),  # the id alone: 32 hex digits
    ],
)
def test_mistral_values_are_told_from_openais(body: dict[str, Any]):
    assert parse(body)["api"] == "mistral.chat_completions"


@pytest.mark.parametrize(
    ("body", "api"),
    [
        # Another host serving Mixtral, and OpenRouter without its marks: nothing names who answered.
        (chat_body("x", id="chatcmpl-Bx1", model="mixtral-8x7b-32768"), "compatible.chat_completions"),
        (chat_body("x", id="gen-1774000000-abc", model="mistralai/mistral-large"), "compatible.chat_completions"),
        (chat_body("x", id="chatcmpl-Bx2", model="gpt-4o-search-preview"), "openai.chat_completions"),
    ],
)
def test_openai_and_other_hosts_of_mistral_models_are_not_mistral(body: dict[str, Any], api: str):
    assert parse(body)["api"] == api


CHAT_SHAPE_FIXTURES = [
    p for p in real_fixtures("openai") + real_fixtures("perplexity") if "chat" in p.name or "sonar" in p.name
]


@pytest.mark.parametrize("path", CHAT_SHAPE_FIXTURES, ids=fixture_ids(CHAT_SHAPE_FIXTURES))
def test_openai_and_perplexity_chat_recordings_keep_their_api(path: Path):
    apis = {r["api"] for r in parse_dump(path.read_bytes()).to_json()["responses"]}
    assert apis == {"perplexity.sonar" if path.name.startswith("perplexity") else "openai.chat_completions"}


# --- Conversations -------------------------------------------------------------------------------------------


def test_a_conversation_response_cites_its_tool_references_where_they_stand():
    response = parse(json.loads((BUILT / "conversation-websearch-built.json").read_text(encoding="utf-8")))
    assert response["api"] == "mistral.conversations" and response["status"] == "completed"
    assert response["id"] == "conv_0196f1e2a3b47c5d8e9f0a1b2c3d4e5f" and response["model"] == "mistral-medium-latest"
    assert response["text"] == (
        "The first result is Mistral AI's official website. It describes the company's models and platform."
        "\n\nA second entry followed."
    )
    assert spans(response) == [
        ("The first result is Mistral AI's official website", ["https://mistral.ai/"]),
        ("It describes the company's models and platform", ["https://docs.mistral.ai/", "Mistral AI - Wikipedia"]),
    ]
    sources = {s["key"]: s for s in response["sources"]}
    assert sources["https://mistral.ai/"]["extra"]["snippet"].startswith("The most powerful AI platform")
    assert sources["https://mistral.ai/"]["extra"]["snippet_kind"] == "search_snippet"
    assert sources["Mistral AI - Wikipedia"]["url"] is None and sources["Mistral AI - Wikipedia"]["kind"] == "web"
    assert response["searches"] == [{"queries": ["Mistral AI official website"], "source_keys": []}]


def test_the_conversation_sample_streams_to_the_same_kind_of_answer():
    path = Path(__file__).resolve().parents[4] / "citeview/dumps/samples/17-mistral-conversations-en-websearch.sse"
    response = parse(path.read_bytes())
    assert response["api"] == "mistral.conversations" and response["streamed"] and response["status"] == "completed"
    assert len(response["citations"]) == 3 and len(response["citations"][1]["source_keys"]) == 2
    assert response["searches"][0]["queries"] == ["Rotterdam floating office building climate adaptation"]
    assert not [d for d in response["diagnostics"] if d["severity"] != "info"]


def conversation_events(*, end: dict[str, Any] | None) -> list[dict[str, Any]]:
    def delta(content: Any, index: int) -> dict[str, Any]:
        return {
            "type": "message.output.delta",
            "output_index": 0,
            "id": "msg_1",
            "content_index": index,
            "content": content,
        }

    events = [
        {"type": "conversation.response.started", "conversation_id": "conv_1"},
        delta("Paris is the capital", 0),
        delta(" of France", 0),
        delta({"type": "tool_reference", "tool": "web_search", "title": "Paris", "url": "https://fr.example/paris"}, 1),
        delta(".", 2),
    ]
    return events + ([end] if end else [])


def test_a_conversation_stream_ends_completed_failed_or_incomplete():
    done = parse(sse(*conversation_events(end={"type": "conversation.response.done", "usage": {}})))
    assert done["status"] == "completed" and spans(done) == [
        ("Paris is the capital of France", ["https://fr.example/paris"])
    ]
    error = {"type": "conversation.response.error", "message": "Rate limit exceeded", "code": 429}
    failed = parse(sse(*conversation_events(end=error)))
    assert failed["status"] == "failed" and "Rate limit exceeded" in failed["status_detail"]
    cut = parse(sse(*conversation_events(end=None)))
    assert cut["status"] == "incomplete" and "conversation.response.done" in cut["status_detail"]


def test_the_sdks_dumped_events_are_read_as_the_stream():
    wrapped = [{"event": e["type"], "data": e} for e in conversation_events(end={"type": "conversation.response.done"})]
    response = parse(wrapped)
    assert response["api"] == "mistral.conversations" and response["status"] == "completed"
    assert response["text"] == "Paris is the capital of France."


def test_a_search_query_is_read_from_the_tool_arguments_and_repaired():
    events = conversation_events(end={"type": "conversation.response.done"})
    events.insert(
        1, {"type": "tool.execution.started", "id": "t1", "name": "web_search", "arguments": '{"query": "q\\ud800"}'}
    )
    assert parse(sse(*events))["searches"] == [{"queries": ["q\ufffd"], "source_keys": []}]


def test_unknown_conversation_events_and_outputs_are_noted():
    events = conversation_events(end={"type": "conversation.response.done"})
    events.insert(2, {"type": "conversation.response.progress", "percent": 50})
    assert "unknown_event" in codes(parse(sse(*events)))
    body = {
        "object": "conversation.response",
        "conversation_id": "conv_2",
        "outputs": [{"object": "entry", "type": "x"}],
    }
    assert "unknown_event" in codes(parse(body))


@pytest.mark.parametrize(
    "mangled",
    [
        chat_body([{"type": "reference", "reference_ids": "0"}, {"type": "text"}, 3, None]),
        chat_body({"type": "text", "text": "a dict"}),
        chat_body([{"type": "thinking", "thinking": "plain"}, {"type": "thinking", "thinking": [1, {"type": 5}]}]),
        {"object": "conversation.response", "outputs": [{"object": "entry", "type": "message.output", "content": 7}]},
        {"object": "conversation.response", "outputs": "none"},
    ],
)
def test_damaged_chunks_are_read_or_noted_never_a_crash(mangled: dict[str, Any]):
    response = parse(mangled, chat_request())
    assert response["provider"] == "mistral"
