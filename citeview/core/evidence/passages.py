"""The passage of a snapshot that best matches a claim: what an editor reads beside the claim.

The snapshot's text is cut into sentences at ``。！？.!?`` and line breaks; a table row or a list item
of one line is one sentence, however many stops it holds, and a passage on its own. A window is a
sentence, or a sentence with the next one of the same paragraph (a claim may say what two sentences
of the page say). Japanese has no spaces, so its runs of kanji and kana are compared by their
character bigrams, other text by its words; full-width and half-width characters read alike.

1. Prefilter: each of the claim's terms weighs by how rare it is on the page (a word in every
   sentence, "the" or "の", tells little; kana alone are mostly endings and weigh less), and each
   window gets the weighted share of the claim's terms it holds. The text is cut into sentences, and
   the sentences each term is in are found, in one pass for every claim citing the page
   (``passages_of_claims``): the page costs once, and each claim the sentences holding its terms.
2. The best windows are scored 0–100: three parts that share, one part how closely the claim's
   characters align with the best stretch of the window (rapidfuzz's ``partial_ratio``), which
   rewards the same order and forgives a changed ending (at most 100).
3. Holding the claim's figures and dates adds up to :data:`FIGURE_WEIGHT` points: the share of them
   the window holds, by value (``30,000`` = ``3万``, ``令和8年`` = 2026). A paraphrase that holds them
   ("adopted 142-12, with 10 abstentions") comes before an opening paragraph that shares more words.

   A figure said to be about (``約2,500万人``) is held by the precise one it rounds (``2,507万人``); a
   figure a window holds only as a day or a month of a date (the 1 of ``4月1日``) holds only a day.
4. Ranked: a window that states another value of a kind the claim states (``20%`` against the
   claim's ``8%``, ``2019年`` against its ``2023年``; the kind is what stands beside the figure: %, °, a
   year, a currency, a counter) and not the claim's ranks below the best window that holds the
   claim's figures, however many of the claim's words it shares (its score stays its own); a window
   holding none of the claim's figures, below the best that holds them all. A pair one of whose
   sentences holds the claim's figures and at least :data:`ALONE_SHARE` of what the pair holds of its
   words is shown as that sentence.

Figures are masked in the first two steps (``2024`` and ``2023`` read alike): a passage that says the
same about another figure or year is still found when no window states the claim's, and what differs
is marked by ``compare``. Below :data:`PASSAGE_THRESHOLD` no passage is found: a finding too. Up to
:data:`BEST` passages are returned, best first, none overlapping another and no text twice (a page
repeats its lines): the candidates the check panel shows.
"""

from __future__ import annotations

import heapq
import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from itertools import accumulate
from operator import add
from typing import Any

from rapidfuzz import fuzz

from citeview.core.common.links import text_fragment_url
from citeview.core.common.numbers import NUMBER, folded, number_value
from citeview.core.evidence.pdf_pages import Page, page_at
from citeview.core.evidence.word_forms import form_set, word_forms
from citeview.core.parsing.markers import MARKER

# The least score of a passage found, chosen from the pages written for tests/core/evidence/test_passages.py
# (the scores they gave are listed there). Pages holding the claim in nearly its words, or with
# another figure or year, scored 59–82; reworded claims 38–65 (38: "did not grow", which must be found
# for its negation to be flagged); pages without the claim, on the same subject or not, 25 at most.
# 35 keeps a margin of 10 above those and lets every reworded claim through.
PASSAGE_THRESHOLD = 35
# What holding the claim's figures and dates adds to a window's score, in points, all of them held: a
# paraphrase that holds them ("adopted 142-12, with 10 abstentions") comes before an opening paragraph
# that shares more of the claim's words and none of its figures. Chosen on the dev half of
# bench/labelled/passage_pages.jsonl (``python -m bench.passages``).
FIGURE_WEIGHT = 30
# The part of a window's share of the claim's words that is counted by their forms (``word_forms``:
# 受付 = 受け付け, "rose" = "rises") rather than by their letters, among the windows the prefilter
# chose. Chosen on the dev half of bench/labelled/passage_pages.jsonl.
FORMS_WEIGHT = 0.25
# A sentence of a pair that holds every figure of the claim the pair holds, and at least this share of
# the claim's words the pair holds, is shown alone (``_claim_passages``): the claim is in it, and the
# other sentence adds words, not the claim. Below it, the claim says what the two say ("The museum
# opened in 1998 and welcomed two million visitors": the first sentence holds a third of it). The
# labelled pages do not tell one value from another here (a sentence inside a labelled pair counts):
# one half is read from the pages of tests/core/evidence/test_passages_figures.py.
ALONE_SHARE = 0.5
# How many windows the prefilter hands to rapidfuzz, and how many passages are returned by default.
CANDIDATES = 40
BEST = 3
# A sentence longer than this (a page with no stops) is cut into pieces of about this length, at a
# space or a comma where there is one; a piece and the next make a window, so none is lost at a cut.
MAX_SENTENCE_CHARS = 300
# A claim is compared in its first this many characters (a statement is at most 1,000).
MAX_CLAIM_CHARS = 1_000
# The sentences one claim's terms are walked through, rarest term first; a term more common than what
# is left of this is looked up only near the sentences found (``_held``). A page of fewer sentences is
# always read whole; a 10 MB page of common words costs each claim this, not the page.
MAX_SENTENCES_WALKED = 20_000

# A sentence ends after a Japanese stop, after an ASCII one followed by a space or the end (never
# inside 2.5 or a URL, nor before a small letter or a digit: "Oct. 7", "e.g. the"), and at a line
# break; closing quotes and brackets stay with it.
_CLOSERS = "」』）)\"'”’】\\]"
# (Possessive, and an ASCII run only from its first stop: a run of a million dots costs one pass.)
_SENTENCE_END = re.compile(
    f"((?:[。！？]++[{_CLOSERS}]*+|(?<![.!?])[.!?]++[{_CLOSERS}]*+(?=\\s|\\Z)(?![ \\t]++[a-z0-9]))\\s*|\\n\\s*)"
)
_CUT = re.compile(r"[\s、，,;；]")
# A table row (``| a | b |``, as the extraction writes HTML's rows) or a list item (a line starting with
# a bullet, a dash or a number: ``- ``, ``・``, ``1. ``, ``(2)``, ``③``), at most MAX_SENTENCE_CHARS long,
# is one sentence: its cells and clauses say one thing together. A longer one is cut as prose is.
_ITEM_LINE = re.compile(
    r"^[ \t]*(?:\|[^\n]*\||(?:[-*+][ \t]|[•・●○◦▪■□◆◇※▶►]|\(?\d{1,3}[.)）][ \t]|[（(]\d{1,3}[)）]|[①-⑳])[^\n]*)",
    re.M,
)
_ITEM_STARTS = frozenset("|-*+•・●○◦▪■□◆◇※▶►(（①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳")
_HIDDEN_STOPS = str.maketrans("。！？.!?", "\x1e" * 6)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
CJK_CHARS = "\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TERM = re.compile(f"[{CJK_CHARS}]+|[^\\W{CJK_CHARS}]+|#")
_CJK = re.compile(f"[{CJK_CHARS}]")
_KANA_ONLY = re.compile("[\u3040-\u30ff]+")
_KANA_WEIGHT = 0.3
_SEPARATOR = "\x1f"  # between sentences in the normalised text; never in a key (it is no word)
_NOT_WORD = re.compile(f"[^\\w#{_SEPARATOR}]+")
# A figure with its scale (``3万`` = ``30,000``, ``1.2 million``), and an era's year (``令和8年`` = 2026):
# the figures and dates a window shares with the claim, read cheaply (a few per window, not
# ``compare.findings``, which reads every qualifier and negation too and costs a hundred times more).
_SCALED_FIGURE = re.compile(
    f"(?:{NUMBER.pattern})" r"(?:[ \t]*(?:百万|千万|万|億|兆|千)|[ \t]+(?:thousand|million|billion|trillion)\b)?", re.I
)
_SCALE_OF = {"万": 10**4, "億": 10**8, "兆": 10**12, "千": 10**3, "百万": 10**6, "千万": 10**7,
             "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}  # fmt: skip
_SCALE_WORD = re.compile(r"(百万|千万|万|億|兆|千|thousand|million|billion|trillion)$", re.I)
_ERA_YEAR = re.compile(r"(令和|平成|昭和|大正|明治)[ \t]*(元|\d{1,2})[ \t]*年")
_ERA_BEFORE = re.compile(r"(令和|平成|昭和|大正|明治)[ \t]?$")
_ERA_BASE = {"令和": 2018, "平成": 1988, "昭和": 1925, "大正": 1911, "明治": 1867}
# What kind of quantity a figure is, read from what stands right beside it: a currency sign before it,
# a unit or a counter after it (``8%``, ``66 °F``, ``2,507万人``, ``2023年``); a bare year of four digits
# is a year. Two figures of one kind state one sort of thing: ``20%`` is another value than ``8%``,
# where ``20`` beside ``8%`` may be anything. Read cheaply, as the values are; ``compare`` reads units
# in full.
_KIND_BEFORE = re.compile(r"(US\$|\$|€|£|¥)[ \t]?$")
# ``(?<![ \t])``: read only from a figure's end (``match`` at it); a search through a run of spaces
# would otherwise start the run again at each of them (tests/test_regex_linear.py).
_KIND_AFTER = re.compile(
    r"(?<![ \t])[ \t]*(?:(?P<percent>%|percent\b|per[ \t]cent\b|パーセント)|(?P<degree>°[ \t]?[FC](?![A-Za-z])|°(?![A-Za-z])|[FC](?![A-Za-z])|度)|(?P<year>年(?!間|代|度|前|後|ぶり))"
    r"|(?P<yen>円)|(?P<dollar>ドル|dollars?\b)|(?P<counter>[人件台歳倍校店社回票か国]))",
    re.I,
)
_BARE_YEAR = re.compile(r"(?:1[89]|20)\d\d")
_CURRENCY_KIND = {"us$": "$", "$": "$", "€": "€", "£": "£", "¥": "円"}
# A figure said to be about (``約2,500万人``, ``about 25 million``) is met by the precise one it rounds
# (``2,507万人``), as ``compare`` holds them; any other is met only by its own value.
_ABOUT = re.compile(r"(?:約|およそ|おおよそ|ほぼ|about|around|approximately|roughly|some|nearly|almost)[ \t]*$", re.I)
# A month's short name, as a case-folded key has it: an English date is written both ways ("Oct. 7",
# "October 7"). ``may`` is its own name; ``mar`` and ``dec`` only beside a figure (``#``), where they
# are months (not "mar the view", "dec" of a decimal type).
_MONTH_NAMES = {"jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
                "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
                "nov": "november", "dec": "december"}  # fmt: skip
_MONTH_SHORT = re.compile(
    r"\b(jan|feb|apr|jun|jul|aug|sept|sep|oct|nov|(?:mar|dec)(?=\.?[ \t]*#)|(?<=# )(?:mar|dec))\b"
)
# Citation markers, links and emphasis are the answer's, not the claim's: [1], [web:3], 【4:0†source】.
_CLAIM_NOISE = re.compile(r"【[^】\n]{0,40}】|\(?https?://\S+\)?|[*_`]+")


@dataclass(frozen=True)
class Passage:
    start: int  # code points into the snapshot's text, end exclusive
    end: int
    text: str  # text[start:end]
    score: int  # 0–100: how much of the claim the passage says: its words, and its figures and dates
    page: int | None = None  # the PDF page it starts on (numbered from 1)

    def fragment_url(self, url: str) -> str:
        """``url`` opening at this passage in a browser (``#:~:text=start,end``)."""
        return passage_fragment_url(url, self.text)

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "text": self.text, "score": self.score, "page": self.page}


@dataclass(frozen=True)
class _Window:
    first: int  # index of its first sentence
    last: int  # index of its last sentence (first, or the next sentence)
    share: float  # weighted share of the claim's terms it holds


@dataclass(frozen=True)
class SnapshotSentences:
    """A snapshot's text cut into sentences once, each with its key (folded, figures masked), for
    finding the passages of every claim that cites it without cutting the text again per claim."""

    text: str
    pages: tuple[Page, ...]
    spans: list[tuple[int, int]]
    keys: list[str]
    # Read as claims ask, and kept for the next claim (the claims citing a page look at many of the
    # same sentences): each sentence's figures and dates, and whether it is a table row or list item.
    _figures: dict[int, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)
    _items: dict[int, bool] = field(default_factory=dict, compare=False, repr=False)
    _kinds: dict[int, frozenset[tuple[str, str]]] = field(default_factory=dict, compare=False, repr=False)
    _forms: dict[int, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)

    def forms(self, sentence: int) -> frozenset[str]:
        """The forms of the sentence's words (``word_forms``), read from its key when first asked."""
        if sentence not in self._forms:
            self._forms[sentence] = form_set(self.keys[sentence])
        return self._forms[sentence]

    def figures(self, sentence: int) -> frozenset[str]:
        """The sentence's figures and dates (``_figure_values``), less those it holds only as a day or a
        month of a date (``_dated_only``): marked ``day:``, so that they meet only a claim's day."""
        if sentence not in self._figures:
            text = self.text[slice(*self.spans[sentence])]
            values, dated = _figure_values(text), _dated_only(text)
            self._figures[sentence] = (values - dated) | {f"day:{value}" for value in dated}
        return self._figures[sentence]

    def kinds(self, sentence: int) -> frozenset[tuple[str, str]]:
        """The sentence's figures that say their kind, as (value, kind): ``_kinded_figures``."""
        if sentence not in self._kinds:
            found = _kinded_figures(self.text[slice(*self.spans[sentence])])
            self._kinds[sentence] = frozenset((value, kind) for value, kind, _about in found)
        return self._kinds[sentence]

    def is_item(self, sentence: int) -> bool:
        """Whether the sentence is a table row or a list item (it starts one: most start with a letter,
        which says no before any pattern is tried)."""
        if sentence not in self._items:
            start = self.spans[sentence][0]
            first = self.text[start : start + 1]
            maybe = first in _ITEM_STARTS or first.isdigit() or first.isspace()
            self._items[sentence] = maybe and _ITEM_LINE.match(self.text, start) is not None
        return self._items[sentence]


def snapshot_sentences(text: str, pages: Sequence[Page] = ()) -> SnapshotSentences:
    spans, keys = _sentences(text)
    return SnapshotSentences(text, tuple(pages), spans, keys)


def find_passages(
    claim: str,
    text: str,
    pages: Sequence[Page] = (),
    best: int = BEST,
    threshold: int = PASSAGE_THRESHOLD,
) -> list[Passage]:
    """The passages of ``text`` that best match ``claim``, best first, at most ``best`` of them, none
    overlapping another; an empty list when none scores ``threshold`` or more: no passage found."""
    return next(passages_of_claims([claim], snapshot_sentences(text, pages), best, threshold))


def passages_of_claims(
    claims: Sequence[str],
    sentences: SnapshotSentences,
    best: int = BEST,
    threshold: int = PASSAGE_THRESHOLD,
) -> Iterator[list[Passage]]:
    """``find_passages`` for each of ``claims``, in their order, as each is found (a worker can stop
    between two and go on later). The sentences each claim term is in are found in one pass over the
    text for all the claims together: the text costs once, and each claim its walk (``_held``)."""
    keys = [_normalised(_claim_text(claim)) for claim in claims]
    terms = [_terms(key) for key in keys]
    index = _TermIndex(_postings(sentences.keys, {term for claim_terms in terms for term in claim_terms}))
    for claim, key, claim_terms in zip(claims, keys, terms, strict=True):
        yield _claim_passages(claim, key, claim_terms, index, sentences, best, threshold)


class _TermIndex:
    """The sentences each term is in, as a list to walk and (made when first asked) a set to look up."""

    def __init__(self, postings: dict[str, list[int]]) -> None:
        self.postings = postings
        self._sets: dict[str, frozenset[int]] = {}

    def sentences(self, term: str) -> list[int]:
        return self.postings.get(term, [])

    def holding(self, term: str) -> frozenset[int]:
        if term not in self._sets:
            self._sets[term] = frozenset(self.sentences(term))
        return self._sets[term]


def _claim_passages(
    claim: str,
    claim_key: str,
    claim_terms: tuple[str, ...],
    index: _TermIndex,
    sentences: SnapshotSentences,
    best: int,
    threshold: int,
) -> list[Passage]:
    if not claim_terms:
        return []
    text, spans, keys = sentences.text, sentences.spans, sentences.keys
    held = _held(claim_terms, index)
    weights = _weights(claim_terms, index, len(keys))
    figures = _claim_figures(_claim_text(claim))

    def apart(first: int) -> bool:
        """Whether the sentence and the next make no pair: a blank line stands between them (a pair is
        of one paragraph), or either is a table row or a list item (each stands on its own)."""
        return (
            text.count("\n", spans[first][1], spans[first + 1][0]) > 1
            or sentences.is_item(first)
            or sentences.is_item(first + 1)
        )

    def figures_of(first: int, last: int) -> frozenset[str]:
        return sentences.figures(first) | sentences.figures(last)

    windows = _prefiltered(held, weights, len(keys), apart)
    forms_share = _forms_shares(_claim_words(claim_key), windows, sentences)

    def scored(window: _Window) -> _Scored | None:
        start, end = spans[window.first][0], spans[window.last][1]
        key = _NOT_WORD.sub(" ", " ".join(keys[window.first : window.last + 1]))
        share = (1 - FORMS_WEIGHT) * window.share + FORMS_WEIGHT * forms_share(window)
        words = 100 * (0.75 * share + 0.25 * fuzz.partial_ratio(claim_key, key) / 100)
        if words + FIGURE_WEIGHT * bool(figures.values) < threshold:
            return None  # not even all the claim's figures would carry it over: they are not looked for
        holds = figures.share(figures_of(window.first, window.last)) if figures.values else 0.0
        score = min(100, round(words + FIGURE_WEIGHT * holds))
        if score < threshold:
            return None
        kinded = sentences.kinds(window.first) | sentences.kinds(window.last) if figures.kinds else frozenset()
        return _Scored(score, score, holds, figures.contradicted(kinded), start, end)

    def alone(pair: _Window, found: _Scored) -> _Scored:
        """A pair one of whose sentences holds every figure of the claim the pair holds, and at least
        ALONE_SHARE of the claim's words the pair holds, is shown as that sentence, in the pair's place,
        with its own score: the other sentence adds words, not the claim (a Japanese page's sentences
        are short, and a pair of them shares more of the claim's words than the one that says it)."""
        if pair.first == pair.last or not found.figures:
            return found
        for sentence in (pair.first, pair.last):
            if figures.share(sentences.figures(sentence)) == found.figures:
                mask = held.get(sentence, 0)
                share = sum(weight for i, weight in enumerate(weights) if mask >> i & 1) / sum(weights)
                if share < ALONE_SHARE * pair.share:
                    return found  # the other sentence holds much of the claim too: the claim is the pair
                one = scored(_Window(sentence, sentence, share))
                return found if one is None else replace(one, rank=found.rank)
        return found

    found = []
    for window in windows:
        if (one := scored(window)) is not None:
            found.append(alone(window, one))
    return _chosen(found, sentences, best)


@dataclass(frozen=True)
class _Scored:
    score: int
    rank: int  # its score, or (a sentence shown for its pair) the pair's
    figures: float  # the share of the claim's figures and dates it holds
    contradicted: bool  # it states another value of a kind the claim states, and not the claim's
    start: int
    end: int


def _chosen(found: list[_Scored], sentences: SnapshotSentences, best: int) -> list[Passage]:
    """The best ``best`` of the windows scored, none overlapping another and no text twice (a page
    repeats its lines: "Winds W at 10 to 20 mph." tonight and tomorrow). A window that states another
    value of a kind the claim states, and not the claim's, ranks below the best window that holds the
    claim's figures, however many more of the claim's words it shares: it is about another day, year
    or place; one holding none of them, below the best holding them all (``_ranked_by_figures``)."""
    found = _ranked_by_figures(found)
    found.sort(
        key=lambda one: (one.rank, not one.contradicted, one.figures, one.start - one.end, one.start), reverse=True
    )
    text = sentences.text
    chosen: list[Passage] = []
    seen: set[str] = set()
    for one in found:
        if any(one.start < passage.end and passage.start < one.end for passage in chosen):
            continue  # a sentence and the pair it is in are one passage: the better one is kept
        start, end = _stripped(text, one.start, one.end)
        same = " ".join(text[start:end].split()).casefold()
        if same in seen:
            continue
        seen.add(same)
        chosen.append(Passage(start, end, text[start:end], one.score, page_at(sentences.pages, start)))
        if len(chosen) == best:
            break
    return chosen


def _ranked_by_figures(found: list[_Scored]) -> list[_Scored]:
    """A window stating another value of a kind the claim states, and not the claim's, ranks just
    below the best window that holds any of the claim's figures; a window holding none of them ranks
    just below the best that holds them all ("The bill passed 142-12" before "Lawmakers approved the
    levy" for "approved by 142 votes to 12": what an editor checks is the figures). Scores stay."""
    found = _below_the_best(found, lambda one: one.figures > 0, lambda one: one.contradicted)
    return _below_the_best(found, lambda one: one.figures == 1, lambda one: one.figures == 0)


def _below_the_best(
    found: list[_Scored], better: Callable[[_Scored], bool], worse: Callable[[_Scored], bool]
) -> list[_Scored]:
    """The ``worse`` windows ranked just below the best ``better`` one that is not contradicted."""
    ranks = [one.rank for one in found if better(one) and not one.contradicted]
    if not ranks:
        return found
    ceiling = max(ranks) - 1
    return [replace(one, rank=min(one.rank, ceiling)) if worse(one) else one for one in found]


def _claim_words(claim_key: str) -> list[frozenset[str]]:
    """The claim's words, each as its forms: no figure (``#``) and no English word of two letters."""
    return [forms for forms in word_forms(claim_key) if "#" not in forms and not _short_word(forms)]


def _short_word(forms: frozenset[str]) -> bool:
    return all(form.isascii() and len(form) <= 2 for form in forms)


def _forms_shares(
    claim_words: list[frozenset[str]], windows: list[_Window], sentences: SnapshotSentences
) -> Callable[[_Window], float]:
    """The weighted share of the claim's words a window holds in some form. Each word weighs by how
    rare it is among the chosen windows' sentences (the page is not read in forms: only they are)."""
    if not claim_words or not windows:
        return lambda window: 0.0
    chosen = sorted({index for window in windows for index in (window.first, window.last)})
    held = {index: [not words.isdisjoint(sentences.forms(index)) for words in claim_words] for index in chosen}
    weights = [
        math.log(1 + (len(chosen) + 1) / (sum(held[index][n] for index in chosen) + 1)) for n in range(len(claim_words))
    ]
    total = sum(weights)

    def share(window: _Window) -> float:
        first, last = held[window.first], held[window.last]
        return sum(weight for weight, one, other in zip(weights, first, last, strict=True) if one or other) / total

    return share


def best_passage(
    claim: str, text: str, pages: Sequence[Page] = (), threshold: int = PASSAGE_THRESHOLD
) -> Passage | None:
    found = find_passages(claim, text, pages, best=1, threshold=threshold)
    return found[0] if found else None


def passage_fragment_url(url: str, passage: str) -> str:
    """A text fragment for a passage: as the evidence view links a quote, except that text with few
    spaces (Japanese) is linked by its first and last characters (``textStart,textEnd``) rather than
    by all of it: ``text_fragment_url`` cuts at words, and such a passage is one "word"."""
    stretch = passage.strip()
    if len(stretch.split()) > 1 or len(stretch) <= 40:
        return text_fragment_url(url, stretch)
    end = text_fragment_url("", stretch[-15:]).removeprefix("#:~:text=")
    return f"{text_fragment_url(url, stretch[:15])},{end}"


# --- text as compared -------------------------------------------------------------------------


def _claim_text(claim: str) -> str:
    return _CLAIM_NOISE.sub(" ", MARKER.sub(" ", claim[:MAX_CLAIM_CHARS]))


def _normalised(text: str) -> str:
    """Full-width and half-width alike, case folded, every figure ``#``, punctuation a space."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_WORD.sub(" ", _months_named(_DIGITS.sub("#", folded)))


def _months_named(key: str) -> str:
    """A month's short name read as its name (``oct`` = ``october``): a date is written both ways
    ("Release date: Oct. 7, 2024" for "released on October 7, 2024")."""
    return _MONTH_SHORT.sub(lambda short: _MONTH_NAMES[short.group(1)], key)


def _figure_values(text: str) -> frozenset[str]:
    """The values of the figures and years ``text`` holds: ``1,410万`` and ``14.1 million`` are one
    value, ``令和8年`` is 2026 as well as 8; a figure with a scale counts also as written (``3万`` is
    30000 and 3), so that ``第3子`` and ``3万円`` are not lost to each other."""
    plain = folded(unicodedata.normalize("NFKC", text)) if not text.isascii() else text
    values = set()
    for match in _SCALED_FIGURE.finditer(plain):
        written = match.group(0)
        scale = _SCALE_WORD.search(written)
        number = number_value(written[: scale.start()].strip() if scale else written)
        values.add(number)
        if scale:
            values.add(_scaled(number, _SCALE_OF[scale.group(1).lower()]))
    for match in _ERA_YEAR.finditer(plain):
        year = 1 if match.group(2) == "元" else int(match.group(2))
        values.add(str(_ERA_BASE[match.group(1)] + year))
    return frozenset(values)


def _dated_only(text: str) -> frozenset[str]:
    """The figures ``text`` holds only as a day or a month of a date (the 1 of ``4月1日``): not the 1
    of ``1回``. Read only where a Japanese date could be."""
    if "月" not in text and "日" not in text:
        return frozenset()
    plain = folded(unicodedata.normalize("NFKC", text))
    dated: set[str] = set()
    other: set[str] = set()
    for match in _DIGITS.finditer(plain):
        (dated if plain[match.end() : match.end() + 1] in ("月", "日") else other).add(number_value(match.group(0)))
    return frozenset(dated - other)


def _kinded_figures(text: str) -> tuple[tuple[str, str, bool], ...]:
    """Each figure of ``text`` that says what kind it is, as (value, kind, about): its value (and its
    value with its scale: ``2,507万人`` is 2507 and 25070000, both of kind 人; ``72万7277人`` is 727277 and
    72 and 720000), its kind (``_KIND_AFTER``), and whether it is said to be about (``約``). An era's year
    is a year."""
    plain = folded(unicodedata.normalize("NFKC", text)) if not text.isascii() else text
    found: list[tuple[str, str, bool]] = []
    head: tuple[int, list[str]] | None = None  # where a figure of a Japanese scale ends (72万), its values
    for match in _SCALED_FIGURE.finditer(plain):
        written = match.group(0)
        scale = _SCALE_WORD.search(written)
        number = number_value(written[: scale.start()].strip() if scale else written)
        values = [number, _scaled(number, _SCALE_OF[scale.group(1).lower()])] if scale else [number]
        if head is not None and head[0] == match.start():
            values = [*head[1], _sum(head[1][-1], values[-1])]  # 72万 then 7277: one figure, 727277
        kind = _kind(plain, match)
        head = (match.end(), values) if scale and scale.group(1) in "万億兆" else None
        if not kind or _ERA_BEFORE.search(plain, max(match.start() - 3, 0), match.start()):
            continue  # no kind (yet: 72万 of 72万7277人); or an era's year, read below
        about = _ABOUT.search(plain, max(match.start() - 15, 0), match.start()) is not None
        found.extend((value, kind, about) for value in values)
    for match in _ERA_YEAR.finditer(plain):
        year = 1 if match.group(2) == "元" else int(match.group(2))
        found.append((str(_ERA_BASE[match.group(1)] + year), "year", False))
    return tuple(found)


def _sum(one: str, other: str) -> str:
    try:
        return format((Decimal(one) + Decimal(other)).normalize(), "f")
    except InvalidOperation:
        return other


def _kind(plain: str, figure: re.Match[str]) -> str:
    before = _KIND_BEFORE.search(plain, max(figure.start() - 4, 0), figure.start())
    if before:
        return _CURRENCY_KIND[before.group(1).lower()]
    after = _KIND_AFTER.match(plain, figure.end())
    if after is None:
        return "year" if _BARE_YEAR.fullmatch(figure.group(0)) else ""
    name = after.lastgroup or ""
    if name == "year" and not _BARE_YEAR.fullmatch(figure.group(0)):
        return "years"  # 9年連続, 3年: a count of years, not a year
    return {"percent": "%", "degree": "°", "yen": "円", "dollar": "$", "counter": after.group(0).strip()}.get(
        name, name
    )


@dataclass(frozen=True)
class _ClaimFigures:
    """The claim's figures and dates, as a window is held against them: their values (``values``), the
    step an approximate one was rounded to, and the values of each kind."""

    values: frozenset[str]
    steps: dict[str, Decimal]
    kinds: dict[str, frozenset[str]]

    def met(self, value: str, held: frozenset[str]) -> bool:
        """Whether ``held`` (a window's values) holds the claim's ``value``, or a value it rounds."""
        if value in held:
            return True
        step = self.steps.get(value)
        return step is not None and any(_rounds_to(other, value, step) for other in held)

    def share(self, held: frozenset[str]) -> float:
        """The share of the claim's figures and dates that ``held`` holds."""
        return sum(self.met(value, held) for value in self.values) / len(self.values)

    def contradicted(self, kinded: frozenset[tuple[str, str]]) -> bool:
        """Whether a window states another value of a kind the claim states, and none the claim's: a
        window of the claim's words about another day's chance of rain (``20%`` against ``8%``)."""
        for kind, values in self.kinds.items():
            held = frozenset(value for value, of_kind in kinded if of_kind == kind)
            if held and not any(self.met(value, held) for value in values):
                return True
        return False


def _claim_figures(claim: str) -> _ClaimFigures:
    kinded = _kinded_figures(claim)
    steps = {value: step for value, kind, about in kinded if about and kind != "year" and (step := _round_step(value))}
    kinds: dict[str, set[str]] = {}
    for value, kind, _about in kinded:
        kinds.setdefault(kind, set()).add(value)
    dated = _dated_only(claim)
    values = (_figure_values(claim) - dated) | {f"day:{value}" for value in dated}
    return _ClaimFigures(values, steps, {kind: frozenset(values) for kind, values in kinds.items()})


def _round_step(value: str) -> Decimal | None:
    """The step a round figure was rounded to: its last nonzero digit's (2500: 100); None for one
    with no zeros to round (2507)."""
    try:
        number = Decimal(value)
    except InvalidOperation:
        return None
    step = Decimal(1)
    while (
        number
        and number == number.to_integral_value()
        and (number / (step * 10)) == (number / (step * 10)).to_integral_value()
    ):
        step *= 10
    return step if step > 1 else None


def _rounds_to(precise: str, rounded: str, step: Decimal) -> bool:
    """Whether ``precise`` rounds to ``rounded`` at ``step``, half away from zero (2507 to 2500 at 100)."""
    try:
        low, high = Decimal(rounded) - step / 2, Decimal(rounded) + step / 2
        return low <= Decimal(precise) < high
    except InvalidOperation:
        return False


def _scaled(number: str, scale: int) -> str:
    try:
        return format((Decimal(number) * scale).normalize(), "f")
    except InvalidOperation:
        return number


def _terms(key: str) -> tuple[str, ...]:
    """What a text is compared by: its words of three letters or more, its figures (``#``), and the
    character bigrams of its CJK runs; a lone CJK character is a term of its own."""
    terms: set[str] = set()
    for match in _TERM.finditer(key):
        term = match.group(0)
        if _CJK.match(term):
            terms.update(term[i : i + 2] for i in range(len(term) - 1)) if len(term) > 1 else terms.add(term)
        elif len(term) > 2 or term == "#":  # of, in, the s of Tokyo's: they tell nothing
            terms.add(term)
    return tuple(sorted(terms))


def _sentences(text: str) -> tuple[list[tuple[int, int]], list[str]]:
    """The sentences of ``text``, as spans, and their keys: folded, figures masked, punctuation kept
    (no term spans it). Built with ``re.split`` and running sums rather than a step per match, and
    folded in one piece (the sentences joined by a separator): a page of a million stops stays cheap."""
    clean = text.replace(_SEPARATOR, " ")  # one for one: the spans hold in text
    # A table row or a list item is cut only at its line's end: its stops are hidden from the cut (one
    # for one, so the spans hold), and the keys are made from the text as it is.
    parts = _SENTENCE_END.split(_ITEM_LINE.sub(_stops_hidden, clean))  # sentence, its end, sentence, …
    offsets = list(accumulate(map(len, parts), initial=0))
    stops = [len(end.rstrip()) for end in parts[1::2]] + [0]  # the stop a sentence keeps, not the space
    spans = list(zip(offsets[0::2], map(add, offsets[1::2], stops), strict=True))
    if any(stop - start > MAX_SENTENCE_CHARS for start, stop in spans):
        spans = [piece for start, stop in spans for piece in _pieces(text, start, stop)]
    joined = _SEPARATOR.join([clean[start:stop] for start, stop in spans])
    keys = _months_named(_DIGITS.sub("#", unicodedata.normalize("NFKC", joined).casefold())).split(_SEPARATOR)
    if clean.startswith("|") or "\n|" in clean:
        keys = _with_headers(keys, budget=len(text))
    return spans, keys


def _with_headers(keys: list[str], budget: int) -> list[str]:
    """Each table row's key with its table's first row (its header) after it: a row says what its
    cells mean only under its header (``| 2024 | 83.9 million |`` under ``| Year | Passengers |``). The
    headers added are at most ``budget`` characters in all, so a table of a million short rows under
    a long header costs the page's length again, not a hundred times it."""
    header = None
    with_headers = []
    for key in keys:
        row = key.strip()
        if len(row) < 2 or row[0] != "|" or row[-1] != "|":
            header = None
        elif header is None:
            header = key
        elif len(header) <= budget:
            key = f"{key} {header}"
            budget -= len(header)
        with_headers.append(key)
    return with_headers


def _stops_hidden(line: re.Match[str]) -> str:
    text = line.group(0)
    return text.translate(_HIDDEN_STOPS) if len(text) <= MAX_SENTENCE_CHARS else text


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A sentence, or a long one cut at a space or comma near every MAX_SENTENCE_CHARS."""
    pieces = []
    while end - start > MAX_SENTENCE_CHARS:
        limit = start + MAX_SENTENCE_CHARS
        cuts = [match.end() for match in _CUT.finditer(text, limit - MAX_SENTENCE_CHARS // 3, limit)]
        cut = cuts[-1] if cuts else limit
        pieces.append((start, cut))
        start = cut
    pieces.append((start, end))
    return pieces


def _postings(keys: list[str], wanted: set[str]) -> dict[str, list[int]]:
    """For each of the ``wanted`` terms, the sentences holding it, in order, each once: one pass over
    the sentences' keys. A sentence holds a word (three letters or more) where it stands as a whole
    word, ``#`` wherever a figure was, and a CJK bigram or character anywhere in its CJK runs, as
    ``_terms`` cuts a claim."""
    postings: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        held: set[str] = set()
        for match in _TERM.finditer(key):
            term = match.group(0)
            if _CJK.match(term):
                held.update(term)  # a claim's lone CJK character is a term of its own
                held.update(term[i : i + 2] for i in range(len(term) - 1))
            else:
                held.add(term)
        for term in held & wanted:
            postings.setdefault(term, []).append(index)
    return postings


def _held(claim_terms: tuple[str, ...], index: _TermIndex) -> dict[int, int]:
    """For each sentence holding any of the claim's terms, which ones, as a mask (bit ``i`` for term
    ``i``). The terms are walked rarest first; once MAX_SENTENCES_WALKED sentences have been visited, a
    more common term (in a long page, "the" or "の" is in most sentences) is looked up only in the
    sentences held so far and their neighbours, the windows it could still add to. Within the walk the
    result is exact, and a claim costs at most the walk, however long the page and however many claims
    cite it."""
    order = sorted(range(len(claim_terms)), key=lambda i: (len(index.sentences(claim_terms[i])), i))
    held: dict[int, int] = {}
    walked = 0
    common = []
    for position, term_index in enumerate(order):
        sentences = index.sentences(claim_terms[term_index])
        if position and walked + len(sentences) > MAX_SENTENCES_WALKED:
            common = order[position:]
            break
        walked += len(sentences)
        bit = 1 << term_index
        for sentence in sentences:
            held[sentence] = held.get(sentence, 0) | bit
    if common:
        near = {neighbour for sentence in held for neighbour in (sentence - 1, sentence, sentence + 1)}
        for term_index in common:
            bit = 1 << term_index
            for sentence in near & index.holding(claim_terms[term_index]):
                held[sentence] = held.get(sentence, 0) | bit
    return held


def _weights(claim_terms: tuple[str, ...], index: _TermIndex, sentences: int) -> list[float]:
    """Each claim term weighs by how rare it is on this page; one the page lacks weighs most."""
    return [
        math.log(1 + (sentences + 1) / (len(index.sentences(term)) + 1))
        * (_KANA_WEIGHT if _KANA_ONLY.fullmatch(term) else 1.0)
        for term in claim_terms
    ]


def _prefiltered(
    held: dict[int, int], weights: list[float], sentences: int, apart: Callable[[int], bool] = lambda first: False
) -> list[_Window]:
    """The windows holding the largest weighted share of the claim's terms (single sentences first on
    a tie): each sentence holding a term, and each pair it is in. A pair holds at most what its two
    sentences hold together, so only the pairs that could reach the best single sentences are weighed:
    those with a sentence holding half as much as the least of them."""
    total = sum(weights)

    def share_of(mask: int) -> float:
        return sum(weight for i, weight in enumerate(weights) if mask >> i & 1) / total

    by_mask = {mask: share_of(mask) for mask in set(held.values())}  # most sentences hold one of a few
    share = {index: by_mask[mask] for index, mask in held.items()}
    ranked = [(value, 0, -index, index, index) for index, value in share.items()]
    least = heapq.nlargest(CANDIDATES, share.values())[-1] if len(share) >= CANDIDATES else 0.0
    firsts = {first for index, value in share.items() if value >= least / 2 - 1e-9 for first in (index - 1, index)}
    for first in firsts:
        if first < 0 or first + 1 >= sentences:
            continue
        alone = share.get(first, 0.0), share.get(first + 1, 0.0)
        if alone[0] + alone[1] < least - 1e-9:
            continue
        mask = held.get(first, 0) | held.get(first + 1, 0)
        value = by_mask[mask] if mask in by_mask else share_of(mask)
        # a pair is worth scoring only when it holds more than either of its sentences alone
        if value > max(alone) and not apart(first):
            ranked.append((value, -1, -first, first, first + 1))
    return [_Window(first, last, value) for value, _, _, first, last in heapq.nlargest(CANDIDATES, ranked)]
