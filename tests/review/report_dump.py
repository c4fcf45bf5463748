"""A ten-item dump checked by two editors and settled in part by a lead: what the report's request
tests and its browser test hand over. Items (in reading order):

S1 [1][2] both complete, supported together;   S2 [3] hanako partial ≠ taro none, not settled;
S3 [4] complete, [5] hanako complete ≠ taro partial, settled partial by the lead;
S4 [6] no support (quote), [9] a marker with no source;   S5 [7] complete, [8] supports and refutes,
its citations together contradict it;   S6 cites nothing, not verification-worthy.
"""

from __future__ import annotations

import json
from collections.abc import Container
from typing import Any

from citeview.dumps.services import dump_ingest
from citeview.review.models import Check
from citeview.review.selectors import dump_check_items, item_version
from citeview.review.services import check_save
from tests.builders import agent_object

ANSWER = (
    "熱中症警戒アラートは、暑さ指数（WBGT）が33以上と予測された日に発表されます[1][2]。"
    "発表は府県予報区ごとに、前日の17時ごろと当日の5時ごろに行われます[3]。"
    "2024年からは、より深刻な熱中症特別警戒アラートの運用も始まりました[4][5]。"
    "特別警戒アラートは、県内の一部の地点で暑さ指数が35以上と予測されると発表されます[6][9]。"
    "アラートの日は、エアコンを使い、外出を控えるよう推奨されています[7][8]。"
    "詳しくは各自治体の案内を確認してください。"
)
SOURCES = [
    (1, "https://www.wbgt.env.go.jp/alert.php", "熱中症警戒アラート｜環境省"),
    (2, "https://www.jma.go.jp/jma/kishou/know/kurashi/netsu.html", "熱中症警戒アラートについて｜気象庁"),
    (3, "https://www.wbgt.env.go.jp/alert_timing.php", "発表の時間｜環境省"),
    (4, "https://www.env.go.jp/press/press_02963.html", "特別警戒アラートの運用開始｜環境省"),
    (5, "https://www3.nhk.or.jp/news/html/20240424/k10014431.html", "特別警戒アラート 運用始まる｜NHK"),
    (6, "https://www.wbgt.env.go.jp/special_alert.php", "熱中症特別警戒アラート｜環境省"),
    (7, "https://www.mhlw.go.jp/stf/seisakunitsuite/bunya/kenkou_iryou/kenkou/nettyuu/", "熱中症予防｜厚生労働省"),
    (8, "https://example.com/blog/heat-alert-tips", "アラートの日の過ごし方（個人ブログ）"),
]
NO_SUPPORT_QUOTE = "都道府県内のすべての暑さ指数情報提供地点で35以上と予測される場合"
SETTLE_REASON = "NHK の記事は運用開始日のみで、基準の記述がない"
# Per citation marker: (hanako's verdict, taro's verdict).
VERDICTS = {
    "[1]": ("complete", "complete"),
    "[2]": ("complete", "complete"),
    "[3]": ("partial", "none"),
    "[4]": ("complete", "complete"),
    "[5]": ("complete", "partial"),
    "[6]": ("none", "none"),
    "[7]": ("complete", "complete"),
    "[8]": ("supports_and_refutes", "supports_and_refutes"),
}
TOGETHER = {0: "yes", 1: "no", 2: "yes", 3: "no", 4: "contradict"}  # by statement index


def ten_item_dump(uploader: Any, response_id: str = "") -> Any:
    """The ten-item dump; another ``response_id`` makes another dump of the same items."""
    value = agent_object(ANSWER, SOURCES) | ({"id": response_id} if response_id else {})
    raw = json.dumps(value, ensure_ascii=False).encode()
    dump = dump_ingest(raw=raw, uploaded_by=uploader, filename="heat-alert.json")[0]
    assert len(dump_check_items(dump)) == 10
    return dump


def check_everything(dump: Any, editor: Any, which: int, only: Container[str] | None = None) -> None:
    """``editor`` checks every item (or those whose keys are in ``only``), giving the ``which``-th
    verdict of each pair."""
    for item in dump_check_items(dump):
        if only is not None and item.key not in only:
            continue
        statement = {"verification_worthy": "yes", "supported_together": TOGETHER.get(item.statement.index, "")}
        if item.kind == "statement":
            values = {"verification_worthy": "no"}
            statement = {}
        elif item.kind == "unresolved":
            values = {"note": "[9] は検索結果にない番号"}
        else:
            marker = dump.result["responses"][0]["citations"][item.citation]["marker"]
            verdict = VERDICTS[marker][which]
            values = {"verdict": verdict, "subject": "yes"}
            if verdict == "none":
                values |= {"evidence_quote": NO_SUPPORT_QUOTE, "conditions": "no"}
        check_save(
            dump=dump,
            item=item,
            editor=editor,
            values=values,
            statement_values=statement,
            seen_version=item_version(dump, item.key),
        )


def item_of(dump: Any, marker: str) -> Any:
    citations = dump.result["responses"][0]["citations"]
    return next(
        i for i in dump_check_items(dump) if i.citation is not None and citations[i.citation]["marker"] == marker
    )


def settle(dump: Any, lead: Any, marker: str, verdict: str, reason: str) -> Check:
    """A lead's settlement, made directly: the settle pages are built elsewhere."""
    item = item_of(dump, marker)
    return Check.settlements.create(
        dump=dump,
        item_key=item.key,
        kind="citation",
        editor=lead,
        response_index=item.response,
        statement_key=item.statement_key,
        statement_text=item.statement.text,
        marker=marker,
        verdict=verdict,
        note=reason,
        is_settlement=True,
    )
