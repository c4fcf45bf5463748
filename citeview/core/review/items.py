"""What editors check in an answer: each citation (a statement and one of its sources) and each
statement that cites nothing. Keys are stable for a stored result, so checks can point at them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from citeview.core.review.statements import Statement, statements


@dataclass(frozen=True)
class CheckItem:
    key: str  # "r0-c3": citation 3 of response 0; "r0-s12-40": a statement of response 0 that cites nothing
    response: int
    statement: Statement
    citation: int | None  # index into the response's citations; None for an uncited statement

    @property
    def statement_key(self) -> str:
        return statement_item_key(self.response, self.statement)


def statement_item_key(response: int, statement: Statement) -> str:
    return f"r{response}-{statement.key}"


def citation_item_key(response: int, citation: int) -> str:
    return f"r{response}-c{citation}"


def check_items(responses: list[dict[str, Any]]) -> list[CheckItem]:
    """Every item of a dump's responses, in reading order."""
    items = []
    for number, response in enumerate(responses):
        for statement in statements(response):
            if not statement.citations:
                items.append(CheckItem(statement_item_key(number, statement), number, statement, None))
                continue
            for citation in statement.citations:
                items.append(CheckItem(citation_item_key(number, citation), number, statement, citation))
    return items
