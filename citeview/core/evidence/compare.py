"""What a claim and a passage say about time, figures and conditions, side by side, and what differs:
the hints the check panel shows for subject, time and conditions. It never judges; it points.

- **Dates**: ``2024年4月1日``, ``2024/4/1``, ``April 1, 2024`` and ``1 April 2024`` are one date;
  Japanese era years are read as years (``令和6年`` = 2024, ``平成31年`` = ``令和元年`` = 2019, 昭和, 大正,
  明治); ``2024年度`` and ``FY2024`` are fiscal years; a bare year is a date after a word that says
  so (``in 2024``, ``since 2019``). A date missing a part (``April 2024``) agrees with one that has it.
- **Figures**: numbers as ``numbers.number_values`` reads them, full-width or not, with their scale
  (``1,410万`` = ``14.1 million`` = 14100000); digits inside a date are the date's.
- **Qualifiers**: ``以上``, ``以下``, ``未満``, ``約``, ``最大``, at least, up to, about, only, …, read
  as one meaning in either language (``以上`` = at least), bound to a figure where the word has other
  senses (``以上です``, ``about Tokyo``).
- **Negations**: ない, ではない, ません, ず, 無い, the 不-/未-/非- words that negate (a list: 不要, 未定,
  非公開, …, not 未来 or 非常に), not, no, never, without, n't. A claim and a passage differ in negation
  when one has any and the other none.

The texts are read as they are (no Markdown, no HTML); every finding has its span in the text given.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from html import escape
from typing import Any, Literal

from citeview.core.numbers import NUMBER, folded, number_value

Kind = Literal["date", "figure", "qualifier", "negation"]

_ERAS = {"令和": 2018, "平成": 1988, "昭和": 1925, "大正": 1911, "明治": 1867}  # year 1 (元年) is base + 1
_MONTH_NAMES = "january jan|february feb|march mar|april apr|may|june jun|july jul|august aug|september sep sept|october oct|november nov|december dec"
_MONTHS = {name: number for number, names in enumerate(_MONTH_NAMES.split("|"), start=1) for name in names.split()}
_MONTH = r"(?<![A-Za-z])(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_DATE_PATTERNS = [
    # 令和6年4月1日, 令和元年度
    r"(?P<era>令和|平成|昭和|大正|明治)\s*(?P<era_year>元|\d{1,2})\s*年(?P<fiscal>度)?"
    r"(?:\s*(?P<m1>\d{1,2})\s*月(?:\s*(?P<d1>\d{1,2})\s*日)?)?",
    # 2024年4月1日, 2024年度, 2024年4月
    r"(?<!\d)(?P<y2>\d{4})\s*年(?P<fiscal2>度)?(?:\s*(?P<m2>\d{1,2})\s*月(?:\s*(?P<d2>\d{1,2})\s*日)?)?",
    # 4月1日, 4月 (no year)
    r"(?<![\d.])(?P<m3>\d{1,2})\s*月(?:\s*(?P<d3>\d{1,2})\s*日)?",
    # 2024/4/1, 2024-04-01, 2024.4.1
    r"(?<![\d.])(?P<y4>\d{4})(?P<sep>[/.-])(?P<m4>\d{1,2})(?P=sep)(?P<d4>\d{1,2})(?![\d])",
    # April 1, 2024; April 1 2024; April 2024; April 1
    _MONTH.format("mn5") + r"\s+(?:(?P<d5>\d{1,2})" + _ORDINAL + r"(?!\d)(?:,?\s+(?P<y5>\d{4}))?|(?P<y5b>\d{4}))(?!\d)",
    # 1 April 2024; 1st of April, 2024; 1 April
    r"(?<![\d.])(?P<d6>\d{1,2})"
    + _ORDINAL
    + r"\s+(?:of\s+)?"
    + _MONTH.format("mn6")
    + r"(?:,?\s+(?P<y6>\d{4}))?(?!\d)",
    # FY2024, FY 2024, fiscal 2024, fiscal year 2024
    r"(?<![A-Za-z])(?:FY|fiscal(?:\s+year)?)\s*(?P<y7>\d{4})(?!\d)",
    # in 2024, since 2019: a bare year after a word that makes it one
    r"(?<![A-Za-z])(?:in|since|by|from|until|till|through|before|after|during|as\s+of|year|early|mid|late|end\s+of)"
    r"\s+(?P<y8>(?:1[89]|2[01])\d\d)(?![\d%]|[.,]\d)",
]
_DATE = re.compile("|".join(f"(?:{pattern})" for pattern in _DATE_PATTERNS), re.I)

_SCALES = {"万": 10**4, "億": 10**8, "兆": 10**12, "千": 10**3, "百万": 10**6, "千万": 10**7}
_SCALES.update({"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12})
_SCALE = re.compile(r"\s*(百万|千万|万|億|兆|千)|\s+(thousand|million|billion|trillion)\b", re.I)

# One meaning for the words of either language.
_QUALIFIER_WORDS = {
    "at_least": ("以上", "少なくとも", "最低", "at least", "no less than", "not less than", "no fewer than",
                 "not fewer than", "a minimum of", "minimum of", "or more", "and over", "and above", "or older"),
    "more_than": ("超え", "超", "を超える", "more than", "over", "above", "exceeding", "in excess of", "greater than"),
    "at_most": ("以下", "以内", "最大", "最高", "上限", "at most", "up to", "no more than", "not more than",
                "a maximum of", "maximum of", "or less", "or fewer", "and under", "or younger"),
    "less_than": ("未満", "less than", "fewer than", "under", "below"),
    "about": ("約", "およそ", "おおよそ", "程度", "前後", "ほぼ", "概ね", "おおむね", "about", "around",
              "approximately", "roughly", "nearly", "almost", "an estimated", "circa"),
    "only": ("のみ", "だけ", "only"),
}  # fmt: skip
_QUALIFIER_OF = {word: kind for kind, words in _QUALIFIER_WORDS.items() for word in words}
# Words with other senses count only beside a figure: before it (約1,000, up to 5) or after it (65歳以上).
_BEFORE_FIGURE = {"少なくとも", "最低", "最大", "最高", "約", "およそ", "おおよそ", "ほぼ", "概ね", "おおむね", "超"}
_BEFORE_FIGURE |= {w for w in _QUALIFIER_OF if w.isascii() and not w.startswith(("or ", "and "))} - {"only"}
_AFTER_FIGURE = {"以上", "以下", "以内", "未満", "超え", "超", "を超える", "程度", "前後", "上限"}
_AFTER_FIGURE |= {w for w in _QUALIFIER_OF if w.startswith(("or ", "and "))}
_UNBOUND = {"のみ", "だけ", "only"}


def _words(words: Iterable[str]) -> str:
    return "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in sorted(words, key=len, reverse=True))


_QUALIFIER = re.compile(
    rf"(?P<before>{_words(_BEFORE_FIGURE)})(?=\s*[$€£¥]?\s*\d)"
    rf"|(?<=\d)[^\d\n。.!?！？、，,;；]{{0,4}}?(?P<after>{_words(_AFTER_FIGURE)})"
    rf"|(?<!not\s)(?P<unbound>{_words(_UNBOUND)})",
    re.I,
)
_ASCII_WORD_EDGE = re.compile(r"[A-Za-z]")

# Negating 不-/未-/非- words: a list, since 未来 (future), 未満 (under), 非常に (very), 不動産 (real
# estate) and 不可欠 (indispensable) negate nothing.
_NEGATING_STEMS = {
    "不": "要 可能 可(?!欠) 明 十分 正確 適切 適用 採用 支持 承認 許可 参加 使用 在 一致 合格 成立 正 同意 実施 開示 公表 対応 確か 確実 透明 足 備 通 払い",
    "未": "定 確認 確定 実施 公表 公開 発表 承認 対応 完成 完了 整備 導入 定義 加入 納 払い 解決 回答 提出 達 到達 使用 開始 達成 検証 報告 登録",
    "非": "公開 公表 対応 課税 営利 表示 推奨 該当 開示 正規 公式 対象",
}  # fmt: skip
_PREFIXED = "|".join(
    f"{prefix}(?:{'|'.join(sorted(stems.split(), key=len, reverse=True))})" for prefix, stems in _NEGATING_STEMS.items()
)
_NEGATION = re.compile(
    r"(?:では|じゃ)(?:ない|なかった|なく|ありません)"
    r"|ません(?:でした)?"
    r"|(?<![少危幼汚切拙儚])(?<!違い)(?<!すく)な(?:い(?!し)|かった|く|ければ)"
    r"|せず|(?<=[ぁ-ん])ずに|無い|無く|無し"
    rf"|{_PREFIXED}"
    r"|(?<![A-Za-z])(?:not(?!\s+(?:only|just|merely|more|less|fewer)\b)|never|none|neither|nor|without|cannot)(?![A-Za-z])"
    r"|(?<![A-Za-z])no(?![A-Za-z])(?!\.?\s*\d)(?!\s+(?:more|less|fewer)\s+than\b)"
    r"|n['’]t(?![A-Za-z])",
    re.I,
)


@dataclass(frozen=True)
class Finding:
    kind: Kind
    text: str  # as written
    start: int  # code points into the text it was found in, end exclusive
    end: int
    value: str  # what is compared: 2024-04-01, 2024-04, 2024, --04-01, FY2024; 14100000; at_least; not

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "start": self.start, "end": self.end, "value": self.value}


@dataclass(frozen=True)
class Comparison:
    claim: tuple[Finding, ...]
    passage: tuple[Finding, ...]
    claim_only: tuple[Finding, ...]  # what the claim says (a date, figure, qualifier) and the passage does not
    passage_only: tuple[Finding, ...]  # what the passage says and the claim does not
    negation_differs: bool  # one of them is negated, the other not

    @property
    def differs(self) -> bool:
        """Whether the claim says a date, figure or qualifier the passage does not, or the two differ
        in negation. What only the passage says (a date the claim leaves out) is context, not a
        difference; it is marked only beside a claim's finding of the same kind."""
        return bool(self.claim_only) or self.negation_differs

    @property
    def differing_in_passage(self) -> tuple[Finding, ...]:
        """The passage's findings to mark: those of a kind where the claim says something else, and
        its negations when the claim has none."""
        kinds = {finding.kind for finding in self.claim_only}
        marked = [finding for finding in self.passage_only if finding.kind in kinds]
        if self.negation_differs:
            marked += [finding for finding in self.passage if finding.kind == "negation"]
        return tuple(sorted(marked, key=lambda finding: finding.start))

    @property
    def differing_in_claim(self) -> tuple[Finding, ...]:
        negations = [f for f in self.claim if f.kind == "negation"] if self.negation_differs else []
        return tuple(sorted([*self.claim_only, *negations], key=lambda finding: finding.start))

    def hints(self) -> dict[str, dict[str, list[Finding]]]:
        """For the panel's questions: time (dates), figures, and conditions (qualifiers, negations),
        each as found in the claim and in the passage."""
        groups = {"time": ("date",), "figures": ("figure",), "conditions": ("qualifier", "negation")}
        return {
            name: {
                "claim": [f for f in self.claim if f.kind in kinds],
                "passage": [f for f in self.passage if f.kind in kinds],
            }
            for name, kinds in groups.items()
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": [f.to_json() for f in self.claim],
            "passage": [f.to_json() for f in self.passage],
            "claim_only": [f.to_json() for f in self.claim_only],
            "passage_only": [f.to_json() for f in self.passage_only],
            "negation_differs": self.negation_differs,
            "differs": self.differs,
        }


def compare(claim: str, passage: str) -> Comparison:
    found_in_claim, found_in_passage = findings(claim), findings(passage)
    in_claim, in_passage = _Index(found_in_claim), _Index(found_in_passage)
    claim_only = tuple(f for f in found_in_claim if f.kind != "negation" and not in_passage.matches(f))
    passage_only = tuple(f for f in found_in_passage if f.kind != "negation" and not in_claim.matches(f))
    negated = any(f.kind == "negation" for f in found_in_claim), any(f.kind == "negation" for f in found_in_passage)
    return Comparison(found_in_claim, found_in_passage, claim_only, passage_only, negated[0] != negated[1])


def findings(text: str) -> tuple[Finding, ...]:
    """The dates, figures, qualifiers and negations of ``text``, in text order."""
    plain = folded(text)
    dates = list(_dates(text, plain))
    taken = [(d.start, d.end) for d in dates]
    found = [*dates, *_figures(text, plain, taken), *_qualifiers(text, plain), *_negations(text, plain)]
    return tuple(sorted(found, key=lambda finding: (finding.start, finding.end)))


# --- dates --------------------------------------------------------------------------------------


def _dates(text: str, plain: str) -> Iterable[Finding]:
    for match in _DATE.finditer(plain):
        value = _date_value(match)
        if value is not None:
            start, end = _date_span(match)
            yield Finding("date", text[start:end], start, end, value)


def _date_span(match: re.Match[str]) -> tuple[int, int]:
    """The date itself: for "in 2024", the year, not the word before it."""
    if match.group("y8"):
        return match.span("y8")
    return match.span()


def _date_value(match: re.Match[str]) -> str | None:
    groups = match.groupdict()
    fiscal = bool(groups["fiscal"] or groups["fiscal2"] or groups["y7"])
    if groups["era"]:
        era_year = 1 if groups["era_year"] == "元" else int(groups["era_year"])
        year: int | None = _ERAS[groups["era"]] + era_year
    else:
        year_text = next((groups[g] for g in ("y2", "y4", "y5", "y5b", "y6", "y7", "y8") if groups[g]), None)
        year = int(year_text) if year_text else None
    month_text = next((groups[g] for g in ("m1", "m2", "m3", "m4") if groups[g]), None)
    month_name = groups["mn5"] or groups["mn6"]
    month = _MONTHS[month_name.lower()] if month_name else (int(month_text) if month_text else None)
    day_text = next((groups[g] for g in ("d1", "d2", "d3", "d4", "d5", "d6") if groups[g]), None)
    day = int(day_text) if day_text else None
    if (month is not None and not 1 <= month <= 12) or (day is not None and not 1 <= day <= 31):
        return None
    if year is None and month is None:
        return None
    parts = [
        f"{year:04d}" if year is not None else "-",
        f"{month:02d}" if month else None,
        f"{day:02d}" if day else None,
    ]
    value = "-".join(part for part in parts if part is not None)
    return f"FY{value}" if fiscal else value


def _date_parts(value: str) -> tuple[bool, str | None, str | None, str | None]:
    """``FY2024`` → (True, "2024", None, None); ``--04-01`` (no year) → (False, None, "04", "01")."""
    fiscal = value.startswith("FY")
    year, *rest = value.removeprefix("FY").removeprefix("-").split("-")
    rest += [""] * (2 - len(rest))
    return fiscal, year or None, rest[0] or None, rest[1] or None


def _dates_agree(one: str, other: str) -> bool:
    """Every part both give is the same, and they share one at least: April 2024 agrees with
    2024年4月1日, 4月1日 with April 1, 2024; a fiscal year agrees only with a fiscal year."""
    a, b = _date_parts(one), _date_parts(other)
    if a[0] != b[0]:
        return False
    shared = [(x, y) for x, y in zip(a[1:], b[1:], strict=True) if x is not None and y is not None]
    return bool(shared) and all(x == y for x, y in shared)


# --- figures ------------------------------------------------------------------------------------


def _figures(text: str, plain: str, taken: list[tuple[int, int]]) -> Iterable[Finding]:
    """Numbers outside the dates (``taken``: their spans, in order, none overlapping)."""
    date_ends = [stop for _, stop in taken]
    for match in NUMBER.finditer(plain):
        start, end = match.span()
        index = bisect_right(date_ends, start)  # the first date ending after this number starts
        if index < len(taken) and taken[index][0] < end:
            continue
        value = number_value(match.group(0))
        scale = _SCALE.match(plain, end)
        if scale:
            value = _scaled(value, _SCALES[(scale.group(1) or scale.group(2)).lower()])
            end = scale.end()
        yield Finding("figure", text[start:end], start, end, value)


def _scaled(value: str, factor: int) -> str:
    try:
        return format((Decimal(value) * factor).normalize(), "f")
    except InvalidOperation:
        return value


# --- qualifiers and negations -------------------------------------------------------------------


def _qualifiers(text: str, plain: str) -> Iterable[Finding]:
    for match in _QUALIFIER.finditer(plain):
        group = next(name for name in ("before", "after", "unbound") if match.group(name))
        start, end = match.span(group)
        word = re.sub(r"\s+", " ", match.group(group).lower())
        if word.isascii() and not _whole_ascii_word(plain, start, end):
            continue
        yield Finding("qualifier", text[start:end], start, end, _QUALIFIER_OF[word])


def _negations(text: str, plain: str) -> Iterable[Finding]:
    for match in _NEGATION.finditer(plain):
        start, end = match.span()
        yield Finding("negation", text[start:end], start, end, "not")


def _whole_ascii_word(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not _ASCII_WORD_EDGE.match(before) and not _ASCII_WORD_EDGE.match(after)


class _Index:
    """The findings of one side by kind and value, so each finding of the other side is looked up,
    not compared with every one: a long text costs in proportion to it."""

    def __init__(self, found: Iterable[Finding]) -> None:
        self.values: dict[str, set[str]] = {}
        for finding in found:
            self.values.setdefault(finding.kind, set()).add(finding.value)
        self.dates_by_part: dict[str, set[str]] = {}
        for value in self.values.get("date", set()):  # distinct dates: a few hundred a year at most
            fiscal, year, month, _ = _date_parts(value)
            self.dates_by_part.setdefault(f"{fiscal}{year}" if year else f"{fiscal}-{month}", set()).add(value)

    def matches(self, finding: Finding) -> bool:
        if finding.kind != "date":
            if finding.value in self.values.get(finding.kind, set()):
                return True
            # a bare year read as a figure on one side and as a date on the other is one year
            return finding.kind == "figure" and finding.value in self.values.get("date", set())
        if finding.value in self.values.get("figure", set()):
            return True
        fiscal, year, _, _ = _date_parts(finding.value)
        if year:
            candidates = self.dates_by_part.get(f"{fiscal}{year}", set())
            candidates = candidates | {
                v for k, vs in self.dates_by_part.items() if k.startswith(f"{fiscal}-") for v in vs
            }
        else:
            candidates = {v for vs in self.dates_by_part.values() for v in vs}
        return any(_dates_agree(finding.value, other) for other in candidates)


# --- marking --------------------------------------------------------------------------------------

_MARK_CLASSES = {"date": "cv-number-diff", "figure": "cv-number-diff", "qualifier": "cv-qualifier-diff"}
_MARK_CLASSES["negation"] = "cv-negation-diff"


def mark_findings(text: str, marked: Iterable[Finding]) -> str:
    """``text`` escaped for HTML, each of ``marked`` (found in this very text) in a ``<mark>`` of its
    kind's class. Findings that overlap keep the first."""
    out, position = [], 0
    for finding in sorted(marked, key=lambda f: (f.start, -f.end)):
        if finding.start < position or text[finding.start : finding.end] != finding.text:
            continue  # overlapping, or not of this text
        out.append(escape(text[position : finding.start]))
        out.append(f'<mark class="{_MARK_CLASSES[finding.kind]}">{escape(finding.text)}</mark>')
        position = finding.end
    out.append(escape(text[position:]))
    return "".join(out)
