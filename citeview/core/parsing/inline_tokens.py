"""Citation notations a model writes into its answer other than ``[N]`` markers (those are
:mod:`citeview.core.parsing.markers`' business):

- OpenAI's private-use tokens: U+E200, a family name (``cite``), then U+E202-separated source ids
  (``turn0search0``) and an optional line locator (``L8-L13``), closed by U+E201
  (``../shared/docs/provider-formats.md`` §4A, pitfall 1);
- the Assistants' and Azure AI Search's ``【10:13†source】`` markers (pitfall 4);
- xAI's ``[[1]](https://…)`` links (§8A).

Each is found by one scan of the text; what it cites is the provider module's business. The text is
never changed: every offset must stay true, so a token is shown legibly by the renderer, from the
:class:`~citeview.core.common.model.Marker` or citation that spans it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeview.core.common.model import Marker, Response
from citeview.core.common.phrases import Phrase, phrase

START, STOP, DELIMITER = "\ue200", "\ue201", "\ue202"
# A family name, then one or more U+E202-separated parts; none of them holds another of the three
# characters, so a scan from each U+E200 stops at the next one and the whole search stays linear.
_PRIVATE_USE_TOKEN = re.compile("\ue200([^\ue200-\ue202]*)((?:\ue202[^\ue200-\ue202]*)+)\ue201")
_PRIVATE_USE_CHARACTER = re.compile("[\ue200-\ue202]")
# As OpenAI's citation-formatting guide parses them.
_SOURCE_ID = re.compile(r"[A-Za-z0-9_-]+")
_LINE_LOCATOR = re.compile(r"L(\d+)(?:-L(\d+))?")
CITATION_FAMILIES = ("cite", "filecite")
# 【10:13†source】, 【4†source】, 【3:0†report.pdf】: a reference before the dagger, a name after it.
_LENTICULAR_MARKER = re.compile("【([^【】†\n]{1,40})†([^【】\n]{1,200})】")
# [[1]](https://…): the address may hold one level of parentheses (…/XAI_(company)).
_NUMBERED_LINK = re.compile(r"\[\[([0-9]{1,6})\]\]\(((?:[^()\s]|\([^()\s]*\))+)\)")
# An address as a model writes it: a Markdown link's target (a pair of parentheses allowed inside,
# as Wikipedia's addresses have), or a bare http(s) address, which ends at the first character no
# address holds unescaped (a Japanese sentence often goes on right after it) or at trailing punctuation.
_MARKDOWN_LINK = re.compile(
    r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]\(<?(https?://[^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)>?\)"
)
_BARE_ADDRESS = re.compile(r"https?://[A-Za-z0-9\-._~:/?#@!$&'*+,;=%]+")
_ADDRESS_END_PUNCTUATION = ".,:;!?'"


@dataclass(frozen=True)
class InlineToken:
    """A citation notation in the text, at ``start``..``end`` (code points)."""

    start: int
    end: int
    text: str  # as written
    ref: str  # what it names: "turn0search0,turn1news2 L8-L13", "10:13", or a link's number
    kind: str  # "private_use" | "lenticular"
    family: str = ""  # a private-use token's family ("cite"); a lenticular marker's name ("source")
    ids: tuple[str, ...] = ()
    locator: str | None = None  # "L8-L13"


@dataclass(frozen=True)
class WrittenLink:
    """An address the answer writes, as a Markdown link (``start``..``end`` spans the whole link)
    or bare."""

    start: int
    end: int
    url: str


@dataclass(frozen=True)
class NumberedLink:
    """An xAI ``[[N]](url)`` link."""

    start: int
    end: int
    text: str
    number: str
    url: str


def private_use_tokens(text: str) -> list[InlineToken]:
    tokens = []
    for match in _PRIVATE_USE_TOKEN.finditer(text):
        parts = match.group(2).split(DELIMITER)[1:]
        locator = parts[-1] if len(parts) > 1 and _LINE_LOCATOR.fullmatch(parts[-1]) else None
        ids = tuple(parts[:-1] if locator else parts)
        ref = ",".join(ids) + (f" {locator}" if locator else "")
        tokens.append(
            InlineToken(match.start(), match.end(), match.group(0), ref, "private_use", match.group(1), ids, locator)
        )
    return tokens


def lenticular_markers(text: str) -> list[InlineToken]:
    if "【" not in text:
        return []
    return [
        InlineToken(m.start(), m.end(), m.group(0), m.group(1), "lenticular", m.group(2))
        for m in _LENTICULAR_MARKER.finditer(text)
    ]


def inline_tokens(text: str) -> list[InlineToken]:
    """Every private-use token and 【】 marker in ``text``, in text order."""
    tokens = private_use_tokens(text) if START in text else []
    return sorted(tokens + lenticular_markers(text), key=lambda t: t.start)


def is_inline_token(text: str) -> bool:
    """Whether ``text`` is one private-use token or 【】 marker, and nothing else."""
    return bool(_PRIVATE_USE_TOKEN.fullmatch(text) or _LENTICULAR_MARKER.fullmatch(text))


def written_links(text: str) -> list[WrittenLink]:
    """The addresses the text writes, in order: Markdown links, and bare addresses outside them."""
    if "http" not in text:
        return []
    links = [WrittenLink(m.start(), m.end(), m.group(1)) for m in _MARKDOWN_LINK.finditer(text)]
    inside = [(link.start, link.end) for link in links]
    at = 0
    for match in _BARE_ADDRESS.finditer(text):
        while at < len(inside) and inside[at][1] <= match.start():
            at += 1
        if at < len(inside) and inside[at][0] <= match.start():
            continue  # the target of a Markdown link, taken with its link
        url = match.group().rstrip(_ADDRESS_END_PUNCTUATION)
        links.append(WrittenLink(match.start(), match.start() + len(url), url))
    return sorted(links, key=lambda link: link.start)


def numbered_links(text: str) -> list[NumberedLink]:
    if "[[" not in text:
        return []
    return [NumberedLink(m.start(), m.end(), m.group(0), m.group(1), m.group(2)) for m in _NUMBERED_LINK.finditer(text)]


def cite_inline_tokens(response: Response, tokens: list[InlineToken]) -> None:
    """Each token of ``response.text`` (``tokens``, offsets of the whole text) that a citation spans
    exactly is that citation's marker; every other is an unresolved marker, with a diagnostic that
    says in words what it names. Private-use characters that form no token are reported too."""
    cited = {(c.start, c.end): c for c in response.citations}
    for token in tokens:
        citation = cited.get((token.start, token.end))
        if citation is not None:
            citation.marker = token.text
            continue
        response.unresolved.append(Marker(token.text, token.ref, token.start, token.end))
        response.diagnose(
            "unresolved_marker",
            "warning",
            _why_unresolved(token),
            marker=token.text,
            ref=token.ref,
            start=token.start,
            end=token.end,
            kind=token.kind,
        )
    _note_stray_private_use(response, tokens)


def _why_unresolved(token: InlineToken) -> Phrase:
    if token.kind == "lenticular":
        return phrase(
            "{marker} is a file-search citation marker, but no annotation in the dump covers it, so it names "
            "no file; it is kept as written.",
            marker=token.text,
        )
    if token.family not in CITATION_FAMILIES or not token.ids or not all(_SOURCE_ID.fullmatch(i) for i in token.ids):
        return phrase(
            "The answer holds a token in private-use characters ({family}: {ref}) that citeview cannot read; "
            "it is kept as written.",
            family=token.family,
            ref=token.ref,
        )
    ids = ", ".join(token.ids)
    place = _lines(token.locator)
    if len(token.ids) == 1 and place is None:
        return phrase("Citation token {ids} names a source that nothing in the dump maps to a URL.", ids=ids)
    if len(token.ids) == 1:
        return phrase(
            "Citation token {ids} ({place}) names a source that nothing in the dump maps to a URL.",
            ids=ids,
            place=place,
        )
    if place is None:
        return phrase("Citation token {ids} names sources that nothing in the dump maps to a URL.", ids=ids)
    return phrase(
        "Citation token {ids} ({place}) names sources that nothing in the dump maps to a URL.", ids=ids, place=place
    )


def _lines(locator: str | None) -> Phrase | None:
    match = _LINE_LOCATOR.fullmatch(locator or "")
    if match is None:
        return None
    first, last = match.group(1), match.group(2)
    if last is None or last == first:
        return phrase("line {line}", line=first)
    return phrase("lines {first}–{last}", first=first, last=last)


def _note_stray_private_use(response: Response, tokens: list[InlineToken]) -> None:
    """One diagnostic for the U+E200–U+E202 characters outside every token (a token cut by a
    stream, a delimiter alone): no reader can see them as text."""
    if START not in response.text and STOP not in response.text and DELIMITER not in response.text:
        return
    spans = [(t.start, t.end) for t in tokens if t.kind == "private_use"]
    stray = []
    index = 0
    for match in _PRIVATE_USE_CHARACTER.finditer(response.text):
        while index < len(spans) and spans[index][1] <= match.start():
            index += 1
        if index < len(spans) and spans[index][0] <= match.start():
            continue
        stray.append(match.start())
    if stray:
        response.diagnose(
            "private_use_characters",
            "warning",
            phrase(
                "The answer holds {count} private-use character(s) (U+E200–U+E202) that form no citation token; "
                "they are left in place so every offset stays true.",
                count=len(stray),
            ),
            positions=stray[:20],
        )
