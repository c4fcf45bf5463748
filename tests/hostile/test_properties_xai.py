"""Property-based tests of xAI's shapes and of the citation notations OpenAI models write into the text.

Valid-looking and scrambled xAI Responses bodies and streams (annotations with positions in any unit,
without positions, at 0–0; a citations list; function-call shaped searches; ``response.done``), xAI
Live Search completions with ``[N]`` markers, and OpenAI answers holding private-use citation tokens,
【】 markers, file_path and quoted file citations: whatever they hold, :func:`check_dump` finds a
result that keeps the contract, or one clear error.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE, check_dump

RESPONSE_ID = "84c1a8ea-1f29-4a33-1049-0ed3561b0f64"
TOKENS = [
    "\ue200cite\ue202turn0search0\ue201",
    "\ue200cite\ue202turn0search0\ue202turn1news2\ue201",
    "\ue200cite\ue202turn0file0\ue202L8-L13\ue201",
    "\ue200filecite\ue202turn0file1\ue202L3\ue201",
    '\ue200navlist\ue202{"x":1}\ue201',
    "\ue200cite\ue201",  # no ids: stray characters, not a token
    "\ue200cite\ue202turn0sea",  # cut by a stream
    "\ue202",
    "\ue201\ue200",
    "【4:0†source】",
    "【10:13†source】",
    "【3:0†report.pdf】",
    "【†】",
    "【" * 3,
]


def numbered_link(number: int, url: str) -> str:
    return f"[[{number}]]({url})"


@st.composite
def xai_text(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    """Answer text with xAI's ``[[N]](url)`` links after sentences, and the links it holds."""
    urls = draw(st.lists(hs.urls(), min_size=0, max_size=3, unique=True))
    text = draw(hs.answer_text(max_pieces=8))
    links = []
    for number, url in enumerate(urls, 1):
        link = numbered_link(number, url)
        links.append((link, url))
        text += link + draw(hs.answer_text(max_pieces=5, min_pieces=0))
    return text, links


@st.composite
def xai_annotation(draw: st.DrawFn, text: str, links: list[tuple[str, str]]) -> dict[str, Any]:
    link, url = draw(st.sampled_from(links)) if links else ("", draw(hs.urls()))
    form = draw(st.sampled_from(["positioned", "positioned", "no_positions", "zero", "junk"]))
    if form == "no_positions":
        return {"type": "url_citation", "url": url}
    if form == "zero":
        return {"type": "url_citation", "url": url, "start_index": 0, "end_index": 0, "title": url}
    where = text.find(link) if link else -1
    if form == "positioned" and where >= 0:
        unit = draw(st.sampled_from(["code_points", "utf16", "utf8"]))
        before, covered = text[:where], link
        if unit == "utf16":
            start = len(before.encode("utf-16-le", "surrogatepass")) // 2
            end = start + len(covered.encode("utf-16-le", "surrogatepass")) // 2
        elif unit == "utf8":
            start = len(before.encode("utf-8", "surrogatepass"))
            end = start + len(covered.encode("utf-8", "surrogatepass"))
        else:
            start, end = where, where + len(link)
    else:
        start, end = draw(hs.offset(len(text))), draw(hs.offset(len(text)))
    return {"type": "url_citation", "url": url, "start_index": start, "end_index": end, "title": draw(hs.short_text())}


def search_call(draw: st.DrawFn, links: list[tuple[str, str]]) -> dict[str, Any]:
    kind = draw(st.sampled_from(["web_search_call", "x_search_call"]))
    if draw(st.booleans()):
        arguments = draw(
            st.one_of(
                st.builds(lambda q: json.dumps({"query": q, "num_results": 5}), hs.short_text()),
                st.text(max_size=8),
                st.just("[" * 50),
            )
        )
        return {"type": kind, "id": f"fc_{RESPONSE_ID}_0", "call_id": "", "name": "web_search", "arguments": arguments}
    sources = [{"type": "url", "url": url} for _, url in links]
    return {"type": kind, "id": f"ws_{RESPONSE_ID}_0", "action": {"type": "search", "query": "q", "sources": sources}}


@st.composite
def xai_responses_dump(draw: st.DrawFn) -> bytes:
    text, links = draw(xai_text())
    annotations = draw(st.lists(xai_annotation(text, links), max_size=4))
    message_id = f"msg_{RESPONSE_ID}"
    part = {"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}
    message = {"type": "message", "id": message_id, "role": "assistant", "status": "completed", "content": [part]}
    items = [search_call(draw, links), message]
    suffix = draw(st.sampled_from(["", "_us-east-1"]))
    citations = draw(
        st.one_of(st.just([u for _, u in links] + ["https://x.com/i/status/1"]), st.none(), hs.json_values(3))
    )
    body: dict[str, Any] = {
        "id": RESPONSE_ID + suffix,
        "object": "response",
        "model": draw(st.sampled_from(["grok-4-fast-reasoning", "grok-4-1-fast-non-reasoning", None])),
        "status": draw(st.sampled_from(["completed", "completed", "incomplete", "failed", None])),
        "output": items,
        "usage": {"num_sources_used": 0, "num_server_side_tools_used": 1, "cost_in_usd_ticks": 132865000},
    }
    if citations is not None:
        body["citations"] = citations
    if draw(st.booleans()):
        return draw(hs.framed([draw(hs.scrambled(body))], whole=True))
    created = {"id": body["id"], "object": "response", "model": body["model"], "status": "in_progress", "output": []}
    events: list[Any] = [{"type": "response.created", "response": created}]
    where = {"item_id": message_id, "output_index": 1, "content_index": 0}
    events.append({"type": "response.output_item.added", "output_index": 0, "item": items[0]})
    for piece in draw(hs.stream_pieces(text)):
        events.append({"type": "response.output_text.delta", **where, "delta": piece})
    for number, annotation in enumerate(annotations):
        index = draw(st.sampled_from([number, number, None, "x"]))
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
    terminal = draw(st.sampled_from(["response.completed", "response.done", "response.done", None]))
    if terminal:
        events.append({"type": terminal, "response": body if draw(st.booleans()) else {**body, "output": []}})
    return draw(hs.framed(draw(hs.scrambled(events, events=True))))


@st.composite
def xai_live_search_dump(draw: st.DrawFn) -> bytes:
    urls = draw(st.lists(hs.urls(), max_size=4))
    citations: Any = draw(hs.mostly(st.just(urls), hs.json_values(3)))
    text = draw(hs.answer_text(refs=[str(n) for n in range(1, len(urls) + 2)]))
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "num_sources_used": len(urls)}
    whole = {
        "id": "3f9a2c18-7d4e-b605-e1c3-94d07a2b6f15",
        "object": "chat.completion",
        "model": draw(st.sampled_from(["grok-3", "grok-2-1212", "unnamed"])),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": usage,
        "citations": citations,
    }
    if draw(st.booleans()):
        return draw(hs.framed([draw(hs.scrambled(whole))], whole=True))
    chunks: list[Any] = [
        {
            "id": whole["id"],
            "object": "chat.completion.chunk",
            "model": whole["model"],
            "choices": [{"index": 0, "delta": {"content": piece}}],
        }
        for piece in draw(hs.stream_pieces(text))
    ]
    last = {"id": whole["id"], "object": "chat.completion.chunk", "model": whole["model"], "usage": usage}
    chunks.append({**last, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "citations": citations})
    return draw(hs.framed(draw(hs.scrambled(chunks, events=True))))


@st.composite
def openai_inline_token_dump(draw: st.DrawFn) -> bytes:
    """An OpenAI answer with citation tokens, 【】 markers and stray private-use characters, and
    annotations that cover some of them exactly (or not quite), file_path and quoted file citations."""
    pieces = draw(st.lists(st.one_of(hs.answer_text(max_pieces=4), st.sampled_from(TOKENS)), min_size=1, max_size=8))
    text = "".join(pieces)
    annotations: list[dict[str, Any]] = []
    at = 0
    for piece in pieces:
        start, at = at, at + len(piece)
        if piece in TOKENS and draw(st.booleans()):
            shift = draw(st.sampled_from([0, 0, 0, 1, -1]))
            kind = draw(st.sampled_from(["url_citation", "file_citation"]))
            annotation: dict[str, Any] = {"type": kind, "start_index": start + shift, "end_index": at + shift}
            if kind == "url_citation":
                annotation["url"] = draw(hs.urls())
            else:
                annotation["text"] = piece
                annotation["file_citation"] = {"file_id": "file-1", "quote": draw(hs.short_text())}
            annotations.append(annotation)
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["file_path", "file_citation"]))
        annotation = {"type": kind, "file_id": draw(st.sampled_from(["file-1", "cfile_2"]))}
        if draw(st.booleans()):
            annotation["index"] = draw(hs.offset(len(text)))
        if kind == "file_citation" and draw(st.booleans()):
            annotation["quote"] = draw(hs.short_text())
        annotations.append(annotation)
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": annotations}],
    }
    body = {
        "id": "resp_68e6a1b2c3d4",
        "object": "response",
        "status": "completed",
        "model": "gpt-5.2",
        "output": [message],
    }
    if draw(st.booleans()):
        return draw(hs.framed([draw(hs.scrambled(body))], whole=True))
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    events: list[Any] = [{"type": "response.created", "response": {"id": body["id"], "output": []}}]
    events += [{"type": "response.output_text.delta", **where, "delta": p} for p in draw(hs.stream_pieces(text))]
    events += [
        {"type": "response.output_text.annotation.added", **where, "annotation_index": n, "annotation": a}
        for n, a in enumerate(annotations)
    ]
    events.append({"type": "response.completed", "response": body})
    return draw(hs.framed(draw(hs.scrambled(events, events=True))))


@PROFILE
@given(xai_responses_dump(), st.sampled_from([None, None, "xai", "openai.responses", "perplexity"]))
@example(  # a link whose address ends in a parenthesis, cited with UTF-16 offsets after an emoji
    raw='{"id":"84c1a8ea-1f29-4a33-1049-0ed3561b0f64","object":"response","status":"completed","output":[{"type":'
    '"message","content":[{"type":"output_text","text":"😀[[1]](https://a.example/x_(y))","annotations":[{"type":'
    '"url_citation","url":"https://a.example/x_(y)","start_index":2,"end_index":32}]}]}]}'.encode(),
    provider=None,
)
def test_xai_responses(raw: bytes, provider: str | None):
    check_dump(raw, provider=provider)


@PROFILE
@given(xai_live_search_dump(), st.sampled_from([None, None, "xai", "perplexity"]))
def test_xai_live_search(raw: bytes, provider: str | None):
    check_dump(raw, provider=provider)


@PROFILE
@given(openai_inline_token_dump(), st.sampled_from([None, None, "xai"]))
@example(  # a token an annotation spans exactly, next to a stray delimiter
    raw=b'{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","content":[{"type":'
    b'"output_text","text":"x\\ue200cite\\ue202turn0search0\\ue201\\ue202","annotations":[{"type":"url_citation",'
    b'"url":"https://a.example/","start_index":1,"end_index":20}]}]}]}',
    provider=None,
)
def test_openai_inline_tokens(raw: bytes, provider: str | None):
    check_dump(raw, provider=provider)


@PROFILE
@given(st.one_of(xai_responses_dump(), xai_live_search_dump(), openai_inline_token_dump()), st.data())
def test_cut_at_any_byte_or_with_a_byte_changed(raw: bytes, data: st.DataObject):
    check_dump(raw[: data.draw(st.integers(0, len(raw)), label="cut")])
    if raw:
        position = data.draw(st.integers(0, len(raw) - 1), label="position")
        byte = data.draw(st.integers(0, 255), label="byte")
        check_dump(raw[:position] + bytes([byte]) + raw[position + 1 :])
