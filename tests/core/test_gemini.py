"""Gemini grounding: byte offsets to code points, supports placed exactly or diagnosed, never guessed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.offsets import ByteOffsets
from citeview.core.parse import parse_dump
from citeview.core.rendering.answer import render_answer
from tests.conftest import fixture_ids, real_fixtures, sse

FIXTURES = real_fixtures("gemini")
PLACEMENT_PROBLEMS = {"segment_text_mismatch", "offset_inside_character", "offset_out_of_range"}
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ"


def segment(text: str, answer: str, *, occurrence: int = 0, omit_zero: bool = True) -> dict:
    start_char = answer.index(text) if occurrence == 0 else answer.index(text, answer.index(text) + 1)
    start = len(answer[:start_char].encode())
    value = {"endIndex": start + len(text.encode()), "text": text}
    if start or not omit_zero:
        value["startIndex"] = start
    return value


def body(answer: str, supports: list[dict], *, chunks: int = 2, finish: str = "STOP", **grounding) -> dict:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": answer}]},
                "finishReason": finish,
                "groundingMetadata": {
                    "webSearchQueries": ["東京 人口"],
                    "groundingChunks": [
                        {"web": {"uri": f"{REDIRECT}{i}", "title": f"site{i}.jp"}} for i in range(chunks)
                    ],
                    "groundingSupports": supports,
                    **grounding,
                },
            }
        ],
        "modelVersion": "gemini-2.5-flash",
        "responseId": "x3Yk",
    }


def parse(obj: dict) -> dict:
    return parse_dump(json.dumps(obj, ensure_ascii=False).encode()).to_json()["responses"][0]


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_every_recorded_support_is_placed_on_its_text_or_diagnosed(path: Path):
    raw = path.read_bytes()
    for response in parse_dump(raw).to_json()["responses"]:
        assert response["provider"] == "gemini" and response["text"]
        text = response["text"]
        diagnosed = [d for d in response["diagnostics"] if d["code"] in PLACEMENT_PROBLEMS]
        for citation in response["citations"]:
            assert 0 <= citation["start"] <= citation["end"] <= len(text)
        placed_wrong = [d for d in diagnosed if "placed where" in d["message"]]
        for note in placed_wrong:  # a re-anchored support sits exactly on its own text
            segment_text = note["details"]["segment_text"]
            assert any(text[c["start"] : c["end"]] == segment_text for c in response["citations"])


def test_the_recorder_normalised_fixtures_get_diagnostics_not_misplaced_footnotes():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    for name in (
        "gemini-3-flash-vertex-websearch-recorder-normalized-offset-drift.json",
        "gemini-3-flash-websearch-multipart-toolcall-recorder-normalized.json",
    ):
        raw = (FIXTURES[0].parent / name).read_bytes()
        value = json.loads(raw)
        supports = value["candidates"][0]["groundingMetadata"]["groundingSupports"]
        response = parse_dump(raw).to_json()["responses"][0]
        assert any(d["code"] in PLACEMENT_PROBLEMS for d in response["diagnostics"])
        texts = {s["segment"]["text"] for s in supports}
        assert all(response["text"][c["start"] : c["end"]] in texts for c in response["citations"])


def test_japanese_byte_offsets_land_on_the_right_characters():
    answer = "東京は日本の首都です🗾。人口は約１４００万人（２０２６年）です！大阪は第二の都市です。"
    parts = ["東京は日本の首都です🗾。", "人口は約１４００万人（２０２６年）です！", "大阪は第二の都市です。"]
    supports = [{"segment": segment(p, answer), "groundingChunkIndices": [i % 2]} for i, p in enumerate(parts)]
    response = parse(body(answer, supports))
    assert [answer[c["start"] : c["end"]] for c in response["citations"]] == parts
    assert not [d for d in response["diagnostics"] if d["code"] in PLACEMENT_PROBLEMS]
    assert "startIndex" not in supports[0]["segment"]  # proto3 dropped the zero; it still counts as 0


def test_an_offset_inside_a_character_is_reported_and_re_anchored_only_when_unambiguous():
    answer = "東京は日本の首都です。大阪は第二の都市です。"
    bad = segment("大阪は第二の都市です。", answer)
    bad["startIndex"] += 1  # inside 大 (3 bytes)
    response = parse(body(answer, [{"segment": bad, "groundingChunkIndices": [0]}]))
    (note,) = [d for d in response["diagnostics"] if d["code"] == "offset_inside_character"]
    assert "placed where that text stands nearby" in note["message"]
    (citation,) = response["citations"]
    assert answer[citation["start"] : citation["end"]] == "大阪は第二の都市です。"


def test_a_segment_whose_text_is_not_near_its_offsets_stays_unplaced():
    answer = "東京は日本の首都です。"
    support = {
        "segment": {"startIndex": 0, "endIndex": 9, "text": "まったく別の文です。"},
        "groundingChunkIndices": [0],
    }
    response = parse(body(answer, [support]))
    assert response["citations"] == []
    assert any(d["code"] == "segment_text_mismatch" and "not placed" in d["message"] for d in response["diagnostics"])


def test_a_repeated_short_text_is_never_re_anchored():
    answer = "値は**高い**。別の**高い**値。"
    support = {"segment": {"startIndex": 1000, "endIndex": 1008, "text": "**高い**"}, "groundingChunkIndices": [0]}
    response = parse(body(answer, [support]))
    assert response["citations"] == []
    assert any(d["code"] == "offset_out_of_range" for d in response["diagnostics"])


def test_several_chunks_with_confidence_are_kept_and_shown():
    answer = "東京の人口は約1400万人です。"
    support = {"segment": segment(answer, answer), "groundingChunkIndices": [0, 1], "confidenceScores": [0.91, 0.42]}
    response = parse(body(answer, [support]))
    (citation,) = response["citations"]
    assert citation["source_keys"] == ["0", "1"] and citation["confidence"] == [0.91, 0.42]
    html = render_answer(response, "cv-r0")
    assert ">[1]<" in html and ">[2]<" in html and "confidence 0.91" in html and "confidence 0.42" in html
    assert '<span class="cv-supported">' in html


def test_python_genai_snake_case_dumps_read_the_same():
    answer = "東京は日本の首都です。"
    camel = body(answer, [{"segment": segment(answer, answer), "groundingChunkIndices": [0]}])
    snake = {
        "candidates": [
            {
                "content": {"parts": [{"text": answer, "thought": None}], "role": "model"},
                "finish_reason": "STOP",
                "index": None,
                "citation_metadata": None,
                "grounding_metadata": {
                    "web_search_queries": ["東京 人口"],
                    "search_entry_point": None,
                    "grounding_chunks": [
                        {
                            "web": {"uri": f"{REDIRECT}{i}", "title": f"site{i}.jp", "domain": None},
                            "retrieved_context": None,
                        }
                        for i in range(2)
                    ],
                    "grounding_supports": [
                        {
                            "segment": {
                                "start_index": None,
                                "end_index": len(answer.encode()),
                                "part_index": None,
                                "text": answer,
                            },
                            "grounding_chunk_indices": [0],
                            "confidence_scores": None,
                        }
                    ],
                },
            }
        ],
        "model_version": "gemini-2.5-flash",
        "response_id": "x3Yk",
        "sdk_http_response": {"headers": {}},
        "usage_metadata": {"prompt_token_count": 1},
    }
    a, b = parse(camel), parse(snake)
    assert (a["text"], a["citations"], a["sources"]) == (b["text"], b["citations"], b["sources"])


def test_a_stream_keeps_the_last_non_empty_grounding_and_offsets_refer_to_the_whole_answer():
    answer_parts = ["東京は日本の首都です。", "人口は約1400万人です。"]
    answer = "".join(answer_parts)
    final = body(answer, [{"segment": segment(answer_parts[1], answer), "groundingChunkIndices": [0]}])
    chunks = [
        {
            "candidates": [
                {
                    "content": {"parts": [{"text": answer_parts[0]}], "role": "model"},
                    "index": 0,
                    "groundingMetadata": {},
                }
            ]
        },
        {
            "candidates": [
                {
                    "content": {"parts": [{"text": answer_parts[1]}], "role": "model"},
                    "finishReason": "STOP",
                    "groundingMetadata": final["candidates"][0]["groundingMetadata"],
                }
            ]
        },
        {"candidates": [{"content": {"parts": [{"text": ""}]}, "groundingMetadata": {}}]},
    ]
    response = parse_dump(sse(*chunks, named=False)).to_json()["responses"][0]
    assert response["streamed"] and response["text"] == answer and response["status"] == "completed"
    (citation,) = response["citations"]
    assert answer[citation["start"] : citation["end"]] == answer_parts[1]
    assert response["searches"][0]["queries"] == ["東京 人口"]


def test_thought_parts_are_not_answer_text():
    obj = body("答えです。", [])
    obj["candidates"][0]["content"]["parts"].insert(0, {"text": "考え中…", "thought": True})
    assert parse(obj)["text"] == "答えです。"


@pytest.mark.parametrize(
    ("finish", "status"),
    [("STOP", "completed"), ("MAX_TOKENS", "incomplete"), ("SAFETY", "incomplete"), ("RECITATION", "incomplete")],
)
def test_finish_reasons_decide_the_status(finish, status):
    response = parse(body("x", [], finish=finish))
    assert response["status"] == status and (status == "completed" or finish in response["status_detail"])


def test_a_blocked_prompt_is_failed():
    response = parse({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 3}})
    assert response["status"] == "failed" and "SAFETY" in response["status_detail"]


def test_other_candidates_are_alternatives_with_their_own_sources():
    obj = body("一つ目。", [])
    second = json.loads(json.dumps(obj["candidates"][0]))
    second.update(index=1)
    second["content"]["parts"][0]["text"] = "二つ目。"
    obj["candidates"].append(second)
    first, alternative = parse_dump(json.dumps(obj).encode()).to_json()["responses"]
    assert (first["candidate"], alternative["candidate"]) == (0, 1)
    assert alternative["text"] == "二つ目。" and len(alternative["sources"]) == 2


def test_redirect_links_are_kept_as_given_and_named_by_their_title():
    response = parse(body("x", []))
    source = response["sources"][0]
    assert source["url"].startswith(REDIRECT) and source["title"] == "site0.jp" and source["extra"]["redirect"] is True


def test_search_suggestions_are_kept_exactly_as_provided():
    snippet = '<style>.chip{color:red}</style><div class="container"><a class="chip" href="https://www.google.com/search?q=x">x</a></div><script>alert(1)</script>'
    response = parse(body("x", [], searchEntryPoint={"renderedContent": snippet}))
    assert response["search_suggestions"] == snippet
    assert "<script>" not in render_answer(response, "cv-r0")


def test_byte_offsets_convert_only_at_character_starts():
    offsets = ByteOffsets("a東🗾")
    assert [offsets.codepoint(b) for b in range(9)] == [0, 1, None, None, 2, None, None, None, 3]


def test_interactions_annotations_are_byte_spans_on_the_output_text():
    text = "首都は東京です。Tokyo is the capital."
    start = len("首都は東京です。".encode())
    interaction = {
        "id": "v1_x",
        "status": "completed",
        "model": "gemini-2.5-flash",
        "steps": [
            {"type": "thought", "signature": "s"},
            {
                "type": "model_output",
                "content": [
                    {
                        "type": "text",
                        "text": text,
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": f"{REDIRECT}a",
                                "title": "example.jp",
                                "start_index": 0,
                                "end_index": start,
                            },
                            {
                                "type": "url_citation",
                                "url": "https://example.org/t",
                                "title": "T",
                                "start_index": start,
                                "end_index": len(text.encode()),
                            },
                        ],
                    }
                ],
            },
        ],
    }
    response = parse(interaction)
    assert response["api"] == "gemini.interactions" and response["status"] == "completed"
    assert [text[c["start"] : c["end"]] for c in response["citations"]] == ["首都は東京です。", "Tokyo is the capital."]


def test_an_interactions_stream_accumulates_its_step_deltas():
    events = [
        {
            "event_type": "interaction.created",
            "interaction": {"id": "v1_y", "status": "in_progress", "model": "gemini-2.5-flash"},
        },
        {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
        {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "Hello "}},
        {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "world."}},
        {
            "event_type": "step.delta",
            "index": 0,
            "delta": {
                "type": "text_annotation_delta",
                "annotations": [
                    {
                        "type": "url_citation",
                        "url": "https://example.org/w",
                        "title": "W",
                        "start_index": 6,
                        "end_index": 12,
                    }
                ],
            },
        },
        {"event_type": "step.stop", "index": 0},
    ]
    cut = parse_dump(json.dumps(events).encode()).to_json()["responses"][0]
    assert cut["text"] == "Hello world." and cut["status"] == "incomplete"
    assert [cut["text"][c["start"] : c["end"]] for c in cut["citations"]] == ["world."]
    events.append({"event_type": "interaction.completed", "interaction": {"id": "v1_y", "status": "completed"}})
    assert parse_dump(json.dumps(events).encode()).to_json()["responses"][0]["status"] == "completed"


def test_a_highlight_never_breaks_a_list_heading_or_quote():
    answer = "## 見出しです\n\n* 一つ目の項目です。\n1. 二つ目の項目です。\n> 引用された文です。"
    texts = ["見出しです", "一つ目の項目です。", "二つ目の項目です。", "引用された文です。"]
    lines = ["## 見出しです", "* 一つ目の項目です。", "1. 二つ目の項目です。", "> 引用された文です。"]
    supports = [{"segment": segment(line, answer), "groundingChunkIndices": [0]} for line in lines]
    html = render_answer(parse(body(answer, supports)), "cv-r0")
    assert "<h2>" in html and "<ul>" in html and "<ol>" in html and "<blockquote>" in html
    assert "* " not in html and "## " not in html
    assert html.count('<span class="cv-supported">') == len(texts)


def test_two_whole_responses_in_one_dump_stay_apart():
    first = body(
        "一つ目の答え。", [{"segment": segment("一つ目の答え。", "一つ目の答え。"), "groundingChunkIndices": [0]}]
    )
    second = body(
        "二つ目の答え。", [{"segment": segment("二つ目の答え。", "二つ目の答え。"), "groundingChunkIndices": [1]}]
    )
    second["responseId"] = "other"
    raw = (json.dumps(first, ensure_ascii=False) + "\n" + json.dumps(second, ensure_ascii=False) + "\n").encode()
    one, two = parse_dump(raw).to_json()["responses"]
    assert (one["text"], two["text"]) == ("一つ目の答え。", "二つ目の答え。")
    assert [c["source_keys"] for c in two["citations"]] == [["1"]]


@pytest.mark.parametrize("field", ["groundingChunkIndices", "confidenceScores"])
def test_a_scalar_where_a_list_belongs_is_read_not_a_crash(field):
    answer = "東京は日本の首都です。"
    support = {"segment": segment(answer, answer), "groundingChunkIndices": [0]}
    support[field] = 1
    response = parse(body(answer, [support]))
    assert response["provider"] == "gemini"


def test_an_explicit_part_index_counts_every_part_of_the_content():
    obj = body("", [])
    parts = [
        {"text": "考え中", "thought": True},
        {"text": "前半です。"},
        {"functionCall": {"name": "f"}},
        {"text": "後半です。"},
    ]
    obj["candidates"][0]["content"]["parts"] = parts
    seg = {"partIndex": 3, "endIndex": len("後半です。".encode()), "text": "後半です。"}
    obj["candidates"][0]["groundingMetadata"]["groundingSupports"] = [{"segment": seg, "groundingChunkIndices": [0]}]
    response = parse(obj)
    (citation,) = response["citations"]
    assert response["text"][citation["start"] : citation["end"]] == "後半です。"
    assert not [d for d in response["diagnostics"] if d["code"] in PLACEMENT_PROBLEMS]


def test_confidence_stays_with_its_chunk_when_an_unknown_chunk_is_dropped():
    answer = "東京は日本の首都です。"
    support = {
        "segment": segment(answer, answer),
        "groundingChunkIndices": [0, 7, 1],
        "confidenceScores": [0.1, 0.5, 0.9],
    }
    (citation,) = parse(body(answer, [support]))["citations"]
    assert citation["source_keys"] == ["0", "1"] and citation["confidence"] == [0.1, 0.9]


def test_a_support_without_an_end_is_not_placed_at_the_start():
    support = {"segment": {"text": "東京"}, "groundingChunkIndices": [0]}
    response = parse(body("東京は日本の首都です。", [support]))
    assert response["citations"] == [] and any(d["code"] == "offset_out_of_range" for d in response["diagnostics"])


def test_an_error_in_a_stream_fails_it_with_its_message():
    chunks = [
        {"candidates": [{"content": {"parts": [{"text": "途中"}]}}]},
        {"error": {"code": 500, "message": "Internal error"}},
    ]
    response = parse_dump(json.dumps(chunks, ensure_ascii=False).encode()).to_json()["responses"][0]
    assert (response["status"], response["status_detail"]) == ("failed", "Internal error")


def test_a_cumulative_stream_is_not_read_twice():
    chunks = [
        {"candidates": [{"content": {"parts": [{"text": t}]}, **extra}]}
        for t, extra in [("東京は", {}), ("東京は首都", {}), ("東京は首都です。", {"finishReason": "STOP"})]
    ]
    response = parse_dump(json.dumps(chunks, ensure_ascii=False).encode()).to_json()["responses"][0]
    assert response["text"] == "東京は首都です。" and any(
        d["code"] == "cumulative_stream" for d in response["diagnostics"]
    )


def test_interactions_keep_their_queries_and_suggestions():
    interaction = {
        "id": "v1_z",
        "status": "completed",
        "steps": [
            {"type": "google_search_call", "arguments": {"queries": ["東京 人口"]}},
            {"type": "google_search_result", "result": [{"search_suggestions": "<div>chips</div>"}]},
            {
                "type": "model_output",
                "content": [
                    {"type": "text", "text": "x", "annotations": [{"type": "url_citation", "url": "https://e.example"}]}
                ],
            },
        ],
    }
    response = parse(interaction)
    assert response["searches"][0]["queries"] == ["東京 人口"] and response["search_suggestions"] == "<div>chips</div>"
    assert response["citations"] == []  # no end_index: listed, not placed at the start


def test_google_search_links_with_spaces_in_their_query_stay_clickable():
    from citeview.core.links import is_safe_http_url

    assert is_safe_http_url("https://www.google.com/search?q=weather+in+San Francisco, CA,+US")
    assert not is_safe_http_url("https://www.google.com/a b")
