"""Property-based tests of OpenRouter's answers and of the frames its SDK's recorder writes: web
plugin annotations at 0–0 beside an answer that writes some of their addresses (as Markdown links
or bare) and not others, whole or streamed, and the same stream saved as recorder frames cut into
pieces anywhere. Whatever they hold, :func:`check_dump` finds a result that keeps the contract, or
one clear error; a well-formed answer cites each page exactly where it writes its address."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from citeview.core.parsing.parse import parse_dump
from tests.hostile import strategies as hs
from tests.hostile.test_properties import PROFILE, check_dump

ADDRESSES = [f"https://news{n}.example/記事/{n}?q={n}" for n in range(4)]  # written percent-encoded below


def _written(url: str) -> str:
    return url.replace("記事", "%E8%A8%98%E4%BA%8B")


@st.composite
def openrouter_answer(draw: st.DrawFn) -> tuple[dict[str, Any], list[str], set[str]]:
    """A completion, the addresses its annotations carry, and those its text writes."""
    urls = [_written(url) for url in draw(st.lists(st.sampled_from(ADDRESSES), min_size=1, max_size=4, unique=True))]
    written = draw(st.sets(st.sampled_from(urls)))
    text = draw(hs.answer_text(max_pieces=4))
    for url in sorted(written):
        link = draw(st.sampled_from([f"[出典]({url})", url, f"（{url}）"]))
        text += (
            " " + link + draw(st.sampled_from(["。", " ", "。\n\n", "をご覧ください。"]))
        )  # (an address glued to the text before it is another address)
    annotations = [
        {
            "type": "url_citation",
            "url_citation": {
                "url": url,
                "title": draw(hs.short_text()),
                "content": draw(hs.short_text()),
                "start_index": 0,
                "end_index": 0,
            },
        }
        for url in urls
    ]
    value = {
        "id": "gen-1786680756-Fmq0SbiQ50hlHCCn30d5",
        "provider": "Google",
        "model": "google/gemini-2.5-flash",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": text, "annotations": annotations},
            }
        ],
        "usage": {"cost": 0.0001},
    }
    return value, urls, written


def _as_stream(value: dict[str, Any], pieces: list[str]) -> list[dict[str, Any]]:
    message = value["choices"][0]["message"]
    base = {k: v for k, v in value.items() if k != "choices"} | {"object": "chat.completion.chunk"}
    first = {"role": "assistant", "content": "", "annotations": message["annotations"]}
    deltas = [first, *({"content": piece} for piece in pieces)]
    chunks = [base | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]} for delta in deltas]
    return [*chunks, base | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]


def _recorded(chunks: list[dict[str, Any]], cuts: list[int]) -> bytes:
    """The stream as the recorder saves it: each payload as text pieces cut at ``cuts``, or parsed."""
    frames: list[dict[str, Any]] = [{"comment": ": OPENROUTER PROCESSING\n\n"}]
    for number, chunk in enumerate(chunks):
        if number % 2:
            frames += [{"json": chunk}, {"delay_ms": number}]
            continue
        payload = hs.encode(chunk)
        edges = sorted({0, len(payload), *(cut % (len(payload) + 1) for cut in cuts)})
        frames += [{"text": payload[a:b]} for a, b in pairwise(edges) if b > a]
    frames.append({"text": "[DONE]"})
    return "".join(hs.encode(frame) + "\n" for frame in frames).encode()


def _check_placed(response: dict[str, Any], urls: list[str], written: set[str]) -> None:
    keys = {s["key"]: s["url"] for s in response["sources"]}
    assert set(keys.values()) == set(urls)
    # (a [N] the answer shows names the N-th page by the marker rule: tests/core/parsing/test_marker_rule.py)
    by_address = [c for c in response["citations"] if not c["marker"]]
    by_marker = {keys[k] for c in response["citations"] if c["marker"] for k in c["source_keys"]}
    placed = {keys[c["source_keys"][0]] for c in by_address}
    assert placed == written, (response["text"], response["citations"], response["diagnostics"])
    assert {keys[k] for k in response["cited_without_position"]} == set(urls) - written - by_marker
    for citation in by_address:  # each placed on its own address
        assert keys[citation["source_keys"][0]] in response["text"][citation["start"] : citation["end"]]


@PROFILE
@given(openrouter_answer(), st.data())
def test_each_page_is_cited_where_the_answer_writes_its_address_whole_streamed_or_recorded(answer, data):
    value, urls, written = answer
    _check_placed(parse_dump(hs.encode(value).encode()).to_json()["responses"][0], urls, written)
    chunks = _as_stream(value, data.draw(hs.stream_pieces(value["choices"][0]["message"]["content"])))
    cuts = data.draw(st.lists(st.integers(0, 10_000), max_size=5))
    (response,) = parse_dump(_recorded(chunks, cuts)).to_json()["responses"]
    _check_placed(response, urls, written)
    assert "damaged_frame" not in [d["code"] for d in response["diagnostics"]]


@PROFILE
@given(openrouter_answer(), st.data())
def test_scrambled_or_cut_openrouter_answers_keep_the_contract_or_say_what_is_wrong(answer, data):
    value, _, _ = answer
    check_dump(data.draw(hs.framed(data.draw(hs.scrambled([value], events=True)), whole=True)))
    chunks = _as_stream(value, [value["choices"][0]["message"]["content"]])
    raw = _recorded(chunks, data.draw(st.lists(st.integers(0, 10_000), max_size=3)))
    check_dump(raw[: data.draw(st.integers(0, len(raw)))])
