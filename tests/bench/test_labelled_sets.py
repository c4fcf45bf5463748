"""The labelled sets in bench/labelled/ (issue 30) are well formed.

The rules that give comparison hints and find supporting passages are measured
against these files, so a malformed line, a duplicate id or a `supporting`
text that is not in its page would silently skew every figure.
"""

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
LABELLED = REPO / "bench" / "labelled"
SHARED = Path(__file__).resolve().parents[3] / "shared"
FIXTURES = SHARED / "fixtures"

LANGS = {"en", "ja"}
SPLITS = {"dev", "test"}
LABELS = {"agree", "differs", "not_stated"}
DIFFER_KINDS = {"date", "figure", "qualifier", "negation"}
UNSTATED_KINDS = {"date", "figure", "qualifier"}
# A page quoted from a licensed public repository (issue 45): repository, commit and file.
GITHUB_SOURCE = re.compile(r"github:(?P<repo>[\w.-]+/[\w.-]+)@[0-9a-f]{40}:(?P<path>\S+)")


def read_jsonl(name: str) -> list[dict[str, Any]]:
    lines = (LABELLED / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def resolve_pointer(document: Any, pointer: str) -> Any:
    """RFC 6901: '/a/0/b~1c' -> document['a'][0]['b/c']."""
    assert pointer.startswith("/"), pointer
    node = document
    for token in pointer[1:].split("/"):
        key = token.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def check_source(source: str) -> None:
    if source == "handwritten" or GITHUB_SOURCE.fullmatch(source):
        return
    assert source.startswith("../shared/fixtures/"), source
    if FIXTURES.is_dir():
        assert (SHARED.parent / source.removeprefix("../")).is_file(), source


def fixtures_required() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return read_jsonl("hint_pairs.jsonl")


@pytest.fixture(scope="module")
def pages() -> list[dict[str, Any]]:
    return read_jsonl("passage_pages.jsonl")


def test_every_hint_pair_has_the_documented_fields_and_values(pairs: list[dict[str, Any]]) -> None:
    fields = {"id", "lang", "split", "claim", "evidence", "label", "kinds", "source", "why"}
    for pair in pairs:
        assert set(pair) == fields, pair["id"]
        assert pair["lang"] in LANGS and pair["split"] in SPLITS and pair["label"] in LABELS, pair["id"]
        assert pair["id"].startswith(pair["lang"] + "-"), pair["id"]
        assert pair["claim"].strip() and pair["evidence"].strip() and pair["why"].strip(), pair["id"]
        kinds = set(pair["kinds"])
        assert len(kinds) == len(pair["kinds"]), pair["id"]
        if pair["label"] == "agree":
            assert not kinds, pair["id"]
        elif pair["label"] == "differs":
            assert kinds and kinds <= DIFFER_KINDS, pair["id"]
        else:
            assert kinds and kinds <= UNSTATED_KINDS, pair["id"]
        check_source(pair["source"])


def test_hint_pairs_meet_the_minimums_and_are_balanced(pairs: list[dict[str, Any]]) -> None:
    assert len({pair["id"] for pair in pairs}) == len(pairs)
    by_lang = Counter(pair["lang"] for pair in pairs)
    assert len(pairs) >= 200 and by_lang["ja"] >= 100 and by_lang["en"] >= 100
    for lang in LANGS:
        mine = [pair for pair in pairs if pair["lang"] == lang]
        labels = Counter(pair["label"] for pair in mine)
        assert all(labels[label] >= 0.15 * len(mine) for label in LABELS), (lang, labels)
        kinds = Counter(kind for pair in mine if pair["label"] == "differs" for kind in pair["kinds"])
        assert set(kinds) == DIFFER_KINDS, (lang, kinds)
        test_share = sum(pair["split"] == "test" for pair in mine) / len(mine)
        assert 0.3 <= test_share <= 0.5, (lang, test_share)


def test_every_page_has_the_documented_fields_and_values(pages: list[dict[str, Any]]) -> None:
    fields = {"id", "lang", "split", "claim", "page", "supporting", "source", "why"}
    for page in pages:
        assert set(page) == fields, page["id"]
        assert page["lang"] in LANGS and page["split"] in SPLITS, page["id"]
        assert page["id"].startswith(page["lang"] + "-p-"), page["id"]
        assert page["claim"].strip() and page["supporting"].strip() and page["why"].strip(), page["id"]
        assert set(page["page"]) in ({"text"}, {"fixture", "pointer"}), page["id"]
        if "fixture" in page["page"]:
            assert page["source"] == "../shared/fixtures/" + page["page"]["fixture"], page["id"]
        if page["source"].startswith("github:"):
            assert "text" in page["page"], page["id"]
        check_source(page["source"])


def test_every_repository_quoted_is_in_the_provenance_table(
    pairs: list[dict[str, Any]], pages: list[dict[str, Any]]
) -> None:
    # Text quoted from a public repository needs its licence and attribution recorded.
    quoted: dict[str, set[str]] = {}
    for entry in [*pairs, *pages]:
        match = GITHUB_SOURCE.fullmatch(entry["source"])
        if match:
            quoted.setdefault(match["repo"], set()).add(entry["source"].split("@")[1].split(":")[0])
    if not quoted:
        return
    rows = [
        line for line in (LABELLED / "PROVENANCE.md").read_text(encoding="utf-8").splitlines() if line.startswith("|")
    ]
    for repo, commits in quoted.items():
        row = next((line for line in rows if f"`{repo}`" in line), None)
        assert row is not None, repo
        assert all(commit in row for commit in commits), (repo, commits)


def page_identity(page: dict[str, Any]) -> tuple[str, ...]:
    """Entries that share a page (several claims on one fetched page) count as one page."""
    if "text" in page["page"]:
        return ("text", page["page"]["text"])
    return ("fixture", page["page"]["fixture"], page["page"]["pointer"])


def test_pages_meet_the_minimums(pages: list[dict[str, Any]]) -> None:
    assert len({page["id"] for page in pages}) == len(pages)
    by_lang = Counter(page["lang"] for page in pages)
    assert len(pages) >= 50 and by_lang["ja"] >= 25 and by_lang["en"] >= 25


def test_at_least_50_distinct_pages_and_half_of_them_japanese(pages: list[dict[str, Any]]) -> None:
    # The issue asks for 50 pages, half Japanese: claims that share a page must not pad the count.
    distinct = {page_identity(page): page["lang"] for page in pages}
    japanese = sum(lang == "ja" for lang in distinct.values())
    assert len(distinct) >= 50, len(distinct)
    assert japanese >= 25 and japanese >= len(distinct) / 2, (japanese, len(distinct))


def test_every_supporting_passage_is_in_its_page_and_is_not_the_whole_page(
    pages: list[dict[str, Any]],
) -> None:
    if not FIXTURES.is_dir() and fixtures_required():
        pytest.fail(f"{FIXTURES} is missing, so fixture pages cannot be checked")
    skipped = 0
    for page in pages:
        if "text" in page["page"]:
            text = page["page"]["text"]
        elif FIXTURES.is_dir():
            document = json.loads((FIXTURES / page["page"]["fixture"]).read_text(encoding="utf-8"))
            text = resolve_pointer(document, page["page"]["pointer"])
            assert isinstance(text, str), page["id"]
        else:
            skipped += 1
            continue
        assert page["supporting"] in text, page["id"]
        assert text.count(page["supporting"]) == 1, page["id"]
        assert len(text) >= 4 * len(page["supporting"]), page["id"]
    if skipped:
        pytest.skip(f"{skipped} fixture pages not checked: {FIXTURES} is absent and CI is not set")
