"""Citation notations OpenAI models write into the text: private-use tokens (U+E200 … U+E201) and the
Assistants' 【4:0†source】 markers (provider-formats.md §4A, pitfalls 1 and 4). No real recording holds
either: the dumps in tests/fixtures/openai/*-built.json are built from that section, not recorded."""

from __future__ import annotations

import json

import pytest

from citeview.core.parsing.inline_tokens import inline_tokens, numbered_links, private_use_tokens
from citeview.core.parsing.parse import parse_dump
from tests.conftest import own_fixture, sse

MANY = "\ue200cite\ue202turn0search0\ue202turn0news2\ue201"
LINES = "\ue200cite\ue202turn0file0\ue202L8-L13\ue201"
MAPPED = "\ue200cite\ue202turn0search3\ue201"


def read(name: str) -> dict:
    (response,) = parse_dump(own_fixture(name)).to_json()["responses"]
    return response


def messages_of(response: dict, code: str) -> list[str]:
    return [d["message"] for d in response["diagnostics"] if d["code"] == code]


def body(text: str, annotations: list[dict]) -> bytes:
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": annotations}],
    }
    value = {"id": "resp_68e6a1b2c3d4", "object": "response", "status": "completed", "output": [message]}
    return json.dumps(value, ensure_ascii=False).encode()


def parse(raw: bytes) -> dict:
    return parse_dump(raw).to_json()["responses"][0]


def test_tokens_with_several_ids_and_a_line_locator_are_markers_said_in_words():
    response = read("openai/openai-responses-private-use-tokens-built.json")
    text = response["text"]
    assert MANY in text and LINES in text  # the text is never changed: every offset stays true
    assert response["unresolved"] == [
        {
            "marker": MANY,
            "ref": "turn0search0,turn0news2",
            "start": text.index(MANY),
            "end": text.index(MANY) + len(MANY),
        },
        {
            "marker": LINES,
            "ref": "turn0file0 L8-L13",
            "start": text.index(LINES),
            "end": text.index(LINES) + len(LINES),
        },
    ]
    assert messages_of(response, "unresolved_marker") == [
        "Citation token turn0search0, turn0news2 names sources that nothing in the dump maps to a URL.",
        "Citation token turn0file0 (lines 8–13) names a source that nothing in the dump maps to a URL.",
    ]
    assert not messages_of(response, "private_use_markers")  # the old blanket warning is gone


def test_a_token_an_annotation_spans_exactly_is_that_annotations_citation():
    response = read("openai/openai-responses-private-use-tokens-built.json")
    (citation,) = response["citations"]
    assert citation["marker"] == MAPPED and response["text"][citation["start"] : citation["end"]] == MAPPED
    (source,) = response["sources"]
    assert source["key"] in citation["source_keys"] and source["url"].startswith("https://www.stat.go.jp/")
    assert not messages_of(response, "segment_text_mismatch")  # the token is what the span should cover


def test_a_stray_delimiter_is_reported_once():
    response = read("openai/openai-responses-private-use-tokens-built.json")
    (stray,) = [d for d in response["diagnostics"] if d["code"] == "private_use_characters"]
    assert stray["details"]["positions"] == [response["text"].index("\ue202別紙")]


def test_a_token_cut_by_a_stream_is_stray_characters_not_a_marker():
    text = "東京は首都です。\ue200cite\ue202turn0sea"
    response = parse(body(text, []))
    assert response["unresolved"] == [] and response["text"] == text
    assert messages_of(response, "private_use_characters")


def test_a_token_of_another_family_is_kept_and_said_unreadable():
    token = '\ue200navlist\ue202{"a":1}\ue201'
    response = parse(body(f"一覧です。{token}", []))
    assert [m["marker"] for m in response["unresolved"]] == [token]
    assert "navlist" in messages_of(response, "unresolved_marker")[0]


def test_lenticular_markers_are_cited_where_an_annotation_covers_them_and_unresolved_elsewhere():
    response = read("openai/openai-responses-lenticular-markers-built.json")
    text = response["text"]
    (citation,) = response["citations"]
    assert citation["marker"] == "【4:0†source】" and text[citation["start"] : citation["end"]] == "【4:0†source】"
    assert citation["cited_text"].startswith("入社日から6か月")  # the nested file_citation's quote
    assert citation["source_keys"] == ["assistant-Fq8Lw2NcR4xT7bY1"]
    assert [(m["marker"], m["ref"]) for m in response["unresolved"]] == [
        ("【10:13†source】", "10:13"),
        ("【3:0†handbook-2026.pdf】", "3:0"),
    ]
    assert all("no annotation in the dump covers it" in m for m in messages_of(response, "unresolved_marker"))


def test_a_lenticular_annotation_whose_text_is_elsewhere_is_a_mismatch():
    text = "有給は10日です【4:0†source】。"
    annotation = {
        "type": "file_citation",
        "text": "【4:0†source】",
        "start_index": 0,
        "end_index": 5,
        "file_id": "file-1",
    }
    response = parse(body(text, [annotation]))
    assert messages_of(response, "segment_text_mismatch")
    assert [m["marker"] for m in response["unresolved"]] == ["【4:0†source】"]


@pytest.mark.parametrize(
    "name", ["openai-responses-file-path-built.json", "openai-responses-file-path-stream-built.sse"]
)
def test_file_path_is_an_insertion_point_at_a_file_the_model_wrote(name):
    response = read(f"openai/{name}")
    (citation,) = response["citations"]
    text = response["text"]
    assert citation["start"] == citation["end"] == text.index("sales_2026.png)") + len("sales_2026.png)")
    (source,) = response["sources"]
    assert source["kind"] == "file" and source["extra"]["generated_file"] is True
    assert response["status"] == "completed" and not messages_of(response, "unused_source")


@pytest.mark.parametrize(
    "name",
    ["openai-responses-file-citation-quote-built.json", "openai-responses-file-citation-quote-stream-built.sse"],
)
def test_a_file_citations_quote_is_its_cited_text_and_one_without_index_is_cited_without_position(name):
    response = read(f"openai/{name}")
    (citation,) = response["citations"]
    assert citation["start"] == citation["end"] == response["text"].index("。")
    assert citation["cited_text"].startswith("An embedding model is used to convert")
    assert response["cited_without_position"] == ["file-3Lp8Vn1KwZ6"]
    assert not messages_of(response, "unused_source") and not messages_of(response, "offset_out_of_range")


def test_a_file_citation_index_past_the_text_is_reported_not_placed():
    response = parse(body("短い。", [{"type": "file_citation", "file_id": "file-1", "index": 99}]))
    assert response["citations"] == [] and messages_of(response, "offset_out_of_range")


def test_tokens_in_a_stream_split_across_deltas_are_found_in_the_joined_text():
    text = f"人口は減少しています。{MANY}"
    events = [
        {"type": "response.created", "response": {"id": "resp_1a2b", "status": "in_progress", "output": []}},
        *(
            {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": piece}
            for piece in (text[:13], text[13:16], text[16:])
        ),
        {"type": "response.completed", "response": {"id": "resp_1a2b", "status": "completed", "output": []}},
    ]
    response = parse(sse(*events))
    assert [m["ref"] for m in response["unresolved"]] == ["turn0search0,turn0news2"]


def test_the_scanners_find_each_notation_once_in_text_order():
    text = f"a{LINES}b【4†source】c[[2]](https://x.ai/news)d[[3]](https://en.wikipedia.org/wiki/XAI_(company))"
    assert [t.kind for t in inline_tokens(text)] == ["private_use", "lenticular"]
    (token,) = private_use_tokens(text)
    assert (token.family, token.ids, token.locator) == ("cite", ("turn0file0",), "L8-L13")
    assert [(link.number, link.url) for link in numbered_links(text)] == [
        ("2", "https://x.ai/news"),
        ("3", "https://en.wikipedia.org/wiki/XAI_(company)"),
    ]


def test_a_run_of_openers_is_scanned_in_linear_time():
    text = "\ue200" * 50_000 + "【" * 50_000 + "[[1](" * 20_000
    assert inline_tokens(text) == [] and numbered_links(text) == []
