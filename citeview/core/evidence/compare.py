"""What a claim and its evidence say about time, figures and conditions, and the one rule that says
where they differ: every hint citeview shows (the viewer's side by side, the check page's flags and
its snapshot panel, the figures and the report) comes from ``compare``. It never judges; it points.

A comparison has three findings, each a ``Hint``:

- **differs**: both sides state a date, a figure or a qualifier of one kind, and the claim's value is
  not the evidence's (33 against 31; 2025 against 令和6年; 18歳以下 against 18歳未満);
- **not stated**: the claim states a date, figure or qualifier and the evidence states none it could
  be held against (a snippet with no date says nothing of the claim's date): information, not a
  warning;
- **negation differs**: one side negates the very thing the other asserts ("did not attend the
  ceremony" against "attended the ceremony"), not merely a negative word somewhere.

What is read:

- **Dates**: ``2024年4月1日``, ``2024/4/1``, ``April 1, 2024`` and ``1 April 2024`` are one date;
  Japanese era years are read as years (``令和8年`` = 2026, ``平成31年`` = ``令和元年`` = 2019, 昭和, 大正,
  明治); ``2024年度`` and ``FY2024`` are fiscal years; a bare year is a date after a word that says so
  (``in 2024``) or standing alone (``2026 writeups``); a month after one (``since November``); a
  weekday (``Tuesday``, ``Tue``, ``日曜``, ``（月）``, ``（水・祝）``); a decade (``the 1990s``, ``1990年代``)
  agrees with its years; a fiscal year named by its end (``the fiscal year ended June 30, 2024``,
  ``2026年3月期``) is held only against fiscal years, and agrees with the one named by either of its
  calendar years (conventions differ). A date missing a part agrees with one that has it. A quarter,
  a half or a run of months (``Q2 2025``, ``second half of 2025``, ``H1 2025``, ``2025年4〜6月期``,
  ``2026年3月期上半期`` = April to September 2025, ``2026年3月期第1四半期``) agrees with the months and periods inside
  it; a claim's period is held only against periods (a page's month or day is when it was published or
  announced), a claim's month against a period too; a fiscal quarter (``fiscal Q2 2025``) only against fiscal quarters.
- **Figures**: numbers with their scale (``1,410万`` = ``14.1 million``; ``1兆2000億`` = ``1.2兆``;
  ``3割`` = ``3割0分`` = 30%, ``3割2分5厘`` = 32.5% = ``.325``), numbers in kanji before a counter
  (``三十五人``, ``二億三千万円``; not ``一部``, ``十分``, ``数十人``), their unit in any of its names (%, percent, パーセント; km, kilometres, キロメートル; kg,
  キログラム; キロ meets km and kg; 円, yen; $, dollars, ドル; °F, 人, 倍 = times,
  the word after an English number), English numbers in words read whole (``three goals``, ``two
  dozen``, ``one hundred and twenty``, ``a billion``), shares (``half of the``, ``a third of``, ``one in
  five``: a percentage to a few points), multiples (``twice``, ``doubled``, ``tripled``: 倍), times
  (``7:12 AM``, ``9 p.m.``; with a zone on both sides, one moment: ``9 p.m. EDT`` on July 15 = ``01:00 UTC`` on
  July 16, the dates moved with it) and versions (``3.11.2``, ``v1.31``, ``go1.24``). A rounded figure agrees with the precise one it rounds,
  half away from zero (``約5万人`` = ``5万1200人``, ``75.2兆`` = ``75兆2320億``; 75 is not "around 70"); ``142 to 10`` and
  ``142-12`` differ. Figures of two different units are never held against each other.
  A change given the other way by both sides (``8%増`` against ``8%減``, ``rose 3%`` against ``fell 3%``,
  ``up 3%`` against ``a 3% drop``) is a figure that differs.
- **Qualifiers**: ``以上``, ``未満``, ``約``, ``最大``, ``一律``, at least, up to, about, …, read as the bound they
  put on their figure: ``18歳未満`` = ``17歳以下``, ``36.2度`` meets ``35度以上``, ``no less than $40
  million`` is met by $40 million. ``nearly``, ``almost``, ``close to``, 弱, 近く, 足らず approach a figure
  from below and ``just over``, 強, 余り pass it: "nearly 300" is not "more than 300"; 1万人弱 is not
  1万人強. Verbs that bound (``topped``, ``fell short of``) and ``100+`` are bounds.
- **Negations**: ない, ません, ず, 無い, the 不-/未-/非- words that negate (a list), not, no, never, n't,
  without, hardly, failed to, refused to, no longer, stopped …ing, 対象外, 見送る, 断念, 否決, 撤回, … but not
  the forms that contain a negative and negate nothing (だけでなく, のみならず, 欠かせない, 間違いない,
  なければならない, なくてはならない, に限らず, 少なくない, not only, no less than, no doubt, …), double
  negatives that assert (ないわけではない, なくはない, not without, not impossible) or hedges (とは限らない,
  必ずしも…ない, not necessarily). A negation differs only when what it negates (the words after an
  English one, met in any of their forms: fell is fall, stopped is stop; the nearest nouns before a
  Japanese one, leaving out the topic that names who acts: 同社は) is asserted, un-negated, on the
  other side.

The texts are read as they are (no Markdown, no HTML); every finding has its span in the text given.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from html import escape
from typing import Any, Literal

from citeview.core.common.numbers import folded, number_value
from citeview.core.evidence.word_forms import english_forms

Kind = Literal["date", "figure", "qualifier", "negation"]
Outcome = Literal["differs", "not_stated", "negation_differs"]
Label = Literal["differs", "not_stated", "agree"]
# The outcomes that need an editor's attention; "not stated" is information.
ATTENTION: frozenset[str] = frozenset({"differs", "negation_differs"})
KINDS: tuple[Kind, ...] = ("date", "figure", "qualifier", "negation")
# The comparison reads at most this many characters of each text it is given (a claim, a quote, a
# snippet, a passage): past them nothing is compared, and the pages that show the comparison say so
# (``Comparison.cut``). Claims (1,000), passages found in a snapshot (a few sentences of 300) and what
# the viewer shows of a long source (2,000) are shorter; a provider's quote or a span citation's claim
# may be longer. Every pattern here reads in linear time (tests/test_regex_linear.py): the ceiling
# bounds what a pattern added later costs, should one not.
MAX_COMPARED_CHARS = 10_000


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# --- dates --------------------------------------------------------------------------------------

_ERAS = {"令和": 2018, "平成": 1988, "昭和": 1925, "大正": 1911, "明治": 1867}  # year 1 (元年) is base + 1
_MONTH_NAMES = "january jan|february feb|march mar|april apr|may|june jun|july jul|august aug|september sep sept|october oct|november nov|december dec"
_MONTHS = {name: number for number, names in enumerate(_MONTH_NAMES.split("|"), start=1) for name in names.split()}
_MONTH = r"(?<![A-Za-z])(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_FULL_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_WEEKDAYS = {"mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7}
_JA_WEEKDAYS = {"月": 1, "火": 2, "水": 3, "木": 4, "金": 5, "土": 6, "日": 7}
_ORDINAL = r"(?:st|nd|rd|th)?"
_AFTER_WORD = r"(?:in|since|by|from|until|till|through|before|after|during|as\s+of|of|year|early|mid|late|end\s+of)"
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_KANJI_QUARTERS = {"1": 1, "2": 2, "3": 3, "4": 4, "一": 1, "二": 2, "三": 3, "四": 4}
_PERIOD_PATTERNS = [
    # 2025年4〜6月期, 2025年4～9月: a run of months
    r"(?=\d)(?<![\d.])(?:(?P<pr_y>\d{4})\s*年\s*)?(?P<pr_m1>\d{1,2})\s*(?:月\s*)?[〜～~-]\s*(?P<pr_m2>\d{1,2})\s*月期?",
    # 2026年3月期上半期, 2026年3月期第1四半期: a half or quarter of a fiscal year named by its end
    r"(?=\d)(?<!\d)(?P<fe_y>\d{4})\s*年\s*(?P<fe_m>\d{1,2})\s*月期\s*(?:の\s*)?"
    r"(?:(?P<fe_half>上半期|上期|下半期|下期)|第\s*(?P<fe_q>[1-4一二三四])\s*四半期)",
    # 2025年前半, 2025年下期, 2025年第1四半期, 2025年度上半期: a half or quarter of a year named by its number
    r"(?=\d)(?<!\d)(?P<jp_y>\d{4})\s*年(?P<jp_fy>度)?\s*(?:の\s*)?"
    r"(?:(?P<jp_half>前半|後半|上半期|下半期|上期|下期)|第\s*(?P<jp_q>[1-4一二三四])\s*四半期)",
    # Q2 2025, 2025 Q2, second quarter of 2025, H1 2025, first half of 2025 (fiscal: only with fiscal)
    r"(?=[fFQqHhsStT\d])(?<![A-Za-z])(?P<fq>fiscal\s+(?:year\s+)?|FY\s?)?(?:Q(?P<q1>[1-4])\s*(?:of\s+)?(?P<fq1>fiscal\s+|FY\s?)?(?P<q1_y>\d{4})"
    r"|(?P<q2_y>\d{4})\s*Q(?P<q2>[1-4])|H(?P<h1>[12])\s*(?P<fq3>fiscal\s+|FY\s?)?(?P<h1_y>\d{4})"
    r"|(?P<q3>first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?P<q3_part>quarter|half)\s+(?:of\s+)?(?P<fq2>fiscal\s+(?:year\s+)?|FY\s?)?(?P<q3_y>\d{4}))(?!\d)",
]
_PERIOD = re.compile("|".join(f"(?:{pattern})" for pattern in _PERIOD_PATTERNS), re.I)
# Most texts name no period: the patterns above are tried only on those that might.
# Possessive runs of spaces: "1" and 40,000 spaces was 40,000 tries of the two runs' every split.
_MAYBE_PERIOD = re.compile(
    r"月期|年度?\s*+(?:の\s*+)?(?:前半|後半|上|下|第)|\d\s*+(?:月\s*+)?[〜～~-]\s*+\d{1,2}\s*+月|[QH][1-4]|quarter|half",
    re.I,
)
_DATE_PATTERNS = [
    # the 1990s, mid-1990s, 1990年代: a decade
    r"(?<![\d.])(?P<decade>(?:1[89]|20)\d)0(?:['’]?s(?![A-Za-z])|\s*年代)",
    # 令和6年4月1日, 令和元年度
    r"(?P<era>令和|平成|昭和|大正|明治)\s*(?P<era_year>元|\d{1,2})\s*年(?P<fiscal>度)?"
    r"(?:\s*(?P<m1>\d{1,2})\s*月(?:\s*(?P<d1>\d{1,2})\s*日)?)?",
    # 2024年4月1日, 2024年度, 2024年4月
    r"(?<!\d)(?P<y2>\d{4})\s*年(?P<fiscal2>度)?(?:\s*(?P<m2>\d{1,2})\s*月(?:\s*(?P<d2>\d{1,2})\s*日)?)?",
    # 4月1日, 4月 (no year)
    r"(?<![\d.])(?P<m3>\d{1,2})\s*月(?:\s*(?P<d3>\d{1,2})\s*日)?",
    # 2024/4/1, 2024-04-01, 2024.4.1
    r"(?<![\d.])(?P<y4>\d{4})(?P<sep>[/.-])(?P<m4>\d{1,2})(?P=sep)(?P<d4>\d{1,2})(?![\d])",
    # April 1, 2024; April 1 2024; April 2024; April 1; Oct. 7 2024; May 12 2025
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
    rf"(?<![A-Za-z]){_AFTER_WORD}\s+(?P<y8>(?:1[89]|2[01])\d\d)(?![\d%]|[.,]\d)",
    # since November, in October: a month name on its own after such a word, capitalised
    rf"(?<![A-Za-z]){_AFTER_WORD}\s+(?-i:(?P<mn9>{_FULL_MONTHS}))(?![A-Za-z])(?!\.?\s*\d)",
    # the June meeting: a month's full name, capitalised, anywhere (May is a verb as often)
    r"(?<![A-Za-z])(?-i:(?P<mn10>January|February|March|April|June|July|August|September|October|November|December))"
    r"(?![A-Za-z])(?!\.?\s*\d)",
    # Tuesday, Tue: a weekday, capitalised
    r"(?<![A-Za-z])(?-i:(?P<wd>Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?:day|sday|nesday|rsday|urday|s|r|rs)?)(?![A-Za-z])",
    # 日曜日, 月曜, and （月） after a date
    r"(?P<jwd>[月火水木金土日])曜日?|(?<=[（(])(?P<jwd2>[月火水木金土日])(?=[・･][祝休]|[)）])",
]
_DATE = re.compile("|".join(f"(?:{pattern})" for pattern in _DATE_PATTERNS), re.I)
_WEEKDAY_NAMES = re.compile(
    r"(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)(?:day)?|Wednesday|Saturday|Thursday|Tuesday"
)

# --- figures ------------------------------------------------------------------------------------

_SCALES = {"万": 10**4, "億": 10**8, "兆": 10**12, "千": 10**3, "百万": 10**6, "千万": 10**7, "割": 10}
_SCALES.update({"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12, "bn": 10**9})
_DIGITS = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?|\.\d+)"
# One figure as written: a version (3.11.2, v1.31, go1.24), a time (7:12 AM, 15:30), a Japanese figure of several
# scales (1兆2000億, 68万6061), or a number with at most one scale (1.2兆, 14.1 million, 3割).
_FIGURE = re.compile(
    r"(?<![A-Za-z0-9_.:])(?<![A-Za-z]-)(?:"
    r"(?P<version>\d+(?:\.\d+){2,})(?!\d|\.\d)"
    r"|(?<![A-Za-z])(?:v|go)(?P<tagged>\d+(?:\.\d+)+)(?!\d|\.\d)"
    r"|(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::\d{2})?(?!\d)(?:\s*(?P<ampm>[ap])\.?\s?m\b\.?)?"
    r"|(?P<hour2>\d{1,2})\s?(?P<ampm2>[ap])\.?\s?m\b\.?"
    r"|(?P<wari>\d+割(?:\d+分)?(?:\d+厘)?|\d+分\d+厘)(?![\d秒])"
    rf"|(?P<composite>{_DIGITS}\s*(?:兆|億|万)(?:\s*\d+\s*(?:億|万|千))*(?:\s*\d+(?![\d.,千]))?)"
    rf"|(?P<sign>[-+])?(?P<number>{_DIGITS})"
    r")",
    re.I,
)
# A clock time's zone, as hours from UTC: "Eastern" and "ET" are either of their two offsets (the
# season decides). Ambiguous names (CST, IST) are not read.
_ZONES = {"UTC": (0,), "GMT": (0,), "Z": (0,), "EDT": (-4,), "EST": (-5,), "ET": (-5, -4), "Eastern": (-5, -4),
          "CDT": (-5,), "CT": (-6, -5), "Central": (-6, -5), "MDT": (-6,), "MST": (-7,), "MT": (-7, -6),
          "Mountain": (-7, -6), "PDT": (-7,), "PST": (-8,), "PT": (-8, -7), "Pacific": (-8, -7), "JST": (9,),
          "BST": (1,), "CET": (1,), "CEST": (2,)}  # fmt: skip
# Each pattern read at a figure's end (``match``) starts after a non-space, as a figure ends: a search
# that started inside a run of spaces would read the run again from each of its places.
_ZONE = re.compile(
    r"(?<!\s)\s*\(?(?P<zone>" + "|".join(sorted(_ZONES, key=len, reverse=True)) + r")(?![A-Za-z])"
    r"(?:\s?(?P<offset>[+-]\d{1,2})(?::?00)?(?!\d))?"
)
_SCALE = re.compile(r"(?<!\s)(?:\s*(百万|千万|万|億|兆|千|割)|\s*(thousand|million|billion|trillion|bn)\b)", re.I)
_COMPOSITE_PART = re.compile(r"(\d[\d,.]*)\s*(兆|億|万|千)?")
_CODE = re.compile(r"(?<![\d-])\d+(?:-\d+){2,}(?![\d-])")  # 1-1-2, 03-1234-5678: a number to dial, not figures
_NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12,
}  # fmt: skip


def _first_letters(words: Iterable[str]) -> str:
    """A lookahead for the first letters of ``words``, either case: a pattern that begins with one
    skips the positions that cannot start a match three times as fast."""
    letters = sorted({w[0].lower() for w in words} | {w[0].upper() for w in words})
    return "(?=[" + "".join(re.escape(letter) for letter in letters) + "])"


_SCALE_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_SMALL_NUMBER = "|".join(sorted(set(_NUMBER_WORDS) - {"hundred", "dozen"}, key=len, reverse=True))
_MULTIPLE = "hundred|dozen|" + "|".join(_SCALE_WORDS)
# An English number in words, read whole: "twenty-five", "two dozen", "one hundred and twenty", "a
# billion" ("one" alone is a pronoun as often as a number).
_NUMBER_WORD = re.compile(
    rf"{_first_letters(['a', 'one', *_NUMBER_WORDS])}(?<![A-Za-z-])(?:(?:a|one)(?=\s+(?:{_MULTIPLE})(?![A-Za-z]))|(?:{_SMALL_NUMBER})(?![A-Za-z]))"
    rf"(?:(?:[\s-]+(?:and\s+)?)(?:{_SMALL_NUMBER}|{_MULTIPLE}|one)(?![A-Za-z]))*(?![A-Za-z-])",
    re.I,
)
# Shares in words: "half of the", "a third of", "two-thirds of", "one in five": as a percentage, to a
# few points (a third of voters is 33% or 35%, not 23%).
_FRACTIONS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5, "tenth": 10}
_FRACTION = re.compile(
    _first_letters(["half", "a", "one", "two", "three", "1"])
    + r"(?<![A-Za-z-])(?<!first\s)(?<!second\s)(?<!latter\s)(?<!other\s)(?<!the\s)"
    r"(?:(?P<whole>half)(?=\s+(?:of\s+)?(?:the|all|its|their|his|her|our|those|these|them|us)\b)"
    r"|(?P<count>a|one|two|three)[\s-](?P<part>half|third|quarter|fifth|tenth)s?(?=\s+of\b)"
    r"|(?:one|1)\s+(?:in|out\s+of)\s+(?:every\s+)?(?P<every>two|three|four|five|six|seven|eight|nine|ten|\d{1,3})(?![\d.,]))",
    re.I,
)
# Multiples in words: "doubled", "twice", "tripled"; 倍 and "times" are one unit.
_MULTIPLES = {"twice": "2", "double": "2", "doubled": "2", "doubles": "2", "doubling": "2", "tripled": "3",
              "triples": "3", "trebled": "3", "tripling": "3", "quadrupled": "4", "quadrupling": "4", "halved": "0.5",
              "halving": "0.5"}  # fmt: skip
_MULTIPLE_WORD = re.compile(
    _first_letters(_MULTIPLES)
    + r"(?<![A-Za-z-])(?:"
    + "|".join(sorted(set(_MULTIPLES) - {"double"}, key=len, reverse=True))
    + r")(?![A-Za-z-])",
    re.I,
)
# The unit after a figure: a sign, a Japanese counter, or (English) the next word.
_UNIT_AFTER = re.compile(
    r"\s?(?P<sign>%|％|percent\b|per\s+cent\b|pct\b|km\b|kg\b|°\s?[FC]\b|℃|℉|[FC]\b(?![.'’]\w))"
    r"|(?P<ja>(?:か|カ|ヶ|ケ|ヵ|箇)?[一-龯々ァ-ヶー]{1,3})|(?P<tsu>つ)"
    r"|\s(?P<word>[A-Za-z]{2,})",
)
_UNIT_BEFORE = re.compile(r"(?P<currency>US\$|\$|€|£|¥|￥)\s?$")
_UNIT_WORDS = {
    "%": "%", "％": "%", "percent": "%", "per cent": "%", "pct": "%", "割": "%",
    "℃": "°c", "℉": "°f", "°c": "°c", "°f": "°f", "° c": "°c", "° f": "°f", "c": "°c", "f": "°f", "度": "°c",
    "名": "人", "ヶ月": "か月", "カ月": "か月", "ケ月": "か月", "ヵ月": "か月", "箇月": "か月",
    "ヶ国": "か国", "カ国": "か国", "ヵ国": "か国", "dollar": "$", "us$": "$", "ドル": "$", "yen": "円",
    "kilometre": "km", "kilometer": "km", "kms": "km", "kilogram": "kg", "kilogramme": "kg", "kgs": "kg",
    "kilo": "kg", "キロメ": "km", "キログ": "kg", "パーセ": "%", "メート": "m", "metre": "m", "meter": "m",
    "グラム": "g", "gram": "g", "マイル": "mile",
    "¥": "円", "￥": "円", "time": "倍", "fold": "倍", "euro": "€", "ユーロ": "€", "pound": "£", "people": "person", "persons": "person", "individual": "person",
}  # fmt: skip
# Words after an English figure that are no unit ("10 to 15 mph": 10's unit is unknown, not "to").
_NOT_UNITS = _word_set(
    "to and or of in on at the a an with from for per by as than is are was were be been has have "
    "had that this which who it its into over under up down more less fewer higher lower "
    "year-on-year percentage points point"
)
# Words between an English figure and its unit.
_BEFORE_UNIT = _word_set("total additional extra new active separate distinct different unique")
# Japanese counters whose figures are whole: 18歳未満 is 17歳以下.
_WHOLE_UNITS = _word_set("歳 人 件 校 個 台 回 世 社 店 票 チーム か国 人目 person vote seat team country")
# A number in kanji (三十五人, 二億三千万円, 第三回) is a figure only where it must be one, before a
# counter: never inside a word (一部, 一般, 十分, 万一), after 数, 何 or 幾 (数十人), nor a lone 一 (一人暮らし).
_KANJI_DIGITS = {d: n for n, d in enumerate("〇一二三四五六七八九")}
_KANJI_SMALL = {"十": 10, "百": 100, "千": 1000}
_KANJI_LARGE = {"万": 10**4, "億": 10**8, "兆": 10**12}
_KANJI_NUMERALS = frozenset("〇一二三四五六七八九十百千万億兆")
_KANJI_COUNTERS = "人名円件歳倍店社校個台回票点本枚戸棟機隻頭冊軒%％ドキメ"
_KANJI_FIGURE = re.compile(
    r"(?=[一二三四五六七八九十百千])(?<![数何幾余〇一二三四五六七八九十百千万億兆])"
    r"(?P<kanji>[一二三四五六七八九十百千][〇一二三四五六七八九十百千万億兆]*)"
    r"(?=[" + _KANJI_COUNTERS + r"]|[かカヶケヵ箇][国所月])"
)
# Years standing alone (2026 writeups) are dates; a number with a unit (2000 people) is a figure.
_YEAR = re.compile(r"(?:1[89]|20)\d\d")

# --- qualifiers ---------------------------------------------------------------------------------

# One bound for the words of either language: what the figure beside them may be.
_QUALIFIER_WORDS = {
    "at_least": ("以上", "少なくとも", "少なくても", "最低でも", "最低", "at least", "no less than", "not less than",
                 "no fewer than", "not fewer than", "a minimum of", "minimum of", "or more", "and over",
                 "and above", "or older"),
    "more_than": ("超え", "超", "を超える", "を超えた", "を上回る", "を上回った", "を上回り", "more than", "over",
                  "above", "exceeding", "in excess of", "greater than", "exceeded", "topped", "surpassed",
                  "upwards of", "north of"),
    "at_most": ("以下", "以内", "最大", "最高", "上限", "長くても", "多くても", "at most", "up to", "no more than",
                "not more than", "a maximum of", "maximum of", "or less", "or fewer", "and under", "or younger",
                "as many as", "as much as", "as high as"),
    "less_than": ("未満", "に届かず", "に届かなかった", "に満たない", "に満たず", "を下回る", "を下回った",
                  "less than", "fewer than", "under", "below", "fell short of", "short of"),
    "about": ("約", "およそ", "おおよそ", "程度", "前後", "ほぼ", "概ね", "おおむね", "about", "around",
              "approximately", "roughly", "an estimated", "circa", "c.", "ca.", "some", "or so"),
    # Approaching a figure from below or just past it: 1万人弱 is not 1万人強, nor "more than 10,000".
    "nearly": ("弱", "近く", "足らず", "nearly", "almost", "close to", "just under", "just below", "just shy of",
               "shy of", "slightly less than", "slightly fewer than", "a little under", "a little less than"),
    "just_over": ("強", "余り", "余", "just over", "just above", "slightly more than", "slightly over",
                  "a little over", "a little more than"),
    "exactly": ("一律", "ちょうど", "exactly", "precisely"),
    "plus": ("+",),  # 100+: 100 or more, as loosely as "more than 100"
}  # fmt: skip
_QUALIFIER_OF = {word: kind for kind, words in _QUALIFIER_WORDS.items() for word in words}
_BOUNDS = frozenset({"at_least", "more_than", "at_most", "less_than", "exactly", "plus"})
# Bounds that lean one way from a figure they round: "nearly 300" is below 300, 1万人強 above 1万.
_LEANS = {"nearly": -1, "just_over": 1}
# Words with other senses count only beside a figure: before it (約1,000, up to 5) or after it (65歳以上).
_BEFORE_FIGURE = {"少なくとも", "少なくても", "最低でも", "最低", "最大", "最高", "約", "およそ", "おおよそ", "ほぼ",
                  "概ね", "おおむね", "超", "一律", "ちょうど", "長くても", "多くても", "上限"}  # fmt: skip
_BEFORE_FIGURE |= {w for w in _QUALIFIER_OF if w.isascii() and w != "+" and not w.startswith(("or ", "and "))}
_AFTER_FIGURE = {"以上", "以下", "以内", "未満", "超え", "超", "を超える", "を超えた", "程度", "前後", "上限",
                 "を上回る", "を上回った", "を上回り", "を下回る", "を下回った", "に届かず", "に届かなかった",
                 "に満たない", "に満たず", "弱", "近く", "足らず", "強", "余り", "余", "+"}  # fmt: skip
_AFTER_FIGURE |= {w for w in _QUALIFIER_OF if w.startswith(("or ", "and "))}
# 強 and 弱 after a figure only on their own: 5強 is a bound, 強い and 弱まる are words.
_NOT_AFTER_LEAN = frozenset("いくかまめさ")


def _words(words: Iterable[str]) -> str:
    return "|".join(re.escape(word).replace(r"\ ", r"\s+") for word in sorted(words, key=len, reverse=True))


# A word before a figure is looked for just before each figure (figures are few, positions many); a
# word after one, where a figure ends.
_QUALIFIER_BEFORE = re.compile(
    r"(?<!\s)\s*+(?:(?:\$SU|[$€£¥￥])\s*+)?(?P<before>"
    + "|".join(re.escape(w[::-1]).replace(r"\ ", r"\s+") for w in sorted(_BEFORE_FIGURE, key=len, reverse=True))
    + ")",
    re.I,
)  # written backwards, matched from the figure back
_QUALIFIER_AFTER = re.compile(
    rf"(?<=[\d〇一二三四五六七八九十百千万億兆割])[^\d\n。.!?！？、，,;；]{{0,4}}?(?P<after>{_words(_AFTER_FIGURE)})",
    re.I,
)
_BEFORE_WINDOW = 40  # characters: the longest word before a figure, its spaces and its currency
_ASCII_WORD_EDGE = re.compile(r"[A-Za-z]")

# --- negations ----------------------------------------------------------------------------------

# Negating 不-/未-/非- words: a list, since 未来 (future), 未満 (under), 非常に (very), 不動産 (real
# estate), 不足 (a shortage), 不正 (fraud) and 不可欠 (indispensable) negate nothing.
_NEGATING_STEMS = {
    "不": "要 可能 可(?!欠) 明 十分 正確 適切 適用 採用 支持 承認 許可 参加 使用 在 一致 合格 成立 同意 実施 開示 公表 対応 確か 確実 透明 備 通 払い",
    "未": "定 確認 確定 実施 公表 公開 発表 承認 対応 完成 完了 整備 導入 定義 加入 納 払い 解決 回答 提出 達 到達 使用 開始 達成 検証 報告 登録",
    "非": "公開 公表 対応 課税 営利 表示 推奨 該当 開示 正規 公式 対象",
    "無": "効 料 償",  # 無効 negates 有効: the other side asserts the 有- word
}  # fmt: skip
_PREFIXED = "|".join(
    f"{prefix}(?:{'|'.join(sorted(stems.split(), key=len, reverse=True))})" for prefix, stems in _NEGATING_STEMS.items()
)
_NEGATION = re.compile(
    r"(?:では|じゃ)(?:ない|なかった|なく|ありません)"
    r"|ません(?:でした)?"
    r"|(?<![少危幼汚切拙儚])(?<!違い)(?<!すく)な(?:い(?!し)|かった|く|ければ)"
    r"|せず|(?<=[ぁ-ん])ずに|(?<=[か-ごさ-ぞた-どな-のま-もら-ろわ])ず(?=[、。，]|$)|無い|無く|無し"
    rf"|{_PREFIXED}"
    r"|(?:対象|適用|補償|支給|助成)外"
    r"|見送(?:る|り|った|られ|って|ら)|見合わせ|断念|否決|撤回"
    r"|(?<![A-Za-z])(?:(?:not|never|none|neither|nor|without|cannot|nothing|hardly|scarcely)(?![A-Za-z])"
    r"|(?:fail(?:ed|s|ing)?|refus(?:ed|es|ing|e))\s+to(?![A-Za-z])"
    r"|(?:stop(?:ped|s|ping)?|ceas(?:ed|es|e|ing)|quit(?:s|ting)?)(?=\s+[A-Za-z]+ing(?![A-Za-z])))"
    r"|(?<![A-Za-z])no(?![A-Za-z])(?!\.?\s*\d)"
    r"|n['’]t(?![A-Za-z])",
    re.I,
)
# Forms with a negative in them that negate nothing: "not only A but B" asserts A; なければならない is
# "must"; 欠かせない, "indispensable". A negation inside one of these is no negation.
_NOT_NEGATING = re.compile(
    r"(?:だけ|のみ|ばかり)(?:で|じゃ)(?:は)?なく|のみならず|欠か(?:せない|せず|せません|すことのできない|すことができない)"
    r"|(?:間)?違いない|違いありません|なければ(?:ならな|ならず|なりません|いけな|いけません)|なくては(?:ならな|ならず|なりません|いけな)"
    r"|ねばならな|ざるを(?:得|え)(?:ない|ません|ず)|かもしれ(?:ない|ません)|に限らず|少なく(?:ない|ありません)"
    r"|過言では(?:ない|ありません)|(?:ほか|他)なら(?:ない|ず)|に(?:すぎ|過ぎ)(?:ない|ません)|(?:しか|ほか|他)(?:ない|ありません)"
    r"|(?:の|ん)?(?:では|じゃ)ない(?:か|でしょうか|だろうか)|ないでしょうか|限りない|絶えない|仕方(?:が)?ない|しかたがない"
    r"|やむを得(?:ない|ず)|余儀なく|問題(?:は)?(?:ない|ありません)"
    # a negative negated asserts (ないわけではない, なくはない); "not necessarily" only hedges
    r"|な(?:い|かった)(?:わけ|訳)では(?:ない|なかった|ありません)|なくは(?:ない|ありません)|ないことは(?:ない|ありません)"
    r"|ないとは(?:言え|いえ)(?:ない|ません)|とは限ら(?:ない|ず|ません)|とも限ら(?:ない|ません)"
    r"|必ずしも[^、。！？\n]{0,20}?(?:ではない|ない|ません)"
    r"|(?<![A-Za-z])(?:not\s+(?:only|just|merely|simply|least|to\s+mention|uncommon|unlike|unusual|less\s+than|fewer\s+than|more\s+than"
    r"|necessarily|without|unheard|unknown|unlikely|unreasonable|unprecedented|unfamiliar|insignificant|impossible"
    r"|infrequent(?:ly)?|inconsiderable)"
    r"|no\s+(?:less|fewer|more)\s+than|no\s+doubt|no\s+wonder|no\s+matter|no\s+sooner|none\s+other|nothing\s+but"
    r"|never\s+mind|second\s+to\s+none|can(?:not|['’]t)\s+help)(?![A-Za-z])",
    re.I,
)
_SENTENCE_END = re.compile(r"[。！？!?\n]|[.;](?=\s|$)")
_CLAUSE_END = re.compile(r"[。！？!?\n、，,;:：「」『』（）()]|[.](?=\s|$)")
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_JA_RUN = re.compile(r"[一-龯々ァ-ヶー]{2,}|[一-龯々][ぁ-ん]{0,1}(?=[一-龯々ァ-ヶー])")
_JA_RUN_ONLY = re.compile(r"[一-龯々ァ-ヶー]{2,}")
_EN_STOP = _word_set(
    "a an the be is are was were been being am do does did have has had having will would shall "
    "should can could may might must it its this that these those there here they them their he she "
    "his her we us our you your i me my to of in on at by for with from as into onto about also yet "
    "even still really very any all some much many so too just only ever get got getting one and or "
    "but if then than such no not never none neither nor without cannot nothing hardly scarcely longer anymore "
    "fail failed fails failing refuse refused refuses refusing stop stopped stops stopping cease ceased "
    "ceases ceasing quit quits quitting"
)
# How many content words after an English negation make what it negates ("aren't expecting a rate
# cut": expecting, rate, cut), and how many nouns before a Japanese one (値上げは行わない: 値上, 行).
_EN_SCOPE, _JA_SCOPE = 3, 2
# An English negation's words are looked for in the next this many characters of its clause at most:
# 10,000 "not " in one clause read the rest of the clause after each one (12 s for one comparison).
_EN_SCOPE_CHARS = 300


@dataclass(frozen=True)
class Finding:
    kind: Kind
    text: str  # as written
    start: int  # code points into the text it was found in, end exclusive
    end: int
    value: str  # what is compared: 2024-04-01, 2024-04, 2024, --04-01, FY2024, W2; 14100000; at_least; not
    unit: str = ""  # figures: %, °f, 人, $, goal, time, version; "" when unknown
    bound: str = ""  # figures: the qualifier bound to it (at_least, about, …); qualifiers: the figure's start
    precision: str = ""  # figures: the step of its last written digit (5万: 10000; 41.3: 0.1)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "start": self.start, "end": self.end, "value": self.value}


@dataclass(frozen=True)
class Hint:
    """One finding of a comparison: what of ``kind`` differs, is not stated, or is negated on one side,
    with the claim's findings it is about and the evidence's (none for "not stated")."""

    outcome: Outcome
    kind: Kind
    claim: tuple[Finding, ...]
    passage: tuple[Finding, ...] = ()

    @property
    def needs_attention(self) -> bool:
        return self.outcome in ATTENTION

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "kind": self.kind,
            "claim": [f.to_json() for f in self.claim],
            "passage": [f.to_json() for f in self.passage],
        }


@dataclass(frozen=True)
class Reading:
    """What ``compare`` needs of one text, read once: a text cited many times is read once."""

    text: str
    findings: tuple[Finding, ...]
    asserted: frozenset[str]  # the words (stems, Japanese noun runs) of its sentences with no negation
    # each negation, what it negates (each word as the set of its forms), and whether it is English
    scopes: tuple[tuple[Finding, tuple[frozenset[str], ...], bool], ...]
    sentence_ends: tuple[int, ...]  # where each sentence ends
    sentence_words: tuple[frozenset[str], ...]  # what each is about: its words, and its figures' values
    cut: bool = False  # the text given was longer than MAX_COMPARED_CHARS: ``text`` is its beginning

    def context(self, finding: Finding) -> frozenset[str]:
        """The words of the sentence ``finding`` stands in."""
        index = bisect_right(self.sentence_ends, finding.start)
        return self.sentence_words[min(index, len(self.sentence_words) - 1)] if self.sentence_words else frozenset()


@dataclass(frozen=True)
class Comparison:
    claim: tuple[Finding, ...]
    passage: tuple[Finding, ...]
    hints: tuple[Hint, ...] = field(default=())
    # The claim or the evidence is longer than MAX_COMPARED_CHARS: their first MAX_COMPARED_CHARS
    # characters were compared, nothing after.
    cut: bool = False

    @property
    def differs(self) -> bool:
        """Whether something needs attention: a value that differs, or a negation that does."""
        return any(hint.needs_attention for hint in self.hints)

    @property
    def negation_differs(self) -> bool:
        return any(hint.outcome == "negation_differs" for hint in self.hints)

    @property
    def label(self) -> Label:
        """The pair's one word, as the labelled set says it: differs, not_stated or agree."""
        if self.differs:
            return "differs"
        return "not_stated" if self.hints else "agree"

    def kinds(self, outcome: Outcome) -> list[Kind]:
        found = {hint.kind for hint in self.hints if hint.outcome == outcome}
        return [kind for kind in KINDS if kind in found]

    def differs_in(self, kinds: Iterable[str]) -> bool:
        wanted = set(kinds)
        return any(hint.needs_attention and hint.kind in wanted for hint in self.hints)

    @property
    def differing_in_claim(self) -> tuple[Finding, ...]:
        """The claim's findings to mark: those that differ from the evidence."""
        return _sorted_unique(f for hint in self.hints if hint.needs_attention for f in hint.claim)

    @property
    def differing_in_passage(self) -> tuple[Finding, ...]:
        return _sorted_unique(f for hint in self.hints if hint.needs_attention for f in hint.passage)

    @property
    def not_stated_in_claim(self) -> tuple[Finding, ...]:
        return _sorted_unique(f for hint in self.hints if hint.outcome == "not_stated" for f in hint.claim)

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": [f.to_json() for f in self.claim],
            "passage": [f.to_json() for f in self.passage],
            "hints": [hint.to_json() for hint in self.hints],
            "label": self.label,
            "differs": self.differs,
            "cut": self.cut,
        }


def compare(claim: str, passage: str) -> Comparison:
    """The one comparison of a claim with its evidence (a quote, a snippet, a passage found)."""
    claim_read = read(claim)
    return compare_readings(claim_read, claim_read if passage == claim else read(passage))


def read(text: str) -> Reading:
    """What ``compare`` needs of ``text``: of its first MAX_COMPARED_CHARS characters only."""
    cut = len(text) > MAX_COMPARED_CHARS
    text = text[:MAX_COMPARED_CHARS]
    found = findings(text)
    plain = folded(text)
    negations = [f for f in found if f.kind == "negation"]
    sentences = list(_sentences(plain))
    ends = [end for _, end in sentences]
    values: list[set[str]] = [set() for _ in sentences]
    for finding in found:
        if finding.kind in ("date", "figure") and sentences:
            values[min(bisect_right(ends, finding.start), len(sentences) - 1)].add(f"#{finding.value}")
    about = tuple(
        frozenset(_context_words(plain[start:end]) | more) for (start, end), more in zip(sentences, values, strict=True)
    )
    scopes = tuple(_scopes(plain, negations))
    return Reading(text, found, _asserted_words(plain, negations), scopes, tuple(ends), about, cut)


def compare_readings(claim: Reading, passage: Reading) -> Comparison:
    hints = [
        *_date_hints(claim.findings, passage.findings, _day_shifts(claim.findings, passage.findings)),
        *_figure_hints(claim, passage),
        *_negation_hints(claim, passage),
        *_direction_hints(claim, passage),
    ]
    order = {kind: n for n, kind in enumerate(KINDS)}
    hints.sort(key=lambda hint: (order[hint.kind], hint.claim[0].start if hint.claim else 0))
    return Comparison(claim.findings, passage.findings, tuple(hints), claim.cut or passage.cut)


def findings(text: str) -> tuple[Finding, ...]:
    """The dates, figures, qualifiers and negations of ``text``, in text order: of its first
    MAX_COMPARED_CHARS characters."""
    text = text[:MAX_COMPARED_CHARS]
    plain = folded(text)
    dates = list(_dates(text, plain))
    taken = sorted((d.start, d.end) for d in dates)
    figures = list(_figures(text, plain, taken))
    qualifiers = list(_qualifiers(text, plain, {f.start: f for f in figures if f.kind == "figure"}))
    bound: dict[int, str] = {}
    for qualifier in qualifiers:  # a bound outweighs "about" (長くても３か月程度: at most)
        if bound.get(int(qualifier.bound)) not in _BOUNDS:
            bound[int(qualifier.bound)] = qualifier.value
    figures = [replace(f, bound=bound[f.start]) if f.start in bound and f.kind == "figure" else f for f in figures]
    found = [*dates, *figures, *qualifiers, *_negations(text, plain)]
    return tuple(sorted(found, key=lambda finding: (finding.start, finding.end)))


def _sorted_unique(found: Iterable[Finding]) -> tuple[Finding, ...]:
    return tuple(sorted(set(found), key=lambda finding: (finding.start, finding.end)))


# --- dates --------------------------------------------------------------------------------------


def _dates(text: str, plain: str) -> Iterable[Finding]:
    periods = list(_PERIOD.finditer(plain)) if _MAYBE_PERIOD.search(plain) else []
    spans = [m.span() for m in periods]
    ends = [stop for _, stop in spans]
    for match in periods:
        period = _period_value(match.groupdict())
        if period is not None:
            yield Finding("date", text[match.start() : match.end()], match.start(), match.end(), period)
    for match in _DATE.finditer(plain):
        if spans and _inside(spans, ends, *match.span()):
            continue
        value = _date_value(match)
        if value is not None:
            start, end = _date_span(match)
            if _ends_a_fiscal_year(plain, start, end, value):
                value = f"FYE{value}"
            yield Finding("date", text[start:end], start, end, value)


_YEAR_ENDED = re.compile(r"year\s+end(?:ed|ing|s)?\s+(?:on\s+)?$", re.I)


def _ends_a_fiscal_year(plain: str, start: int, end: int, value: str) -> bool:
    """A date that names a fiscal year by its end: "the fiscal year ended June 30, 2024", 2026年3月期."""
    if value.startswith(("W", "D", "FY", "-")) or len(value) < 7:
        return False
    if plain.startswith("期", end):
        return True
    before = max(start - 30, 0)
    return "ear" in plain[before:start] and bool(_YEAR_ENDED.search(plain, before, start))


def _date_span(match: re.Match[str]) -> tuple[int, int]:
    """The date itself: for "in 2024", the year, not the word before it."""
    for group in ("y8", "mn9"):
        if match.group(group):
            return match.span(group)
    return match.span()


def _period_value(groups: dict[str, str | None]) -> str | None:
    """A quarter, a half or a run of months: ``P`` and its first and last months (``P2025-04:2025-06``);
    a fiscal quarter or half whose months are not given: ``FQ2025-2``, ``FH2025-1``."""
    if groups["pr_m1"]:
        first, last = int(groups["pr_m1"] or 0), int(groups["pr_m2"] or 0)
        if not 1 <= first <= last <= 12:
            return None
        if not groups["pr_y"]:
            return f"PM{first:02d}:{last:02d}"  # 4〜6月期: months of a year not given
        year = int(groups["pr_y"])
        return _period(year * 12 + first - 1, year * 12 + last - 1)
    if groups["fe_y"]:  # the fiscal year ends in month fe_m of fe_y: its first month is the next one a year before
        end_month = int(groups["fe_m"] or 0)
        if not 1 <= end_month <= 12:
            return None
        start = int(groups["fe_y"] or 0) * 12 + end_month - 12
        if groups["fe_half"]:
            half = 0 if groups["fe_half"].startswith("上") else 1
            return _period(start + 6 * half, start + 6 * half + 5)
        quarter = _KANJI_QUARTERS[groups["fe_q"] or "1"] - 1
        return _period(start + 3 * quarter, start + 3 * quarter + 2)
    if groups["jp_y"]:
        return _japanese_period(groups)
    year_text = groups["q1_y"] or groups["q2_y"] or groups["h1_y"] or groups["q3_y"]
    if not year_text:
        return None
    fiscal = bool(groups["fq"] or groups["fq1"] or groups["fq2"] or groups["fq3"])
    if groups["h1"] or groups["q3_part"] == "half":
        number, months = int(groups["h1"] or _ORDINALS[(groups["q3"] or "").lower()]), 6
    else:
        number, months = int(groups["q1"] or groups["q2"] or _ORDINALS[(groups["q3"] or "").lower()]), 3
    if fiscal:
        return f"F{'H' if months == 6 else 'Q'}{year_text}-{number}"
    start = int(year_text) * 12 + (number - 1) * months
    return _period(start, start + months - 1)


def _japanese_period(groups: dict[str, str | None]) -> str:
    """2025年前半 (January to June 2025), 2025年第3四半期; of a 年度 (fiscal), its half or quarter."""
    half = groups["jp_half"]
    number = (1 if half.startswith(("前", "上")) else 2) if half else _KANJI_QUARTERS[groups["jp_q"] or "1"]
    months = 6 if half else 3
    if groups["jp_fy"]:
        return f"F{'H' if half else 'Q'}{groups['jp_y']}-{number}"
    start = int(groups["jp_y"] or 0) * 12 + (number - 1) * months
    return _period(start, start + months - 1)


def _period(first: int, last: int) -> str:
    return f"P{first // 12:04d}-{first % 12 + 1:02d}:{last // 12:04d}-{last % 12 + 1:02d}"


def _date_value(match: re.Match[str]) -> str | None:
    groups = match.groupdict()
    if groups["decade"]:
        return f"D{groups['decade']}"
    if groups["wd"]:
        return f"W{_WEEKDAYS[groups['wd'][:3].lower()]}"
    if groups["jwd"] or groups["jwd2"]:
        return f"W{_JA_WEEKDAYS[groups['jwd'] or groups['jwd2']]}"
    fiscal = bool(groups["fiscal"] or groups["fiscal2"] or groups["y7"])
    if groups["era"]:
        era_year = 1 if groups["era_year"] == "元" else int(groups["era_year"])
        year: int | None = _ERAS[groups["era"]] + era_year
    else:
        year_text = next((groups[g] for g in ("y2", "y4", "y5", "y5b", "y6", "y7", "y8") if groups[g]), None)
        year = int(year_text) if year_text else None
    month_text = next((groups[g] for g in ("m1", "m2", "m3", "m4") if groups[g]), None)
    month_name = groups["mn5"] or groups["mn6"] or groups["mn9"] or groups["mn10"]
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
    2024年4月1日, 4月1日 with April 1, 2024; a fiscal year only with a fiscal year; a weekday with the
    same weekday; a decade with its years; a fiscal year named by its end (2026年3月期) with the
    fiscal year named by the year it ends or by the year it starts, as conventions differ."""
    if one.startswith("W") or other.startswith("W"):
        return one == other
    if one.startswith(("P", "FQ", "FH")) or other.startswith(("P", "FQ", "FH")):
        return _periods_agree(one, other)
    if one.startswith("D") or other.startswith("D"):
        decade, year = (one, other) if one.startswith("D") else (other, one)
        return year.startswith(decade[1:]) or year.removeprefix("FY").startswith(decade[1:])
    if one.startswith("FYE") or other.startswith("FYE"):
        end, named = (one, other) if one.startswith("FYE") else (other, one)
        if named.startswith("FYE"):
            return named[:10] == end[:10]
        return named.startswith("FY") and named[2:6] in (end[3:7], str(int(end[3:7]) - 1))
    a, b = _date_parts(one), _date_parts(other)
    if a[0] != b[0]:
        return False
    shared = [(x, y) for x, y in zip(a[1:], b[1:], strict=True) if x is not None and y is not None]
    return bool(shared) and all(x == y for x, y in shared)


def _months(value: str) -> tuple[int, int] | None:
    """The first and last month (as year × 12 + month - 1) of a period or a calendar date with a year."""
    if value.startswith("P"):
        first, last = value[1:].split(":")
        return _month_index(first), _month_index(last)
    if value.startswith(("F", "D", "W", "-")):
        return None
    year, _, rest = value.partition("-")
    if not year.isdigit():
        return None
    month = rest[:2]
    if not month:
        return int(year) * 12, int(year) * 12 + 11
    return int(year) * 12 + int(month) - 1, int(year) * 12 + int(month) - 1


def _month_index(value: str) -> int:
    year, month = value.split("-")
    return int(year) * 12 + int(month) - 1


def _periods_agree(one: str, other: str) -> bool:
    """A quarter, a half or a run of months agrees with a date inside it, a period inside it or one
    it lies in, and a year it lies in; a fiscal quarter (months unknown) only with itself."""
    if one.startswith(("FQ", "FH")) or other.startswith(("FQ", "FH")):
        return one == other
    if one.startswith("PM") or other.startswith("PM"):
        bare, dated = (one, other) if one.startswith("PM") else (other, one)
        first, last = dated[6:8], dated[-2:]
        return dated.startswith("P") and f"PM{first}:{last}" == bare
    a, b = _months(one), _months(other)
    if a is None or b is None:
        return False
    return (a[0] <= b[0] and b[1] <= a[1]) or (b[0] <= a[0] and a[1] <= b[1])


def _date_sort(value: str) -> str:
    """What a date can be held against: a weekday against a weekday, a date with a year against one
    with a year, a month against a month."""
    if value.startswith("W"):
        return "weekday"
    _, year, month, _ = _date_parts(value)
    return "year" if year else ("month" if month else "day")


def _comparable_dates(one: str, other: str) -> bool:
    if one.startswith(("FQ", "FH")) or other.startswith(("FQ", "FH")):
        return one[:2] in ("FQ", "FH") and other[:2] in ("FQ", "FH")  # a fiscal quarter only with one
    if one.startswith("P"):  # the claim's period against the passage's, never a date of the passage's
        return other.startswith("P")  # (a page's day or month is when it was published or announced)
    if other.startswith("P"):  # the claim's month against the passage's period
        return _months(one) is not None and one.count("-") == 1
    if one.startswith("FYE") or other.startswith("FYE"):
        return one.startswith("FY") and other.startswith("FY")  # a fiscal year, never a calendar date
    if one.startswith("D") or other.startswith("D"):
        return _date_sort(one.removeprefix("D")) == _date_sort(other.removeprefix("D")) == "year"
    sorts = {_date_sort(one), _date_sort(other)}
    if "weekday" in sorts:
        return sorts == {"weekday"}
    if sorts == {"year"}:
        return True
    return _date_parts(one)[2] is not None and _date_parts(other)[2] is not None  # both name a month


def _day_shifts(claim: Sequence[Finding], passage: Sequence[Finding]) -> frozenset[int]:
    """The days by which the passage's calendar stands ahead of the claim's where both give one moment
    in two zones (9 p.m. EDT on July 15 is 01:00 UTC on July 16: 1)."""
    zoned = [f for f in claim if f.unit == "time" and "@" in f.value][:_MAX_ZONED]
    if not zoned:
        return frozenset()
    others = [f for f in passage if f.unit == "time" and "@" in f.value][:_MAX_ZONED]
    return frozenset(shift for one in zoned for other in others for shift in time_shifts(one, other) or ()) - {0}


_MAX_ZONED = 20


def _shifted(value: str, days: int) -> str:
    """A date moved by ``days``: a weekday, a day with or without its year; others as they are."""
    if value.startswith("W"):
        return f"W{(int(value[1:]) - 1 + days) % 7 + 1}"
    if value.startswith(("P", "F", "D")):
        return value
    fiscal, year, month, day = _date_parts(value)
    if fiscal or month is None or day is None or value.startswith(("D", "FY")):
        return value
    try:
        moved = date(int(year or 2001), int(month), int(day)) + timedelta(days=days)
    except ValueError:
        return value
    return moved.isoformat() if year else moved.strftime("--%m-%d")


def _date_hints(claim: Sequence[Finding], passage: Sequence[Finding], shifts: frozenset[int]) -> Iterable[Hint]:
    """Each date of the claim that no date of the passage agrees with: differs when the passage gives
    a date it can be held against that agrees with none of the claim's, else not stated. Where the two
    give one moment in two zones (``shifts``), a claim's date agrees with the passage's day then."""
    in_claim = [f for f in claim if f.kind == "date"]
    if shifts:
        in_claim = [replace(f, value=_shifted(f.value, next(iter(shifts)))) for f in in_claim]
    in_passage = [f for f in passage if f.kind == "date" or _year_like(f)]
    if not in_claim:
        return
    by_value: dict[str, list[Finding]] = {}
    for finding in in_passage:
        by_value.setdefault(finding.value, []).append(finding)
    passage_values = list(by_value)[:_MAX_DISTINCT]
    claim_values = list({f.value: None for f in in_claim})[:_MAX_DISTINCT]
    unmatched = [
        v for v in passage_values if v not in claim_values and not any(_dates_agree(v, c) for c in claim_values)
    ]
    for finding in in_claim:
        if finding.value in by_value or any(_dates_agree(finding.value, v) for v in passage_values):
            continue
        against = [v for v in unmatched if _comparable_dates(finding.value, v)]
        if against:
            yield Hint("differs", "date", (finding,), tuple(f for v in against for f in by_value[v]))
        else:
            yield Hint("not_stated", "date", (finding,))


# A hostile text of thousands of distinct dates or figures is held against its first this many, and
# no more than this many pairs are weighed in all.
_MAX_DISTINCT, _MAX_PAIRS = 500, 200_000


# --- figures ------------------------------------------------------------------------------------


def _figures(text: str, plain: str, taken: list[tuple[int, int]]) -> Iterable[Finding]:
    """Numbers outside the dates (``taken``: their spans, in order) with their units; a year standing
    alone is a date. Their bounds are put on after (``findings``)."""
    date_ends = [stop for _, stop in taken]
    codes = [m.span() for m in _CODE.finditer(plain)]
    code_ends = [stop for _, stop in codes]
    for match in _FIGURE.finditer(plain):
        start, end = match.span()
        if _inside(taken, date_ends, start, end) or _inside(codes, code_ends, start, end):
            continue
        read = _figure_value(match, plain)
        if read is None:
            continue
        value, precision, unit, end = read
        if match.group("sign"):
            start += 1  # the sign is read into the value; the figure's span is its digits
        unit = unit or _unit(plain, start, end)
        if not unit and _YEAR.fullmatch(value) and "," not in match.group(0):
            yield Finding("date", text[start:end], start, end, value)
            continue
        yield Finding("figure", text[start:end], start, end, value, unit, "", precision)
    yield from _kanji_figures(text, plain)
    yield from _word_figures(text, plain)


def _kanji_figures(text: str, plain: str) -> Iterable[Finding]:
    """The numbers written in kanji before a counter or after 第 (三十五人, 二億三千万円, 第三回)."""
    for match in _KANJI_FIGURE.finditer(plain):
        start, end = match.span()
        numeral = match.group(0)
        ordinal = start > 0 and plain[start - 1] == "第"
        if numeral == "一" and not ordinal:
            continue  # 一人暮らし, 一回り: a word more often than a count
        value, step = _kanji_number(numeral)
        yield Finding("figure", text[start:end], start, end, str(value), _unit(plain, start, end), "", str(step))


def _kanji_number(numeral: str) -> tuple[int, int]:
    """The value of a number in kanji and the step of its last place: 二億三千万 (230000000, 10⁴),
    千二百 (1200, 1), 二〇二五 (2025, 1)."""
    total, section, current, step = 0, 0, 0, 1
    for char in numeral:
        if char in _KANJI_DIGITS:
            current = current * 10 + _KANJI_DIGITS[char]
        elif char in _KANJI_SMALL:
            section, current = section + (current or 1) * _KANJI_SMALL[char], 0
        else:
            total += (section + current or 1) * _KANJI_LARGE[char]
            section, current, step = 0, 0, _KANJI_LARGE[char]
    if section or current:
        step = 1
    return total + section + current, step


def _word_figures(text: str, plain: str) -> Iterable[Finding]:
    """The figures written in English words: numbers, shares and multiples."""
    shares = [m.span() for m in _FRACTION.finditer(plain)]
    share_ends = [stop for _, stop in shares]
    for match in _NUMBER_WORD.finditer(plain):
        start, end = match.span()
        if _inside(shares, share_ends, start, end):
            continue  # "five" of "one in five"
        value, step = _number_in_words(match.group(0))
        yield Finding("figure", text[start:end], start, end, _plain(value), _unit(plain, start, end), "", _plain(step))
    for match in _FRACTION.finditer(plain):
        start, end = match.span()
        if match.group("whole"):
            share = Decimal(50)
        elif match.group("every"):
            every = match.group("every").lower()
            share = Decimal(100) / (int(every) if every.isdigit() else _NUMBER_WORDS[every])
        else:
            count = _NUMBER_WORDS.get(match.group("count").lower(), 1)
            share = Decimal(100) * count / _FRACTIONS[match.group("part").lower()]
        yield Finding("figure", text[start:end], start, end, _plain(share.quantize(Decimal("0.1"))), "%", "", "5")
    for match in _MULTIPLE_WORD.finditer(plain):
        start, end = match.span()
        multiple = _MULTIPLES[match.group(0).lower()]
        yield Finding("figure", text[start:end], start, end, multiple, "倍", "", "1")


def _number_in_words(words: str) -> tuple[Decimal, Decimal]:
    """The value of an English number in words and the step of its last word: "two dozen" (24, 12),
    "one hundred and twenty" (120, 1), "a billion" (10⁹, 10⁹)."""
    total, current, step = 0, 0, 1
    for word in re.findall(r"[a-z]+", words.lower()):
        if word in ("a", "one"):
            current, step = current + 1, 1
        elif word == "dozen":
            current, step = (current or 1) * 12, 1
        elif word == "hundred":
            current, step = (current or 1) * 100, 100
        elif word in _SCALE_WORDS:
            total, current, step = total + (current or 1) * _SCALE_WORDS[word], 0, _SCALE_WORDS[word]
        elif word in _NUMBER_WORDS:
            current, step = current + _NUMBER_WORDS[word], 1
    return Decimal(total + current), Decimal(step)


def _inside(spans: list[tuple[int, int]], ends: list[int], start: int, end: int) -> bool:
    index = bisect_right(ends, start)  # the first span ending after this one starts
    return index < len(spans) and spans[index][0] < end


def _figure_value(match: re.Match[str], plain: str) -> tuple[str, str, str, int] | None:
    """The value, precision and (for a time or a version) unit of a figure, and where it ends with
    its scale."""
    end = match.end()
    if match.group("version"):
        return match.group("version"), "0", "version", end
    if match.group("tagged"):  # v1.31, go1.24: a release, named by its version, not a decimal
        return match.group("tagged"), "0", "version", end
    if match.group("hour") is not None or match.group("hour2") is not None:
        hour, minute = int(match.group("hour") or match.group("hour2")), int(match.group("minute") or 0)
        if hour > 24 or minute > 59 or (match.group("hour2") and not 1 <= hour <= 12):
            return None
        ampm = (match.group("ampm") or match.group("ampm2") or "").lower()
        hour = hour % 12 + (12 if ampm == "p" else 0) if ampm else hour
        return f"{hour:02d}:{minute:02d}{_zone_of(plain, end)}", "0", "time", end
    if match.group("wari"):  # 3割2分5厘: 32.5%
        parts = dict(
            (scale, int(number)) for number, scale in re.findall(r"(?<!\d)(\d+)(割|分|厘)", match.group("wari"))
        )
        share = Decimal(parts.get("割", 0) * 10 + parts.get("分", 0)) + Decimal(parts.get("厘", 0)) / 10
        step = {"割": Decimal(10), "分": Decimal(1), "厘": Decimal("0.1")}[match.group("wari")[-1]]
        return _plain(share), _plain(step), "%", end
    if match.group("composite"):
        total, precision = Decimal(0), Decimal(1)
        for number, scale in _COMPOSITE_PART.findall(match.group("composite")):
            digits = _decimal(number_value(number))
            if digits is None:
                return None
            factor = _SCALES[scale] if scale else 1
            total += digits * factor
            precision = _step(number_value(number)) * factor
        return _plain(total), _plain(precision), "", end
    number = number_value(match.group("number"))
    value = _decimal(number)
    if value is None:
        return None
    precision = _step(number)
    scale = _SCALE.match(plain, end)
    unit = ""
    if scale:
        word = (scale.group(1) or scale.group(2)).lower()
        value, precision = value * _SCALES[word], precision * _SCALES[word]
        end = scale.end()
        unit = "%" if word == "割" else ""
    if match.group("sign") == "-":
        value = -value
    return _plain(value), _plain(precision), unit, end


def _zone_of(plain: str, end: int) -> str:
    """The zone after a clock time, as its offsets from UTC in minutes (``@-300,-240``), or ""."""
    zone = _ZONE.match(plain, end)
    if zone is None:
        return ""
    hours = _ZONES[zone.group("zone")]
    if zone.group("offset"):
        if hours != (0,):
            return ""  # EST+1 says nothing clear
        hours = (int(zone.group("offset")),)
    return "@" + ",".join(str(h * 60) for h in hours)


def time_shifts(claim: Finding, passage: Finding) -> set[int] | None:
    """Whether two clock times are one moment: None when not; else the days by which the passage's
    calendar stands ahead of the claim's at that moment (9 p.m. EDT is 01:00 UTC the next day: {1}).
    Without a zone on both sides, times are compared as written."""
    one, _, one_zones = claim.value.partition("@")
    other, _, other_zones = passage.value.partition("@")
    if not one_zones or not other_zones:
        return {0} if one == other else None
    one_minutes, other_minutes = _minutes(one), _minutes(other)
    shifts = set()
    for one_offset in one_zones.split(","):
        for other_offset in other_zones.split(","):
            one_utc, other_utc = one_minutes - int(one_offset), other_minutes - int(other_offset)
            if (one_utc - other_utc) % 1440 == 0:
                shifts.add((one_utc - other_utc) // 1440)
    return shifts or None


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _step(number: str) -> Decimal:
    """The step of a number's last written digit: 41.3 → 0.1, 5 → 1."""
    decimals = len(number.partition(".")[2])
    return Decimal(1).scaleb(-decimals)


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


# A figure that is the gap between two others: "five more than v1.30", 「v1.30より10件多い」.
# ``(?<!\s)``: read only from a figure's end (``match`` at it): a search through a run of spaces would
# start the run again at each of them (tests/test_regex_linear.py).
_GAP_AFTER = re.compile(r"(?<!\s)\s*(?:more|fewer|less|higher|lower|greater)\s+than\b", re.I)
_JA_GAP_AFTER = re.compile(r"(?:[一-龯々ァ-ヶー]{1,3})?(?:多|少)")
GAP = "±"  # the mark a gap's unit starts with


def _unit(plain: str, start: int, end: int) -> str:
    """The unit of a figure; a gap's is marked (``±件``): it is held only against gaps, never against
    the counts it lies between (10件多い is not 11の機能)."""
    unit = _counted_unit(plain, start, end)
    if _GAP_AFTER.match(plain, end) or (plain[max(start - 2, 0) : start] == "より" and _JA_GAP_AFTER.match(plain, end)):
        return GAP + unit
    return unit


def _counted_unit(plain: str, start: int, end: int) -> str:
    before = _UNIT_BEFORE.search(plain, max(start - 4, 0), start)
    if before:
        return _UNIT_WORDS.get(before.group("currency").lower(), before.group("currency"))
    after = _UNIT_AFTER.match(plain, end)
    if after is None:
        return ""
    if after.group("sign"):
        sign = re.sub(r"\s+", " ", after.group("sign").lower())
        return _UNIT_WORDS.get(sign, sign)
    if after.group("tsu"):
        return "個"  # 3つ = 3個: a count of things, never a year's 1年間
    if after.group("ja"):
        word = after.group("ja")
        if word[0] in "以未超約程前最上弱強余近足":
            return ""  # a qualifier, not a counter (65歳以上 has 歳; 65以上 has none)
        if word.startswith("キロ"):  # キロ alone is either キロメートル or キログラム
            return _UNIT_WORDS.get(word[:3], "キロ")
        if word[:3] in _UNIT_WORDS or word[:2] in _UNIT_WORDS:
            return _UNIT_WORDS.get(word[:3], _UNIT_WORDS.get(word[:2], ""))
        return _UNIT_WORDS.get(word, _UNIT_WORDS.get(word[:1], word[:2] if word[0] in "かカヶケヵ箇" else word[:1]))
    word = after.group("word").lower()
    if word in _BEFORE_UNIT:  # "150000 total pods": the unit is the noun after the adjective
        return _counted_unit(plain, start, after.end())
    if word in _NOT_UNITS:
        return ""
    word = word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
    return _UNIT_WORDS.get(word, word)


def _interval(finding: Finding) -> tuple[Decimal, bool, Decimal, bool] | None:
    """The figure as the values it allows: (low, low included, high, high included); None for a
    figure that is no number (a time, a version)."""
    value = _decimal(finding.value)
    if value is None or finding.unit in ("time", "version"):
        return None
    infinity = Decimal("Infinity")
    whole = finding.unit in _WHOLE_UNITS and value == value.to_integral_value()
    bound = finding.bound
    if bound == "less_than" and whole:
        bound, value = "at_most", value - 1
    if bound == "more_than" and whole:
        bound, value = "at_least", value + 1
    if bound in ("at_least", "plus"):
        return value, True, infinity, False
    if bound == "more_than":
        return value, False, infinity, False
    if bound == "at_most":
        return -infinity, False, value, True
    if bound == "less_than":
        return -infinity, False, value, False
    return value, True, value, True


def _overlap(one: tuple[Decimal, bool, Decimal, bool], other: tuple[Decimal, bool, Decimal, bool]) -> bool:
    low = max((one[0], not one[1]), (other[0], not other[1]))
    high = min((one[2], one[3]), (other[2], other[3]))
    if low[0] != high[0]:
        return low[0] < high[0]
    return not low[1] and high[1]


def _close(claim: Finding, passage: Finding) -> bool:
    """Whether two figures are one number written with more or fewer digits: the coarser rounds the
    finer (5万 and 5万1200; 75.2兆 and 75兆2320億; 約4割 and 41.3%)."""
    if claim.value == passage.value:
        return True
    if claim.unit == "time" and passage.unit == "time":
        return time_shifts(claim, passage) is not None
    a, b = _decimal(claim.value), _decimal(passage.value)
    if a is None or b is None or claim.unit in ("time", "version"):
        return False
    (fine, _), (coarse, step) = sorted(((a, _widened(claim)), (b, _widened(passage))), key=lambda pair: pair[1])
    # rounded half away from zero: 75 is not "around 70", 1,410万 is 約1,400万
    if coarse >= 0:
        return coarse - step / 2 <= fine < coarse + step / 2
    return coarse - step / 2 < fine <= coarse + step / 2


def _widened(finding: Finding) -> Decimal:
    """A figure's step, and for one said to be about (約1,410万) the step of its last nonzero digit."""
    step = _decimal(finding.precision) or Decimal(1)
    if finding.bound != "about" and finding.bound not in _LEANS:
        return step
    value = _decimal(finding.value) or Decimal(0)
    while value and step < abs(value) and (value / (step * 10)) == (value / (step * 10)).to_integral_value():
        step *= 10
    return step


def _units_meet(one: str, other: str) -> bool:
    if one.startswith(GAP) != other.startswith(GAP):
        return False
    one, other = one.removeprefix(GAP), other.removeprefix(GAP)
    return (
        one == other
        or (not one and other not in ("time", "version"))
        or (not other and one not in ("time", "version"))
        or {one, other} in _KILO_UNITS
    )


_KILO_UNITS = ({"キロ", "km"}, {"キロ", "kg"})


def _may_be_one_quantity(one: Finding, other: Finding) -> bool:
    """Whether two figures may state one quantity, so that differing values are a difference: their
    units meet, and a share (0.2%) is never held against a figure too large to be one (14.1 million)."""
    if not _units_meet(one.unit, other.unit):
        return False
    if {one.unit, other.unit} != {"", "%"}:
        return True
    plain = one if not one.unit else other
    value = _decimal(plain.value)
    return value is None or abs(value) <= 1000


def _relation(claim: Finding, passage: Finding) -> Literal["agree", "bound_differs", ""]:
    """How a claim's figure stands to one of the passage: the same number (bounds that agree), the
    same number with bounds that do not (18歳以下, 18歳未満), a point that meets the other's bound
    (36.2度 meets 35度以上), or nothing to do with each other ("")."""
    claim, passage = _as_share(claim, passage.unit), _as_share(passage, claim.unit)
    if not _units_meet(claim.unit, passage.unit):
        return ""
    claim_bound, passage_bound = claim.bound in _BOUNDS, passage.bound in _BOUNDS
    close = _close(claim, passage)
    if not claim_bound and not passage_bound:
        if close and _LEANS.get(claim.bound, 0) * _LEANS.get(passage.bound, 0) < 0:
            return "bound_differs"  # 1万人弱 against 1万人強: one figure, approached from either side
        return "agree" if close else ""
    one, other = _interval(claim), _interval(passage)
    if one is None or other is None:
        return "agree" if close else ""
    if claim_bound and passage_bound:
        if one == other or _loosely_at_least(claim.bound, passage.bound):
            return "agree"
        return "bound_differs" if close else ""
    if not claim_bound and not close:
        return ""  # a claim's 75°F is not met by "up to 77°F": the passage bounds another figure
    bounded, point = (one, passage) if claim_bound else (other, claim)
    if _overlap(bounded, _reach(point)):
        return "agree"
    return "bound_differs" if close else ""


def _as_share(finding: Finding, other_unit: str) -> Finding:
    """A share written as a fraction (.325, 0.41) held against a percentage is that percentage."""
    if other_unit != "%" or finding.unit or not finding.text.startswith((".", "0.")):
        return finding
    value, step = _decimal(finding.value), _decimal(finding.precision)
    if value is None or step is None:
        return finding
    return replace(finding, value=_plain(value * 100), precision=_plain(step * 100), unit="%")


def _loosely_at_least(one: str, other: str) -> bool:
    """100+ is "100 or more" as loosely as "more than 100" says it."""
    return "plus" in (one, other) and {one, other} <= {"plus", "at_least", "more_than"}


def _reach(point: Finding) -> tuple[Decimal, bool, Decimal, bool]:
    """The values a figure with no hard bound may stand for: itself; for one said to be about
    (約1,410万), its rounding, which reaches into a bound (1,410万を超え); for one approached from
    below or just past (nearly 300, 1万人強), the rounding on that side only."""
    value = _decimal(point.value) or Decimal(0)
    if point.bound == "about":
        half = _widened(point) / 2
        return value - half, True, value + half, True
    if point.bound == "nearly":
        return value - _widened(point), False, value, False
    if point.bound == "just_over":
        return value, False, value + _widened(point), False
    return value, True, value, True


def _figure_hints(claim_read: Reading, passage_read: Reading) -> Iterable[Hint]:
    """Each figure of the claim that no figure of the passage agrees with: its bound differs (the same
    number, another bound), or it differs (a sentence of the passage about the same thing has a figure
    of its unit that agrees with none of the claim's), or it is not stated."""
    claim, passage = claim_read.findings, passage_read.findings
    in_claim = [f for f in claim if f.kind == "figure"]
    if not in_claim:
        return
    in_passage = [f for f in passage if f.kind == "figure"]
    qualifier_of = {int(f.bound): f for f in claim if f.kind == "qualifier"}
    passage_qualifier_of = {int(f.bound): f for f in passage if f.kind == "qualifier"}
    by_value: dict[str, list[Finding]] = {}
    for finding in in_passage:
        by_value.setdefault(finding.value, []).append(finding)
    distinct = [fs[0] for fs in list(by_value.values())[:_MAX_DISTINCT]]
    agreed: set[str] = set()  # the passage's values some figure of the claim agrees with
    relations: dict[int, list[tuple[str, Finding]]] = {}
    scanned = max(_MAX_PAIRS // len(in_claim), 1)  # a hostile claim of thousands of figures costs in proportion
    for finding in in_claim:
        exact = next((p for p in by_value.get(finding.value, []) if _relation(finding, p) == "agree"), None)
        found: list[tuple[str, Finding]] = [("agree", exact)] if exact else []
        if exact is None:
            found = [(relation, p) for p in distinct[:scanned] if (relation := _relation(finding, p))]
        relations[finding.start] = found
        agreed.update(p.value for relation, p in found if relation == "agree")
    unmatched = [p for p in distinct if p.value not in agreed]
    names_versions = any(p.unit == "version" for p in in_passage)
    years = {f.value.removeprefix("FY")[:4] for f in passage if f.kind == "date" and not f.value.startswith(("-", "W"))}
    years_of_claim = {
        f.value.removeprefix("FY")[:4] for f in claim if f.kind == "date" and not f.value.startswith(("-", "W"))
    }
    for finding in in_claim:
        found = relations[finding.start]
        if any(relation == "agree" for relation, _ in found):
            continue
        if _year_like(finding):  # "2026 writeups": a year, held against the passage's years
            if finding.value in years:
                continue
            other_years = [
                f for f in passage if f.kind == "date" and f.value[:4] not in years_of_claim | {finding.value}
            ]
            other_years = [f for f in other_years if f.value[:4].isdigit()]
            if other_years:
                yield Hint("differs", "date", (finding,), tuple(other_years))
                continue
        qualifier = qualifier_of.get(finding.start)
        claim_side = (finding,) if qualifier is None else tuple(sorted((qualifier, finding), key=lambda f: f.start))
        bound = [p for relation, p in found if relation == "bound_differs"]
        if bound:
            marks = [q for p in bound if (q := passage_qualifier_of.get(p.start))] + bound
            yield Hint("differs", "qualifier", claim_side, tuple(sorted(marks, key=lambda f: f.start)))
            continue
        about = claim_read.context(finding)
        against = [
            p
            for p in unmatched
            if _may_be_one_quantity(finding, p) and _same_sort(finding, p) and about & passage_read.context(p)
        ]
        if against:
            marked = tuple(f for p in against for f in by_value[p.value])
            yield Hint("differs", "figure", (finding,), marked)
        elif finding.unit == "version" and not names_versions:
            continue  # "v1.31" against "this release": the version names what the passage is about
        else:
            yield Hint("not_stated", "figure", claim_side)
            if qualifier is not None:
                yield Hint("not_stated", "qualifier", (qualifier,))


# A change's direction beside its figure: 8.2%増, 3%低下, rose 7%, down 7%, a 7% drop.
_UP, _DOWN = "増 上昇 上回 アップ 伸び 改善", "減 低下 下落 下回 ダウン 落ち 悪化"
_EN_UP = "rose risen increased grew grown climbed jumped gained soared up rising increasing growing"
_EN_DOWN = "fell fallen decreased declined dropped slid lost sank plunged down falling decreasing declining dropping"
_JA_DIRECTION_AFTER = re.compile(
    r"(?:[%％]|[一-龯ァ-ヶー]{1,2}?)?(?:の)?(?:(?P<up>"
    + "|".join(_UP.split())
    + r")|(?P<down>"
    + "|".join(_DOWN.split())
    + r"))"
)
_EN_DIRECTION_BEFORE = re.compile(
    r"(?<![A-Za-z])(?:(?P<up>"
    + "|".join(_EN_UP.split())
    + r")|(?P<down>"
    + "|".join(_EN_DOWN.split())
    + r"))(?:\s+by)?\s+(?:about\s+|some\s+|nearly\s+|almost\s+)?\$?$",
    re.I,
)
_EN_DIRECTION_AFTER = re.compile(
    r"(?<!\s)\s?(?:%|percent|per\s+cent)?\s+(?:(?P<up>increase|rise|gain|jump|growth|higher)|(?P<down>decrease|drop|decline|fall|loss|lower))\b",
    re.I,
)


def _direction(plain: str, figure: Finding) -> int:
    """+1 for a figure that says a rise, -1 a fall, 0 neither."""
    for pattern, at in ((_JA_DIRECTION_AFTER, figure.end), (_EN_DIRECTION_AFTER, figure.end)):
        after = pattern.match(plain, at)
        if after:
            return 1 if after.group("up") else -1
    before = _EN_DIRECTION_BEFORE.search(plain, max(figure.start - 30, 0), figure.start)
    if before:
        return 1 if before.group("up") else -1
    return 0


def _direction_hints(claim: Reading, passage: Reading) -> Iterable[Hint]:
    """A change the claim gives with the passage's figure but the other way (8%増 against 8%減; rose 3%
    against fell 3%): the figure differs. Only where both sides say which way."""
    in_claim = [f for f in claim.findings if f.kind == "figure" and f.unit not in ("time", "version")][:_MAX_ZONED]
    if not in_claim:
        return
    claim_plain, passage_plain = folded(claim.text), folded(passage.text)
    in_passage = [f for f in passage.findings if f.kind == "figure"]
    for finding in in_claim:
        way = _direction(claim_plain, finding)
        same = [p for p in in_passage if p.value == finding.value and p.unit == finding.unit] if way else []
        if same and all(_direction(passage_plain, p) == -way for p in same):
            yield Hint("differs", "figure", (finding,), tuple(same))


def _same_sort(one: Finding, other: Finding) -> bool:
    """Two figures of one sort: a time is held against a time, a version against a version, a year
    against a year (never 2026 against "two")."""
    sorts = ("time", "version")
    return one.unit == other.unit if one.unit in sorts or other.unit in sorts else _year_like(one) == _year_like(other)


_NOT_YEAR_UNITS = frozenset({"%", "$", "€", "£", "円", "time", "version"})


def _year_like(finding: Finding) -> bool:
    """A figure that reads as a year: four digits from 1800 to 2099, no separator, no money, no %."""
    return (
        finding.kind == "figure"
        and bool(_YEAR.fullmatch(finding.value))
        and finding.unit not in _NOT_YEAR_UNITS
        and finding.text.isdigit()
    )


# --- qualifiers ---------------------------------------------------------------------------------


def _qualifiers(text: str, plain: str, figures: dict[int, Finding]) -> Iterable[Finding]:
    """Each qualifier beside a figure, its ``bound`` the start of the figure it qualifies."""
    for figure_at in figures:
        backwards = plain[max(figure_at - _BEFORE_WINDOW, 0) : figure_at][::-1]
        match = _QUALIFIER_BEFORE.match(backwards)
        if match is None:
            continue
        start, end = figure_at - match.end("before"), figure_at - match.start("before")
        word = re.sub(r"\s+", " ", match.group("before")[::-1].lower())
        if word.isascii() and not _whole_ascii_word(plain, start, end):
            continue
        yield Finding("qualifier", text[start:end], start, end, _QUALIFIER_OF[word], bound=str(figure_at))
    for match in _QUALIFIER_AFTER.finditer(plain):
        start, end = match.span("after")
        word = re.sub(r"\s+", " ", match.group("after").lower())
        if word.isascii() and word != "+" and not _whole_ascii_word(plain, start, end):
            continue
        if word in ("強", "弱") and plain[end : end + 1] in _NOT_AFTER_LEAN:
            continue
        if word == "+" and (start == 0 or not plain[start - 1].isdigit() or plain[end : end + 1].isdigit()):
            continue  # 100+, not 3 + 4 or +5
        qualified = _figure_start_before(plain, start)
        if qualified is None or qualified not in figures:
            continue
        yield Finding("qualifier", text[start:end], start, end, _QUALIFIER_OF[word], bound=str(qualified))


def _figure_start_before(plain: str, start: int) -> int | None:
    """Where the figure before an after-word (65歳以上, 5万人に届かなかった) begins."""
    at = start
    while at > 0 and not plain[at - 1].isdigit() and plain[at - 1] not in _KANJI_NUMERALS:
        at -= 1
        if start - at > 6:
            return None
    while at > 0 and (plain[at - 1].isdigit() or plain[at - 1] in ",.万億兆千割" or plain[at - 1] in _KANJI_NUMERALS):
        at -= 1
    return at


def _whole_ascii_word(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not _ASCII_WORD_EDGE.match(before) and not _ASCII_WORD_EDGE.match(after)


# --- negations ----------------------------------------------------------------------------------


def _negations(text: str, plain: str) -> Iterable[Finding]:
    spared = [m.span() for m in _NOT_NEGATING.finditer(plain)]
    ends = [stop for _, stop in spared]
    for match in _NEGATION.finditer(plain):
        start, end = match.span()
        if _inside(spared, ends, start, end):
            continue
        yield Finding("negation", text[start:end], start, end, "not")


def _stem(word: str) -> str:
    """An English word's stem, enough to meet its other forms: attended, attend; rates, rate; stopped,
    stop; applied, apply; fell, fall."""
    word = word.lower().replace("’", "'")
    word = _IRREGULAR.get(word, word)
    if len(word) >= 5 and word.endswith(("ies", "ied")):
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            stem = word[: -len(suffix)]
            if suffix in ("ing", "ed") and stem[-1] == stem[-2] and stem[-1] not in "lsfz":
                return stem[:-1]  # stopped, planning: one consonant, doubled to keep the vowel short
            return stem
    return word


# English verbs whose past does not end in -ed: a negation of "fall" is met by "fell".
_IRREGULAR_TABLE = """
arise:arose,arisen become:became begin:began,begun bring:brought build:built buy:bought catch:caught
choose:chose,chosen come:came deal:dealt do:did,done draw:drew,drawn drink:drank drive:drove,driven
eat:ate,eaten fall:fell,fallen feed:fed feel:felt fight:fought find:found flee:fled fly:flew,flown
forget:forgot,forgotten forgive:forgave,forgiven freeze:froze,frozen get:got,gotten give:gave,given
go:went,gone grow:grew,grown hear:heard hide:hid,hidden hold:held keep:kept know:knew,known lead:led
lend:lent lose:lost make:made mean:meant meet:met pay:paid ride:rode,ridden rise:rose,risen run:ran say:said
see:saw,seen seek:sought sell:sold send:sent shake:shook,shaken shoot:shot show:shown shrink:shrank,shrunk
sing:sang,sung sink:sank,sunk sit:sat sleep:slept slide:slid speak:spoke,spoken spend:spent stand:stood
steal:stole,stolen stick:stuck strike:struck,stricken swear:swore,sworn swim:swam,swum take:took,taken
teach:taught tear:tore,torn tell:told think:thought throw:threw,thrown understand:understood wake:woke,woken
wear:wore,worn win:won withdraw:withdrew,withdrawn write:wrote,written overtake:overtook,overtaken
oversee:oversaw,overseen uphold:upheld undertake:undertook,undertaken forbid:forbade,forbidden
"""


def _irregular_pasts(table: str) -> dict[str, str]:
    """Each past of the table ("fall:fell,fallen") to its verb."""
    entries = (entry.split(":") for entry in table.split())
    return {past: base for base, pasts in entries for past in pasts.split(",")}


_IRREGULAR = _irregular_pasts(_IRREGULAR_TABLE)


def _sentences(plain: str) -> Iterable[tuple[int, int]]:
    start = 0
    for match in _SENTENCE_END.finditer(plain):
        yield start, match.end()
        start = match.end()
    if start < len(plain):
        yield start, len(plain)


@lru_cache(maxsize=100_000)  # a page's vocabulary, met again in each of its sentences
def _en_forms(word: str) -> frozenset[str]:
    """An English word as the stems of its forms: its own, and its lemmas' ("rose": rise; "children":
    child), so that a word meets its other forms where the suffixes alone do not tell."""
    return frozenset({_stem(word), *(_stem(lemma) for lemma in english_forms(word))})


def _words_of(part: str) -> set[str]:
    english = {form for w in _EN_WORD.findall(part) if w.lower() not in _EN_STOP for form in _en_forms(w)}
    return english | set(_JA_RUN_ONLY.findall(part))


_JA_CONTEXT = re.compile(r"[一-龯々]|[ァ-ヶー]{2}")
_NOT_CONTEXT = frozenset("万億兆千百十人円年月日時分秒度歳件校名台回約")


def _context_words(part: str) -> set[str]:
    """What a sentence is about, to tell whether two figures are about one thing: its English words
    (stems), and its kanji one by one (Japanese compounds are paraphrased: 会場, 来場者数)."""
    english = {form for w in _EN_WORD.findall(part) if w.lower() not in _EN_STOP for form in _en_forms(w)}
    return english | {c for c in _JA_CONTEXT.findall(part) if c not in _NOT_CONTEXT}


def _asserted_words(plain: str, negations: list[Finding]) -> frozenset[str]:
    """The words of the sentences that negate nothing: what the text asserts."""
    starts = sorted(f.start for f in negations)
    words: set[str] = set()
    for start, end in _sentences(plain):
        index = bisect_left(starts, start)
        if index < len(starts) and starts[index] < end:
            continue
        words |= _words_of(plain[start:end])
    return frozenset(words)


def _scopes(plain: str, negations: list[Finding]) -> Iterable[tuple[Finding, tuple[frozenset[str], ...], bool]]:
    """What each negation negates: the first content words after an English one (up to the clause's
    end), the nearest noun runs before a Japanese one (from the clause's start), and the stem a
    不-/未-/非- word negates."""
    for negation in negations:
        if negation.text[:1].isascii():
            window = negation.end + _EN_SCOPE_CHARS
            clause_end = _CLAUSE_END.search(plain, negation.end, window)
            after = plain[negation.end : clause_end.start() if clause_end else window]
            words = [_en_forms(w) for w in _EN_WORD.findall(after) if w.lower() not in _EN_STOP]
            yield negation, tuple(words[:_EN_SCOPE]), True
            continue
        clause_start = max(
            (m.end() for m in _CLAUSE_END.finditer(plain, max(negation.start - 80, 0), negation.start)),
            default=max(negation.start - 80, 0),
        )
        found = list(_JA_RUN_ONLY.finditer(plain, clause_start, negation.start))
        if len(found) > 1 and plain[found[0].end() : found[0].end() + 1] == "は":
            found = found[1:]  # 同社は値上げを行わない: the topic is who acts, not what is negated
        runs = [frozenset([run.group()]) for run in found]
        if negation.text[:1] == "無" and len(negation.text) > 1:
            runs.append(frozenset(["有" + negation.text[1:]]))  # 無効 against 有効
        elif negation.text[:1] in "不未非" and len(negation.text) > 1:
            stem = negation.text[1:]
            runs.append(frozenset(["必要" if stem == "要" else stem]))
        elif negation.text.endswith("外"):
            runs.append(frozenset([negation.text[:-1]]))  # 対象外: not 対象
        yield negation, tuple(runs[-_JA_SCOPE:]), False


def _negation_hints(claim: Reading, passage: Reading) -> Iterable[Hint]:
    """A negation of one side whose words the other side asserts: in English all of them ("aren't
    expecting a rate cut" against "expect … to cut rates"), in Japanese one of the nouns it negates
    (個人事業主は利用できない against 個人事業主のいずれも申請可能)."""
    if claim.text == passage.text:
        return []  # a text that negates in one place what it asserts in another says the same as itself
    hints = []
    for side, other, claim_side in ((claim, passage, True), (passage, claim, False)):
        for negation, words, english in side.scopes:
            if not words:
                continue
            met = (all if english else any)(not forms.isdisjoint(other.asserted) for forms in words)
            if met and not _negated_alike(words, english, other):
                marked = (negation,)
                hints.append(
                    Hint("negation_differs", "negation", marked if claim_side else (), () if claim_side else marked)
                )
    if not hints:
        return []
    claim_marks = tuple(f for hint in hints for f in hint.claim)
    passage_marks = tuple(f for hint in hints for f in hint.passage)
    return [Hint("negation_differs", "negation", claim_marks, passage_marks)]


def _negated_alike(words: tuple[frozenset[str], ...], english: bool, other: Reading) -> bool:
    """Whether the other side negates the same words too (発行していない against 発行していません, beside
    a sentence that asserts them of something else): two negations of one thing agree."""
    met = all if english else any
    for _, other_words, _ in other.scopes:
        negated = frozenset().union(*other_words)
        if met(not forms.isdisjoint(negated) for forms in words):
            return True
    return False


# --- what is shown -------------------------------------------------------------------------------


def claim_marks(comparisons: Sequence[Comparison]) -> tuple[Finding, ...]:
    """The findings of a claim to mark, held against the evidence beside it (one comparison each): a
    finding differs from some evidence, and none says the same of it. The one rule of what is marked in
    a claim: the viewer's side by side, the check page's statement and its snapshot panel read it."""
    hinted = [{f for hint in c.hints for f in hint.claim} for c in comparisons]
    differing = {f for c in comparisons for f in c.differing_in_claim}
    return _sorted_unique(f for f in differing if all(f in found for found in hinted))


def evidence_marks(comparison: Comparison) -> tuple[Finding, ...]:
    """The findings of the evidence to mark: those that differ from the claim (the rule's other side)."""
    return comparison.differing_in_passage


def of_the_claims_kinds(claim: Sequence[Finding], found: Iterable[Finding]) -> tuple[Finding, ...]:
    """The figures and dates of ``found`` of a kind ``claim`` (its findings) states, as the chips beside
    a passage list them: a figure of a unit the claim gives one of (``8%`` for a claim of 8%, never the
    ``09`` of a date or ``9:12 AM``), a date that could be held against one of the claim's (a weekday
    only for a weekday), a year for a claim's year. A claim with none has none to show."""
    figures = [f for f in claim if f.kind == "figure"]
    dates = [f for f in claim if f.kind == "date"]
    claim_years = any(_year_like(f) for f in figures) or any(_date_sort(f.value) == "year" for f in dates)
    kept = []
    for finding in found:
        if finding.kind == "figure":
            year = _year_like(finding) and claim_years
            if year or any(_same_sort(one, finding) and _one_unit(one, finding) for one in figures):
                kept.append(finding)
        elif finding.kind == "date":
            year = _date_sort(finding.value) == "year" and claim_years
            if year or any(_comparable_dates(one.value, finding.value) for one in dates):
                kept.append(finding)
    return tuple(kept)


def _one_unit(one: Finding, other: Finding) -> bool:
    return one.unit == other.unit or {one.unit, other.unit} in _KILO_UNITS


# --- marking --------------------------------------------------------------------------------------

_MARK_CLASSES = {"date": "cv-number-diff", "figure": "cv-number-diff", "qualifier": "cv-qualifier-diff"}
_MARK_CLASSES["negation"] = "cv-negation-diff"


def mark_findings(text: str, marked: Iterable[Finding]) -> str:
    """``text`` escaped for HTML, each of ``marked`` (found in this very text) in a ``<mark>`` of its
    kind's class. Findings that overlap keep the first."""
    kept, position = [], 0
    for finding in sorted(marked, key=lambda f: (f.start, -f.end)):
        if finding.start < position or text[finding.start : finding.end] != finding.text:
            continue  # overlapping, or not of this text
        kept.append((finding.start, finding.end, _MARK_CLASSES[finding.kind]))
        position = finding.end
    return escaped_with_marks(text, kept)


def escaped_with_marks(text: str, marks: Iterable[tuple[int, int, str]]) -> str:
    """``text`` escaped for HTML, each ``(start, end, class)`` of ``marks`` (in order, none
    overlapping) in a ``<mark>`` of that class: the only markup in it is ours."""
    out, position = [], 0
    for start, end, css_class in marks:
        out.append(escape(text[position:start]))
        out.append(f'<mark class="{css_class}">{escape(text[start:end])}</mark>')
        position = end
    out.append(escape(text[position:]))
    return "".join(out)
