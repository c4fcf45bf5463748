"""The figures as the page shows them: bar charts an SVG template draws (no chart library, no script),
and every rate as a percentage with its n, or with the reason it is empty."""

from __future__ import annotations

import unicodedata
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from citeview.core.checking.metrics import scope_phrase
from citeview.review.models import VERDICTS

VERDICT_LABELS = dict(VERDICTS)

# A chart is drawn in CSS pixels, never scaled (no viewBox): its words stay 13 px at any width. Each row
# is its label and figure on one line, the bar under them, a share of the chart's whole width.
ROW_HEIGHT = 40
TEXT_BASELINE = 15
BAR_TOP = 21
BAR_HEIGHT = 14
# A label longer than this many columns (a CJK character takes two) is cut: with the figure beside it,
# the line fits a phone's card of about 320 px at 13 px.
LABEL_COLUMNS = 30

# The rates of a slice, in the order the tables show them.
RATES = (
    "citation_recall",
    "citation_precision",
    "macro_recall",
    "macro_precision",
    "unresolved_marker_rate",
    "incomplete_response_share",
)
# The rates counted from checks (blind first may leave some out for the reader: they say their scope);
# the others are the dumps' own.
CHECK_RATES = frozenset({"citation_recall", "citation_precision", "macro_recall", "macro_precision"})
# The verdict distributions the page can chart: the final verdicts (the default) or each editor's.
FINAL, EDITORS = "final", "editors"
DISTRIBUTIONS = {FINAL: "final_verdicts", EDITORS: "editor_verdicts"}
# What lies behind the citations: a table of their own.
EVIDENCE_RATES = ("evidence_text_share", "snapshot_share", "passage_found_share", "figure_mismatch_share")


def rate_name(name: str) -> str:
    return {
        "citation_recall": _("Recall"),
        "citation_precision": _("Precision"),
        "macro_recall": _("Recall (macro)"),
        "macro_precision": _("Precision (macro)"),
        "unresolved_marker_rate": _("Unresolved markers"),
        "incomplete_response_share": _("Incomplete responses"),
        "evidence_text_share": _("With evidence text"),
        "snapshot_share": _("With a snapshot"),
        "passage_found_share": _("Passage found"),
        "figure_mismatch_share": _("Figure or date differs"),
    }[name]


def percent_text(value: float | None) -> str:
    """A share as every page writes it: 33.3%; "—" for none."""
    return "—" if value is None else f"{value * 100:.1f}%"


def rate_n(name: str, ratio: dict[str, Any]) -> str:
    """What the rate was computed from, in words: "1 of 3 statements", "mean of 2 answers"."""
    n, num = ratio["denominator"], ratio["numerator"]
    values = {"n": n, "num": num}
    if name in ("macro_recall", "macro_precision"):
        return ngettext("mean of %(n)s answer", "mean of %(n)s answers", n) % values
    if name == "citation_recall":
        return ngettext("%(num)s of %(n)s statement", "%(num)s of %(n)s statements", n) % values
    if name in ("citation_precision", "evidence_text_share", "snapshot_share"):
        return ngettext("%(num)s of %(n)s citation", "%(num)s of %(n)s citations", n) % values
    if name == "passage_found_share":
        return ngettext("%(num)s of %(n)s with a snapshot", "%(num)s of %(n)s with a snapshot", n) % values
    if name == "figure_mismatch_share":
        return ngettext("%(num)s of %(n)s passage found", "%(num)s of %(n)s passages found", n) % values
    if name == "unresolved_marker_rate":
        return ngettext("%(num)s of %(n)s marker", "%(num)s of %(n)s markers", n) % values
    return ngettext("%(num)s of %(n)s response", "%(num)s of %(n)s responses", n) % values


def empty_reason(code: str | None) -> str:
    """Why a rate has nothing to divide by, in words ("" when it has something)."""
    if not code:
        return ""
    return {
        "nothing_checked": _("nothing has been checked yet"),
        "no_worthy_answer": _("no statement has an answer to “verification-worthy” yet"),
        "none_worthy": _("no statement was judged verification-worthy"),
        "no_together_answer": _("no verification-worthy statement has an answer to “supported together” yet"),
        "no_verdict_on_worthy": _("no citation on a verification-worthy statement has a verdict yet"),
        "no_dumps": _("no dump matches these filters"),
        "no_citations": _("these dumps have no citations"),
        "no_responses": _("these dumps have no responses"),
        "no_snapshots": _("no cited page has a snapshot yet"),
        "no_passages": _("no passage was found in a snapshot yet"),
    }.get(code, code)


def scope_text(scope: dict[str, Any] | None) -> str:
    """What a figure of checks is computed on, in words ("on the 2 of 14 items visible to you"), the
    report's words; "" when it counts every item."""
    said = scope_phrase(scope)
    return said.text(_) if said else ""


def rate_shown(name: str, ratio: dict[str, Any], scope: str = "") -> dict[str, str]:
    """One rate for a table cell: its percentage and n, or "—" and why; a rate counted from checks
    with its ``scope`` where the reader may not read them all."""
    empty = ratio["value"] is None
    return {
        "name": rate_name(name),
        "percent": percent_text(ratio["value"]),
        "n": "" if empty else rate_n(name, ratio),
        "why": empty_reason(ratio.get("empty_because")) if empty else "",
        "scope": scope if name in CHECK_RATES else "",
    }


def figure_row(part: dict[str, Any]) -> dict[str, Any]:
    scope = scope_text(part["scope"])
    return {
        "label": part["label"],
        "dumps": part["dumps"],
        "scope": scope,
        "rates": [rate_shown(n, part[n], scope) for n in RATES],
    }


def figure_tables(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The breakdowns, each a table of rows of rates; the first ends with the overall row."""
    captions = (
        ("by_provider", _("By provider")),
        ("by_api", _("By API")),
        ("by_model", _("By model")),
        ("by_tag", _("By tag")),
        ("by_uploader", _("By uploader")),
    )
    tables = []
    for index, (key, caption) in enumerate(captions):
        rows = [figure_row(part) for part in figures[key]]
        overall = figure_row(figures["overall"]) if index == 0 else None
        tables.append({"caption": caption, "rows": rows, "overall": overall})
    return tables


def evidence_tables(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The evidence rates in the same slices as the other figures; the first table ends with the overall row."""
    tables = []
    for key, caption in (
        ("by_provider", _("By provider")),
        ("by_api", _("By API")),
        ("by_model", _("By model")),
        ("by_tag", _("By tag")),
        ("by_uploader", _("By uploader")),
    ):
        rows = [_evidence_row(part) for part in figures[key]]
        overall = _evidence_row(figures["overall"]) if key == "by_provider" else None
        tables.append({"caption": caption, "rows": rows, "overall": overall})
    return tables


def _evidence_row(part: dict[str, Any]) -> dict[str, Any]:
    return {"label": part["label"], "dumps": part["dumps"], "rates": [rate_shown(n, part[n]) for n in EVIDENCE_RATES]}


def headline(figures: dict[str, Any]) -> list[dict[str, str]]:
    """The overall rates, each with its n or, when empty, why: the first thing the page says."""
    scope = scope_text(figures["overall"]["scope"])
    return [rate_shown(name, figures["overall"][name], scope) for name in RATES]


def agreement_shown(agreement: dict[str, Any]) -> dict[str, Any]:
    """Agreement figures for a table row. An empty row says why once, beside its percentage; κ and α
    say why only when they alone are empty."""
    if not agreement["items"]:
        unjudged = _("no citation has verdicts from two editors yet")
        empty = {"value": "—", "why": ""}
        return {**agreement, "percent": "—", "percent_why": unjudged, "cohen_kappa": empty, "krippendorff_alpha": empty}
    alike = _("every verdict is the same, so it is undefined")

    def statistic(value: float | None, why_none: str) -> dict[str, str]:
        return {"value": "—" if value is None else f"{value:.3f}", "why": "" if value is not None else why_none}

    kappa_why = alike if agreement["raters"] == 2 else _("given for exactly two editors")
    return {
        "items": agreement["items"],
        "raters": agreement["raters"],
        "percent": percent_text(agreement["percent"]),
        "percent_why": "",
        "cohen_kappa": statistic(agreement.get("cohen_kappa"), kappa_why),
        "krippendorff_alpha": statistic(agreement["krippendorff_alpha"], alike),
    }


def bar_chart(title: str, rows: list[tuple[str, float | None, str]], empty: str = "") -> dict[str, Any]:
    """``rows``: (label, share from 0 to 1 or None, the figure as text). ``empty``: what the chart
    says instead of bars when no row has a share."""
    bars = []
    for index, (label, share, text) in enumerate(rows):
        top = index * ROW_HEIGHT
        bars.append(
            {
                "label": label,
                "short_label": _cut(label),
                "text": text,
                "text_y": top + TEXT_BASELINE,
                "bar_y": top + BAR_TOP,
                "width": "0" if share is None else f"{max(0.0, min(1.0, share)) * 100:.1f}%",
            }
        )
    shown = any(share is not None for _label, share, _text in rows)
    return {
        "title": title,
        "bars": bars if shown else [],
        "empty": "" if shown else empty,
        "height": max(1, len(bars) * ROW_HEIGHT),
        "bar_height": BAR_HEIGHT,
    }


def distribution_title(which: str) -> str:
    """What the verdict chart and table count, said as their caption."""
    return _("Each editor's verdicts") if which == EDITORS else _("Final verdicts: settled or agreed")


def figure_charts(figures: dict[str, Any], which: str = FINAL) -> list[dict[str, Any]]:
    """The verdict chart (``which``: the final verdicts, or each editor's), then recall and precision
    by provider."""
    overall = figures["overall"]
    verdicts = overall[DISTRIBUTIONS[which]]
    total = sum(verdicts.values())
    distribution = bar_chart(
        distribution_title(which),
        [
            (str(VERDICT_LABELS[name]), count / total if total else None, f"{count} ({percent_text(count / total)})")
            for name, count in verdicts.items()
        ]
        if total
        else [],
        _("No citation has a final verdict yet: none its editors agree on, and none settled.")
        if which == FINAL and sum(overall[DISTRIBUTIONS[EDITORS]].values())
        else _("No verdicts recorded yet."),
    )
    ratios = []
    for part in figures["by_provider"] or [overall]:
        for name, key in ((_("recall"), "citation_recall"), (_("precision"), "citation_precision")):
            ratio = part[key]
            n = f"{ratio['numerator']:g}/{ratio['denominator']}"
            ratios.append((f"{part['label']} · {name}", ratio["value"], f"{percent_text(ratio['value'])} ({n})"))
    recall = empty_reason(overall["citation_recall"]["empty_because"])
    return [
        distribution,
        bar_chart(
            _("Citation recall and precision by provider"),
            ratios,
            _("Recall and precision cannot be computed yet: %(reason)s.")
            % {"reason": recall or empty_reason(overall["citation_precision"]["empty_because"])},
        ),
    ]


def verdict_table(figures: dict[str, Any], which: str = FINAL) -> list[tuple[str, int, str]]:
    """The verdict table: each verdict, its count, its share of the verdicts (``which``: as the chart)."""
    verdicts = figures["overall"][DISTRIBUTIONS[which]]
    total = sum(verdicts.values())
    return [
        (str(VERDICT_LABELS[name]), count, percent_text(count / total) if total else "—")
        for name, count in verdicts.items()
    ]


def _cut(label: str) -> str:
    """The label within LABEL_COLUMNS columns, cut with "…" (the bar's title keeps it whole)."""
    columns = 0
    for index, character in enumerate(label):
        columns += 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1
        if columns > LABEL_COLUMNS:
            return label[:index].rstrip() + "…"
    return label
