"""The side-by-side evidence view: each cited span of the answer beside the passages it quotes."""

from __future__ import annotations

import re
from html import escape
from typing import Any
from urllib.parse import quote

from citeview.core.links import is_safe_http_url, url_domain
from citeview.core.numbers import mark_numbers_in_html, number_values
from citeview.core.phrases import Translate, untranslated
from citeview.core.rendering.markdown import MAX_MARKDOWN_CHARS, render_markdown
from citeview.core.rendering.sanitize import sanitize_html
from citeview.core.rendering.shortening import shortened
from citeview.core.review.statements import MAX_STATEMENT_CHARS

# A file's retrieved text is shown with each citation of the file: at most this much of it there.
SHARED_PASSAGE_CHARS = 2_000
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
_LINK_TARGET = re.compile(r"(?<=\])\([^)]*\)|<https?://[^>]*>")


def evidence_rows(
    response: dict[str, Any],
    source_labels: dict[str, str],
    gettext: Translate = untranslated,
    until: int | None = None,
) -> list[dict[str, Any]]:
    """One row per cited span that carries quoted evidence, in the order of the answer, for the
    citations drawn in it (ending at or before ``until``; by default, its rendered part). A span citing
    several sources (a Gemini support) shows each source's passage."""
    until = min(len(response["text"]), MAX_MARKDOWN_CHARS) if until is None else until
    sources = {s["key"]: s for s in response["sources"]}
    spans: dict[tuple[int, int], list[tuple[dict[str, Any], str, str]]] = {}
    for citation in response["citations"]:
        if citation["end"] > until:
            continue
        evidence = [(key, quote) for key in citation["source_keys"] if (quote := _evidence_of(citation, key, sources))]
        if not evidence:
            continue
        span = (citation["start"], citation["end"])
        if span[0] == span[1]:  # an insertion point (a file citation): the sentence it closes is the claim
            span = (_sentence_start(response["text"], span[0]), min(span[0] + 1, len(response["text"])))
        spans.setdefault(span, []).extend((citation, key, quote) for key, quote in evidence)
    rows = []
    for (start, end), passages in spans.items():
        claim = response["text"][start:end]
        claim_numbers = number_values(_LINK_TARGET.sub("", claim))  # what a reader sees, not link addresses
        quoted_numbers = set().union(*(number_values(quote) for _, _, quote in passages))
        # A quote stands for the claim, so a number only it has differs; a whole document or a tool's
        # output holds much the claim never says, so there only the claim's own numbers are compared.
        unclaimed = [number_values(quote) - claim_numbers if _is_quote(c) else set() for c, _, quote in passages]
        rows.append(
            {
                # Sanitised as rendered; the marks wrap digits of its text and add nothing else.
                "claim_html": mark_numbers_in_html(render_markdown(claim, [], []), claim_numbers - quoted_numbers),
                # marks on either side are flagged on the row
                "numbers_differ": bool(claim_numbers - quoted_numbers) or any(unclaimed),
                "passages": [
                    _passage(citation, key, quote, sources, source_labels, marked, gettext)
                    for (citation, key, quote), marked in zip(passages, unclaimed, strict=True)
                ],
            }
        )
    return rows


def _passage(
    citation: dict[str, Any],
    key: str,
    quote: str,
    sources: dict[str, Any],
    labels: dict[str, str],
    missing: set[str],
    gettext: Translate,
) -> dict[str, Any]:
    source = sources.get(key, {"title": None, "url": None})
    context = citation.get("context") or {}
    return {
        "label": labels.get(key, "?"),
        "title": source["title"] or source["url"] or key,
        "where": location_words(citation["location"], source, gettext),
        "quote_html": sanitize_html(mark_numbers_in_html(escape(quote), missing)),
        "link": text_fragment_url(source["url"], quote) if is_safe_http_url(source["url"]) else None,
        "check": citation.get("quote_check"),
        "context": context or None,
    }


# The texts a dump holds that are the source's own words, as retrieved or sent: evidence to compare
# with the claim. A search engine's excerpt is not the page, so it is left to the source list.
_EVIDENCE_SNIPPET_KINDS = {"retrieved_passage", "document_text", "tool_output"}


def _is_quote(citation: dict[str, Any]) -> bool:
    """Whether the citation's evidence is a quote the provider gave, rather than a text the dump holds."""
    return citation["cited_text"] is not None


def _evidence_of(citation: dict[str, Any], key: str, sources: dict[str, Any]) -> str | None:
    """The passage a citation of the source ``key`` rests on: the quote the provider returned (Claude,
    Bedrock; a citation with a quote names one source), or the text the dump holds of the source: what
    a file search or retrieval returned, the document the caller sent, a tool's output. That text is
    shown with each of its citations, so it is held to a length there (the source list has all of it)."""
    if citation["cited_text"] is not None:
        return str(citation["cited_text"]) if key == citation["source_keys"][0] else None
    source = sources.get(key)
    if not source or not isinstance(source["extra"].get("snippet"), str):
        return None
    if source["kind"] == "file" or source["extra"].get("snippet_kind") in _EVIDENCE_SNIPPET_KINDS:
        return shortened(str(source["extra"]["snippet"]), SHARED_PASSAGE_CHARS)
    return None


def _sentence_start(text: str, end: int) -> int:
    """Where the sentence that ends at ``end`` begins: after the previous sentence's end or line break,
    looking back at most MAX_STATEMENT_CHARS (a long run without stops is no one sentence to quote)."""
    earliest = max(end - MAX_STATEMENT_CHARS, 0)
    position = max(text.rfind(mark, earliest, max(end - 1, 0)) for mark in (". ", "。", "! ", "? ", "\n"))
    return earliest if position < 0 else position + (1 if text[position] in "。\n" else 2)


def location_words(location: dict[str, Any] | None, source: dict[str, Any], gettext: Translate = untranslated) -> str:
    """Where a quote sits, as a reader says it: chars 120–245, p. 3–4, blocks 2–3, or the page's domain."""
    if location is None:
        return url_domain(source.get("url")) or ""
    start, end = location["start"], location["end"]
    if location["type"] == "char":
        return gettext("chars {start}–{end}").format(start=start, end=end)
    last = end - 1  # pages and blocks: end is exclusive
    if location["type"] == "page":
        words = gettext("p. {start}") if last <= start else gettext("p. {start}–{end}")
    else:
        words = gettext("block {start}") if last <= start else gettext("blocks {start}–{end}")
    return words.format(start=start, end=last)


def text_fragment_url(url: str, cited_text: str) -> str:
    """``url`` opening at the quoted passage (``#:~:text=``), from the longest unelided stretch of it."""
    stretch = max(_ELLIPSIS.split(cited_text.strip()), key=len).strip()
    words = stretch.split()
    if len(words) > 10:
        directive = f"{_fragment_part(' '.join(words[:5]))},{_fragment_part(' '.join(words[-5:]))}"
    else:
        directive = _fragment_part(stretch)
    separator = ":~:" if "#" in url else "#:~:"
    return f"{url}{separator}text={directive}"


def _fragment_part(text: str) -> str:
    return quote(text, safe="").replace("-", "%2D")
