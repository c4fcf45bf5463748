"""Property-based tests (Hypothesis) of the Bedrock parsers and of AWS's binary event stream.

Converse bodies and streams, Knowledge Base answers and streams, valid-looking and scrambled, as JSON
in every framing or as the binary body, whole, cut at any byte or with a byte changed: whatever
comes, :func:`parse_dump` gives one clear error or a result that keeps the contract
(``check_response`` of ``tests/hostile/test_properties.py``). Built from provider-formats.md §6.
"""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from citeview.core.framing import read_dump
from tests.core.framing.test_eventstream import encode_message, exception_message
from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE, check_dump, check_strict_json

# --- Building dumps -----------------------------------------------------------------------------------


@st.composite
def converse_citation(draw: st.DrawFn, documents: list[str]) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "documentChar",
                "documentChar",
                "documentPage",
                "documentChunk",
                "searchResultLocation",
                "web",
                "empty_web",
                "mystery",
                "none",
            ]
        )
    )
    known = st.integers(0, len(documents) - 1) if documents else st.just(0)
    index = draw(hs.mostly(known, st.integers(0, len(documents) + 1), hs.offsets_junk()))
    document = documents[index] if isinstance(index, int) and 0 <= index < len(documents) else ""
    start = draw(st.integers(0, len(document)))
    end = draw(st.integers(start, len(document)))
    quote = draw(hs.mostly(st.just(document[start:end]), hs.short_text(), st.just(document[start:end] + "x")))
    citation: dict[str, Any] = {"title": draw(hs.short_text()), "sourceContent": [{"text": quote}]}
    if kind in ("documentChar", "documentPage", "documentChunk"):
        place = {"documentIndex": index, "start": draw(hs.offset(end)), "end": draw(hs.offset(end + 2))}
        if kind == "documentChar" and draw(hs.mostly(st.just(True), st.just(False))):
            place.update(start=start, end=end)
        citation["location"] = {kind: place}
    elif kind == "searchResultLocation":
        citation["source"] = draw(hs.urls())
        citation["location"] = {
            kind: {"searchResultIndex": index, "start": draw(hs.offset(3)), "end": draw(hs.offset(3))}
        }
    elif kind == "web":
        citation["location"] = {"web": {"url": draw(hs.urls()), "domain": draw(hs.short_text())}}
    elif kind == "empty_web":
        citation["location"] = {"web": {}}
    elif kind == "mystery":
        citation["location"] = {"documentRegion": {"documentIndex": index}}
    return citation


@st.composite
def converse_blocks(draw: st.DrawFn, documents: list[str]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for _ in range(draw(hs.mostly(st.integers(1, 5), st.just(0)))):
        kind = draw(
            st.sampled_from(["text", "cited", "cited", "cited", "cited_no_content", "reasoning", "tool", "other"])
        )
        if kind == "text":
            blocks.append({"text": draw(hs.answer_text(max_pieces=6))})
        elif kind in ("cited", "cited_no_content"):
            content: dict[str, Any] = {
                "citations": draw(st.lists(converse_citation(documents), min_size=1, max_size=3))
            }
            if kind == "cited":
                content["content"] = [{"text": t} for t in draw(st.lists(hs.answer_text(max_pieces=5), max_size=2))]
            blocks.append({"citationsContent": content})
        elif kind == "reasoning":
            blocks.append({"reasoningContent": {"reasoningText": {"text": draw(hs.short_text()), "signature": "sig"}}})
        elif kind == "tool":
            blocks.append({"toolUse": {"toolUseId": "tooluse_1", "name": "search", "input": {}}})
        else:
            blocks.append({draw(st.sampled_from(["image", "unknownBlock", ""])): {}})
    return blocks


def converse_request(documents: list[str], draw: st.DrawFn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for number, document in enumerate(documents):
        shape = draw(st.sampled_from(["text", "text", "bytes", "content", "pdf", "s3", "search_result"]))
        name = f"Document {number + 1}"
        if shape == "text":
            content.append({"document": {"format": "txt", "name": name, "source": {"text": document}}})
        elif shape == "bytes":
            encoded = base64.b64encode(document.encode("utf-8", "surrogatepass")).decode()
            content.append({"document": {"format": "txt", "name": name, "source": {"bytes": encoded}}})
        elif shape == "content":
            pieces = draw(hs.stream_pieces(document))
            content.append(
                {"document": {"format": "txt", "name": name, "source": {"content": [{"text": p} for p in pieces]}}}
            )
        elif shape == "pdf":
            content.append({"document": {"format": "pdf", "name": name, "source": {"bytes": "JVBERi0="}}})
        elif shape == "s3":
            content.append({"document": {"format": "txt", "name": name, "source": {"s3Location": {"uri": "s3://b/k"}}}})
        else:
            content.append(
                {"searchResult": {"source": draw(hs.urls()), "title": name, "content": [{"text": document}]}}
            )
    if draw(st.booleans()):
        content = [{"toolResult": {"toolUseId": "tooluse_1", "content": content}}]
    return {"messages": [{"role": "user", "content": [*content, {"text": "?"}]}]}


STOP_REASONS = ["end_turn", "end_turn", "tool_use", "max_tokens", "guardrail_intervened", "new_reason", None]


def converse_stream(draw: st.DrawFn, blocks: list[dict[str, Any]], stop_reason: Any) -> list[dict[str, Any]]:
    """The events a ConverseStream would send for ``blocks``: citations before or after their text."""
    events: list[dict[str, Any]] = [{"messageStart": {"role": "assistant", "p": "abc"}}]
    for index, block in enumerate(blocks):
        shown = draw(st.sampled_from([index, index, index, 0, -1, None, "1"]))
        deltas: list[dict[str, Any]] = []
        cited = block.get("citationsContent")
        text = block.get("text") if isinstance(block.get("text"), str) else None
        if isinstance(cited, dict):
            text = "".join(c["text"] for c in cited.get("content", []))
            deltas += [{"citation": c} for c in cited["citations"]]
        if text is not None:
            deltas[draw(st.integers(0, len(deltas))) : 0] = [{"text": p} for p in draw(hs.stream_pieces(text))]
        if "reasoningContent" in block:
            deltas.append({"reasoningContent": {"text": block["reasoningContent"]["reasoningText"]["text"]}})
        if "toolUse" in block:
            events.append({"contentBlockStart": {"contentBlockIndex": shown, "start": {"toolUse": block["toolUse"]}}})
            deltas.append({"toolUse": {"input": "{}"}})
        events += [{"contentBlockDelta": {"contentBlockIndex": shown, "delta": d, "p": "ab"}} for d in deltas]
        events.append({"contentBlockStop": {"contentBlockIndex": shown}})
    if draw(st.sampled_from([True, True, True, False])):
        events.append({"messageStop": {"stopReason": stop_reason}})
    events.append({"metadata": {"usage": {"inputTokens": 1}, "metrics": {"latencyMs": 1}}})
    if draw(st.sampled_from([False] * 6 + [True])):
        events.insert(draw(st.integers(1, len(events))), {"throttlingException": {"message": "Rate exceeded"}})
    return events


def kb_citation(draw: st.DrawFn, answer: str) -> dict[str, Any]:
    start = draw(st.integers(0, len(answer)))
    end = draw(st.integers(start, len(answer)))
    text = answer[start:end]
    reading = draw(st.sampled_from(["exclusive", "inclusive", "utf16", "junk"]))
    if reading == "inclusive":
        end -= 1
    elif reading == "utf16":
        start, end = (
            len(answer[:start].encode("utf-16-le", "surrogatepass")) // 2,
            len(answer[:end].encode("utf-16-le", "surrogatepass")) // 2,
        )
    elif reading == "junk":
        start, end = draw(hs.offset(len(answer))), draw(hs.offset(len(answer)))
    part: dict[str, Any] = {
        "text": draw(hs.mostly(st.just(text), st.none(), hs.short_text())),
        "span": {"start": start, "end": end},
    }
    location_type = draw(st.sampled_from(["S3", "WEB", "CONFLUENCE", "CUSTOM", "SQL", None]))
    member = {
        "S3": ("s3Location", "uri"),
        "WEB": ("webLocation", "url"),
        "CONFLUENCE": ("confluenceLocation", "url"),
        "CUSTOM": ("customDocumentLocation", "id"),
        "SQL": ("sqlLocation", "query"),
    }.get(location_type or "", ("x", "y"))
    references = [
        {
            "content": {"text": draw(hs.short_text()), "type": "TEXT"},
            "location": {"type": location_type, member[0]: {member[1]: draw(hs.urls())}},
            "metadata": {"x-amz-bedrock-kb-document-page-number": draw(hs.json_scalars())},
        }
        for _ in range(draw(st.integers(0, 2)))
    ]
    return {"generatedResponsePart": {"textResponsePart": part}, "retrievedReferences": references}


def kb_events(draw: st.DrawFn, answer: str, citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"output": {"text": piece}} for piece in draw(hs.stream_pieces(answer))]
    for citation in citations:
        nested = draw(st.sampled_from([False, False, True]))  # the deprecated `citation.citation`
        events.insert(draw(st.integers(0, len(events))), {"citation": {"citation": citation} if nested else citation})
    if draw(st.sampled_from([False] * 5 + [True])):
        events.append({"guardrail": {"action": "INTERVENED"}})
    if draw(st.sampled_from([False] * 6 + [True])):
        events.append({"validationException": {"message": "bad"}})
    return events


def binary_body(draw: st.DrawFn, events: list[Any]) -> bytes:
    """``events`` as AWS's binary event stream; now and then damaged or cut like a bad copy."""
    messages = []
    for event in events:
        name, payload = next(iter(event.items())) if isinstance(event, dict) and len(event) == 1 else ("event", event)
        body = hs.encode(payload).encode("utf-8", "surrogatepass")
        if draw(st.sampled_from([False] * 9 + [True])):  # a name no SDK sends: any text, a NUL among it
            name = draw(st.text(st.characters(exclude_categories=["Cs"]), max_size=6))
        if name.endswith("Exception"):
            messages.append(exception_message(name, payload if isinstance(payload, dict) else {}))
        else:
            headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
            messages.append(encode_message(headers, body))
    raw = b"".join(messages)
    damage = draw(st.sampled_from(["none", "none", "none", "flip", "cut", "garbage"]))
    if damage == "flip" and raw:
        at = draw(st.integers(0, len(raw) - 1))
        raw = raw[:at] + bytes([raw[at] ^ draw(st.integers(1, 255))]) + raw[at + 1 :]
    elif damage == "cut":
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif damage == "garbage":
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.binary(min_size=1, max_size=40)) + raw[at:]
    return raw


@st.composite
def bedrock_dump(draw: st.DrawFn) -> tuple[bytes, bytes | None]:
    """A Converse or Knowledge Base answer, and (sometimes) the request for it, as bytes."""
    if draw(st.booleans()):
        documents = draw(hs.mostly(st.lists(hs.answer_text(max_pieces=6), min_size=1, max_size=3), st.just([])))
        blocks = draw(converse_blocks(documents))
        stop_reason = draw(st.sampled_from(STOP_REASONS))
        whole: dict[str, Any] = {
            "output": {"message": {"role": "assistant", "content": blocks}},
            "stopReason": stop_reason,
        }
        if draw(st.booleans()):
            whole["ResponseMetadata"] = {"RequestId": "5f0c6b7e-2f3a-4d1b-9c8e-0a1b2c3d4e5f"}
        request = converse_request(documents, draw) if draw(hs.mostly(st.just(True), st.just(False), odds=2)) else None
        events = converse_stream(draw, blocks, stop_reason)
    else:
        answer = draw(hs.answer_text(max_pieces=10))
        citations = [kb_citation(draw, answer) for _ in range(draw(st.integers(0, 4)))]
        whole = {"sessionId": "0e7e4f1a", "output": {"text": answer}, "citations": citations}
        if draw(st.sampled_from([False] * 5 + [True])):
            whole["guardrailAction"] = "INTERVENED"
        request = None
        events = kb_events(draw, answer, citations)
    how = draw(st.sampled_from(["whole", "stream", "binary", "binary", "exchange"]))
    if how == "whole":
        raw = draw(hs.framed([draw(hs.scrambled(whole))], whole=True))
    elif how == "stream":
        raw = draw(hs.framed(draw(hs.scrambled(events, events=True))))
    elif how == "binary":
        raw = binary_body(draw, draw(hs.scrambled(events, "light", events=True)))
    else:
        exchange = {"request": request or {"messages": []}, "response": whole}
        return draw(hs.framed([draw(hs.scrambled(exchange, "light"))], whole=True)), None
    attached = hs.encode(draw(hs.scrambled(request, "light"))).encode("utf-8") if request is not None else None
    return raw, attached


# --- The properties ---------------------------------------------------------------------------------------


@PROFILE
@given(bedrock_dump())
@example(  # a citation-only block before any text, and an empty web location
    (
        b'{"output":{"message":{"content":[{"citationsContent":{"citations":[{"location":{"web":{}}}]}}]}},'
        b'"stopReason":"end_turn"}',
        None,
    )
)
@example(  # a Knowledge Base span inside a surrogate pair when read as UTF-16
    (
        '{"sessionId":"s","output":{"text":"😀a"},"citations":[{"generatedResponsePart":{"textResponsePart":'
        '{"text":"a","span":{"start":1,"end":3}}},"retrievedReferences":[{"content":{"text":"p"}}]}]}'.encode(),
        None,
    )
)
def test_bedrock_dumps_of_every_shape_and_framing(dump: tuple[bytes, bytes | None]):
    raw, request = dump
    result = check_dump(raw, request=request)
    if result is not None and read_dump(raw).framing == "eventstream":
        assert all(r["provider"] == "bedrock" for r in result["responses"])


@PROFILE
@given(bedrock_dump(), st.data())
def test_a_bedrock_dump_cut_at_any_byte_or_with_a_byte_changed(dump: tuple[bytes, bytes | None], data: st.DataObject):
    raw, _request = dump
    check_dump(raw[: data.draw(st.integers(0, len(raw)), label="cut")])
    if raw:
        position = data.draw(st.integers(0, len(raw) - 1), label="position")
        check_dump(raw[:position] + bytes([data.draw(st.integers(0, 255), label="byte")]) + raw[position + 1 :])


@PROFILE
@given(bedrock_dump())
def test_what_a_bedrock_dump_stores_is_strict_json(dump: tuple[bytes, bytes | None]):
    raw, request = dump
    check_strict_json(raw, request=request)


@PROFILE
@given(st.binary(max_size=200), st.sampled_from(["messageStart", "contentBlockDelta", "output", "citation"]))
def test_any_bytes_after_a_message_whose_checksums_hold_are_read_or_refused(tail: bytes, name: str):
    first = encode_message({":event-type": name, ":message-type": "event"}, b"{}")
    check_dump(first + tail)
