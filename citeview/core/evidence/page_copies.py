"""A passage of citeview's own snapshot held against the page as the model read it (Claude's web
fetch holds the text it fetched): the same passage found in the model's copy, word by word, and what
either copy has that the other has not, marked. A page edited since the model read it, or a model
that read another version of it, shows here; it points, it never judges.

Words are compared folded (full-width and half-width alike, case folded), Japanese character by
character; punctuation, Markdown marks and link addresses are read past, since the model's copy is
Markdown and a snapshot is the text of the page's HTML: neither is a difference in what the page says.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

from citeview.core.evidence.compare import escaped_with_marks
from citeview.core.evidence.passages import CJK_CHARS, SnapshotSentences, passages_of_claims, snapshot_sentences

# The model's copy is searched in its first this many characters: a fetched page is at most a few
# hundred thousand, and the check page reads it on each view.
MODEL_COPY_SEARCH_CHARS = 200_000
# Of the snapshot passage's words, the share the model's copy must hold in their order for the
# passage to be there (edited); below it, the model's copy has no such passage.
LEAST_SHARED = 0.5
# Addresses (a Markdown link's target, a bare URL) are read past; a Japanese character is a word.
_WORD = re.compile(rf"https?://[^\s)\]>]+|[{CJK_CHARS}]|[^\W{CJK_CHARS}]+")
_ADDRESS = re.compile(r"https?://")
# The stretch found runs from its first word to its last, with the marks that close or open them.
_CLOSERS = frozenset(".,;:!?…。、，．！？：；」』）)】〕\"'”’*_`")
_OPENERS = frozenset("「『（(【〔\"'“‘*_`")


@dataclass(frozen=True)
class Word:
    start: int
    end: int
    key: str  # as compared: NFKC, case folded


@dataclass(frozen=True)
class CopiesCompared:
    """The snapshot's passage and the same passage in the model's copy (None: the copy has none)."""

    snapshot_passage: str
    model_passage: str | None
    # The words each side has that the other has not, as (start, end) in its own passage.
    only_in_snapshot: tuple[tuple[int, int], ...]
    only_in_model_copy: tuple[tuple[int, int], ...]

    @property
    def found(self) -> bool:
        return self.model_passage is not None

    @property
    def same(self) -> bool:
        """Word for word the same (punctuation, Markdown and addresses aside)."""
        return self.found and not self.only_in_snapshot and not self.only_in_model_copy

    def snapshot_html(self) -> str:
        return marked_html(self.snapshot_passage, self.only_in_snapshot)

    def model_html(self) -> str:
        return marked_html(self.model_passage or "", self.only_in_model_copy)


def words(text: str) -> list[Word]:
    """The words of ``text`` as compared, addresses left out."""
    return [
        Word(match.start(), match.end(), unicodedata.normalize("NFKC", match.group()).casefold())
        for match in _WORD.finditer(text)
        if not _ADDRESS.match(match.group())
    ]


def model_copy_sentences(model_copy: str) -> SnapshotSentences:
    """The model's copy cut into sentences once, for the claim's passage and the snapshot's alike."""
    return snapshot_sentences(model_copy[:MODEL_COPY_SEARCH_CHARS])


def copies_compared(snapshot_passage: str, model_copy: str | SnapshotSentences) -> CopiesCompared:
    """``snapshot_passage`` found again in ``model_copy``: the stretch of the copy that holds most of
    its words in their order (from the first of them to the last), and the words either has alone."""
    snapshot_words = words(snapshot_passage)
    not_found = CopiesCompared(snapshot_passage, None, (), ())
    if not snapshot_words:
        return not_found
    sentences = model_copy_sentences(model_copy) if isinstance(model_copy, str) else model_copy
    nearest = next(passages_of_claims([snapshot_passage], sentences, best=1))
    if not nearest:
        return not_found
    near, searched = nearest[0], sentences.text
    # The passage finder's window is whole sentences; the stretch that matches may start before it
    # or run past it, so the words around it are aligned too.
    margin = len(snapshot_passage)
    region_start = max(0, near.start - margin)
    region = searched[region_start : near.end + margin]
    model_words = words(region)
    matcher = SequenceMatcher(None, [w.key for w in snapshot_words], [w.key for w in model_words], autojunk=False)
    blocks = [block for block in matcher.get_matching_blocks() if block.size]
    shared = sum(block.size for block in blocks)
    if shared < LEAST_SHARED * len(snapshot_words):
        return not_found
    first, last = blocks[0].b, blocks[-1].b + blocks[-1].size - 1
    start, end = _with_marks(region, model_words[first].start, model_words[last].end)
    matched_snapshot = {block.a + i for block in blocks for i in range(block.size)}
    matched_model = {block.b + i - first for block in blocks for i in range(block.size)}
    return CopiesCompared(
        snapshot_passage,
        region[start:end],
        _unmatched_runs(snapshot_words, matched_snapshot, 0),
        _unmatched_runs(model_words[first : last + 1], matched_model, start),
    )


def _with_marks(text: str, start: int, end: int) -> tuple[int, int]:
    """``start``..``end`` widened over the punctuation right before and after it."""
    while start > 0 and text[start - 1] in _OPENERS:
        start -= 1
    while end < len(text) and text[end] in _CLOSERS:
        end += 1
    return start, end


def _unmatched_runs(passage_words: list[Word], matched: set[int], offset: int) -> tuple[tuple[int, int], ...]:
    """The words not in ``matched`` (their indexes) as spans of their passage (shifted by ``offset``),
    each run of them that no matched word interrupts one span."""
    spans: list[tuple[int, int]] = []
    previous = -2
    for index, word in enumerate(passage_words):
        if index in matched:
            continue
        if index == previous + 1:
            spans[-1] = (spans[-1][0], word.end - offset)
        else:
            spans.append((word.start - offset, word.end - offset))
        previous = index
    return tuple(spans)


def marked_html(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    """``text`` escaped for HTML, each of ``spans`` in a ``<mark>``: what the other copy has not."""
    return escaped_with_marks(text, ((start, end, "cv-copy-differs") for start, end in spans))
