"""Property tests (Hypothesis): whatever Markdown makes of the text around a ``[N]``, the marker is
either drawn as a citation or reported with a diagnostic that says why not, and the answer links
nowhere but to the sources in the list and to links the answer itself writes.

Answers are built from markers and the Markdown constructs that can take a marker apart: link
reference definitions (some labelled with a marker and pointing at evil.example), reference links
and link labels, inline links, emphasis, tables, headings, code spans and blocks, autolinks,
HTML-looking text and backslash escapes, with random text in Japanese and English and tokens of
notations citeview does not read (``[static_doc_1]``, ``【3】``) around them. They
run for every provider whose notation writes markers into the text: Perplexity Sonar (``[N]``, a
position in ``citations``) and the Perplexity Agent API (``[N]`` and ``[web:N]``, a result's id).
Claude, Gemini and OpenAI place citations by offsets, so no bracket of their text is read.

The profile is deterministic (``derandomize``, no example database), so CI runs the same examples.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeview.core.parsing.markers import MARKER, thinking_end
from citeview.core.parsing.parse import parse_dump
from citeview.core.rendering.answer import render_response
from tests.builders import agent_object, sonar_object

PROPERTIES = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow],
)

SOURCES = 4  # markers number 1 to 6: some resolve, some do not
URLS = [f"https://example.jp/記事/{n}" for n in range(1, SOURCES + 1)]
EVIL = "evil.example"  # only ever the address of a definition labelled with a marker


def sonar(text: str) -> bytes:
    return json.dumps(sonar_object(text, URLS), ensure_ascii=False).encode()


def agent(text: str) -> bytes:
    results = [(n, url, f"出典{n}") for n, url in enumerate(URLS, 1)]
    return json.dumps(agent_object(text, results), ensure_ascii=False).encode()


PROVIDERS: dict[str, Callable[[str], bytes]] = {"perplexity.sonar": sonar, "perplexity.agent": agent}

# --- Answers ----------------------------------------------------------------------------------------

numbers = st.integers(1, SOURCES + 2)
labels = st.one_of(numbers.map(str), numbers.map(lambda n: f"web:{n}"))  # what a marker holds
markers = labels.map(lambda label: f"[{label}]")
words = st.sampled_from(
    ["東京", "の人口は", "約1400万人", "です。", "大阪", "「引用」", "（注）", "Tokyo", " is ", "2.5", "e.g.", " "]
)
# Tokens of notations citeview does not read: reported where shown, never taken for a marker.
notations = st.sampled_from(["[static_doc_1]", "[doc2]", "[1, 2]", "【3】", "[^4]"])
# Characters Markdown reads as syntax, alone: they open, close and break constructs at random.
syntax = st.sampled_from(["*", "_", "`", "[", "]", "(", ")", "!", "<", ">", "&", "#", "|", "~", "\\", ":", "\n"])
japanese = st.text(alphabet="東京大阪人口約万人ですのは、。「」（）ー", max_size=6)
addresses = st.one_of(
    st.sampled_from(["https://example.com/a", "https://example.jp/記事/9", "https://example.org/q?x=1"]),
    markers.map(lambda marker: f"https://example.org/p/{marker}"),  # a marker inside an address
)
link_labels = st.one_of(labels, st.sampled_from(["docs", "資料"]))


def inline_constructs(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(children, min_size=2, max_size=4).map("".join),
        children.map(lambda inner: f"*{inner}*"),
        children.map(lambda inner: f"**{inner}**"),
        children.map(lambda inner: f"_{inner}_"),
        children.map(lambda inner: f"~~{inner}~~"),
        children.map(lambda inner: f"`{inner}`"),
        st.tuples(children, addresses).map(lambda pair: f"[{pair[0]}]({pair[1]})"),
        st.tuples(labels, addresses).map(lambda pair: f"[{pair[0]}]({pair[1]})"),
        st.tuples(children, link_labels).map(lambda pair: f"[{pair[0]}][{pair[1]}]"),
        link_labels.map(lambda label: f"[{label}][]"),
        addresses.map(lambda address: f"<{address}>"),
        children.map(lambda inner: f'<span title="{inner}">x</span>'),
        children.map(lambda inner: f"\\{inner}"),
    )


inline = st.recursive(st.one_of(markers, words, syntax, japanese, notations), inline_constructs, max_leaves=10)


def definition(label: str, address: str) -> str:
    if MARKER.fullmatch(f"[{label}]"):
        return f"[{label}]: https://{EVIL}/{label}"  # were it read as one, every [label] would link there
    return f"[{label}]: {address}"


blocks = st.one_of(
    inline,
    inline.map(lambda text: f"## {text}"),
    inline.map(lambda text: f"> {text}"),
    st.tuples(inline, inline).map(lambda items: f"- {items[0]}\n- {items[1]}"),
    st.tuples(inline, inline, inline, inline).map(lambda c: f"| {c[0]} | {c[1]} |\n|---|---|\n| {c[2]} | {c[3]} |"),
    inline.map(lambda text: f"```\n{text}\n```"),
    inline.map(lambda text: f"    {text}"),
    st.tuples(link_labels, addresses).map(lambda pair: definition(*pair)),
)
answers = st.tuples(
    st.sampled_from(["", "<think>[1] を確かめる</think>"]),
    st.lists(blocks, min_size=1, max_size=6).map("\n\n".join),
).map("".join)


# --- Reading the page -------------------------------------------------------------------------------


class Links(HTMLParser):
    """Every link's address, and every element id in the order the page gives them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.ids: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and values.get("href") is not None:
            self.hrefs.append(values["href"] or "")
        if values.get("id"):
            self.ids.append(values["id"] or "")


def check_every_candidate(text: str, response: dict[str, Any]) -> None:
    """Each ``[N]`` after the reasoning section is a citation, an unresolved marker or a diagnostic:
    exactly one of them, so the three add up to what the scan finds."""
    candidates = [m.start() for m in MARKER.finditer(text, thinking_end(text))]
    # (the tokens of other notations are cited or flagged too, by the marker rule: not counted here)
    cited = [c["start"] for c in response["citations"] if c["marker"] and MARKER.fullmatch(c["marker"])]
    unresolved = [m["start"] for m in response["unresolved"] if MARKER.fullmatch(m["marker"])]
    reported = [d["details"] for d in response["diagnostics"] if d["code"] == "not_a_marker"]
    assert sorted(cited + unresolved + [d["start"] for d in reported]) == candidates
    assert all(d["part"] != "too_deep" for d in reported), reported  # nothing here nests that deep


def check_unknown_notations(text: str, response: dict[str, Any]) -> None:
    """Tokens of other notations are reported at most once per answer, each named one written in the
    answer and none of them a marker; whatever they are, the markers add up as before."""
    reported = [d["details"] for d in response["diagnostics"] if d["code"] == "unknown_notation"]
    assert len(reported) <= 1
    for details in reported:
        assert details["count"] >= details["kinds"] == len(set(details["tokens"])) >= 1
        for token in details["tokens"]:
            assert token in text[thinking_end(text) :] and not MARKER.fullmatch(token), token


def check_footnotes_and_links(text: str, response: dict[str, Any]) -> None:
    """Every citation and unresolved marker is drawn, in the order of the text; a footnote links
    only to a source in the list; any other link is one the answer writes, never a marker's."""
    html = render_response(response, "cv-r0")["answer"]
    page = Links(html)
    drawn = sorted(
        [(c["start"], f"cv-r0-cite-{i}") for i, c in enumerate(response["citations"])]
        + [(m["start"], f"cv-r0-unresolved-{i}") for i, m in enumerate(response["unresolved"])]
    )
    footnotes = [
        i for i in page.ids if i.startswith(("cv-r0-cite-", "cv-r0-unresolved-")) and not i.endswith(("card", "tip"))
    ]
    assert footnotes == [anchor for _, anchor in drawn]
    listed = {f"#cv-r0-src-{n}" for n in range(1, len(response["sources"]) + 1)}
    for href in page.hrefs:
        if href.startswith("#"):
            assert href in listed, href
        else:
            assert EVIL not in href, href
            assert unquote(href) in text, href


@pytest.mark.parametrize("api", PROVIDERS)
@PROPERTIES
@given(text=answers)
def test_every_marker_is_a_citation_or_says_why_not_and_nothing_links_elsewhere(api, text):
    response = parse_dump(PROVIDERS[api](text)).to_json()["responses"][0]
    assert response["api"] == api
    check_every_candidate(text, response)
    check_unknown_notations(text, response)
    check_footnotes_and_links(text, response)
