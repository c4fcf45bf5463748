"""Hypothesis strategies for hostile dumps: arbitrary bytes and JSON, every framing, and for each
provider responses that are structurally valid-ish but carry hostile text and wrong offsets.

Every builder returns *values* (dicts, lists); :func:`framed` turns them into the bytes of a dump,
the way a recorder might have saved them (one object, a JSON array, JSON Lines, SSE), sometimes cut
off at a random byte. :func:`scrambled` then breaks a structure the way a proxy or a hand edit does:
a field dropped, a value of the wrong type, a number that no decoder can hold.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import strategies as st


def mostly(usual: st.SearchStrategy[Any], *unusual: st.SearchStrategy[Any], odds: int = 4) -> st.SearchStrategy[Any]:
    """``usual`` about ``odds`` times in ``odds + 1``, else one of ``unusual``: hostile input should
    still reach the code past the first check (a placed citation, a resolved marker)."""
    return st.sampled_from([True] * odds + [False]).flatmap(
        lambda usual_now: usual if usual_now else st.one_of(unusual)
    )


# --- Text ----------------------------------------------------------------------------------------

WORDS = ["Tokyo", "population", "is", "about", "14 million", "2.5", "U.S.", "e.g.", "v1.2.3", "Dec. 5", "GPT-4", "80%"]
JAPANESE = [
    "東京都の人口は約1400万人です。",
    "「はい。」と言った",
    "２０２６年",
    "です!次は",
    "日本語",
    "、",
    "。",
    "！",
    "？",
    "ｶﾞｷﾞ",
    "𠮷野家",
    "以下の通り：",
    "**結論**",
]
EMOJI = ["😀", "👨‍👩‍👧‍👦", "🇯🇵", "👍🏽", "🏳️‍🌈", "🧑‍🚀", "\U0001f9ea", "#️⃣"]
COMBINING = ["e\u0301", "a\u0300\u0316\u0317", "\u0301", "か\u3099", "Z\u0351\u0352\u0353\u0354", "\u200d", "\ufe0f"]
RTL = ["مرحبا بالعالم", "שלום עולם", "\u202eevil\u202c", "\u200f", "\u200e", "\u2067abc\u2069", "١٢٣"]
MARKDOWN = [
    "**",
    "*",
    "_",
    "`",
    "```",
    "```\n",
    "~~~\n",
    "\n",
    "\n\n",
    "> ",
    "- ",
    "1. ",
    "# ",
    "| a | b |\n|---|---|\n",
    "|",
    "[",
    "]",
    "(",
    ")",
    "](",
    "\\",
    "<think>",
    "</think>",
    "<think>plan [1] [web:2]</think>",
    "https://example.com/a?b=1",
    "[a](https://example.com)",
    "<br>",
    "&amp;",
    "~~",
    "---\n",
    "\r\n",
    "\r",
    "\t",
    "\u3000",
    "  \n",
]
SPECIAL = [
    "\ufdd0",  # citeview's own placeholder mark
    "[\ufdd00]",
    "\ue200cite\ue202turn0search0\ue201",
    "\x00",
    "\x7f",
    "\u2028",
    "\ufeff",
    "\ufffd",
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "[x](javascript:alert(1))",
    "&#106;",
]
# Halves of a character: valid JSON when escaped (a snippet cut inside an emoji), never valid UTF-8.
SURROGATES = ["\ud83d", "\ude00", "\udc00", "\ud83d\ude00", "\udfff\ud800"]
MALFORMED_MARKERS = [
    "[web:]",
    "[1",
    "1]",
    "[1](https://example.com)",
    "\\[2]",
    "[０]",
    "[1234567]",
    "`[3]`",
    "[[1]]",
    "[web:1][web:2]",
    "[-1]",
    "[1.5]",
    "\n[1]: https://example.com\n",
]


def ref_numbers(refs: list[str] | None = None) -> st.SearchStrategy[str]:
    """The number in a marker: one the response offers (when given), or any other."""
    others = st.one_of(st.integers(0, 12), st.integers(0, 999_999)).map(str)
    return mostly(st.sampled_from(refs), others, odds=3) if refs else others


def markers(refs: list[str] | None = None) -> st.SearchStrategy[str]:
    good = st.builds(lambda web, n: f"[web:{n}]" if web else f"[{n}]", st.booleans(), ref_numbers(refs))
    return st.one_of(good, good, st.sampled_from(MALFORMED_MARKERS))


def answer_text(
    refs: list[str] | None = None, links: list[str] | None = None, max_pieces: int = 20, min_pieces: int = 1
) -> st.SearchStrategy[str]:
    """Answer text: words in many scripts, Markdown syntax, markers (often of ``refs``), ``links``."""
    pieces = [
        st.sampled_from(WORDS + JAPANESE),
        st.sampled_from(EMOJI + COMBINING + RTL),
        st.sampled_from(MARKDOWN),
        st.sampled_from(SPECIAL + SURROGATES),
        st.just(" "),
        st.text(max_size=6),
        markers(refs),
        markers(refs),
    ]
    if links:
        pieces.append(st.sampled_from(links))
    return st.lists(st.one_of(pieces), min_size=min_pieces, max_size=max_pieces).map("".join)


def short_text() -> st.SearchStrategy[str]:
    """A title, a query, a snippet."""
    return st.one_of(st.sampled_from(WORDS + JAPANESE + EMOJI + RTL + SPECIAL + SURROGATES), st.text(max_size=8))


URLS = [
    "https://example.com/a",
    "https://www.nikkei.com/article/DGX?utm_source=openai",
    "https://ja.wikipedia.org/wiki/東京都",
    "http://例え.jp/パス",
    "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ",
    "javascript:alert(1)",
    "java\u200bscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "//evil.example",
    "https:/\\evil.example",
    "",
    "https://[::1",  # urlsplit raises on it
    "https://example.com/a?b=1&utm_source=openai",
]


def urls() -> st.SearchStrategy[str]:
    return mostly(st.sampled_from(URLS), st.text(max_size=10), odds=6)


def link_for(url: str) -> str:
    """The inline link OpenAI's models write after a sentence."""
    host = url.split("//", 1)[-1].split("/", 1)[0].removeprefix("www.")
    return f"([{host}]({url}))"


# --- Numbers and junk ----------------------------------------------------------------------------

# A number written into the dump as it stands: JSON allows it, Python reads it as inf or as a huge int.
RAW_NUMBERS = ["1e400", "-1e400", "1E+2", "-0", "0.0000001e-400", "1" + "0" * 400, "12.0"]
_RAW = re.compile(r'"\\u0000raw:([^"\\]*)\\u0000"')
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def raw_number(literal: str) -> str:
    """A placeholder :func:`encode` writes as the bare JSON number ``literal``."""
    return f"\x00raw:{literal}\x00"


def offsets_junk() -> st.SearchStrategy[Any]:
    """An offset of the wrong kind: negative, huge, a float, a string, a bool, null, a list."""
    return st.one_of(
        st.integers(-3, -1),
        st.sampled_from([2**31, 2**63, 10**30, -(2**63)]),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(RAW_NUMBERS).map(raw_number),
        st.sampled_from(["0", "3", "", "x"]),
        st.none(),
        st.booleans(),
        st.just([]),
        st.just({}),
    )


def offset(length: int) -> st.SearchStrategy[Any]:
    """An offset into something of ``length`` units: often right, often just outside, sometimes junk."""
    return st.one_of(st.integers(0, max(length, 0)), st.integers(-2, length + 3), offsets_junk())


def json_scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=10),
        st.sampled_from(SURROGATES + SPECIAL),
        st.sampled_from(RAW_NUMBERS).map(raw_number),
    )


def json_values(max_leaves: int = 12) -> st.SearchStrategy[Any]:
    """Any JSON value (keys included: lone surrogates, empty, Japanese)."""
    keys = st.one_of(st.text(max_size=6), st.sampled_from(["type", "text", "id", "choices", "candidates", "\udc00"]))
    return st.recursive(
        json_scalars(),
        lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)),
        max_leaves=max_leaves,
    )


_KEEP_OR_BREAK = {
    "never": [False],
    "light": [False] * 24 + [True],
    "heavy": [False] * 4 + [True],
}


@st.composite
def scrambled(draw: st.DrawFn, value: Any, intensity: str | None = None, *, events: bool = False) -> Any:
    """``value`` with fields dropped and values replaced by others of any type, now and then.
    With ``events`` (a stream's list of events), events may be dropped but each stays an object:
    values of a stream that are not objects at all are :func:`with_stray_values`' business."""
    level = intensity or draw(st.sampled_from(["never", "never", "light", "light", "heavy"]))
    flips = st.sampled_from(_KEEP_OR_BREAK[level])
    junk = st.one_of(offsets_junk(), json_values(max_leaves=3))

    def walk(node: Any, replaceable: bool = True) -> Any:
        if replaceable and draw(flips):
            return draw(junk)
        if isinstance(node, dict):
            return {k: walk(v) for k, v in node.items() if not draw(flips)}
        if isinstance(node, list):
            return [walk(v) for v in node if not draw(flips)]
        return node

    if events and isinstance(value, list):
        return [walk(event, replaceable=not isinstance(event, dict)) for event in value if not draw(flips)]
    return walk(value)


@st.composite
def with_stray_values(draw: st.DrawFn, values: list[Any]) -> list[Any]:
    """A stream's values with JSON values that are not objects (``-1``, ``null``, a list) among them."""
    values = list(values)
    for _ in range(draw(st.integers(1, 3))):
        stray = draw(st.one_of(json_scalars(), st.lists(json_scalars(), max_size=2), st.just([{}])))
        values.insert(draw(st.integers(0, len(values))), stray)
    return values


# --- Encoding and framing -------------------------------------------------------------------------


def encode(value: Any, *, ascii_only: bool = False, indent: int | None = None) -> str:
    """JSON text; lone surrogates become ``\\udXXX`` escapes (valid JSON), raw numbers stay bare."""
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    text = _RAW.sub(lambda m: m.group(1), text)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@st.composite
def framed(draw: st.DrawFn, values: list[Any], *, whole: bool = False) -> bytes:
    """The bytes of a dump of ``values``: one object (``whole``), a JSON array, JSON Lines or SSE,
    with the quirks recorders add, sometimes cut off at a random byte."""
    values = values if isinstance(values, list) and values else [values]  # scrambled past recognition
    ascii_only = draw(st.booleans())
    newline = draw(st.sampled_from(["\n", "\n", "\r\n", "\r"]))
    framings = ["json"] if whole and len(values) == 1 else []
    framing = draw(st.sampled_from([*framings, *framings, "json-array", "jsonl", "sse", "sse"]))
    if framing == "json":
        text = encode(values[0], ascii_only=ascii_only, indent=draw(st.sampled_from([None, None, 2])))
    elif framing == "json-array":
        text = encode(values, ascii_only=ascii_only, indent=draw(st.sampled_from([None, 1])))
    elif framing == "jsonl":
        text = newline.join(encode(v, ascii_only=ascii_only) for v in values) + draw(st.sampled_from(["", newline]))
    else:
        text = _sse(draw, values, ascii_only, newline)
    if draw(st.booleans()) and draw(st.booleans()):
        text = draw(st.sampled_from(["\ufeff", " \n", "\n\n", "\t"])) + text
    data = text.encode("utf-8")
    if draw(st.sampled_from([False, False, True])):  # saved while the stream was still coming
        data = data[: draw(st.integers(0, len(data)))]
    return data


def _sse(draw: st.DrawFn, values: list[Any], ascii_only: bool, newline: str) -> str:
    named = draw(st.booleans())
    packed = draw(st.sampled_from([False, False, False, True]))  # saved without the blank lines
    lines: list[str] = []
    if draw(st.booleans()) and draw(st.booleans()):
        lines += [": keep-alive", "retry: 1000", ""]
    for number, value in enumerate(values):
        name = value.get("type", value.get("event_type")) if isinstance(value, dict) else None
        if named and isinstance(name, str) and "\x00" not in name:  # raw text: no escape for half a character
            lines.append("event: " + _LONE_SURROGATE.sub("\ufffd", name).replace("\n", " ").replace("\r", " "))
        if draw(st.sampled_from([False, False, False, True])):
            lines.append(f"id: {number}")
        multiline = draw(st.sampled_from([False, False, False, True]))
        body = encode(value, ascii_only=ascii_only, indent=1 if multiline else None)
        lines += [f"data: {line}" for line in body.split("\n")]
        if not packed:
            lines.append("")
    if draw(st.booleans()):
        lines += ["data: [DONE]", ""]
    return newline.join(lines) + newline


def stream_pieces(text: str) -> st.SearchStrategy[list[str]]:
    """``text`` cut into consecutive pieces (a stream's deltas); they join to ``text``."""
    if not text:
        return st.just([""]) | st.just([])
    cuts = st.lists(st.integers(0, len(text)), max_size=6, unique=True).map(sorted)
    return cuts.map(lambda points: [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)])


# --- Perplexity ------------------------------------------------------------------------------------

AGENT_ID = "resp_0b6c2f9e-3a71-4c55-9d0e-2f1a7b8c9d00"
SONAR_ID = "6f1d2a3b-0000-4000-8000-000000000001"


def result_ids() -> st.SearchStrategy[Any]:
    """A search result id: mostly small ints, also floats, strings, duplicates, junk."""
    small = st.integers(1, 12)
    return mostly(small, small.map(float), small.map(str), offsets_junk())


@st.composite
def perplexity_results(draw: st.DrawFn) -> list[dict[str, Any]]:
    return [
        {
            "id": draw(result_ids()),
            "url": draw(urls()),
            "title": draw(short_text()),
            "snippet": draw(short_text()),
            "date": draw(st.one_of(st.none(), short_text())),
            "source": "web",
        }
        for _ in range(draw(mostly(st.integers(1, 5), st.just(0))))
    ]


def _refs_of(results: list[dict[str, Any]]) -> list[str]:
    return [str(r["id"]).removesuffix(".0") for r in results] or ["1"]


@st.composite
def perplexity_agent_dump(draw: st.DrawFn) -> bytes:
    results = draw(perplexity_results())
    text = draw(answer_text(_refs_of(results)))
    status = draw(st.sampled_from(["completed", "completed", "failed", "incomplete", "in_progress", None, 5]))
    final = {
        "id": AGENT_ID,
        "object": "response",
        "status": status,
        "model": "openai/gpt-5.2",
        "output": [
            {"type": "search_results", "queries": [draw(short_text())], "results": results},
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            },
        ],
        "usage": {"input_tokens": 1, "output_tokens": 1, "cost": {"currency": "USD", "total_cost": 0.001}},
    }
    if draw(st.booleans()):
        final["error"] = {"message": draw(short_text())}
    if draw(st.sampled_from([True, False, False])):
        return draw(framed([draw(scrambled(final))], whole=True))
    events: list[Any] = [
        {"type": "response.created", "sequence_number": 0, "response": {"id": AGENT_ID, "model": "fast", "output": []}}
    ]
    events += [
        {"type": "response.reasoning.search_queries", "call_id": "c1", "queries": [draw(short_text())]},
        {"type": "response.reasoning.search_results", "call_id": "c1", "results": results},
    ]
    for piece in draw(stream_pieces(text)):
        events.append(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": draw(st.sampled_from([1, 1, 1, 0, -1, None, "1"])),
                "content_index": 0,
                "delta": piece,
            }
        )
    extra = [
        {"type": "response.output_text.done", "output_index": 1, "content_index": 0, "text": text},
        {"type": "ping"},
        {"type": "response.surprise", "data": 1},
        {"data": "no type"},
        {"type": "error", "message": draw(short_text())},
        {"type": "response.failed", "error": {"message": "boom"}},
        {"type": "response.reasoning.fetch_url_results", "contents": [{"url": draw(urls()), "title": "t"}]},
    ]
    events += draw(st.lists(st.sampled_from(extra), max_size=3, unique_by=json.dumps))
    if draw(st.sampled_from([True, True, False])):
        events.append({"type": "response.completed", "response": final})
    events = draw(st.permutations(events)) if draw(st.sampled_from([False] * 5 + [True])) else events
    return draw(framed(draw(scrambled(events, events=True))))


@st.composite
def perplexity_sonar_dump(draw: st.DrawFn) -> bytes:
    citation = mostly(urls(), json_scalars(), odds=6)
    citations = draw(mostly(st.lists(citation, min_size=1, max_size=5), st.just([])))
    refs = [str(n) for n in range(1, len(citations) + 1)]
    text = draw(answer_text(refs))
    results = [{"url": u, "title": draw(short_text()), "date": "2026-01-01"} for u in citations if isinstance(u, str)]
    results += draw(perplexity_results())
    content: Any = text
    if draw(st.sampled_from([False, False, True])):
        content = [{"type": "text", "text": piece} for piece in draw(stream_pieces(text))]
    finish = draw(st.sampled_from(["stop", "stop", "length", None, "error", 3]))
    whole = {
        "id": SONAR_ID,
        "model": "sonar",
        "object": "chat.completion",
        "created": 1767225600,
        "citations": citations,
        "search_results": results,
        "choices": [
            {"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content}, "delta": {}}
        ],
    }
    if draw(st.booleans()):
        whole["choices"].append({"index": 1, "message": {"content": "other"}})
    if draw(st.booleans()):
        return draw(framed([draw(scrambled(whole))], whole=True))
    pieces = draw(stream_pieces(text))
    full_mode = draw(st.booleans())  # chunks carry the text so far in `message` as well as the delta
    chunks, so_far = [], ""
    for number, piece in enumerate(pieces):
        so_far += piece
        choice: dict[str, Any] = {"index": 0, "delta": {"role": "assistant", "content": piece}}
        if full_mode:
            choice["message"] = {"role": "assistant", "content": so_far}
        if number == len(pieces) - 1:
            choice["finish_reason"] = finish
        chunks.append(
            {
                "id": SONAR_ID,
                "model": "sonar",
                "object": "chat.completion.chunk",
                "citations": citations[: draw(st.integers(0, len(citations)))] if number else citations,
                "search_results": results,
                "choices": [choice],
            }
        )
    if draw(st.booleans()):
        chunks.append({"id": SONAR_ID, "object": "chat.completion.done", "choices": [], "citations": citations})
    return draw(framed(draw(scrambled(chunks, events=True))))


# --- Anthropic -------------------------------------------------------------------------------------


@st.composite
def claude_documents(draw: st.DrawFn) -> list[str]:
    return draw(st.lists(answer_text(max_pieces=8), max_size=3))


@st.composite
def claude_citation(draw: st.DrawFn, documents: list[str], web_urls: list[str]) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "char_location",
                "char_location",
                "page_location",
                "content_block_location",
                "web_search_result_location",
                "search_result_location",
                "mystery_location",
                None,
            ]
        )
    )
    citation: dict[str, Any] = {"type": kind, "cited_text": draw(short_text())}
    index = draw(st.one_of(st.integers(0, len(documents) + 1), offsets_junk()))
    if kind == "char_location":
        citation.update(document_index=index, document_title=draw(short_text()))
        document = documents[index] if isinstance(index, int) and 0 <= index < len(documents) else ""
        unit = draw(st.sampled_from(["code_points", "utf16", "utf8", "junk"]))
        if unit == "junk":
            citation.update(start_char_index=draw(offset(len(document))), end_char_index=draw(offset(len(document))))
        else:
            start = draw(st.integers(0, len(document)))
            end = draw(st.integers(start, len(document)))
            quote = document[start:end]
            codec = {"utf16": "utf-16-le", "utf8": "utf-8"}.get(unit)
            if codec:
                width = 2 if unit == "utf16" else 1
                start = len(document[:start].encode(codec, "surrogatepass")) // width
                end = start + len(quote.encode(codec, "surrogatepass")) // width
            citation.update(start_char_index=start, end_char_index=end)
            citation["cited_text"] = draw(st.sampled_from([quote, quote, quote + "x", quote[1:]]))
    elif kind == "page_location":
        citation.update(
            document_index=index, start_page_number=draw(offset(5)), end_page_number=draw(offset(5)), file_id="file_1"
        )
    elif kind == "content_block_location":
        citation.update(document_index=index, start_block_index=draw(offset(3)), end_block_index=draw(offset(3)))
    elif kind == "web_search_result_location":
        citation.update(
            url=draw(st.sampled_from(web_urls) if web_urls else urls()), title=draw(short_text()), encrypted_index="E"
        )
    elif kind == "search_result_location":
        citation.update(
            search_result_index=index,
            source=draw(urls()),
            title=draw(short_text()),
            start_block_index=draw(offset(3)),
            end_block_index=draw(offset(3)),
        )
    return citation


def claude_request(documents: list[str], draw: st.DrawFn) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = []
    for number, document in enumerate(documents):
        shape = draw(st.sampled_from(["text", "text", "content", "pdf", "search_result", "other"]))
        if shape == "text":
            blocks.append({"type": "document", "title": f"doc {number}", "source": {"type": "text", "data": document}})
        elif shape == "content":
            parts = draw(stream_pieces(document))
            content = [{"type": "text", "text": p} for p in parts] + [{"type": "image", "source": {}}] * draw(
                st.integers(0, 1)
            )
            blocks.append({"type": "document", "source": {"type": "content", "content": content}})
        elif shape == "pdf":
            blocks.append({"type": "document", "source": {"type": "base64", "data": "JVBERi0="}})
        elif shape == "search_result":
            blocks.append(
                {
                    "type": "search_result",
                    "source": draw(urls()),
                    "title": "r",
                    "content": [{"type": "text", "text": document}],
                }
            )
        else:
            blocks.append({"type": "document", "source": {"type": "file", "file_id": "file_1"}})
    if draw(st.booleans()):
        blocks = [{"type": "tool_result", "tool_use_id": "t1", "content": blocks}]
    return {"model": "claude-sonnet-4-6", "messages": [{"role": "user", "content": [*blocks, {"type": "text"}]}]}


@st.composite
def claude_web_fetch(draw: st.DrawFn, tool_id: str) -> list[dict[str, Any]]:
    """A page Claude fetched (its text, or base64 that may or may not be a PDF), or a failed fetch;
    its call sometimes in the message before, sometimes from code the model ran."""
    url = draw(urls())
    caller = draw(st.sampled_from([None, {"type": "direct"}, {"type": "code_execution_20260120", "tool_id": "c"}]))
    called = {"caller": caller} if caller else {}
    data = draw(st.one_of(short_text(), st.just("JVBERi0xLjQK"), st.just("JVBERi0xLjQKJcfsj6IK" + "A" * 40)))
    media = draw(st.sampled_from(["text/plain", "application/pdf"]))
    kind = draw(st.sampled_from(["text", "text", "base64"]))
    result: dict[str, Any] = {
        "type": "web_fetch_result",
        "url": url,
        "retrieved_at": "2026-11-30T01:02:03Z",
        "content": {
            "type": "document",
            "title": draw(st.one_of(st.none(), short_text())),
            "source": {"type": kind, "media_type": media, "data": data},
        },
    }
    if draw(st.sampled_from([False, False, True])):
        result = {
            "type": "web_fetch_tool_result_error",
            "error_code": draw(st.sampled_from(["unavailable", "url_not_accessible"])),
        }
    blocks = [{"type": "web_fetch_tool_result", "tool_use_id": tool_id, "content": result, **called}]
    if draw(st.booleans()):  # else the call was in the message before
        blocks.insert(
            0, {"type": "server_tool_use", "id": tool_id, "name": "web_fetch", "input": {"url": url}, **called}
        )
    return blocks


@st.composite
def anthropic_dump(draw: st.DrawFn) -> tuple[bytes, bytes | None]:
    """A Claude answer, and (sometimes) the request that produced it, as separate bytes."""
    documents = draw(claude_documents())
    web_urls = draw(st.lists(urls(), max_size=3))
    blocks: list[dict[str, Any]] = []
    if web_urls or draw(st.booleans()):
        blocks.append({"type": "server_tool_use", "id": "t1", "name": "web_search", "input": {"query": "q"}})
        content: Any = [
            {"type": "web_search_result", "url": u, "title": draw(short_text()), "page_age": "1 day"} for u in web_urls
        ]
        if draw(st.sampled_from([False, False, True])):
            content = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
        blocks.append({"type": "web_search_tool_result", "tool_use_id": "t1", "content": content})
    for number in range(draw(st.integers(0, 2))):
        blocks += draw(claude_web_fetch(f"f{number}"))
    for _ in range(draw(st.integers(0, 4))):
        block: dict[str, Any] = {"type": "text", "text": draw(answer_text(max_pieces=8))}
        citations = draw(st.lists(claude_citation(documents, web_urls), max_size=3))
        if citations:
            block["citations"] = citations
        blocks.append(block)
    stop = draw(st.sampled_from(["end_turn", "end_turn", "max_tokens", "pause_turn", "refusal", "weird", None]))
    message = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": blocks,
        "stop_reason": stop,
        "stop_details": draw(st.one_of(st.none(), st.just({"explanation": "policy"}))),
    }
    request = claude_request(documents, draw) if draw(st.booleans()) else None
    how = draw(st.sampled_from(["whole", "stream", "stream", "exchange"]))
    if how == "whole":
        raw = draw(framed([draw(scrambled(message))], whole=True))
    else:
        events = draw(scrambled(_claude_stream(draw, message), events=True))
        if how == "exchange":  # {"request": ..., "response": ...}: the request travels with the answer
            response: Any = events if draw(st.booleans()) else draw(framed(events)).decode("utf-8", "replace")
            exchange = {"request": request or {"messages": []}, "response": response}
            return draw(framed([draw(scrambled(exchange, "light"))], whole=True)), None
        raw = draw(framed(events))
    attached = encode(draw(scrambled(request, "light"))).encode("utf-8") if request is not None else None
    return raw, attached


def _claude_stream(draw: st.DrawFn, message: dict[str, Any]) -> list[Any]:
    start = {k: v for k, v in message.items() if k not in ("content", "stop_reason", "stop_details")}
    events: list[Any] = [{"type": "message_start", "message": {**start, "content": []}}]
    for index, block in enumerate(message["content"]):
        shown_index = draw(st.sampled_from([index, index, index, 0, -1, None, "1"]))
        if block["type"] != "text":
            events.append({"type": "content_block_start", "index": shown_index, "content_block": block})
        else:
            events.append(
                {"type": "content_block_start", "index": shown_index, "content_block": {"type": "text", "text": ""}}
            )
            for piece in draw(stream_pieces(block["text"])):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": shown_index,
                        "delta": {"type": "text_delta", "text": piece},
                    }
                )
            for citation in block.get("citations", []):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": shown_index,
                        "delta": {"type": "citations_delta", "citation": citation},
                    }
                )
        events.append({"type": "content_block_stop", "index": shown_index})
        if draw(st.sampled_from([False] * 6 + [True])):
            events.append({"type": "ping"})
    events.append({"type": "message_delta", "delta": {"stop_reason": message["stop_reason"]}, "usage": {}})
    if draw(st.sampled_from([True, True, True, False])):
        events.append({"type": "message_stop"})
    if draw(st.sampled_from([False] * 6 + [True])):
        events.append({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    if draw(st.sampled_from([False] * 8 + [True])):
        events = draw(st.permutations(events))
    return events


# --- Gemini ----------------------------------------------------------------------------------------


@st.composite
def byte_segment(draw: st.DrawFn, answer: str) -> dict[str, Any]:
    """A grounding segment on ``answer``: exact UTF-8 byte offsets, near misses, or junk."""
    data = answer.encode("utf-8", "surrogatepass")
    kind = draw(st.sampled_from(["exact", "exact", "exact", "bytes", "junk"]))
    text: Any = None
    if kind == "exact":
        start_char = draw(st.integers(0, len(answer)))
        end_char = draw(st.integers(start_char, len(answer)))
        start = len(answer[:start_char].encode("utf-8", "surrogatepass"))
        end = start + len(answer[start_char:end_char].encode("utf-8", "surrogatepass"))
        shift = draw(mostly(st.just(0), st.sampled_from([1, -1, 3])))
        start, end = start + shift, end + shift
        text = answer[start_char:end_char]
    elif kind == "bytes":  # inside a character, reversed, just past the end
        start, end = draw(st.integers(-2, len(data) + 2)), draw(st.integers(-2, len(data) + 2))
        text = data[max(start, 0) : max(end, 0)].decode("utf-8", "ignore")
    else:
        start, end = draw(offsets_junk()), draw(offsets_junk())
    text = draw(mostly(st.just(text), st.sampled_from([None, "wrong text", (text or "")[1:]])))
    segment: dict[str, Any] = {"startIndex": start, "endIndex": end, "text": text}
    if draw(st.booleans()):
        segment["partIndex"] = draw(st.one_of(st.integers(0, 3), offsets_junk()))
    return segment


@st.composite
def grounding_metadata(draw: st.DrawFn, answer: str) -> dict[str, Any]:
    chunks = []
    for _ in range(draw(mostly(st.integers(1, 4), st.just(0)))):
        kind = draw(st.sampled_from(["web", "web", "retrievedContext", "maps", "empty"]))
        if kind == "empty":
            chunks.append({})
        else:
            chunks.append({kind: {"uri": draw(urls()), "title": draw(short_text()), "text": draw(short_text())}})
    supports = []
    known = st.integers(0, len(chunks) - 1) if chunks else st.just(0)
    for _ in range(draw(mostly(st.integers(1, 5), st.just(0)))):
        indices = draw(
            mostly(
                st.lists(known, min_size=1, max_size=3),
                st.lists(st.one_of(st.integers(-1, len(chunks) + 1), offsets_junk()), max_size=3),
            )
        )
        score = mostly(st.floats(0, 1), st.sampled_from(RAW_NUMBERS).map(raw_number), st.integers(), offsets_junk())
        scores = draw(
            mostly(
                st.lists(score, min_size=len(indices), max_size=len(indices)),
                st.lists(score, max_size=len(indices) + 1),
            )
        )
        supports.append(
            {"segment": draw(byte_segment(answer)), "groundingChunkIndices": indices, "confidenceScores": scores}
        )
    return {
        "webSearchQueries": [draw(short_text())],
        "groundingChunks": chunks,
        "groundingSupports": supports,
        "searchEntryPoint": {"renderedContent": "<style>.x{}</style><div onclick=alert(1)>suggest</div>"},
    }


_CAMEL_KEY = re.compile(r"(?<!^)(?=[A-Z])")


def snake_case(value: Any) -> Any:
    """The python-genai spelling of a REST body: ``grounding_metadata``, ``start_index``."""
    if isinstance(value, dict):
        return {_CAMEL_KEY.sub("_", k).lower(): snake_case(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake_case(v) for v in value]
    return value


@st.composite
def gemini_dump(draw: st.DrawFn) -> bytes:
    count = draw(st.sampled_from([1, 1, 1, 2]))
    candidates = []
    for index in range(count):
        parts = draw(st.lists(answer_text(max_pieces=8), min_size=0, max_size=3))
        thought = draw(st.sampled_from([None, None, "thinking about [1]"]))
        answer = "".join(parts)
        content_parts: list[dict[str, Any]] = [{"text": p} for p in parts]
        if thought:
            content_parts.insert(0, {"text": thought, "thought": True})
        if draw(st.booleans()):
            content_parts.append({"functionCall": {"name": "f", "args": {}}})
        candidates.append(
            {
                "index": index,
                "content": {"role": "model", "parts": content_parts},
                "finishReason": draw(st.sampled_from(["STOP", "STOP", "MAX_TOKENS", "SAFETY", None])),
                "groundingMetadata": draw(grounding_metadata(answer)),
            }
        )
        if draw(st.booleans()):  # URL context: the prompt's pages, some without their address
            statuses = st.sampled_from(["SUCCESS", "ERROR", "PAYWALL", "UNSAFE", "UNSPECIFIED"])
            entries = [
                {
                    **({"retrievedUrl": draw(urls())} if draw(st.booleans()) else {}),
                    "urlRetrievalStatus": f"URL_RETRIEVAL_STATUS_{draw(statuses)}",
                }
                for _ in range(draw(st.integers(0, 4)))
            ]
            candidates[-1]["urlContextMetadata"] = {"urlMetadata": entries}
    body: dict[str, Any] = {"candidates": candidates, "modelVersion": "gemini-2.5-flash", "responseId": "x3Yk"}
    if draw(st.sampled_from([False] * 5 + [True])):
        body["promptFeedback"] = {"blockReason": "SAFETY"}
    if draw(st.sampled_from([False] * 3 + [True])):
        body = snake_case(body)
    if draw(st.booleans()):
        return draw(framed([draw(scrambled(body))], whole=True))
    # A stream: each chunk adds text; grounding comes with the last (earlier chunks may carry `{}`).
    chunks: list[Any] = []
    for candidate in candidates:
        parts = candidate["content"]["parts"]
        for number, part in enumerate(parts):
            last = number == len(parts) - 1
            piece = {
                "index": candidate["index"],
                "content": {"role": "model", "parts": [part]},
                "groundingMetadata": candidate["groundingMetadata"] if last else {},
            }
            if last:
                piece["finishReason"] = candidate["finishReason"]
            chunks.append({"candidates": [piece], "modelVersion": "gemini-2.5-flash", "responseId": "x3Yk"})
    if draw(st.sampled_from([False] * 6 + [True])):
        chunks.append({"error": {"code": 500, "message": "Internal", "status": "INTERNAL"}})
    chunks = chunks or [{"usageMetadata": {}}]
    return draw(framed(draw(scrambled(chunks, events=True))))


@st.composite
def gemini_interactions_dump(draw: st.DrawFn) -> bytes:
    texts = draw(st.lists(answer_text(max_pieces=8), max_size=3))
    outputs = []
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        annotations = [
            {
                "type": draw(st.sampled_from(["url_citation", "file_citation", "place_citation", None, "other"])),
                "url": draw(urls()),
                "title": draw(short_text()),
                "start_index": draw(offset(len(data))),
                "end_index": draw(offset(len(data))),
            }
            for _ in range(draw(st.integers(0, 3)))
        ]
        outputs.append({"type": "text", "text": text, "annotations": annotations})
    status = draw(st.sampled_from(["completed", "completed", "failed", "in_progress", None]))
    steps = [
        {"type": "google_search_call", "arguments": {"queries": [draw(short_text())]}},
        {"type": "google_search_result", "result": [{"search_suggestions": "<div>s</div>"}]},
        *({"type": "model_output", "content": [o]} for o in outputs),
    ]
    interaction: dict[str, Any] = {"id": "v1_x", "model": "gemini-3-flash", "status": status}
    shape = draw(st.sampled_from(["outputs", "steps", "stream"]))
    if shape == "outputs":
        return draw(framed([draw(scrambled({**interaction, "outputs": outputs}))], whole=True))
    if shape == "steps":
        return draw(framed([draw(scrambled({**interaction, "steps": steps}))], whole=True))
    events: list[Any] = [{"event_type": "interaction.created", "interaction": {**interaction, "status": "in_progress"}}]
    for index, output in enumerate(outputs):
        events.append({"event_type": "step.start", "index": index, "step": {"type": "model_output"}})
        for piece in draw(stream_pieces(output["text"])):
            events.append({"event_type": "step.delta", "index": index, "delta": {"type": "text", "text": piece}})
        events.append(
            {
                "event_type": "step.delta",
                "index": index,
                "delta": {"type": "text_annotation_delta", "annotations": output["annotations"]},
            }
        )
        events.append({"event_type": "step.stop", "index": index})
    if draw(st.sampled_from([True, True, False])):
        events.append({"event_type": "interaction.completed", "interaction": {"id": "v1_x", "status": status}})
    if draw(st.sampled_from([False] * 6 + [True])):
        events.append({"event_type": "error", "error": {"message": "boom"}})
    return draw(framed(draw(scrambled(events, events=True))))


# --- OpenAI ----------------------------------------------------------------------------------------


@st.composite
def openai_annotation(draw: st.DrawFn, text: str, links: dict[str, str]) -> dict[str, Any]:
    kind = draw(
        mostly(st.just("url_citation"), st.sampled_from(["file_citation", "container_file_citation", "file_path"]))
    )
    if kind == "url_citation":
        url = draw(st.sampled_from(sorted(links)) if links else urls())
        link = links.get(url, "")
        where = text.find(link) if link else -1
        unit = draw(mostly(st.just("code_points"), st.sampled_from(["utf16", "junk"]), odds=3))
        if where >= 0 and unit != "junk":
            start, end = where, where + len(link)
            if unit == "utf16":
                start = len(text[:where].encode("utf-16-le", "surrogatepass")) // 2
                end = start + len(link.encode("utf-16-le", "surrogatepass")) // 2
        else:
            start, end = draw(offset(len(text))), draw(offset(len(text)))
        return {"type": kind, "start_index": start, "end_index": end, "url": url, "title": draw(short_text())}
    if kind in ("file_citation", "file_path"):
        return {"type": kind, "index": draw(offset(len(text))), "file_id": "file-1", "filename": draw(short_text())}
    return {
        "type": kind,  # container_file_citation
        "start_index": draw(offset(len(text))),
        "end_index": draw(offset(len(text))),
        "file_id": "cfile_1",
        "container_id": "cntr_1",
        "filename": "a.csv",
    }


@st.composite
def openai_text_and_annotations(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]], dict[str, str]]:
    links = {
        url: link_for(url) for url in draw(mostly(st.lists(urls(), min_size=1, max_size=3, unique=True), st.just([])))
    }
    text = draw(answer_text(max_pieces=10))
    for link in links.values():  # each link after a sentence, as the models write them
        text += draw(st.sampled_from(["", " "])) + link + draw(answer_text(max_pieces=6, min_pieces=0))
    kinds = mostly(openai_annotation(text, links), st.just({"type": "mystery"}), odds=6)
    annotations = draw(st.lists(kinds, min_size=1 if links else 0, max_size=4))
    return text, annotations, links


@st.composite
def openai_responses_dump(draw: st.DrawFn) -> bytes:
    text, annotations, links = draw(openai_text_and_annotations())
    refusal = draw(st.sampled_from([False] * 6 + [True]))
    part = (
        {"type": "refusal", "refusal": text}
        if refusal
        else {"type": "output_text", "text": text, "annotations": annotations}
    )
    items: list[dict[str, Any]] = [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": draw(short_text()), "sources": [{"url": u} for u in links]},
        },
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [part]},
    ]
    if draw(st.booleans()):
        items.append(
            {
                "type": "file_search_call",
                "id": "fs_1",
                "queries": ["q"],
                "results": [{"file_id": "file-1", "filename": "a.pdf", "score": 0.5, "text": draw(short_text())}],
            }
        )
    if draw(st.sampled_from([False] * 4 + [True])):  # a second message item
        items.append(
            {"type": "message", "id": "msg_2", "content": [{"type": "output_text", "text": draw(answer_text())}]}
        )
    status = draw(st.sampled_from(["completed", "completed", "incomplete", "failed", "queued", None]))
    body: dict[str, Any] = {
        "id": "resp_68e6a1b2c3d4",
        "object": "response",
        "status": status,
        "model": "gpt-5",
        "output": items,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "error": {"message": "boom"} if status == "failed" else None,
    }
    if draw(st.booleans()):
        return draw(framed([draw(scrambled(body))], whole=True))
    created = {"id": "resp_68e6a1b2c3d4", "object": "response", "status": "in_progress", "output": []}
    events: list[Any] = [{"type": "response.created", "response": created}]
    message_index = 2
    for output_index, item in enumerate(items):
        events.append({"type": "response.output_item.added", "output_index": output_index, "item": item})
    where = {"item_id": "msg_1", "output_index": message_index, "content_index": 0}
    for piece in draw(stream_pieces(text)):
        kind = "response.refusal.delta" if refusal else "response.output_text.delta"
        events.append({"type": kind, **where, "delta": piece})
    for number, annotation in enumerate(annotations):
        index = draw(st.sampled_from([number, number, None, 0, "x"]))
        events.append(
            {
                "type": "response.output_text.annotation.added",
                **where,
                "annotation_index": index,
                "annotation": annotation,
            }
        )
    if draw(st.booleans()):
        events.append({"type": "response.output_text.done", **where, "text": text})
    events.append({"type": "response.content_part.done", **where, "part": part})
    for output_index, item in enumerate(items):
        events.append({"type": "response.output_item.done", "output_index": output_index, "item": item})
    terminal = draw(st.sampled_from(["response.completed", "response.completed", "response.incomplete", None]))
    if terminal:
        final = body if draw(st.booleans()) else {**body, "output": []}  # gateways drop the final output
        events.append({"type": terminal, "response": final})
    if draw(st.sampled_from([False] * 6 + [True])):
        events.append({"type": "error", "message": "boom", "code": "server_error"})
    return draw(framed(draw(scrambled(events, events=True))))


@st.composite
def openai_chat_dump(draw: st.DrawFn) -> bytes:
    text, annotations, _ = draw(openai_text_and_annotations())
    nested = [
        {"type": a.get("type"), "url_citation": {**a, "content": draw(st.one_of(st.none(), short_text()))}}
        if a.get("type") == "url_citation" and draw(st.booleans())
        else a
        for a in annotations
    ]
    finish = draw(st.sampled_from(["stop", "stop", "length", "content_filter", "error", None]))
    message: dict[str, Any] = {"role": "assistant", "content": text, "annotations": nested}
    if draw(st.sampled_from([False] * 5 + [True])):
        message = {"role": "assistant", "content": None, "refusal": text}
    whole = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-search-preview",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if draw(st.booleans()):
        return draw(framed([draw(scrambled(whole))], whole=True))
    chunks: list[Any] = []
    for piece in draw(stream_pieces(text)):
        chunks.append(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "model": "gpt-4o-search-preview",
                "choices": [{"index": 0, "delta": {"content": piece}}],
            }
        )
    chunks.append(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"annotations": nested}, "finish_reason": finish}],
        }
    )
    if draw(st.sampled_from([False] * 6 + [True])):
        chunks.append({"id": "chatcmpl-1", "error": {"message": "upstream failed"}, "choices": []})
    return draw(framed(draw(scrambled(chunks, events=True))))


# --- Pathological Markdown ---------------------------------------------------------------------------

_CLOSING = {"[": "]", "(": ")", "<": ">", "![": "]", "[a](": ")", "{": "}"}
MARKDOWN_UNITS = [
    ">",
    "> ",
    "[",
    "![",
    "](",
    "[a](",
    "(",
    "*",
    "**",
    "_",
    "*a",
    "_a",
    "~~",
    "`",
    "``",
    "- ",
    "1. ",
    "> - ",
    "- > ",
    "<",
    "<http://",
    "&",
    "&#",
    "\\",
    "|",
    "#",
    "[^",
    "[1]",
    "[web:2]",
    "\ufdd0",
    "[\ufdd0",
    "    ",
    "\t",
    "\n",
]


@st.composite
def pathological_markdown(draw: st.DrawFn, max_chars: int = 1500) -> str:
    """Deep nesting and long runs of Markdown syntax, small enough to stay fast per example."""
    pieces = []
    for _ in range(draw(st.integers(1, 3))):
        unit = draw(st.sampled_from(MARKDOWN_UNITS))
        depth = draw(st.integers(1, max(1, max_chars // (3 * len(unit)))))
        shape = draw(st.sampled_from(["run", "open-close", "staircase", "interleaved"]))
        if shape == "run":
            pieces.append(unit * depth)
        elif shape == "open-close":
            pieces.append(
                unit * depth + draw(st.sampled_from(["x", "[1]", "`x`", ""])) + _CLOSING.get(unit, unit) * depth
            )
        elif shape == "staircase":  # nested lists and quotes: one level more on each line
            lines = int((2 * max_chars / (len(unit) + 1)) ** 0.5) // 2
            pieces.append("".join(unit * level + "x [1]\n" for level in range(1, min(depth, lines) + 1)))
        else:
            other = draw(st.sampled_from(MARKDOWN_UNITS))
            pieces.append((unit + other) * max(1, depth // 2))
    return "".join(pieces)[:max_chars]


# --- Small streams of every family, for what surrounds their events ---------------------------------------

SMALL_STREAMS: dict[str, list[dict[str, Any]]] = {
    "perplexity.agent": [
        {"type": "response.created", "response": {"id": AGENT_ID, "model": "fast", "output": []}},
        {"type": "response.reasoning.search_results", "call_id": "c", "results": [{"id": 1, "url": URLS[0]}]},
        {"type": "response.output_text.delta", "output_index": 1, "content_index": 0, "delta": "東京です[1]。"},
        {"type": "response.completed", "response": {"id": AGENT_ID, "status": "completed", "output": []}},
    ],
    "perplexity.sonar": [
        {"id": SONAR_ID, "model": "sonar", "citations": [URLS[0]], "choices": [{"delta": {"content": "東京[1]"}}]},
        {"id": SONAR_ID, "model": "sonar", "choices": [{"delta": {"content": "です。"}, "finish_reason": "stop"}]},
    ],
    "anthropic.messages": [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude-sonnet-4-6", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "東京です。"}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ],
    "gemini.generate_content": [
        {"candidates": [{"content": {"parts": [{"text": "東京"}]}}], "responseId": "r1"},
        {"candidates": [{"content": {"parts": [{"text": "です。"}]}, "finishReason": "STOP"}], "responseId": "r1"},
    ],
    "gemini.interactions": [
        {"event_type": "interaction.created", "interaction": {"id": "v1_x", "status": "in_progress"}},
        {"event_type": "content.delta", "index": 0, "delta": {"type": "text", "text": "東京です。"}},
        {"event_type": "interaction.completed", "interaction": {"id": "v1_x", "status": "completed"}},
    ],
    "openai.responses": [
        {"type": "response.created", "response": {"id": "resp_1", "object": "response", "output": []}},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "東京です。"},
        {"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": []}},
    ],
    "openai.chat_completions": [
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"delta": {"content": "東京です。"}}]},
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"delta": {}, "finish_reason": "stop"}]},
    ],
}


@st.composite
def stream_with_stray_values(draw: st.DrawFn) -> bytes:
    """A small stream of any family (or two, one after the other) with values that are not objects among its events."""
    names = sorted(SMALL_STREAMS)
    events = [e for name in draw(st.lists(st.sampled_from(names), min_size=1, max_size=2)) for e in SMALL_STREAMS[name]]
    return draw(framed(draw(with_stray_values(events))))


@st.composite
def stream_with_odd_types(draw: st.DrawFn) -> bytes:
    """A small stream whose events' ``type`` (``event_type``, ``object``) is any JSON value: a list, an object, a number."""
    events = [dict(e) for e in SMALL_STREAMS[draw(st.sampled_from(sorted(SMALL_STREAMS)))]]
    for _ in range(draw(st.integers(1, 3))):
        event = events[draw(st.integers(0, len(events) - 1))]
        field = draw(st.sampled_from(["type", "type", "event_type", "object"]))
        event[field] = draw(st.one_of(st.just([]), st.just({}), json_values(max_leaves=3)))
    if draw(st.booleans()):  # one before the stream starts
        events.insert(0, {"type": draw(st.one_of(st.just({}), st.just([]), json_values(max_leaves=3)))})
    return draw(framed(events))
