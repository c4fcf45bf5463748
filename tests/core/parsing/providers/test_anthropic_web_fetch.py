"""Claude's web fetch (provider-formats.md §12): each page Claude fetched is a source holding the
text it read, a failed fetch is said with its address and error code. The recordings are read in
place from ../shared/fixtures/anthropic/; the odd shapes (Japanese pages, a PDF sent as text/plain,
a stream, a continuation) are built here."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeview.core.parsing.parse import parse_dump
from tests.conftest import SHARED_FIXTURES, fixture_ids, real_fixtures, sse
from tests.core.parsing.providers.test_anthropic import message, parse, stream_events, text, walk
from tests.core.pdfs import pdf_with_pages
from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE

# The recorders' JSON Lines of stream chunks (.chunks.jsonl) too, which hold half of the fetches.
RECORDINGS = [*real_fixtures("anthropic"), *sorted((SHARED_FIXTURES / "anthropic").glob("*.jsonl"))]
FETCHING = [p for p in RECORDINGS if "web_fetch_tool_result" in p.read_text(encoding="utf-8")]
PAGE_URL = "https://www.jma.go.jp/jma/kishou/know/faq/faq1.html"
PAGE_TEXT = "東京の年平均気温は15.8℃です。\n観測地点：北の丸公園（千代田区）"


def read_recording(path: Path) -> list[Any]:
    """The recording's JSON values, read apart from citeview: one body, or one value a line / data line."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".json" and not path.name.endswith(".chunks.jsonl"):
        return [json.loads(raw)]
    lines = (line.removeprefix("data:").strip() for line in raw.splitlines())
    return [json.loads(line) for line in lines if line.startswith("{")]


def squeezed(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip()


def call(tool_id: str, url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "server_tool_use", "id": tool_id, "name": "web_fetch", "input": {"url": url}, **extra}


def fetched(tool_id: str, url: str, data: str, media_type: str = "text/plain", **extra: Any) -> dict[str, Any]:
    document = {"type": "document", "source": {"type": "text", "media_type": media_type, "data": data}, "title": "気温"}
    return {
        "type": "web_fetch_tool_result",
        "tool_use_id": tool_id,
        "content": {
            "type": "web_fetch_result",
            "url": url,
            "retrieved_at": "2026-11-30T01:02:03Z",
            "content": document,
        },
        **extra,
    }


def failed(tool_id: str, code: str) -> dict[str, Any]:
    return {
        "type": "web_fetch_tool_result",
        "tool_use_id": tool_id,
        "content": {"type": "web_fetch_tool_result_error", "error_code": code},
    }


def shown(value: str) -> str:
    """A drawn string as citeview shows it: a NUL or half a character as U+FFFD."""
    return re.sub("[\x00\ud800-\udfff]", "\ufffd", value)


def codes(response: dict[str, Any]) -> list[str]:
    return [d["code"] for d in response["diagnostics"]]


@pytest.mark.parametrize("path", FETCHING, ids=fixture_ids(FETCHING))
def test_every_recorded_fetch_is_a_source_with_its_text_or_a_reported_failure(path: Path):
    values = read_recording(path)
    pages = {d["url"]: d["content"]["source"]["data"] for d in walk(values) if d.get("type") == "web_fetch_result"}
    failures = {d["error_code"] for d in walk(values) if d.get("type") == "web_fetch_tool_result_error"}
    assert pages or failures
    responses = parse_dump(path.read_bytes()).to_json()["responses"]
    sources = {s["url"]: s for r in responses for s in r["sources"]}
    for url, data in pages.items():
        assert squeezed(sources[url]["extra"]["snippet"]) == squeezed(data)
        assert sources[url]["extra"]["snippet_kind"] == "fetched_page"
    said = [
        d["details"].get("error_code") for r in responses for d in r["diagnostics"] if d["code"] == "web_fetch_failed"
    ]
    assert set(said) == failures


def test_the_recordings_of_fetches_are_found():
    if SHARED_FIXTURES.is_dir():
        assert len(FETCHING) == 16


def test_a_fetched_page_is_a_source_with_its_title_time_and_the_text_claude_read():
    response = parse(
        message(
            text("取得します。"),
            call("srv_1", PAGE_URL),
            fetched("srv_1", PAGE_URL, PAGE_TEXT),
            text("年平均気温は15.8℃です。"),
        )
    )
    (source,) = response["sources"]
    assert (source["url"], source["title"], source["kind"]) == (PAGE_URL, "気温", "web")
    assert source["extra"] == {
        "retrieved_at": "2026-11-30T01:02:03Z",
        "snippet": PAGE_TEXT,
        "snippet_kind": "fetched_page",
    }
    assert response["text"] == "取得します。年平均気温は15.8℃です。"
    # Read, not merely offered: one note says the answer cites none of the pages, no "never cited" per page.
    assert "unused_source" not in codes(response)
    (note,) = [d for d in response["diagnostics"] if d["code"] == "fetched_not_cited"]
    assert note["severity"] == "info" and note["details"]["keys"] == [PAGE_URL]


def test_a_fetched_page_the_answer_cites_is_no_uncited_page():
    quote = {
        "type": "web_search_result_location",
        "url": PAGE_URL,
        "title": "気温",
        "cited_text": "15.8℃",
        "encrypted_index": "E",
    }
    response = parse(
        message(call("srv_1", PAGE_URL), fetched("srv_1", PAGE_URL, PAGE_TEXT), text("15.8℃です。", quote))
    )
    assert [c["source_keys"] for c in response["citations"]] == [[PAGE_URL]]
    assert "fetched_not_cited" not in codes(response) and "unused_source" not in codes(response)


def test_a_failed_fetch_names_its_address_and_error_code():
    response = parse(
        message(call("srv_1", PAGE_URL), failed("srv_1", "url_not_accessible"), text("取得できませんでした。"))
    )
    (failure,) = [d for d in response["diagnostics"] if d["code"] == "web_fetch_failed"]
    assert failure["severity"] == "warning"
    assert failure["details"] == {"url": PAGE_URL, "error_code": "url_not_accessible"}
    assert PAGE_URL in failure["message"] and "url_not_accessible" in failure["message"]
    assert response["sources"] == []


def test_a_continuation_reads_the_result_of_the_call_in_the_message_before():
    response = parse(message(failed("srv_9", "unavailable"), text("続けます。")))
    (failure,) = [d for d in response["diagnostics"] if d["code"] == "web_fetch_failed"]
    assert failure["details"] == {"error_code": "unavailable"} and "message before" in failure["message"]
    page = parse(message(fetched("srv_9", PAGE_URL, PAGE_TEXT), text("続けます。")))
    assert [s["url"] for s in page["sources"]] == [PAGE_URL]


def test_a_fetch_called_from_code_the_model_ran_says_so_and_a_direct_one_does_not():
    caller = {"type": "code_execution_20260120", "tool_id": "srv_0"}
    response = parse(
        message(call("srv_1", PAGE_URL, caller=caller), fetched("srv_1", PAGE_URL, PAGE_TEXT, caller=caller), text("x"))
    )
    assert response["sources"][0]["extra"]["caller"] == "code_execution_20260120"
    direct = parse(message(fetched("srv_1", PAGE_URL, PAGE_TEXT, caller={"type": "direct"}), text("x")))
    assert "caller" not in direct["sources"][0]["extra"]


def test_a_pdf_sent_as_base64_under_text_plain_is_read_as_the_pdf_it_is():
    pdf = pdf_with_pages(["気象庁の年報", "東京 15.8℃"])
    data = base64.b64encode(pdf).decode()
    response = parse(message(fetched("srv_1", PAGE_URL, data), text("x")))
    snippet = response["sources"][0]["extra"]["snippet"]
    assert "気象庁の年報" in snippet and "東京 15.8℃" in snippet and "JVBER" not in snippet


def test_text_that_only_starts_like_base64_stays_as_it_came():
    response = parse(message(fetched("srv_1", PAGE_URL, "JVBERi is not a PDF here."), text("x")))
    assert response["sources"][0]["extra"]["snippet"] == "JVBERi is not a PDF here."


def test_a_streamed_fetch_reads_its_address_from_the_input_deltas_and_its_result_whole():
    events = stream_events(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "server_tool_use", "id": "srv_1", "name": "web_fetch", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"url": "https://www.jma.go'},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '.jp/jma/kishou/know/faq/faq1.html"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": failed("srv_1", "too_many_requests")},
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": fetched("srv_2", "https://example.jp/", PAGE_TEXT),
        },
        {"type": "content_block_stop", "index": 2},
    )
    (response,) = parse_dump(sse(*events)).to_json()["responses"]
    (failure,) = [d for d in response["diagnostics"] if d["code"] == "web_fetch_failed"]
    assert failure["details"] == {"url": PAGE_URL, "error_code": "too_many_requests"}
    assert [(s["url"], s["extra"]["snippet"]) for s in response["sources"]] == [("https://example.jp/", PAGE_TEXT)]


def _streamed(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each block as a stream sends it: whole in its start (a tool's input arrives as deltas)."""
    events: list[dict[str, Any]] = []
    for index, block in enumerate(blocks):
        if block["type"] == "server_tool_use":
            events.append({"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}})
            piece = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events.append({"type": "content_block_delta", "index": index, "delta": piece})
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    return events


FETCHES = st.lists(st.integers(0, 10**6), min_size=1, max_size=3, unique=True).flatmap(
    lambda ids: st.tuples(*(hs.claude_web_fetch(f"srv_{i}") for i in ids))
)


@PROFILE
@given(FETCHES, st.booleans())
def test_any_fetches_whole_or_streamed_give_their_pages_and_failures(fetches, streamed):
    blocks = [block for fetch in fetches for block in fetch]
    whole = message(*blocks, text("答え"))
    # Escaped, as the API sends JSON: the drawn text may hold half of a character.
    events = stream_events(*_streamed(blocks))
    raw = "".join(f"data: {json.dumps(e)}\n\n" for e in events) if streamed else json.dumps(whole)
    (response,) = parse_dump(raw.encode()).to_json()["responses"]
    results = [b["content"] for b in blocks if b["type"] == "web_fetch_tool_result"]
    pages = {shown(r["url"]) for r in results if r["type"] == "web_fetch_result"}
    assert {s["url"] for s in response["sources"]} == pages
    failures = [r["error_code"] for r in results if r["type"] != "web_fetch_result"]
    assert sorted(
        d["details"]["error_code"] for d in response["diagnostics"] if d["code"] == "web_fetch_failed"
    ) == sorted(failures)


def test_a_fetched_pdf_that_cannot_be_read_is_said_and_its_page_kept():
    data = base64.b64encode(b"%PDF-1.4\nthis is no PDF body").decode()
    response = parse(message(fetched("srv_1", PAGE_URL, data), text("x")))
    assert [s["url"] for s in response["sources"]] == [PAGE_URL] and "snippet" not in response["sources"][0]["extra"]
    (note,) = [d for d in response["diagnostics"] if d["code"] == "location_unverifiable"]
    assert PAGE_URL in note["message"] and note["severity"] == "warning"
