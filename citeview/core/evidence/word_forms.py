"""The forms of a text's words: the same word in another form reads alike (issue 45).

A claim says 受付 where the page says 受け付け, or "rose" where it says "rises": to a matcher of
letters these are other words. Each word of a text is read here as the set of its forms:

- **Japanese**, by SudachiPy with sudachidict-core: a word's normalised form (受付 and 引上げ are
  受け付け and 引き上げ), without its trailing kana, so that a verb and the noun made from it are one
  word (受け付ける and 受け付け: 受け付). The honorific prefix 御 (お, ご) is dropped: お住まい is
  住まい. Particles, auxiliaries, punctuation and blanks are no words.
- **English**, by lemminflect, whose tables ship in its package: every lemma a word may have
  ("rose" is rose and rise, "rises" is rise), and the word itself.
- **Figures** stay as they are written (``2,500``, ``8%``, the 6 of 令和6年度): a figure is compared by
  its value elsewhere (``compare``), never by a lemma.

One tokenizer per process, made when first needed: 0.05–0.07 s, 88 MB resident and 198 MB of address
space (the dictionary, mapped); lemminflect's tables, loaded on the first English word: 0.26–0.36 s and
40 MB (numpy with them). After that a claim's forms take about 50 µs (Japanese) or 10 µs (English).
Not warmed in the forkserver of ``core.common.limited`` (``warmed``): its children read pages under a
512 MB address-space cap and never need the forms. Nothing is downloaded.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import Any

# SudachiPy refuses a text longer than 49,149 bytes: a longer text is read in pieces of at most this
# many characters (four bytes each at most, in UTF-8: emoji), cut after a stop where there is one.
_PIECE_CHARS = 12_000
_STOPS = re.compile(r"[。！？.!?\n]")
_CJK = re.compile("[\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# An English word, or a figure as written (2,500; 8%; 3.5): a figure is kept as it is.
_EN_TOKEN = re.compile(r"\d+(?:[.,]\d+)*%?|[A-Za-z]+(?:['’][A-Za-z]+)*")
# The parts of speech that are no words (what is said about a word, not the word).
_NOT_WORDS = frozenset(["助詞", "助動詞", "補助記号", "空白", "記号"])
_KANA_TAIL = re.compile("[\u3040-\u309f]+$")
_PREFIX = "接頭辞"
# How many English words' forms are kept for the next time they are met (a page's vocabulary; a
# bound, so that a process reading many pages of odd words does not grow for ever).
_WORDS_KEPT = 100_000


def word_forms(text: str) -> list[frozenset[str]]:
    """Each word of ``text``, in order, as the set of its forms (lower case)."""
    if _CJK.search(text):
        return [forms for piece in _pieces(text) for forms in _japanese_forms(piece)]
    return [_english_forms(token) for token in _EN_TOKEN.findall(text)]


def form_set(text: str) -> frozenset[str]:
    """Every form of every word of ``text``: what a text says, to meet another's words."""
    return frozenset(form for forms in word_forms(text) for form in forms)


def english_forms(word: str) -> frozenset[str]:
    """An English word's forms: the word and every lemma it may have, lower case."""
    return _english_forms(word)


@lru_cache(maxsize=_WORDS_KEPT)
def _english_forms(word: str) -> frozenset[str]:
    lowered = word.lower().replace("’", "'")
    if not lowered[:1].isalpha():
        return frozenset([word])  # a figure, as written
    lowered = lowered.removesuffix("'s")  # Tokyo's is Tokyo
    lemmas = _lemmas(lowered)
    return frozenset([lowered, *(lemma.lower() for group in lemmas.values() for lemma in group)])


def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    from lemminflect import getAllLemmas  # its tables are loaded on first use

    found: dict[str, tuple[str, ...]] = getAllLemmas(word)
    return found


def _japanese_forms(text: str) -> Iterator[frozenset[str]]:
    morphemes = list(_tokenizer().tokenize(text))
    after_prefix = False
    for morpheme in morphemes:
        part = morpheme.part_of_speech()
        if part[0] == _PREFIX and morpheme.normalized_form() == "御":
            after_prefix = True
            continue  # お住まい is 住まい
        if part[0] in _NOT_WORDS:
            after_prefix = False
            continue
        yield _japanese_word(morpheme, part, after_prefix)
        after_prefix = False


def _japanese_word(morpheme: Any, part: tuple[str, ...], after_prefix: bool) -> frozenset[str]:
    surface: str = morpheme.surface()
    if part[1] == "数詞" or not _CJK.search(surface):
        return _english_forms(surface) if surface.isascii() else frozenset([surface])
    form: str = morpheme.normalized_form()
    if after_prefix and part[0] == "動詞":
        form = surface  # お住まい, お知らせ: a noun made from the verb, as written
    stem = _KANA_TAIL.sub("", form)
    return frozenset([stem or form])


def _pieces(text: str) -> Iterator[str]:
    start = 0
    while len(text) - start > _PIECE_CHARS:
        limit = start + _PIECE_CHARS
        stops = [m.end() for m in _STOPS.finditer(text, limit - _PIECE_CHARS // 4, limit)]
        cut = stops[-1] if stops else limit
        yield text[start:cut]
        start = cut
    yield text[start:]


_PER_THREAD = threading.local()


def _tokenizer() -> Any:
    """A tokenizer of this thread, in SudachiPy's middle mode (B): 市外在住者 is 市, 外, 在住者. One per
    thread, over the process's one dictionary: a tokenizer used by two threads at once raises "Tokenizer
    is already in use" (a threaded server, ``make dev``)."""
    tokenizer = getattr(_PER_THREAD, "tokenizer", None)
    if tokenizer is None:
        from sudachipy import SplitMode

        tokenizer = _PER_THREAD.tokenizer = _dictionary().tokenizer(mode=SplitMode.B)
    return tokenizer


@cache
def _dictionary() -> Any:
    """The dictionary, mapped once per process (198 MB of address space, shared by its tokenizers)."""
    from sudachipy import Dictionary

    return Dictionary(dict="core")
