"""What editors check in an answer: each citation with each of its sources (a statement and one
source: the doc's "statement × source"), and each statement that cites nothing.

Keys are positions in a stored result. A rebuilt result keeps them as long as the parsers place
the same citations; the checks also keep a copy of what was judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from citeview.core.review.statements import Statement, statements


@dataclass(frozen=True)
class CheckItem:
    # "r0-c3": citation 3 of response 0 (one source); "r0-c3-2": its second source, when it has several;
    # "r0-s12-40": a statement of response 0 (characters 12-40) that cites nothing.
    key: str
    response: int
    statement: Statement
    citation: int | None  # index into the response's citations; None for an uncited statement
    source_key: str | None = None  # which of the citation's sources this item judges
    source_position: int = 0  # 1-based among the citation's sources when it has several, else 0

    @property
    def statement_key(self) -> str:
        return statement_item_key(self.response, self.statement)


def statement_item_key(response: int, statement: Statement) -> str:
    return f"r{response}-{statement.key}"


def citation_item_key(response: int, citation: int, source_position: int = 0) -> str:
    key = f"r{response}-c{citation}"
    return f"{key}-{source_position}" if source_position else key


def check_items(responses: list[dict[str, Any]], limit: int | None = None) -> list[CheckItem]:
    """Every item of a dump's responses in reading order, or the first ``limit`` of them (a dump of
    nothing but markers would otherwise offer one item per three bytes)."""
    items: list[CheckItem] = []
    for number, response in enumerate(responses):
        for statement in statements(response):
            if limit is not None and len(items) >= limit:
                return items[:limit]
            if not statement.citations:
                items.append(CheckItem(statement_item_key(number, statement), number, statement, None))
                continue
            for citation in statement.citations:
                items.extend(
                    _citation_items(number, statement, citation, response["citations"][citation]["source_keys"])
                )
    return items if limit is None else items[:limit]


def check_item_count(responses: list[dict[str, Any]]) -> int:
    """How many items :func:`check_items` finds without a limit, without making them."""
    count = 0
    for response in responses:
        for statement in statements(response):
            if not statement.citations:
                count += 1
                continue
            count += sum(max(len(response["citations"][c]["source_keys"]), 1) for c in statement.citations)
    return count


def _citation_items(response: int, statement: Statement, citation: int, source_keys: list[str]) -> list[CheckItem]:
    if len(source_keys) <= 1:
        key = citation_item_key(response, citation)
        return [CheckItem(key, response, statement, citation, source_keys[0] if source_keys else None)]
    return [
        CheckItem(citation_item_key(response, citation, position), response, statement, citation, source, position)
        for position, source in enumerate(source_keys, 1)
    ]
