"""Property-based tests (Hypothesis) of the dump reader and every parser, and of rendering.

Whatever the bytes, :func:`parse_dump` gives either one :class:`DumpError` or a normalised result
that keeps the contract (``../shared/docs/normalized-json.md``): every span inside its text, every
marker standing where it says, a status of three, JSON out. The answer renders and its statements
hold every citation once. Pathological Markdown within the answer cap renders.

The profile is deterministic (``derandomize``, no example database), so CI runs the same examples
every time; ``CITEVIEW_HYPOTHESIS_PROFILE=citeview-fuzz`` runs many more, randomly, to look for new bugs.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from citeview.core.checking.side_by_side import evidence_rows
from citeview.core.checking.statements import statements
from citeview.core.common.answer_markdown import MAX_MARKDOWN_CHARS
from citeview.core.common.errors import DumpError
from citeview.core.common.model import SEVERITIES
from citeview.core.detection import registry
from citeview.core.framing import read_dump
from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import render_response, source_labels
from tests.conftest import real_fixtures, recorded_providers
from tests.hostile import strategies as hs

settings.register_profile(
    "citeview-properties",
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
settings.register_profile(
    "citeview-fuzz", parent=settings.get_profile("citeview-properties"), max_examples=3000, derandomize=False
)
PROFILE = settings.get_profile(os.environ.get("CITEVIEW_HYPOTHESIS_PROFILE", "citeview-properties"))
# Fewer examples where one example costs more (whole fixtures, Markdown runs).
SMALL_PROFILE = settings(PROFILE, max_examples=max(30, PROFILE.max_examples // 3))

# The codes DumpError documents (its docstring lists them): an error with any other code is not "clear".
ERROR_CODES = set(re.findall(r"``([a-z0-9_]+)``", (DumpError.__doc__ or "").partition("Codes:")[2]))
STATUSES = {"completed", "incomplete", "failed"}
FRAMINGS = {"json", "json-array", "jsonl", "sse", "eventstream"}
PROVIDER_ARGUMENTS = [None, *registry.provider_names(), *registry.api_names(), "nobody"]


# --- The properties ---------------------------------------------------------------------------------


def parse_or_error(raw: bytes, **options: Any) -> dict[str, Any] | None:
    """The normalised JSON of ``raw``, or None when it is one clear :class:`DumpError`. Any other
    exception fails the test (that is the property)."""
    try:
        parsed = parse_dump(raw, **options)
    except DumpError as error:
        if isinstance(error.__cause__, Exception) and not isinstance(error.__cause__, DumpError):
            # A parser crashed and a catch-all turned the crash into a DumpError: the crash is the finding.
            error.__cause__.add_note(f"(parse_dump turned this into DumpError({error.code!r}))")
            raise error.__cause__ from None
        assert error.code in ERROR_CODES, error.code
        assert isinstance(error.message, str) and error.message.strip()
        json.dumps(error.to_json())
        return None
    result = parsed.to_json()
    json.dumps(result)  # the contract is JSON
    assert result["dump"]["framing"] in FRAMINGS
    assert result["dump"]["bytes"] == len(raw)
    assert result["responses"], "a result without a response should have been a DumpError"
    return result


def check_response(response: dict[str, Any]) -> None:
    """One response keeps the contract, renders, and has its statements."""
    text = response["text"]
    assert isinstance(text, str)
    assert response["status"] in STATUSES
    assert response["api"] in registry.api_names() and response["provider"] == response["api"].split(".")[0]
    assert isinstance(response["streamed"], bool)
    assert response["id"] is None or isinstance(response["id"], str)
    keys = [source["key"] for source in response["sources"]]
    assert len(keys) == len(set(keys)), f"source keys repeat: {keys}"
    starts = []
    for citation in response["citations"]:
        start, end = citation["start"], citation["end"]
        assert type(start) is int and type(end) is int, (start, end)
        assert 0 <= start <= end <= len(text), f"citation {start}–{end} outside a text of {len(text)}"
        if citation["marker"] is not None:
            assert text[start:end] == citation["marker"], (text[start:end], citation["marker"])
        assert citation["source_keys"] and set(citation["source_keys"]) <= set(keys), citation["source_keys"]
        if citation["confidence"] is not None:
            assert len(citation["confidence"]) == len(citation["source_keys"])
        starts.append(start)
    assert starts == sorted(starts), "citations are ordered by start"
    for marker in response["unresolved"]:
        start, end = marker["start"], marker["end"]
        assert type(start) is int and type(end) is int, (start, end)
        assert 0 <= start <= end <= len(text), f"unresolved {start}–{end} outside a text of {len(text)}"
        assert text[start:end] == marker["marker"], (text[start:end], marker["marker"])
    for diagnostic in response["diagnostics"]:
        assert diagnostic["severity"] in SEVERITIES and isinstance(diagnostic["message"], str)

    rendered = render_response(response, "cv-r0")
    assert isinstance(rendered["answer"], str)
    assert isinstance(evidence_rows(response, source_labels(response)), list)

    found = statements(response)
    if found:
        for statement in found:
            assert 0 <= statement.start <= statement.end <= len(text)
            assert statement.text == text[statement.start : statement.end]
        homes = Counter(i for s in found for i in s.citations)
        assert sorted(homes) == list(range(len(response["citations"]))), "every citation in a statement"
        assert set(homes.values()) <= {1}, "no citation in two statements"
        marker_homes = Counter(i for s in found for i in s.unresolved)
        assert sorted(marker_homes) == list(range(len(response["unresolved"])))
        assert set(marker_homes.values()) <= {1}


def check_dump(raw: bytes, **options: Any) -> dict[str, Any] | None:
    result = parse_or_error(raw, **options)
    for response in result["responses"] if result else []:
        check_response(response)
    return result


def check_strict_json(raw: bytes, **options: Any) -> None:
    """What is stored and served is strict JSON in UTF-8 that PostgreSQL's jsonb takes: no
    ``Infinity`` (every JSON parser but Python's refuses it), no lone surrogate (UTF-8 cannot hold
    one), no NUL (jsonb cannot). The same for an error's message, which a page and the API show."""
    try:
        result = parse_dump(raw, **options).to_json()
    except DumpError as error:
        json.dumps(error.to_json(), ensure_ascii=False).encode("utf-8")
        assert "\x00" not in error.message
        return
    json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")
    assert "\\u0000" not in json.dumps(result), "a NUL in the result: PostgreSQL cannot store it"


# --- Arbitrary bytes and JSON ---------------------------------------------------------------------------


@PROFILE
@given(st.binary(max_size=300))
@example(b"")
@example(b"\xef\xbb\xbf")
@example(b"data:")
@example(b"{\xe3\x81")
@example(b'data: {"type":"message_start"}\n\ndata: {"x":\xe3\x81')
def test_read_dump_reads_any_bytes_or_says_why_not(raw: bytes):
    try:
        dump = read_dump(raw)
    except DumpError as error:
        assert error.code in ERROR_CODES and error.message.strip()
        return
    assert dump.framing in FRAMINGS
    assert isinstance(dump.values, list) and dump.values
    if dump.framing in ("json", "json-array"):  # one object, or an array of objects; lines and events may hold anything
        assert all(isinstance(v, dict) for v in dump.values)


@PROFILE
@given(st.binary(max_size=300), st.sampled_from(PROVIDER_ARGUMENTS), st.one_of(st.none(), st.integers(0, 300)))
def test_parse_dump_of_any_bytes_is_a_result_or_one_error(raw: bytes, provider: str | None, max_bytes: int | None):
    result = check_dump(raw, provider=provider, **({} if max_bytes is None else {"max_bytes": max_bytes}))
    assert result is None or max_bytes is None or len(raw) <= max_bytes


@PROFILE
@given(st.lists(hs.json_values(), min_size=1, max_size=4).flatmap(lambda values: hs.framed(values, whole=True)))
@example(b'{"candidates":[]}\n[]\n')  # JSON Lines whose second line is not an object
def test_any_json_in_any_framing_is_a_result_or_one_error(raw: bytes):
    check_dump(raw)


@PROFILE
@given(
    st.lists(hs.json_values(), min_size=1, max_size=4).flatmap(hs.framed),
    st.one_of(st.none(), st.binary(max_size=40), hs.json_values().map(lambda v: hs.encode(v).encode())),
)
def test_an_attached_request_of_any_bytes_is_read_or_refused(raw: bytes, request: bytes | None):
    check_dump(raw, request=request)


@PROFILE
@given(st.integers(1, 3000), st.sampled_from(["[", '{"a":', '{"candidates":[']), st.booleans())
def test_deep_nesting_is_refused_or_read_never_a_crash(depth: int, opener: str, closed: bool):
    closer = {"[": "]", '{"a":': "}", '{"candidates":[': "]}"}[opener]
    text = opener * depth + "{}" + (closer * depth if closed else "")
    check_dump(text.encode())
    check_dump(f"data: {text}\n\n".encode())


# --- Provider responses -----------------------------------------------------------------------------


AGENT_ID = hs.AGENT_ID


@PROFILE
@given(hs.perplexity_agent_dump(), st.sampled_from([None, None, "perplexity", "openai.responses"]))
@example(  # a cited search result whose snippet is a number
    raw=(
        f'{{"id":"{AGENT_ID}","object":"response","status":"completed","output":[{{"type":"search_results",'
        '"results":[{"id":1,"url":"https://a.example/","snippet":2.5}]},'
        '{"type":"message","content":[{"type":"output_text","text":"x [1]"}]}]}'
    ).encode(),
    provider=None,
)
def test_perplexity_agent(raw: bytes, provider: str | None):
    check_dump(raw, provider=provider)


@PROFILE
@given(hs.perplexity_sonar_dump())
def test_perplexity_sonar(raw: bytes):
    check_dump(raw)


@PROFILE
@given(hs.anthropic_dump())
@example((b'{"type":"message_start","message":{}}\n{"type":[]}\n', None))  # an event whose `type` is a list
def test_anthropic_messages_with_and_without_request(dump: tuple[bytes, bytes | None]):
    raw, request = dump
    check_dump(raw, request=request)


@PROFILE
@given(hs.gemini_dump())
@example(  # a confidence score no float can hold
    b'{"candidates":[{"content":{"parts":[{"text":"hello"}]},"groundingMetadata":{"groundingChunks":[{"web":{}}],'
    b'"groundingSupports":[{"segment":{"endIndex":5},"groundingChunkIndices":[0],"confidenceScores":[1'
    + b"0" * 400
    + b"]}]}}]}"
)
def test_gemini_generate_content(raw: bytes):
    check_dump(raw)


@PROFILE
@given(hs.gemini_interactions_dump())
def test_gemini_interactions(raw: bytes):
    check_dump(raw)


@PROFILE
@given(hs.openai_responses_dump(), st.sampled_from([None, None, "openai", "perplexity"]))
@example(  # a URL urlsplit refuses
    raw=b'{"id":"resp_1","object":"response","status":"completed","output":[{"type":"web_search_call",'
    b'"action":{"sources":[{"url":"https://[::1"}]}}]}',
    provider=None,
)
def test_openai_responses(raw: bytes, provider: str | None):
    check_dump(raw, provider=provider)


@PROFILE
@given(hs.openai_chat_dump())
@example(  # reversed offsets that fit UTF-16 units, for a URL without a host
    '{"id":"chatcmpl-1","object":"chat.completion","choices":[{"finish_reason":"stop","message":{"content":"😀ab",'
    '"annotations":[{"type":"url_citation","start_index":2,"end_index":0,"url":"x"}]}}]}'.encode()
)
def test_openai_chat_completions(raw: bytes):
    check_dump(raw)


@PROFILE
@given(hs.stream_with_stray_values())
@example(b'{"type":"message_start","message":{}}\n-1\n')
@example(b'data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"x"}}]}\n\ndata: null\n\n')
@example(b'{"candidates":[]}\nnull\n')
@example(b'data: {"type":"response.created","response":{"id":"resp_1"}}\n\ndata: []\n\n')
def test_a_stream_with_values_that_are_not_objects(raw: bytes):
    """JSON Lines and SSE may carry any JSON value a line; one that is not an object is no event."""
    check_dump(raw)


@PROFILE
@given(hs.stream_with_odd_types())
@example(b'{"type":"message_start","message":{}}\n{"type":{}}\n')
@example(f'{{"type":"response.created","response":{{"id":"{AGENT_ID}"}}}}\n{{"type":[]}}\n'.encode())
@example(b'{"type":{}}\n{"type":"message_start","message":{}}\n')
def test_an_event_type_of_any_json_type(raw: bytes):
    """An event's ``type`` is usually a string; a list or an object there is an unknown event, not a crash."""
    check_dump(raw)


ANY_PROVIDER_DUMP = st.one_of(
    hs.perplexity_agent_dump(),
    hs.perplexity_sonar_dump(),
    hs.anthropic_dump().map(lambda pair: pair[0]),
    hs.gemini_dump(),
    hs.gemini_interactions_dump(),
    hs.openai_responses_dump(),
    hs.openai_chat_dump(),
)


@PROFILE
@given(ANY_PROVIDER_DUMP, st.data())
def test_any_response_cut_at_any_byte_or_with_a_byte_changed(raw: bytes, data: st.DataObject):
    cut = raw[: data.draw(st.integers(0, len(raw)), label="cut")]
    check_dump(cut)
    if raw:
        position = data.draw(st.integers(0, len(raw) - 1), label="position")
        byte = data.draw(st.integers(0, 255), label="byte")
        check_dump(raw[:position] + bytes([byte]) + raw[position + 1 :])


@PROFILE
@given(st.one_of(ANY_PROVIDER_DUMP, st.lists(hs.json_values(), min_size=1, max_size=3).flatmap(hs.framed)))
@example(b'{"type":"error","error":{"\\udc00":1,"message":"m"}}\n{"type":"message_start","message":{}}\n')
@example(b'{"\\udc00":1}')  # the error names the keys it found
@example(b'{"type":"error","error":{"\\u0000":"\\u0000"}}\n{"type":"message_start","message":{}}\n')
@example(
    b'{"id":"resp_0b6c2f9e-3a71-4c55-9d0e-2f1a7b8c9d00","object":"response","status":"completed","output":'
    b'[{"type":"search_results","results":[{"id":1,"url":"https://a.example/","date":1e400}]}]}'
)
@example(
    b'{"candidates":[{"content":{"parts":[{"text":"hello world"}]},"finishReason":"STOP","groundingMetadata":'
    b'{"groundingChunks":[{"web":{"uri":"https://a.example/"}}],"groundingSupports":'
    b'[{"segment":{"endIndex":5},"groundingChunkIndices":[0],"confidenceScores":[1e400]}]}}]}'
)
def test_what_is_stored_is_strict_json_in_utf8(raw: bytes):
    check_strict_json(raw)


REAL_FIXTURES = [p for provider in recorded_providers() for p in real_fixtures(provider)]


@pytest.mark.skipif(not REAL_FIXTURES, reason="../shared/fixtures is not beside the project")
@SMALL_PROFILE
@given(st.sampled_from(REAL_FIXTURES or [None]), st.data())
def test_a_recorded_dump_cut_at_any_byte(path: Any, data: st.DataObject):
    raw = path.read_bytes()
    check_dump(raw[: data.draw(st.integers(0, len(raw)), label="cut")])


# --- Pathological Markdown ----------------------------------------------------------------------------

CAP = MAX_MARKDOWN_CHARS


def _staircase(unit: str, limit: int, line: str = "x [1]") -> str:
    """One more level of ``unit`` on each line, as deep as ``limit`` characters allow."""
    lines, size, level = [], 0, 1
    while size + len(unit) * level + len(line) + 1 <= limit:
        lines.append(unit * level + line + "\n")
        size += len(lines[-1])
        level += 1
    return "".join(lines)


# Runs that markdown-it reads in linear time are checked at the full cap; the runs that cost it
# ~50 µs a character (brackets, image openers) at a size that keeps this test fast: their speed at
# the cap is the benchmarks' business.
PATHOLOGICAL = {
    "quotes-at-cap": ">" * CAP,
    "stars-at-cap": "*" * CAP,
    "backticks-at-cap": "`" * CAP,
    "parentheses-at-cap": "(" * CAP,
    "backslashes": "\\" * 20_000,
    "quote-staircase-at-cap": _staircase(">", CAP),
    "list-staircase-at-cap": _staircase("  ", CAP, "- x [1]"),
    "quoted-list-staircase": _staircase("> - ", 10_000),
    "backtick-runs": "".join("`" * n + "x" for n in range(1, 300)),
    "nested-emphasis": "*" * 2000 + "a" + "*" * 2000,
    "underscore-words": "_a" * 2500,
    "open-brackets": "[" * 3000,
    "brackets-open-close": "[" * 1500 + "x" + "]" * 1500,
    "image-openers": "![" * 1500,
    "link-openers": "[a](" * 1250,
    "angle-brackets": "<" * 5000,
    "entities": "&" * 5000 + "&#" * 1000,
    "table-pipes": ("|" * 50 + "\n") * 100,
    "markers-everywhere": "[1]" * 1000 + "[web:2]" * 200,
    "placeholder-forgery": "[\ufdd00][\ufdd01]" * 500 + "\ufdd0" * 1000,
    "mixed-syntax": "[*_`>" * 1000,
    "over-the-cap": "x" * CAP + " [1] [2]",
}


def _as_response(text: str) -> dict[str, Any]:
    return {"text": text, "citations": [], "unresolved": [], "sources": [], "diagnostics": []}


def _as_sonar_dump(text: str) -> bytes:
    body = {
        "id": hs.SONAR_ID,
        "model": "sonar",
        "object": "chat.completion",
        "citations": ["https://example.com/1", "https://example.com/2"],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
    }
    return json.dumps(body, ensure_ascii=False).encode()


@pytest.mark.parametrize("text", list(PATHOLOGICAL.values()), ids=list(PATHOLOGICAL))
def test_pathological_markdown_renders(text: str):
    assert len(text) <= CAP + 10
    # As an answer: its markers are probed, cited, rendered and put in statements (check_dump renders it).
    result = check_dump(_as_sonar_dump(text))
    assert result is not None and result["responses"][0]["text"] == text


@SMALL_PROFILE
@given(hs.pathological_markdown())
def test_generated_pathological_markdown_renders(text: str):
    assert isinstance(render_response(_as_response(text), "cv-r0")["answer"], str)
    check_dump(_as_sonar_dump(text))
