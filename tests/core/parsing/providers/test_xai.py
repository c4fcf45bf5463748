"""xAI: the Responses API (url_citation annotations with and without positions, the top-level citations
list) and the legacy Chat Completions with Live Search (provider-formats.md §8).

The four real recordings are read in place from ../shared/fixtures/xai/; every shape they lack is
built here from §8A/§8B (positioned annotations, a citations list, response.done, region-suffixed ids)
or in tests/fixtures/xai/*-built.* (legacy chat, whole and streamed), not recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.detection.registry import api_format
from citeview.core.parsing.parse import parse_dump
from tests.conftest import PROJECT_DIR, fixture_ids, own_fixture, real_fixtures, sse

FIXTURES = real_fixtures("xai")
SAMPLES = PROJECT_DIR / "citeview" / "dumps" / "samples"
RESPONSE_ID = "5d0c3e1a-8b27-4f96-a1e3-7c2b90d4e6f8"
NEWS, GROK = "https://x.ai/news", "https://x.ai/grok"


def read(raw: bytes) -> dict:
    (response,) = parse_dump(raw).to_json()["responses"]
    return response


def as_bytes(value: dict) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def codes(response: dict) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


def spans(response: dict) -> list[tuple[str, str | None]]:
    urls = {s["key"]: s["url"] for s in response["sources"]}
    return [(response["text"][c["start"] : c["end"]], urls[c["source_keys"][0]]) for c in response["citations"]]


def annotation_urls(value: object) -> set[str]:
    """Every url_citation's URL anywhere in a recording, read independently of the parser."""
    if isinstance(value, list):
        return set().union(*(annotation_urls(v) for v in value))
    if not isinstance(value, dict):
        return set()
    found = {value["url"]} if value.get("type") == "url_citation" and isinstance(value.get("url"), str) else set()
    return found.union(*(annotation_urls(v) for v in value.values()))


@pytest.mark.parametrize("path", FIXTURES, ids=fixture_ids(FIXTURES))
def test_every_recording_is_xai_and_lists_each_annotated_url_as_cited_without_position(path: Path):
    raw = path.read_bytes()
    response = read(raw)
    assert (response["provider"], response["api"], response["status"]) == ("xai", "xai.responses", "completed")
    assert response["text"] and response["citations"] == []  # none of them has a position in the text
    urls = {s["key"]: s["url"] for s in response["sources"]}
    cited = {urls[key] for key in response["cited_without_position"]}
    assert cited == annotation_urls(json.loads(raw))
    # An annotation without a position lists a source; it is no span gone astray.
    assert not {"empty_span", "offset_out_of_range", "unused_source"} & set(codes(response))


def test_the_function_call_shaped_searches_give_their_queries():
    if not FIXTURES:
        pytest.skip("../shared/fixtures is not beside the project")
    folder = FIXTURES[0].parent
    x_search = read((folder / "xai-responses-xsearch-grok4-fast-vercel.json").read_bytes())
    assert x_search["searches"] == [{"queries": ["AI artificial intelligence"], "source_keys": []}]
    zero = read((folder / "xai-responses-websearch-zero-offsets-grok4-fast-vercel-stream.chunks.json").read_bytes())
    assert [s["queries"] for s in zero["searches"]] == [["current title of https://x.ai site:x.ai"], ["https://x.ai"]]
    assert all(s["title"] is None for s in zero["sources"])  # the title that only repeats the URL is dropped


def positioned(text: str, *links: tuple[str, str], unit: str = "code_points") -> list[dict]:
    """url_citation annotations spanning each [[N]](url) link, offsets counted in ``unit``."""
    annotations, at = [], 0
    for link, url in links:
        start = text.index(link, at)
        at = start + len(link)
        begin, end = start, at
        if unit == "utf16":
            begin = len(text[:start].encode("utf-16-le")) // 2
            end = begin + len(link.encode("utf-16-le")) // 2
        elif unit == "utf8":
            begin = len(text[:start].encode())
            end = begin + len(link.encode())
        annotations.append({"type": "url_citation", "url": url, "start_index": begin, "end_index": end, "title": url})
    return annotations


def body(text: str, annotations: list[dict], *, citations: list | None = None, **extra) -> dict:
    value = {
        "id": RESPONSE_ID,
        "object": "response",
        "model": "grok-4-1-fast-reasoning",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": f"msg_{RESPONSE_ID}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}],
            }
        ],
        "usage": {"input_tokens": 100, "output_tokens": 20, "num_sources_used": 0, "num_server_side_tools_used": 1},
        **extra,
    }
    if citations is not None:
        value["citations"] = citations
    return value


def unit_report(response: dict) -> dict:
    (report,) = [d for d in response["diagnostics"] if d["code"] == "offset_unit"]
    return report


def test_japanese_positioned_citations_cover_their_links_and_the_unit_is_said():
    text = f"xAIは2023年に設立されました。[[1]]({NEWS}) 主力製品はGrokです。[[2]]({GROK})"
    response = read(as_bytes(body(text, positioned(text, (f"[[1]]({NEWS})", NEWS), (f"[[2]]({GROK})", GROK)))))
    assert spans(response) == [(f"[[1]]({NEWS})", NEWS), (f"[[2]]({GROK})", GROK)]
    report = unit_report(response)
    assert report["details"]["units"] == ["code_points", "utf16"]  # Japanese: not bytes; no emoji to tell the two
    assert "not UTF-8 bytes" in report["message"] and "segment_text_mismatch" not in codes(response)


@pytest.mark.parametrize(("unit", "words"), [("code_points", "code points"), ("utf16", "UTF-16"), ("utf8", "UTF-8")])
def test_an_emoji_before_a_citation_settles_which_unit_the_offsets_count(unit, words):
    text = f"最新情報です🚀。[[1]]({NEWS})"
    response = read(as_bytes(body(text, positioned(text, (f"[[1]]({NEWS})", NEWS), unit=unit))))
    assert spans(response) == [(f"[[1]]({NEWS})", NEWS)]
    report = unit_report(response)
    assert report["details"]["units"] == [unit] and words in report["message"]


def test_ascii_before_every_citation_leaves_the_unit_unsettled():
    text = f"xAI builds Grok. [[1]]({GROK})"
    report = unit_report(read(as_bytes(body(text, positioned(text, (f"[[1]]({GROK})", GROK))))))
    assert report["details"]["units"] == ["code_points", "utf16", "utf8"] and "does not settle" in report["message"]


def test_a_span_that_fits_in_no_unit_is_a_mismatch_placed_where_it_says():
    text = f"xAIは設立されました。[[1]]({NEWS})"
    annotation = {"type": "url_citation", "url": NEWS, "start_index": 0, "end_index": 5}
    response = read(as_bytes(body(text, [annotation])))
    assert "segment_text_mismatch" in codes(response) and "offset_unit" not in codes(response)


def test_a_link_no_annotation_covers_is_cited_where_it_stands_when_its_address_is_a_source():
    text = f"Grok 4 was released in July 2025.[[1]]({NEWS}) It runs on Colossus.[[2]](https://example.com/colossus)"
    response = read(as_bytes(body(text, [{"type": "url_citation", "url": NEWS}])))  # no position
    assert spans(response) == [(f"[[1]]({NEWS})", NEWS)]
    assert response["cited_without_position"] == []  # placed at its link now
    (unknown,) = [d for d in response["diagnostics"] if d["code"] == "unknown_citation"]
    assert unknown["details"]["url"] == "https://example.com/colossus"  # not a source: a link, said so


def test_zero_offsets_are_sources_cited_without_position_never_an_empty_span():
    text = "**xAI**"
    annotation = {"type": "url_citation", "url": NEWS, "start_index": 0, "end_index": 0, "title": NEWS}
    response = read(as_bytes(body(text, [annotation])))
    assert response["citations"] == [] and response["cited_without_position"] == [NEWS]
    assert "empty_span" not in codes(response) and "unused_source" not in codes(response)


def test_every_url_of_the_citations_list_is_a_source_and_the_uncited_one_is_unused():
    text = f"Grokの最新版が公開されました。[[1]]({NEWS})"
    response = read(
        as_bytes(body(text, positioned(text, (f"[[1]]({NEWS})", NEWS)), citations=[GROK, NEWS, 7, "https://x.com/xai"]))
    )
    assert [s["url"] for s in response["sources"]] == [NEWS, GROK, "https://x.com/xai"]
    unused = [d["details"]["key"] for d in response["diagnostics"] if d["code"] == "unused_source"]
    assert unused == [GROK, "https://x.com/xai"]
    assert "invalid_source" in codes(response)  # the 7 is no URL


def events(text: str, annotations: list[dict], terminal: str = "response.completed", **final) -> list[dict]:
    message_id = f"msg_{RESPONSE_ID}"
    created = {"id": RESPONSE_ID, "object": "response", "model": "grok-4-1-fast-reasoning", "status": "in_progress"}
    where = {"item_id": message_id, "output_index": 0, "content_index": 0}
    out = [{"type": "response.created", "sequence_number": 0, "response": {**created, "output": []}}]
    out += [{"type": "response.output_text.delta", **where, "delta": text[i : i + 4]} for i in range(0, len(text), 4)]
    out += [
        {"type": "response.output_text.annotation.added", **where, "annotation_index": n, "annotation": a}
        for n, a in enumerate(annotations)
    ]
    out.append({"type": "response.output_text.done", **where, "text": text})
    out.append({"type": terminal, "response": {**body(text, annotations), **final}})
    return out


def test_a_stream_ending_in_response_done_is_complete_and_cites_as_the_body_does():
    text = f"新しいモデルが発表されました。[[1]]({NEWS})"
    annotations = positioned(text, (f"[[1]]({NEWS})", NEWS))
    streamed = read(sse(*events(text, annotations, terminal="response.done")))
    whole = read(as_bytes(body(text, annotations)))
    assert streamed["api"] == "xai.responses" and streamed["streamed"] and streamed["status"] == "completed"
    assert streamed["citations"] == whole["citations"] and spans(streamed) == [(f"[[1]]({NEWS})", NEWS)]


def test_a_stream_cut_before_its_end_is_incomplete():
    text = "途中まで"
    cut = events(text, [])[:-1]
    assert read(sse(*cut))["status"] == "incomplete"


def test_the_citations_list_of_a_streams_final_response_is_read():
    text = "Grokです。"
    response = read(sse(*events(text, [], citations=[GROK])))
    assert [s["url"] for s in response["sources"]] == [GROK] and "unused_source" in codes(response)


def test_xai_is_told_apart_by_its_model_or_its_usage_never_by_its_id_alone():
    plain = {"object": "response", "status": "completed", "output": []}
    # A UUID id is DeepSeek's too: alone it names no provider.
    unnamed = read(as_bytes({**plain, "id": "84c1a8ea-1f29-4a33-1049-0ed3561b0f64_us-east-1"}))
    assert unnamed["api"] == "compatible.responses"
    assert read(as_bytes({**plain, "id": "x", "model": "grok-4"}))["api"] == "xai.responses"
    assert read(as_bytes({**plain, "usage": {"cost_in_usd_ticks": 5}}))["api"] == "xai.responses"
    assert read(as_bytes({**plain, "id": "resp_68e6a1b2c3d4", "model": "gpt-5"}))["api"] == "openai.responses"
    agent = {**plain, "id": "resp_3f1c0b2a-1111-2222-3333-444455556666", "model": "openai/gpt-5.2"}
    assert read(as_bytes(agent))["api"] == "perplexity.agent"


@pytest.mark.parametrize("provider", ["perplexity", "openai"])
def test_other_providers_recordings_of_the_responses_shape_are_theirs_still(provider):
    for path in real_fixtures(provider):
        for response in parse_dump(path.read_bytes()).to_json()["responses"]:
            assert response["provider"] == provider, path.name


def test_a_forced_provider_reads_the_shape_as_xais():
    agent = {"id": "resp_1", "object": "response", "status": "completed", "output": []}
    assert parse_dump(as_bytes(agent), provider="xai").to_json()["responses"][0]["api"] == "xai.responses"


def test_bad_input_is_said_never_a_crash():
    text = f"Grok. [[1]]({NEWS})"
    annotations = [
        {"type": "url_citation", "url": NEWS, "start_index": 3, "end_index": 900},  # past the text
        {"type": "url_citation", "url": NEWS, "start_index": "3", "end_index": None},  # not numbers
        {"type": "url_citation"},  # no URL, no span: listed under a key of its own
    ]
    search = {"type": "x_search_call", "arguments": "{not json", "id": f"fc_{RESPONSE_ID}_0", "status": "completed"}
    deep = {"type": "web_search_call", "arguments": "[" * 100_000, "id": "fc_2"}
    value = body(text, annotations, citations="not a list")
    value["output"] = [search, deep, *value["output"]]
    response = read(as_bytes(value))
    assert response["status"] == "completed" and response["searches"] == []
    assert codes(response).count("offset_out_of_range") == 3
    assert spans(response) == [(f"[[1]]({NEWS})", NEWS)]  # the link itself is still cited where it stands


# --- Chat Completions with Live Search (legacy) ------------------------------------------------------------


@pytest.mark.parametrize("name", ["xai-chat-live-search-ja-built.json", "xai-chat-live-search-ja-stream-built.sse"])
def test_live_search_citations_are_cited_without_position_and_markers_stay_unresolved(name):
    response = read(own_fixture(f"xai/{name}"))
    assert (response["api"], response["status"]) == ("xai.chat_completions", "completed")
    assert response["streamed"] == name.endswith(".sse")
    urls = [s["url"] for s in response["sources"]]
    assert len(urls) == 3 and response["cited_without_position"] == urls
    assert response["citations"] == [] and [m["marker"] for m in response["unresolved"]] == ["[1]", "[2]", "[4]"]
    first, second, past = (d["message"] for d in response["diagnostics"] if d["code"] == "unresolved_marker")
    assert "does not document" in first and urls[0] in first and "unconfirmed" in first
    assert urls[1] in second and "no URL at position 4 (it lists 3)" in past
    assert "unused_source" not in codes(response)


def test_live_search_is_told_from_sonar_by_its_model_or_usage():
    sonar = {
        "id": "b1d2c3e4-0000-1111-2222-333344445555",
        "model": "sonar",
        "object": "chat.completion",
        "citations": ["https://example.org/a"],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "A.[1]"}}],
    }
    assert read(as_bytes(sonar))["api"] == "perplexity.sonar"
    usage_only = {**sonar, "model": "unnamed", "usage": {"num_sources_used": 1}}
    assert read(as_bytes(usage_only))["api"] == "xai.chat_completions"
    for path in real_fixtures("perplexity"):
        assert all(r["provider"] == "perplexity" for r in parse_dump(path.read_bytes()).to_json()["responses"])


def test_a_live_search_citations_list_with_a_hole_says_so():
    chat = json.loads(own_fixture("xai/xai-chat-live-search-ja-built.json"))
    chat["citations"] = [chat["citations"][0], None]
    response = read(as_bytes(chat))
    assert "invalid_source" in codes(response) and len(response["sources"]) == 1


# --- What ships with citeview ---------------------------------------------------------------------------


def test_the_japanese_sample_cites_each_link_and_lists_the_uncited_page_as_consulted():
    response = read((SAMPLES / "14-xai-ja-responses-websearch.json").read_bytes())
    assert response["api"] == "xai.responses" and len(response["citations"]) == 5
    assert all(response["text"][c["start"] : c["end"]].startswith("[[") for c in response["citations"])
    assert sorted(codes(response)) == ["consulted_not_cited", "offset_unit"]
    assert not [d for d in response["diagnostics"] if d["severity"] != "info"]


def test_the_stream_sample_lists_its_sources_without_positions_and_nothing_else():
    response = read((SAMPLES / "15-xai-stream-en-no-positions.sse").read_bytes())
    assert (response["api"], response["streamed"], response["status"]) == ("xai.responses", True, "completed")
    assert len(response["cited_without_position"]) == 3 and response["diagnostics"] == []


def test_the_apis_say_how_xai_cites():
    assert "[[n]](url)" in api_format("xai.responses").citation_notation.template
    assert "citations" in api_format("xai.chat_completions").citation_notation.template
