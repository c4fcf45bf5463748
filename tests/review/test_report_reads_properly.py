"""The report reads as a person would write it: a provider's quote is named by its kind (and its marker,
where the answer has one), never as Python's ``None``; a statement's answers read as the questions the
check form asks; and ≠ marks only two answers given that differ, never one left blank."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items, item_version
from citeview.review.services import check_save
from tests.conftest import own_fixture, user_with_role
from tests.review.report_dump import check_everything, ten_item_dump

pytestmark = pytest.mark.django_db

# Claude's answer citing three search results, each with the text it quotes and no marker in the text.
CLAUDE = "claude-content-blocks-search-results.json"


def report_page(client, dump, language: str) -> str:
    return client.get(reverse("review:report", args=[dump.pk]), HTTP_ACCEPT_LANGUAGE=language).content.decode()


def report_md(client, dump, language: str) -> str:
    return client.get(reverse("review:report_md", args=[dump.pk]), {"lang": language}).content.decode()


def evidence_table(html: str) -> str:
    return re.search(r'<table class="cv-table cv-report-evidence">.*?</table>', html, re.S).group(0)


@pytest.mark.parametrize(
    ("language", "label"),
    [("en", "A quote as the API gave it"), ("ja", "API が返したままの引用")],
)
def test_a_quote_with_no_marker_is_named_by_its_kind_not_by_none(client, editor, language, label):
    dump = dump_ingest(raw=own_fixture(CLAUDE), uploaded_by=editor)[0]
    client.force_login(editor)
    table = evidence_table(report_page(client, dump, language))
    rows = re.findall(r'<span class="cv-report-label">(.*?)</span>', table)
    assert rows.count(label) == 3, rows
    assert "None" not in table
    markdown = report_md(client, dump, language)
    evidence = markdown[markdown.index("Evidence per citation" if language == "en" else "引用ごとの根拠") :]
    assert "None" not in evidence and "バックアップは毎日3時に取得する。" in evidence
    quotes = client.get(reverse("review:report_json", args=[dump.pk])).json()["responses"][0]["evidence"]
    assert [q["kind"] for entry in quotes for q in entry["quotes"]] == ["quote"] * 3


def statement_blocks(html: str) -> list[str]:
    return re.findall(r'<li class="cv-report-statement"[^>]*>(.*?)\n</li>', html, re.S)


def both_find_no_support_for_s1(editor, second_editor, together: tuple[str, str]):
    """The ten-item dump, its first citation (S1's) judged "none" by both editors, each answering
    "supported together" as ``together`` says (blank: left unanswered)."""
    dump = ten_item_dump(editor)
    first = dump_check_items(dump)[0]
    for user, answer in zip((editor, second_editor), together, strict=True):
        check_save(
            dump=dump,
            item=first,
            editor=user,
            values={"verdict": "none"},
            statement_values={"verification_worthy": "yes", "supported_together": answer},
            seen_version=item_version(dump, first.key),
        )
    return dump


def test_a_statement_answer_left_blank_agrees_with_any_answer(client, editor, second_editor, reviewer):
    """Both editors find no support; one answers "supported together: no", the other leaves it blank."""
    dump = both_find_no_support_for_s1(editor, second_editor, together=("no", ""))
    client.force_login(reviewer)
    for language in ("en", "ja"):
        html = report_page(client, dump, language)
        (block,) = [b for b in statement_blocks(html) if "[1]" in b]
        assert "≠" not in block and "cv-report-differs" not in block, language
        markdown = report_md(client, dump, language)
        assert "≠" not in markdown, language
    statement = client.get(reverse("review:report_json", args=[dump.pk])).json()["responses"][0]["statements"][0]
    assert statement["answers"]["supported_together"] == {"final": "no", "how": "agreed"}


def test_two_statement_answers_given_that_differ_are_marked(client, editor, second_editor, reviewer):
    dump = both_find_no_support_for_s1(editor, second_editor, together=("no", "yes"))
    client.force_login(reviewer)
    (block,) = [b for b in statement_blocks(report_page(client, dump, "en")) if "[1]" in b]
    assert "cv-report-answers cv-report-differs" in block and block.count("≠") == 2


@pytest.mark.parametrize(
    ("language", "worthy", "together", "yes"),
    [
        (
            "en",
            "Is the statement a claim about the world (verification-worthy)?",
            "Do its citations together support it?",
            "yes",
        ),
        ("ja", "この文は事実についての主張ですか（検証の対象か）？", "引用全体でこの文を裏付けていますか？", "はい"),
    ],
)
def test_statement_answers_read_as_the_questions_the_check_form_asks(
    client, django_user_model, editor, language, worthy, together, yes
):
    dump = ten_item_dump(editor)
    check_everything(dump, editor, 0)
    client.force_login(user_with_role(django_user_model, "yuki", "reviewer"))
    html = report_page(client, dump, language)
    first = statement_blocks(html)[0]
    answers = re.search(r'<p class="cv-report-answers">(.*?)</p>', first, re.S).group(1)
    text = " ".join(re.sub(r"<[^>]+>", " ", answers).split())
    assert f"{worthy} {yes}" in text and f"{together} {yes}" in text and "hanako" in text
    for field_name in ("worthy yes", "supported together", "検証の対象 はい", "引用全体で裏付け はい"):
        assert field_name not in html
    markdown = report_md(client, dump, language)
    assert f"  - {worthy} {yes} · {together} {yes} — hanako" in markdown
