"""Property-based tests of Azure OpenAI On Your Data answers: whole or streamed, the context at its
root (2024+) or in a tool message encoded twice (2023), any chunks and any [docN] markers. Whatever
they hold, :func:`check_dump` finds a result that keeps the contract, or one clear error; a
well-formed one cites each [docN] of a listed chunk and leaves every other number unresolved."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from citeview.core.parsing.parse import parse_dump
from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE, check_dump

DOC_MARKERS = st.integers(0, 5).map(lambda n: f"[doc{n}]")


@st.composite
def azure_completion(draw: st.DrawFn) -> tuple[list[dict[str, Any]], bool, int]:
    """The values of an On Your Data answer, whether they are a stream, and how many chunks it lists."""
    chunks = [
        {
            "content": draw(hs.short_text()),
            "title": draw(hs.short_text()),
            "url": draw(hs.urls()),
            "filepath": draw(hs.short_text()),
            "chunk_id": str(number),
        }
        for number in range(draw(st.integers(0, 3)))
    ]
    pieces = draw(st.lists(st.one_of(hs.short_text(), DOC_MARKERS, st.just(" ")), max_size=12))
    text = "".join(pieces) or "x"
    context: dict[str, Any] = {"citations": chunks, "intent": json.dumps([draw(hs.short_text())])}
    if draw(st.booleans()):  # 2023's extensions API: in a tool message, encoded twice
        context = {"messages": [{"role": "tool", "content": json.dumps(context), "end_turn": False}]}
    if not draw(st.booleans()):
        message = {"role": "assistant", "content": text, "context": context}
        value = {
            "id": "2f7210ba-afb2-4013-b3b7-1975842a8147",
            "object": "chat.completion",
            "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        }
        return [value], False, len(chunks)
    deltas = [{"role": "assistant", "context": context}] + [{"content": p} for p in draw(hs.stream_pieces(text))]
    values = [
        {
            "id": "chatcmpl-az",
            "object": "chat.completion.chunk",
            "model": "gpt-4o",
            "choices": [{"index": 0, "delta": d}],
        }
        for d in deltas
    ]
    values.append(
        {
            "id": "chatcmpl-az",
            "object": "chat.completion.chunk",
            "model": "gpt-4o",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
    )
    return values, True, len(chunks)


@PROFILE
@given(azure_completion())
def test_each_docn_of_a_listed_chunk_is_cited_and_every_other_stays_unresolved(completion):
    values, streamed, listed = completion
    raw = "".join(f"data: {hs.encode(v)}\n\n" for v in values) if streamed else hs.encode(values[0])
    (response,) = parse_dump(raw.encode()).to_json()["responses"]
    assert (response["provider"], response["streamed"]) == ("azure", streamed)
    assert [s["key"] for s in response["sources"]] == [f"doc{n}" for n in range(1, listed + 1)]
    # Markers, as Markdown shows them: those of a listed chunk cite it; no other cites anything.
    for citation in response["citations"]:
        (key,) = citation["source_keys"]
        assert citation["marker"] == f"[{key}]"
    for marker in response["unresolved"]:
        assert not 1 <= int(re.sub(r"\D", "", marker["marker"])) <= listed


@PROFILE
@given(azure_completion(), st.data())
def test_scrambled_or_cut_azure_answers_keep_the_contract_or_say_what_is_wrong(completion, data):
    values, _, _ = completion
    raw = data.draw(hs.framed(data.draw(hs.scrambled(values, events=True))))
    check_dump(raw)
    check_dump(raw[: data.draw(st.integers(0, len(raw)))], provider=data.draw(st.sampled_from([None, "azure"])))
