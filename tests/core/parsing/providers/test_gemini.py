"""Gemini grounding: byte offsets to code points, supports placed exactly or diagnosed, never guessed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.checking.side_by_side import evidence_rows
from citeview.core.common.errors import DumpError
from citeview.core.parsing.offsets import ByteOffsets
from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import render_answer, source_labels
from tests.conftest import fixture_ids, fixture_params, own_fixture, real_fixtures, sse

FIXTURES = real_fixtures("gemini")
# An error body Gemini answered with (HTTP 400): no answer, so no supports.
ERROR_BODY = "firebase-googleai-unary-failure-url-context-url-limit-exceeded.json"
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


@pytest.mark.parametrize(
    "path",
    fixture_params([p for p in FIXTURES if p.name != ERROR_BODY]),
)
def test_every_recorded_support_is_placed_on_its_text_or_diagnosed(path: Path):
    raw = path.read_bytes()
    for response in parse_dump(raw).to_json()["responses"]:
        # An answer without text is a function call, and says so.
        assert response["provider"] == "gemini"
        assert response["text"] or "function_call_answer" in [d["code"] for d in response["diagnostics"]]
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
    assert note["message"].endswith("cut a character in two; placed where its text stands.")
    assert note["message"].count("placed") == 1  # said once, not once by the offsets and again by the support
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


def test_the_recorded_error_body_is_geminis_failure_with_its_status_code_and_message():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    raw = (FIXTURES[0].parent / ERROR_BODY).read_bytes()
    (response,) = parse_dump(raw).to_json()["responses"]
    assert (response["api"], response["status"], response["text"]) == ("gemini.generate_content", "failed", "")
    assert response["status_detail"] == (
        "INVALID_ARGUMENT (HTTP 400): Number of urls to lookup exceeds the limit (21 > 20). "
        "Please reduce the number of urls in the request."
    )
    assert [d["code"] for d in response["diagnostics"]] == ["failed_response"]  # nothing else claimed
    assert response["sources"] == response["citations"] == response["unresolved"] == []


def test_an_error_body_of_another_shape_is_not_taken_for_geminis():
    openai_error = {
        "error": {"message": "Invalid API key", "type": "invalid_request_error", "param": None, "code": None}
    }
    with pytest.raises(DumpError) as refused:
        parse_dump(json.dumps(openai_error).encode())
    assert refused.value.code == "unknown_provider"


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
    from citeview.core.common.links import is_safe_http_url

    assert is_safe_http_url("https://www.google.com/search?q=weather+in+San Francisco, CA,+US")
    assert not is_safe_http_url("https://www.google.com/a b")


# --- Retrieval, Maps and image chunks; recitation notices; Interactions file and place citations ---
# The dumps in tests/fixtures/gemini/*-built.* are built from provider-formats.md §3 and §3.1 (the
# grounding chunk kinds table, pitfalls 8 and 11), not recorded: no real recording of them exists.

RAG_BUILT = [
    "vertex-rag-engine-pages-recitation-built.json",
    "python-genai-rag-recitation-snake-case-built.json",
    "vertex-rag-engine-pages-recitation-stream-built.sse",
]
LAW = "使用者は、その雇入れの日から起算して六箇月間継続勤務し全労働日の八割以上出勤した労働者に対して、継続し、又は分割した十労働日の有給休暇を与えなければならない。"


def built(name: str) -> dict:
    return parse_dump(own_fixture(f"gemini/{name}")).to_json()["responses"][0]


def codes(response: dict) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def cited(response: dict) -> list[tuple[str, list[str], dict | None]]:
    text = response["text"]
    return [(text[c["start"] : c["end"]], c["source_keys"], c["location"]) for c in response["citations"]]


@pytest.mark.parametrize("name", RAG_BUILT)
def test_rag_engine_pages_become_the_citations_page_location_with_an_exclusive_end(name):
    response = built(name)
    assert response["streamed"] == name.endswith(".sse") and response["status"] == "completed"
    first, second = cited(response)
    assert first[0].startswith("年次有給休暇は") and first[1] == ["0"]
    assert first[2] == {"type": "page", "start": 12, "end": 14}  # firstPage 12, lastPage 13, both inclusive
    assert second[1] == ["1", "2"] and second[2] is None  # chunks on different pages: no one location
    rows = evidence_rows(response, source_labels(response))
    assert any(p["where"] == "p. 12–13" for row in rows for p in row["passages"])


@pytest.mark.parametrize("name", RAG_BUILT)
def test_retrieved_text_is_evidence_and_only_http_uris_are_links(name):
    response = built(name)
    rag, rag_one_page, search = response["sources"]
    assert rag["kind"] == "document" and rag["url"] is None and rag["title"] == "shugyo-kisoku.pdf"
    assert rag["extra"]["uri"] == "gs://hr-handbook-corpus/2026/shugyo-kisoku.pdf"
    assert rag["extra"]["snippet"].startswith("第24条") and rag["extra"]["snippet_kind"] == "retrieved_passage"
    assert (rag["extra"]["retrieval"], rag["extra"]["first_page"], rag["extra"]["last_page"]) == ("rag_engine", 12, 13)
    assert rag_one_page["extra"]["snippet"].startswith("第26条")  # ragChunk.text alone is the passage
    assert search["url"] == "https://intranet.example.co.jp/hr/faq/leave" and "uri" not in search["extra"]
    assert search["extra"]["retrieval"] == "vertex_ai_search" and search["extra"]["document_name"].endswith("leave-faq")
    assert "unsafe_url" not in codes(response)
    assert response["searches"][0]["queries"] == ["有給休暇 付与日数 時間単位"]
    rows = evidence_rows(response, source_labels(response))
    assert "（年次有給休暇）入社日から" in rows[0]["passages"][0]["quote_html"]  # shown beside the claim


@pytest.mark.parametrize("name", RAG_BUILT)
def test_a_recitation_notice_is_a_recitation_not_a_source_or_a_citation(name):
    response = built(name)
    (notice,) = response["recitations"]
    assert response["text"][notice["start"] : notice["end"]] == LAW
    assert (
        notice["url"] == "https://elaws.e-gov.go.jp/document?lawid=322AC0000000049" and notice["title"] == "労働基準法"
    )
    assert notice["publication_date"] == "1947-04-07" and notice["license"] is None  # Vertex's "" says nothing
    assert all("e-gov" not in (s["url"] or "") for s in response["sources"])
    assert len(response["sources"]) == 3 and len(response["citations"]) == 2
    (unit,) = [d for d in response["diagnostics"] if d["code"] == "offset_unit"]
    assert unit["severity"] == "info" and "UTF-8 bytes" in unit["message"] and unit["details"]["assumed"] is True


def test_python_genai_dumps_read_like_rest_dumps_for_the_new_chunks():
    camel, snake = built(RAG_BUILT[0]), built(RAG_BUILT[1])
    for field in ("text", "sources", "citations", "recitations", "searches"):
        assert camel[field] == snake[field], field


def test_file_search_pages_media_and_metadata_are_kept_readable():
    response = built("file-search-maps-image-chunks-built.json")
    store = response["sources"][0]
    assert store["url"] is None and store["title"] == "台東区観光ガイド.pdf"
    assert store["extra"]["retrieval"] == "file_search" and store["extra"]["snippet_kind"] == "retrieved_passage"
    assert store["extra"]["page_number"] == 4 and store["extra"]["media_id"].endswith("/media/guide-pdf-blob-01")
    assert (
        store["extra"]["custom_metadata"]
        == "source_url: https://www.city.taito.lg.jp/kanko/\nyear: 2025\ntags: 寺社, 浅草"
    )
    assert cited(response)[0] == (
        "浅草寺は東京都台東区にある都内最古の寺です。",
        ["0"],
        {"type": "page", "start": 4, "end": 5},
    )


def test_a_maps_place_carries_its_answer_text_reviews_and_route():
    response = built("file-search-maps-image-chunks-built.json")
    place = response["sources"][1]
    assert place["kind"] == "web" and place["url"] == "https://maps.google.com/?cid=1234567890123456789"
    assert place["title"] == "喫茶ひだまり" and place["extra"]["place_id"] == "places/ChIJx9Lr6zqMGGAR0123456789"
    assert (
        place["extra"]["snippet"].startswith("喫茶ひだまり・営業時間")
        and place["extra"]["snippet_kind"] == "retrieved_passage"
    )
    assert place["extra"]["reviews"].splitlines() == [
        "朝早くから開いていて助かります · 山田花子 · 2か月前 · https://maps.google.com/?cid=1234567890123456789&review=a1",
        "モーニングのトーストが美味しい",
    ]
    assert (place["extra"]["route_distance_meters"], place["extra"]["route_duration"]) == (160, "120s")
    assert cited(response)[1][0] == "雷門の近くにある「喫茶ひだまり」は朝7時から営業しています。"


def test_an_image_chunk_is_its_page_with_the_image_beside_it():
    image = built("file-search-maps-image-chunks-built.json")["sources"][2]
    assert (image["kind"], image["url"], image["title"]) == ("web", "https://www.senso-ji.jp/about/", "浅草寺について")
    assert image["extra"]["image_uri"] == "https://www.senso-ji.jp/images/kaminarimon.jpg"
    assert image["extra"]["domain"] == "senso-ji.jp"


def test_a_chunk_of_an_unknown_kind_is_a_source_with_what_it_names_and_a_note():
    response = built("file-search-maps-image-chunks-built.json")
    unknown = response["sources"][3]
    assert (unknown["url"], unknown["title"]) == ("https://archive.example.jp/catalog/42", "所蔵目録")
    (note,) = [d for d in response["diagnostics"] if d["code"] == "unknown_chunk_kind"]
    assert "catalog" in note["message"] and note["details"]["chunk"] == 3
    assert cited(response)[3][1] == ["3"]  # its support is still placed


def test_a_gemini_api_recitation_counts_bytes_and_a_notice_without_a_place_is_kept():
    response = built("file-search-maps-image-chunks-built.json")
    placed, unplaced = response["recitations"]
    assert response["text"][placed["start"] : placed["end"]] == "春の海 終日のたりのたりかな"
    assert (placed["license"], placed["title"]) == ("CC-BY-SA-4.0", None)
    assert (unplaced["start"], unplaced["end"], unplaced["license"]) == (None, None, "mit")
    assert not [d for d in response["diagnostics"] if d["severity"] != "info"]


def test_a_stream_keeps_the_last_non_empty_recitation_notices():
    response = built(RAG_BUILT[2])
    assert [r["url"] for r in response["recitations"]] == ["https://elaws.e-gov.go.jp/document?lawid=322AC0000000049"]


def rag_body(answer: str, chunks: list[dict], supports: list[dict], **candidate) -> dict:
    obj = body(answer, supports)
    obj["candidates"][0]["groundingMetadata"]["groundingChunks"] = chunks
    obj["candidates"][0].update(candidate)
    return obj


@pytest.mark.parametrize(
    ("span", "shown"),
    [
        ({"firstPage": 9, "lastPage": 7}, "9 to 7"),  # reversed
        ({"firstPage": 9}, "9 to (none)"),  # its end missing
        ({"firstPage": 0, "lastPage": 2}, "0 to 2"),  # pages count from 1
        ({"firstPage": "9", "lastPage": 10}, '"9" to 10'),
    ],
)
def test_a_page_span_that_names_no_pages_is_diagnosed_and_gives_no_location(span, shown):
    answer = "東京は日本の首都です。"
    chunk = {"retrievedContext": {"uri": "gs://b/f.pdf", "ragChunk": {"text": "首都は東京。", "pageSpan": span}}}
    response = parse(rag_body(answer, [chunk], [{"segment": segment(answer, answer), "groundingChunkIndices": [0]}]))
    ((_, keys, location),) = cited(response)
    assert keys == ["0"] and location is None
    (note,) = [d for d in response["diagnostics"] if d["code"] == "invalid_page_span"]
    assert note["severity"] == "warning" and shown in note["message"]


def test_an_empty_page_span_or_none_at_all_is_no_location_and_nothing_wrong():
    answer = "東京は日本の首都です。"
    chunks = [
        {"retrievedContext": {"ragChunk": {"text": "a", "pageSpan": {}}}},
        {"retrievedContext": {"ragChunk": {"text": "b"}}},
        {"retrievedContext": {}},  # any subset of the fields, even none
    ]
    supports = [{"segment": segment(answer, answer), "groundingChunkIndices": [i]} for i in range(3)]
    response = parse(rag_body(answer, chunks, supports))
    assert [location for _, _, location in cited(response)] == [None, None, None]
    assert "invalid_page_span" not in codes(response) and "unknown_chunk_kind" not in codes(response)
    assert response["sources"][2]["url"] is None and response["sources"][2]["extra"] == {}


def test_chunks_on_the_same_pages_give_their_shared_location():
    answer = "東京は日本の首都です。"
    span = {"firstPage": 3, "lastPage": 3}
    chunks = [{"retrievedContext": {"ragChunk": {"text": t, "pageSpan": span}}} for t in ("a", "b")]
    response = parse(rag_body(answer, chunks, [{"segment": segment(answer, answer), "groundingChunkIndices": [0, 1]}]))
    assert cited(response)[0][2] == {"type": "page", "start": 3, "end": 4}


@pytest.mark.parametrize(
    ("notice", "code"),
    [
        ({"startIndex": 0, "endIndex": 999}, "offset_out_of_range"),  # past the text
        ({"startIndex": 1, "endIndex": 6}, "offset_inside_character"),  # inside 東 (3 bytes)
        ({"startIndex": 6, "endIndex": 3}, "offset_out_of_range"),  # reversed
        ({"startIndex": 3}, "offset_out_of_range"),  # no end
        ({"startIndex": 0, "endIndex": "9"}, "offset_out_of_range"),
    ],
)
def test_a_recitation_that_does_not_fit_the_text_keeps_no_place_and_is_diagnosed(notice, code):
    answer = "東京は日本の首都です。"
    response = parse(
        rag_body(answer, [], [], citationMetadata={"citationSources": [{**notice, "uri": "https://x.example"}]})
    )
    (recitation,) = response["recitations"]
    assert (recitation["start"], recitation["end"], recitation["url"]) == (None, None, "https://x.example")
    assert code in codes(response) and response["citations"] == [] and response["sources"] == []


def test_a_recitation_without_a_start_starts_at_zero_and_dates_keep_what_is_given():
    answer = "東京は日本の首都です。"
    notices = [
        {"endIndex": 6, "publicationDate": {"year": 2024}},
        {"endIndex": 6, "publicationDate": {"year": 2024, "month": 5}},
        {"endIndex": 6, "publicationDate": {"month": 5, "day": 3}},
        {"endIndex": 6, "publicationDate": "2020-01-01"},
    ]
    response = parse(rag_body(answer, [], [], citationMetadata={"citations": notices}))
    assert [answer[r["start"] : r["end"]] for r in response["recitations"]] == ["東京"] * 4
    assert [r["publication_date"] for r in response["recitations"]] == ["2024", "2024-05", "--05-03", "2020-01-01"]


def test_an_interactions_file_citation_keeps_its_file_page_and_metadata():
    response = built("interactions-file-place-citations-built.json")
    assert response["api"] == "gemini.interactions" and response["status"] == "completed"
    (file_span, file_keys, file_page), (place_span, place_keys, _) = cited(response)
    assert file_span == "有給休暇は入社6か月後に10日付与されます。" and file_page == {
        "type": "page",
        "start": 12,
        "end": 13,
    }
    source = {s["key"]: s for s in response["sources"]}[file_keys[0]]
    assert (source["kind"], source["url"], source["title"]) == ("file", None, "就業規則2026.pdf")
    assert source["extra"]["document_uri"] == "fileSearchStores/hr-store-3x9/documents/kisoku-2026"
    assert source["extra"]["source"] == "hr-store-3x9"
    assert source["extra"]["custom_metadata"] == "department: 人事部\nversion: 3\ntags: 規程, 休暇"
    assert place_span == "雷門近くの喫茶ひだまりは朝7時に開店します。" and place_keys == [
        "places/ChIJx9Lr6zqMGGAR0123456789"
    ]


def test_an_interactions_place_citation_keeps_its_place_and_reviews():
    response = built("interactions-file-place-citations-built.json")
    place = {s["key"]: s for s in response["sources"]}["places/ChIJx9Lr6zqMGGAR0123456789"]
    assert place["url"] == "https://maps.google.com/?cid=1234567890123456789" and place["title"] == "喫茶ひだまり"
    assert place["extra"]["reviews"].startswith("朝早くから開いていて助かります · https://maps.google.com/")


@pytest.mark.parametrize(
    "name", ["interactions-file-place-citations-built.json", "interactions-file-place-citations-stream-built.json"]
)
def test_interactions_annotations_of_unknown_types_are_noted_and_unplaced_ones_cited_without_position(name):
    response = built(name)
    assert response["streamed"] == ("stream" in name) and response["status"] == "completed"
    assert response["cited_without_position"] == ["社内規程集.pdf"]
    (note,) = [d for d in response["diagnostics"] if d["code"] == "unknown_citation"]
    assert note["details"]["type"] == "page_citation_v2" and note["details"]["first"]["page"] == 3
    assert len(response["citations"]) == 2  # word_info attributes nothing: neither placed nor noted
    assert "unused_source" not in codes(response)
    assert not [d for d in response["diagnostics"] if d["severity"] != "info"]


def test_interactions_byte_offsets_inside_a_character_are_diagnosed_not_placed():
    text = "東京は日本の首都です。"
    interaction = {
        "id": "v1_q",
        "status": "completed",
        "steps": [
            {
                "type": "model_output",
                "content": [
                    {
                        "type": "text",
                        "text": text,
                        "annotations": [
                            {"type": "file_citation", "file_name": "a.pdf", "start_index": 1, "end_index": 6},
                            {"type": "file_citation", "file_name": "a.pdf", "page_number": 0, "end_index": 6},
                        ],
                    }
                ],
            }
        ],
    }
    response = parse(interaction)
    assert "offset_inside_character" in codes(response)
    ((span, _, location),) = cited(response)
    assert span == "東京" and location is None  # a page 0 is no page


# --- URL context: the pages the prompt named, retrieved or not -------------------------------------

URL_CONTEXT_FIXTURES = [p for p in FIXTURES if "urlContextMetadata" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", URL_CONTEXT_FIXTURES, ids=fixture_ids(URL_CONTEXT_FIXTURES))
def test_every_url_the_prompt_gave_is_a_source_with_its_status_and_each_failure_is_said(path: Path):
    raw = path.read_bytes()
    values = [json.loads(line.removeprefix("data:")) for line in raw.decode().splitlines() if line.startswith("data:")]
    candidates = [c for v in (values or [json.loads(raw)]) for c in v.get("candidates", [])]
    entries = [e for c in candidates if "urlContextMetadata" in c for e in c["urlContextMetadata"]["urlMetadata"]]
    (response,) = parse_dump(raw).to_json()["responses"]
    statuses = {s["url"]: s["extra"].get("url_retrieval_status") for s in response["sources"]}
    for entry in entries:
        if "retrievedUrl" in entry:
            assert statuses[entry["retrievedUrl"]] == entry["urlRetrievalStatus"].removeprefix("URL_RETRIEVAL_STATUS_")
    failed = [e for e in entries if e["urlRetrievalStatus"] != "URL_RETRIEVAL_STATUS_SUCCESS"]
    notes = [d for d in response["diagnostics"] if d["code"] == "url_not_retrieved"]
    assert len(notes) == (1 if failed else 0)
    if failed:
        assert len(notes[0]["details"]["urls"]) == len(failed)


def url_context(*entries: tuple[str | None, str]) -> dict:
    metadata = [
        {**({"retrievedUrl": url} if url else {}), "urlRetrievalStatus": f"URL_RETRIEVAL_STATUS_{status}"}
        for url, status in entries
    ]
    return {"urlMetadata": metadata}


def test_a_url_retrieved_and_grounded_is_one_source_and_a_failed_one_is_marked_not_read():
    answer = "気象庁のページによると平年値は15.8℃です。"
    value = body(answer, [{"segment": segment(answer, answer), "groundingChunkIndices": [0]}], chunks=1)
    value["candidates"][0]["groundingMetadata"]["groundingChunks"] = [
        {"web": {"uri": "https://www.jma.go.jp/", "title": "気象庁"}}
    ]
    value["candidates"][0]["urlContextMetadata"] = url_context(
        ("https://www.jma.go.jp/", "SUCCESS"), ("https://paywalled.example.jp/", "PAYWALL"), (None, "ERROR")
    )
    response = parse(value)
    assert [(s["key"], s["url"], s["extra"].get("url_retrieval_status")) for s in response["sources"]] == [
        ("0", "https://www.jma.go.jp/", "SUCCESS"),
        ("https://paywalled.example.jp/", "https://paywalled.example.jp/", "PAYWALL"),
    ]
    assert response["sources"][1]["extra"]["not_retrieved"] is True
    (note,) = [d for d in response["diagnostics"] if d["code"] == "url_not_retrieved"]
    assert note["details"]["urls"] == [
        {"url": "https://paywalled.example.jp/", "status": "PAYWALL"},
        {"url": None, "status": "ERROR"},
    ]
    assert "2 of the 3" in note["message"] and "(no address given)" in note["message"]
    assert "unused_source" not in codes(response)  # the failure is said once, not as "never cited"


def test_a_support_of_chunks_the_response_does_not_list_marks_its_claim_as_citing_no_source():
    answer = "取得できたページ。取得できなかったページ。"
    first, second = "取得できたページ。", "取得できなかったページ。"
    supports = [
        {"segment": segment(first, answer), "groundingChunkIndices": [0]},
        {"segment": segment(second, answer), "groundingChunkIndices": [1, 2]},
    ]
    response = parse(body(answer, supports, chunks=1))
    assert [answer[c["start"] : c["end"]] for c in response["citations"]] == [first]  # never a guessed page
    assert response["unresolved"] == [{"marker": "", "ref": "chunks 1, 2", "start": len(answer), "end": len(answer)}]
    (note,) = [d for d in response["diagnostics"] if d["code"] == "unknown_chunk"]
    assert note["details"]["missing_chunks"] == [1, 2]
    assert "1, 2" in note["message"] and "lists 1" in note["message"]
    html = render_answer(response, "r0")
    assert "[chunks 1, 2]" in html and "cv-unresolved" in html and "[chunks 1, 2] points at no source." in html


def test_an_answer_that_is_a_function_call_says_so_and_keeps_its_recitation_notice_unplaced():
    value = body("", [])
    value["candidates"][0]["content"]["parts"] = [{"functionCall": {"name": "final_result", "args": {"city": "パリ"}}}]
    value["candidates"][0]["citationMetadata"] = {
        "citationSources": [{"startIndex": 10, "endIndex": 40, "uri": "https://a.example/"}]
    }
    response = parse(value)
    assert response["text"] == "" and response["status"] == "completed"
    (note,) = [d for d in response["diagnostics"] if d["code"] == "function_call_answer"]
    assert note["details"]["functions"] == ["final_result"] and "final_result" in note["message"]
    assert [r["url"] for r in response["recitations"]] == ["https://a.example/"]
