"""OpenAI annotations: Responses and Chat Completions, streamed and not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.checking.side_by_side import evidence_rows
from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import render_answer
from tests.conftest import fixture_params, real_fixtures, sse

FIXTURES = real_fixtures("openai")
# Code interpreter's container file citations (and their zero-width image annotation): issue 32.
URL = "https://www.nikkei.com/article/DGXZQO123?utm_source=openai"
LINK = "([nikkei.com](https://www.nikkei.com/article/DGXZQO123?utm_source=openai))"


def message_item(*parts: tuple[str, list[dict]], item_id: str = "msg_1") -> dict:
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": t, "annotations": a, "logprobs": []} for t, a in parts],
    }


def url_citation(text: str, url: str = URL) -> dict:
    start = text.index("([")
    return {"type": "url_citation", "start_index": start, "end_index": len(text), "url": url, "title": "日経"}


def body(*items: dict, status: str = "completed", **extra) -> dict:
    return {
        "id": "resp_68e6a1b2c3d4",
        "object": "response",
        "status": status,
        "model": "gpt-5",
        "output": [{"type": "reasoning", "id": "rs_1", "summary": []}, *items],
        **extra,
    }


def parse(obj) -> dict:
    return parse_dump(json.dumps(obj, ensure_ascii=False).encode()).to_json()["responses"][0]


def spans(response: dict) -> list[tuple[str, str | None]]:
    urls = {s["key"]: s["url"] for s in response["sources"]}
    return [(response["text"][c["start"] : c["end"]], urls[c["source_keys"][0]]) for c in response["citations"]]


@pytest.mark.parametrize("path", fixture_params(FIXTURES))
def test_every_recorded_annotation_is_placed_on_its_characters_or_reported(path: Path):
    (response,) = parse_dump(path.read_bytes()).to_json()["responses"]
    assert response["provider"] == "openai" and response["text"] and response["status"] == "completed"
    for citation in response["citations"]:
        assert 0 <= citation["start"] <= citation["end"] <= len(response["text"])
    empty = [d for d in response["diagnostics"] if d["code"] == "empty_span"]
    assert "openrouter" in path.name or not empty


def test_the_recorder_normalised_offsets_get_a_diagnostic():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    path = FIXTURES[0].parent / "openai-responses-websearch-gpt5-recorder-normalized-offset-shift.json"
    response = parse_dump(path.read_bytes()).to_json()["responses"][0]
    assert any(d["code"] == "segment_text_mismatch" for d in response["diagnostics"])


def test_japanese_with_an_emoji_before_a_citation_counts_code_points():
    text = f"日本の株価が上昇しました🎉。{LINK}"
    response = parse(body(message_item((text, [url_citation(text)]))))
    assert spans(response) == [(LINK, URL)]
    assert response["sources"][0]["url"] == URL  # shown as given, utm_source included


def test_utf16_offsets_are_used_only_when_they_alone_fit_the_link():
    text = f"株価🎉が上昇。{LINK}"
    annotation = url_citation(text)
    annotation["start_index"] += 1  # as counted in UTF-16 units: the emoji is two
    annotation["end_index"] += 1
    response = parse(body(message_item((text, [annotation]))))
    assert spans(response) == [(LINK, URL)]
    assert any(d["code"] == "offset_unit" for d in response["diagnostics"])


def test_several_parts_and_messages_are_joined_with_offsets_shifted():
    first, second, third = f"一つ目。{LINK}", f" 二つ目。{LINK}", f"三つ目。{LINK}"
    response = parse(
        body(
            message_item((first, [url_citation(first)]), (second, [url_citation(second)])),
            message_item((third, [url_citation(third)]), item_id="msg_2"),
        )
    )
    assert response["text"] == f"{first}{second}\n\n{third}"
    assert spans(response) == [(LINK, URL)] * 3
    assert len(response["sources"]) == 1  # the same URL is one source


def events_for(text: str, annotations: list[dict], *, terminal: bool = True) -> list[dict]:
    item = message_item((text, annotations))
    events = [
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {"id": "resp_68e6a1b2c3d4", "status": "in_progress", "output": []},
        },
        {"type": "response.output_item.added", "output_index": 1, "item": {**item, "content": []}},
        {
            "type": "response.content_part.added",
            "output_index": 1,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
        events.append({"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": piece})
    for index, annotation in enumerate(annotations):
        events.append(
            {
                "type": "response.output_text.annotation.added",
                "output_index": 1,
                "content_index": 0,
                "annotation_index": index,
                "annotation": annotation,
            }
        )
    events += [
        {"type": "response.output_text.done", "output_index": 1, "content_index": 0, "text": text},
        {"type": "response.content_part.done", "output_index": 1, "content_index": 0, "part": item["content"][0]},
        {"type": "response.output_item.done", "output_index": 1, "item": item},
    ]
    if terminal:
        events.append({"type": "response.completed", "response": body(item)})
    return events


def test_a_stream_and_its_body_give_the_same_citations_each_once():
    text = f"東京の人口は増えました。{LINK}"
    streamed = parse_dump(sse(*events_for(text, [url_citation(text)]))).to_json()["responses"][0]
    whole = parse(body(message_item((text, [url_citation(text)]))))
    assert streamed["citations"] == whole["citations"] and len(streamed["citations"]) == 1
    assert streamed["text"] == whole["text"] and streamed["streamed"] and not whole["streamed"]


def test_a_stream_without_a_terminal_event_is_incomplete():
    text = f"途中まで。{LINK}"
    response = parse_dump(sse(*events_for(text, [url_citation(text)], terminal=False))).to_json()["responses"][0]
    assert (response["status"], response["status_detail"]) == ("incomplete", "stream ended without response.completed")
    assert spans(response) == [(LINK, URL)]


def test_incomplete_and_failed_responses_say_why():
    incomplete = parse(
        body(message_item(("x", [])), status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    )
    assert incomplete["status"] == "incomplete" and "max_output_tokens" in incomplete["status_detail"]
    failed = parse(body(status="failed", error={"code": "server_error", "message": "The server had an error"}))
    assert (failed["status"], failed["status_detail"]) == ("failed", "The server had an error")
    error = [
        {"type": "response.created", "response": {"id": "resp_1", "output": []}},
        {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down"},
    ]
    assert parse_dump(sse(*error)).to_json()["responses"][0]["status_detail"] == "Slow down"


def test_a_span_outside_its_text_is_reported_not_placed():
    text = "短い文。"
    response = parse(
        body(
            message_item(
                (text, [{"type": "url_citation", "start_index": 3, "end_index": 90, "url": URL, "title": "t"}])
            )
        )
    )
    assert response["citations"] == [] and any(d["code"] == "offset_out_of_range" for d in response["diagnostics"])


def test_file_citations_are_points_and_their_passages_stand_beside_the_sentence():
    text = "埋め込みモデルは文をベクトルに変換します。別の話です。"
    annotation = {"type": "file_citation", "file_id": "file-abc", "filename": "ai.pdf", "index": text.index("。")}
    search = {
        "type": "file_search_call",
        "id": "fs_1",
        "status": "completed",
        "queries": ["埋め込み"],
        "results": [
            {
                "file_id": "file-abc",
                "filename": "ai.pdf",
                "score": 0.9,
                "text": "An embedding model converts text into vectors.",
            }
        ],
    }
    response = parse(body(search, message_item((text, [annotation]))))
    (citation,) = response["citations"]
    assert citation["start"] == citation["end"] == text.index("。")
    assert response["sources"][0]["title"] == "ai.pdf" and response["searches"][0]["queries"] == ["埋め込み"]
    (row,) = evidence_rows(response, {"file-abc": "1"})
    assert "埋め込みモデルは" in row["claim_html"] and "別の話" not in row["claim_html"]
    assert "embedding model converts" in row["passages"][0]["quote_html"]


def test_the_answer_highlights_the_span_and_numbers_footnotes_by_first_appearance():
    a, b = "https://a.example/x", "https://b.example/y"
    text = "一。([a.example](https://a.example/x)) 二。([b.example](https://b.example/y)) 三。([a.example](https://a.example/x))"
    anns = []
    for url in (a, b, a):
        start = text.index("([", anns[-1]["end_index"] if anns else 0)
        anns.append(
            {
                "type": "url_citation",
                "start_index": start,
                "end_index": text.index("))", start) + 2,
                "url": url,
                "title": "t",
            }
        )
    html = render_answer(parse(body(message_item((text, anns)))), "cv-r0")
    assert [html.count(">[1]<"), html.count(">[2]<")] == [2, 1]
    assert html.count('<span class="cv-supported">') == 3


def chat(content: str, annotations: list[dict], finish: str | None = "stop", **extra) -> dict:
    return {
        "id": "chatcmpl-Bx1",
        "object": "chat.completion",
        "model": "gpt-4o-search-preview",
        "choices": [
            {
                "index": 0,
                "finish_reason": finish,
                "message": {"role": "assistant", "content": content, "annotations": annotations},
            }
        ],
        **extra,
    }


def nested(text: str, url: str = URL) -> dict:
    start = text.index("([")
    return {
        "type": "url_citation",
        "url_citation": {"start_index": start, "end_index": len(text), "url": url, "title": "t"},
    }


def test_chat_completions_read_nested_annotations_and_finish_reasons():
    text = f"東京は首都です。{LINK}"
    assert spans(parse(chat(text, [nested(text)]))) == [(LINK, URL)]
    assert parse(chat(text, [], finish="length"))["status"] == "incomplete"
    assert parse(chat(text, [], finish="content_filter"))["status"] == "incomplete"


def test_a_chat_stream_takes_annotations_from_a_final_delta_once():
    text = f"東京は首都です。{LINK}"
    chunks = [
        {
            "id": "chatcmpl-Bx1",
            "object": "chat.completion.chunk",
            "model": "gpt-4o-search-preview",
            "choices": [{"index": 0, "delta": {"content": piece}}],
        }
        for piece in (text[:5], text[5:])
    ]
    annotation_only = {
        "id": "chatcmpl-Bx1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"annotations": [nested(text)]}}],
    }
    chunks += [
        annotation_only,
        annotation_only,
        {
            "id": "chatcmpl-Bx1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        },
    ]
    response = parse_dump(sse(*chunks, named=False, done=True)).to_json()["responses"][0]
    assert response["api"] == "openai.chat_completions" and spans(response) == [(LINK, URL)]


def test_openrouter_zero_spans_are_sources_with_a_diagnostic():
    text = "https://github.com/pydantic/pydantic-ai"
    annotation = {
        "type": "url_citation",
        "url_citation": {"start_index": 0, "end_index": 0, "url": text, "title": "repo", "content": "page text"},
    }
    response = parse(chat(text, [annotation], provider="OpenAI"))
    assert response["citations"] == [] and response["sources"][0]["extra"]["snippet"] == "page text"
    assert any(d["code"] == "empty_span" for d in response["diagnostics"])


def test_a_type_that_is_not_a_string_is_read_not_a_crash():
    text = f"東京。{LINK}"
    events = events_for(text, [url_citation(text)])
    events.insert(2, {"type": {"x": 1}})
    events.append({"type": ["odd"]})
    response = parse_dump(sse(*events, named=False)).to_json()["responses"][0]
    assert response["status"] == "completed" and spans(response) == [(LINK, URL)]


def test_the_search_url_and_the_tracked_citation_url_are_one_source():
    text = f"東京。{LINK}"
    search = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "東京", "sources": [{"type": "url", "url": URL.split("?")[0]}]},
    }
    response = parse(body(search, message_item((text, [url_citation(text)]))))
    assert [s["url"] for s in response["sources"]] == [URL]  # shown as given, utm_source included
    assert not any(d["code"] == "unused_source" for d in response["diagnostics"])
    assert response["searches"] == [{"queries": ["東京"], "source_keys": [URL]}]


def test_a_link_to_another_page_does_not_count_as_covering_the_citation():
    text = "一。([a.example](https://a.example/x))"
    annotation = {
        "type": "url_citation",
        "start_index": text.index("(["),
        "end_index": len(text),
        "url": "https://b.example/y",
        "title": "B",
    }
    response = parse(body(message_item((text, [annotation]))))
    assert any(d["code"] == "segment_text_mismatch" for d in response["diagnostics"])


def test_footnotes_are_numbered_by_where_they_stand_not_by_list_order():
    a, b = "https://a.example/x", "https://b.example/y"
    text = "一。([a.example](https://a.example/x)) 二。([b.example](https://b.example/y))"
    first = {
        "type": "url_citation",
        "start_index": text.index("([a"),
        "end_index": text.index(") 二") + 1,
        "url": a,
        "title": "A",
    }
    second = {"type": "url_citation", "start_index": text.index("([b"), "end_index": len(text), "url": b, "title": "B"}
    response = parse(body(message_item((text, [second, first]))))
    assert [s["url"] for s in response["sources"]] == [a, b]


def test_refusals_are_shown_and_said():
    chat_refusal = chat("", [])
    chat_refusal["choices"][0]["message"].update(content=None, refusal="I can't help with that.")
    response = parse(chat_refusal)
    assert response["text"] == "I can't help with that." and any(
        d["code"] == "refusal" for d in response["diagnostics"]
    )
    events = [
        {"type": "response.created", "response": {"id": "resp_1", "output": []}},
        {
            "type": "response.refusal.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "I can't",
        },
    ]
    streamed = parse_dump(sse(*events)).to_json()["responses"][0]
    assert streamed["text"] == "I can't" and any(d["code"] == "refusal" for d in streamed["diagnostics"])


def test_an_empty_text_never_replaces_the_streamed_one():
    text = f"東京。{LINK}"
    events = events_for(text, [url_citation(text)], terminal=False)
    events.append(
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {**message_item(("", [])), "content": [{"type": "output_text", "text": "", "annotations": []}]},
        }
    )
    response = parse_dump(sse(*events)).to_json()["responses"][0]
    assert response["text"] == text and spans(response) == [(LINK, URL)]


def test_annotations_without_an_index_are_all_kept():
    text = f"一。{LINK} 二。{LINK}"
    first_end = text.index(" 二")
    events = events_for(text, [], terminal=False)
    for start, end in ((text.index("(["), first_end), (text.rindex("(["), len(text))):
        events.append(
            {
                "type": "response.output_text.annotation.added",
                "output_index": 1,
                "content_index": 0,
                "annotation": {
                    "type": "url_citation",
                    "start_index": start,
                    "end_index": end,
                    "url": URL,
                    "title": "t",
                },
            }
        )
    assert len(parse_dump(sse(*events)).to_json()["responses"][0]["citations"]) == 2


def test_a_completed_event_without_a_status_is_completed_and_an_openrouter_error_fails():
    text = "x"
    events = events_for(text, [], terminal=False)
    events.append({"type": "response.completed", "response": {"id": "resp_68e6a1b2c3d4", "output": []}})
    assert parse_dump(sse(*events)).to_json()["responses"][0]["status"] == "completed"
    chunks = [
        {
            "id": "gen-1",
            "object": "chat.completion.chunk",
            "provider": "X",
            "choices": [{"index": 0, "delta": {"content": "途中"}}],
        },
        {
            "id": "gen-1",
            "object": "chat.completion.chunk",
            "error": {"message": "Upstream error"},
            "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}],
        },
    ]
    failed = parse_dump(sse(*chunks, named=False)).to_json()["responses"][0]
    assert (failed["status"], failed["status_detail"]) == ("failed", "Upstream error")


def test_private_use_citation_tokens_are_unresolved_markers_in_words():
    token = "\ue200cite\ue202turn0search0\ue201"
    text = f"東京は首都です。{token}"
    response = parse(body(message_item((text, []))))
    assert response["text"] == text  # never changed: every offset stays true
    assert response["unresolved"] == [
        {"marker": token, "ref": "turn0search0", "start": text.index(token), "end": len(text)}
    ]
    (diagnostic,) = [d for d in response["diagnostics"] if d["code"] == "unresolved_marker"]
    assert "turn0search0" in diagnostic["message"] and "\ue200" not in diagnostic["message"]


def test_a_link_whose_address_ends_in_a_parenthesis_is_covered_by_its_span():
    url = "https://en.wikipedia.org/wiki/XAI_(company)"
    text = f"xAIは2023年に設立されました。([en.wikipedia.org]({url}))"
    annotation = {"type": "url_citation", "start_index": text.index("(["), "end_index": len(text), "url": url}
    response = parse(body(message_item((text, [annotation]))))
    assert spans(response) == [(f"([en.wikipedia.org]({url}))", url)]
    assert not any(d["code"] == "segment_text_mismatch" for d in response["diagnostics"])


def test_utf16_offsets_are_said_in_words_of_their_unit():
    text = f"株価🎉が上昇。{LINK}"
    annotation = url_citation(text)
    annotation["start_index"] += 1
    annotation["end_index"] += 1
    (note,) = [d for d in parse(body(message_item((text, [annotation]))))["diagnostics"] if d["code"] == "offset_unit"]
    assert note["message"] == "Annotation 0 fits its link only when its offsets are read as UTF-16 code units."
    assert note["details"]["unit"] == "utf16"


def test_a_file_citations_quote_stands_beside_the_sentence_it_closes():
    text = "埋め込みモデルは文をベクトルに変換します。別の話です。"
    quote = "An embedding model converts text into vectors."
    annotation = {"type": "file_citation", "file_id": "file-abc", "index": text.index("。"), "quote": quote}
    for raw in (
        json.dumps(body(message_item((text, [annotation]))), ensure_ascii=False).encode(),
        sse(*events_for(text, [annotation])),
    ):
        response = parse_dump(raw).to_json()["responses"][0]
        (citation,) = response["citations"]
        assert citation["cited_text"] == quote
        (row,) = evidence_rows(response, {"file-abc": "1"})
        assert "埋め込みモデルは" in row["claim_html"] and quote in row["passages"][0]["quote_html"]


def test_an_assistants_file_citation_covers_its_marker_and_keeps_its_quote():
    marker = "【4:0†source】"
    text = f"有給休暇は10日です{marker}。"
    annotation = {
        "type": "file_citation",
        "text": marker,
        "start_index": text.index(marker),
        "end_index": text.index(marker) + len(marker),
        "file_citation": {"file_id": "file-xyz", "quote": "10労働日の年次有給休暇を付与する。"},
    }
    response = parse(body(message_item((text, [annotation]))))
    (citation,) = response["citations"]
    assert (citation["marker"], citation["source_keys"]) == (marker, ["file-xyz"])
    assert citation["cited_text"] == "10労働日の年次有給休暇を付与する。" and response["unresolved"] == []


def search_call(*sources: dict, query: str = "東京 人口", **action) -> dict:
    return {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": query, "sources": list(sources), **action},
    }


def test_consulted_pages_the_answer_does_not_cite_are_said_once_as_consulted_not_as_unused():
    text = f"東京。{LINK}"
    consulted = ["https://www.metro.tokyo.lg.jp/", "https://ja.wikipedia.org/wiki/東京都"]
    call = search_call(
        {"type": "url", "url": URL.split("?")[0]},
        *({"type": "url", "url": url} for url in consulted),
        {"type": "api", "name": "oai-weather"},
    )
    response = parse(body(call, message_item((text, [url_citation(text)]))))
    assert [(s["key"], s["kind"]) for s in response["sources"]] == [
        (URL, "web"),  # cited, and listed first
        (consulted[0], "web"),
        (consulted[1], "web"),
        ("api:oai-weather", "tool"),
    ]
    assert all(s["extra"]["consulted"] is True for s in response["sources"])
    assert "unused_source" not in codes(response)
    (note,) = [d for d in response["diagnostics"] if d["code"] == "consulted_not_cited"]
    assert note["severity"] == "info" and note["details"]["keys"] == [*consulted, "api:oai-weather"]


def test_open_page_and_find_in_page_list_the_page_they_read():
    opened = {
        "type": "web_search_call",
        "id": "ws_2",
        "status": "completed",
        "action": {"type": "open_page", "url": "https://a.example/"},
    }
    found = {
        "type": "web_search_call",
        "id": "ws_3",
        "status": "completed",
        "action": {"type": "find_in_page", "url": "https://a.example/", "pattern": "人口"},
    }
    response = parse(body(opened, found, message_item(("東京。", []))))
    assert response["searches"] == [
        {"queries": [], "source_keys": ["https://a.example/"]},
        {"queries": ["find “人口”"], "source_keys": ["https://a.example/"]},
    ]


def test_a_code_interpreter_file_is_cited_on_its_link_and_the_image_at_zero_is_no_citation():
    text = "グラフです。\n\n[y_squared.png](sandbox:/mnt/data/y_squared.png)"
    link_start = text.index("[")
    image = {
        "type": "container_file_citation",
        "container_id": "cntr_1",
        "file_id": "cfile_img",
        "filename": "cfile_img.png",
        "start_index": 0,
        "end_index": 0,
    }
    linked = {
        "type": "container_file_citation",
        "container_id": "cntr_1",
        "file_id": "cfile_png",
        "filename": "y_squared.png",
        "start_index": link_start,
        "end_index": len(text),
    }
    response = parse(body(message_item((text, [image, linked]))))
    assert [(text[c["start"] : c["end"]], c["source_keys"]) for c in response["citations"]] == [
        (text[link_start:], ["cfile_png"])
    ]
    files = {s["key"]: (s["kind"], s["title"], s["extra"].get("generated_file")) for s in response["sources"]}
    assert files == {"cfile_img": ("file", "cfile_img.png", True), "cfile_png": ("file", "y_squared.png", True)}
    assert "empty_span" not in codes(response) and "unused_source" not in codes(response)


def codes(response: dict) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]
