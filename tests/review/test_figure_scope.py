"""Every figure says what it counts. Blind first keeps other editors' checks of an item from an editor
until they have checked it, so an editor's figures count fewer items than the dump holds: each figure
of checks (the report's summary on its page, in its Markdown and JSON and through the API; the figures
page, its JSON and the API's metrics) says so inside it, "on the 4 of 10 items visible to you", and a
reviewer's, on every item, says nothing of the kind. One rule decides (``citeview.review.figure_scope``).

Hanako checks four of the ten items, Taro the other six: each reads part of the dump, the reviewer all."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from citeview.review.models import Check
from citeview.review.selectors import dump_check_items
from citeview.review.services import editors_assign
from tests.conftest import user_with_role
from tests.review.report_dump import check_everything, ten_item_dump

pytestmark = pytest.mark.django_db

ITEMS = 10
SCOPE_EN = "on the {visible} of {items} items visible to you"
SCOPE_JA = "全 {items} 項目のうち、あなたに表示できる {visible} 項目について"


@pytest.fixture
def split(editor, second_editor):
    """Ten items: hanako checks the first four, taro the other six."""
    dump = ten_item_dump(editor)
    keys = [item.key for item in dump_check_items(dump)]
    check_everything(dump, editor, 0, only=set(keys[:4]))
    check_everything(dump, second_editor, 1, only=set(keys[4:]))
    return dump


def readers(editor, second_editor, reviewer, split, django_user_model):
    """Each reader and the items they may read: (user, visible items). A lead not assigned to the dump
    reads it all, as staff do; a lead assigned to it, who has checked nothing, is blind to every item
    others checked."""
    free_lead = user_with_role(django_user_model, "sato", "lead")
    assigned_lead = user_with_role(django_user_model, "kato", "lead")
    editors_assign(dump=split, editors=[editor, second_editor, assigned_lead], by=free_lead)
    staff = django_user_model.objects.create_superuser("kanri", "kanri@example.com", "a-long-test-password")
    return [(reviewer, ITEMS), (editor, 4), (second_editor, 6), (free_lead, ITEMS), (staff, ITEMS), (assigned_lead, 0)]


def scope_json(visible: int) -> dict:
    return {"visible_items": visible, "items": ITEMS, "complete": visible == ITEMS}


def scope_words(visible: int, language: str) -> str:
    return (SCOPE_JA if language == "ja" else SCOPE_EN).format(visible=visible, items=ITEMS)


def get(client, url: str, language: str = "ja", **query) -> str:
    response = client.get(url, query, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200, url
    return response.content.decode()


def said(element: str, visible: int, language: str) -> bool:
    """Whether a figure's element says its scope: it must, when it counts part of the items, and must
    not pretend to when it counts them all."""
    if visible == ITEMS:
        return "cv-scope" not in element and "visible to you" not in element and "表示できる" not in element
    return f'<span class="cv-scope">{scope_words(visible, language)}</span>' in element


def report_figures(html: str) -> dict[str, str]:
    """The report summary's figures of checks, each as the element that holds it."""
    summary = re.search(r'<section class="cv-card cv-report cv-report-summary".*?</section>', html, re.S).group(0)
    facts = dict(re.findall(r"<dt>(.*?)</dt><dd[^>]*>(.*?)</dd>", summary, re.S))
    headings = re.findall(r"<h3>(.*?)</h3>", summary, re.S)
    return {
        "checked by": facts["確認した人"],
        "final verdicts": facts["最終判定"],
        "recall": facts["引用再現率"],
        "precision": facts["引用適合率"],
        "unsupported": next(h for h in headings if "裏付けがない" in h),
        "disagreements": next(h for h in headings if "決着していない" in h or "裁定されていない" in h),
    }


def markdown_figures(markdown: str) -> dict[str, str]:
    lines = markdown.splitlines()

    def line(start: str) -> str:
        return next(text for text in lines if text.startswith(start))

    return {
        "checked by": line("- 確認した人："),
        "final verdicts": line("- 引用の最終判定："),
        "recall": line("- 引用再現率："),
        "precision": line("- 引用適合率："),
        "unsupported": line("### 裏付けがない"),
        "disagreements": next(t for t in lines if t.startswith("### ") and ("決着していない" in t or "裁定" in t)),
    }


def figures_page_figures(html: str) -> dict[str, str]:
    """The figures page's figures of checks, each as the element that holds it."""
    rates = re.findall(r'<div class="cv-headline-rate"><dt>(.*?)</dt>(.*?)</div>', html, re.S)
    found = {
        "overall": re.search(r'<h2 id="figures-overall">.*?</h2>', html, re.S).group(0),
        "verdict chart": re.search(r'<div class="cv-figure-verdicts".*?</div>', html, re.S).group(0),
        "recall and precision": re.search(r'<h2 id="figures-slices">.*?</h2>', html, re.S).group(0),
        "agreement": re.search(r'<h2 id="figures-agreement">.*?</h2>', html, re.S).group(0),
    }
    for name, body in rates:
        if name in ("再現率", "適合率", "再現率（マクロ）", "適合率（マクロ）"):
            found[f"headline {name}"] = body
    rows = re.findall(r'<table class="cv-table cv-figure-table">.*?</table>', html, re.S)
    for number, table in enumerate(rows):
        for row in re.findall(r'<tr><th scope="row">(.*?)</th>', table, re.S):
            found[f"table {number} row {row[:20]}"] = row
    unsettled = re.search(r'<h2 id="figures-unsettled">.*?</h2>', html, re.S)
    if unsettled:
        found["unsettled"] = unsettled.group(0)
    assert len(found) >= 12, found.keys()
    return found


def test_every_figure_says_on_how_many_items_it_is_computed_for_each_role(
    client, editor, second_editor, reviewer, split, django_user_model
):
    pk = split.pk
    for user, visible in readers(editor, second_editor, reviewer, split, django_user_model):
        client.force_login(user)
        who = user.username
        for url in (reverse("review:report_json", args=[pk]), f"/api/dumps/{pk}/report"):
            assert client.get(url).json()["summary"]["scope"] == scope_json(visible), (who, url)
        for url in (reverse("review:figures_json"), "/api/metrics"):
            figures = client.get(url).json()
            assert figures["scope"] == figures["overall"]["scope"] == scope_json(visible), (who, url)
            for name in ("by_provider", "by_api", "by_model", "by_uploader"):
                assert [part["scope"] for part in figures[name]] == [scope_json(visible)], (who, url, name)
        for name, element in report_figures(get(client, reverse("review:report", args=[pk]))).items():
            assert said(element, visible, "ja"), (who, "report page", name, element)
        for url in (reverse("review:report_md", args=[pk]), f"/api/dumps/{pk}/report.md"):
            for name, line in markdown_figures(get(client, url, lang="ja")).items():
                scoped = f"（{scope_words(visible, 'ja')}）" in line
                assert scoped == (visible < ITEMS), (who, url, name, line)
        for name, element in figures_page_figures(get(client, reverse("review:figures"))).items():
            assert said(element, visible, "ja"), (who, "figures page", name, element)
        for which in ("final", "editors"):
            chart = figures_page_figures(get(client, reverse("review:figures"), verdicts=which))["verdict chart"]
            assert said(chart, visible, "ja"), (who, which)


def test_the_english_pages_say_it_in_english(client, editor, split):
    client.force_login(editor)
    words = '<span class="cv-scope">on the 4 of 10 items visible to you</span>'
    assert words in get(client, reverse("review:report", args=[split.pk]), "en")
    assert words in get(client, reverse("review:figures"), "en")
    markdown = get(client, reverse("review:report_md", args=[split.pk]), lang="en")
    assert "- Citation recall: " in markdown and "(on the 4 of 10 items visible to you)" in markdown


def test_the_hidden_verdicts_are_no_count_beside_the_others(client, editor, split):
    """A count of hidden verdicts beside the verdicts read as if the dump's figures were complete."""
    client.force_login(editor)
    html = get(client, reverse("review:report", args=[split.pk]))
    assert "cv-report-count-hidden" not in html and "あなたの確認まで非表示" not in html
    assert client.get(reverse("review:report_json", args=[split.pk])).json()["summary"]["final_verdicts"]["hidden"]


def test_the_scope_counts_items_not_check_rows(editor, second_editor, split):
    """Taro's six items carry their statements' answers too: still six items hidden from hanako."""
    from citeview.review.figure_scope import ReaderScope

    checks = Check.objects.filter(dump=split)
    assert checks.exclude(editor=editor).count() > 6
    reader = ReaderScope(editor, checks)
    assert len(reader.hidden_keys()) == 6
    assert reader.of([split]).to_json() == scope_json(4)


def test_an_editor_who_checked_every_item_reads_every_figure_whole(client, editor, split):
    check_everything(split, editor, 0)
    client.force_login(editor)
    assert client.get(reverse("review:report_json", args=[split.pk])).json()["summary"]["scope"] == scope_json(ITEMS)
    assert "cv-scope" not in get(client, reverse("review:report", args=[split.pk]))
    assert "cv-scope" not in get(client, reverse("review:figures"))


def test_a_providers_slice_counts_the_items_of_that_providers_responses_only(client, editor, second_editor):
    """A dump of a Sonar answer and an OpenAI one: the OpenAI slice is on the OpenAI answer's items, of
    which taro checked one that hanako has not (the dump's whole count would pass for the slice's)."""
    import json

    from citeview.dumps.services import dump_ingest
    from tests.conftest import PROJECT_DIR

    samples = PROJECT_DIR / "citeview" / "dumps" / "samples"
    lines = [(samples / name).read_text(encoding="utf-8") for name in ("03-sonar-en-heat-pumps.json",)]
    lines.append((samples / "09-openai-responses-ja-visitors.json").read_text(encoding="utf-8"))
    raw = "\n".join(json.dumps(json.loads(line), ensure_ascii=False) for line in lines).encode()
    dump = dump_ingest(raw=raw, uploaded_by=editor)[0]
    items = dump_check_items(dump)
    by_response = [[item for item in items if item.response == n] for n in (0, 1)]
    assert [row[0] for row in dump.response_items] == ["perplexity", "openai"]
    openai = next(item for item in by_response[1] if item.kind == "citation")
    check_everything_of = {"verdict": "complete", "verification_worthy": "yes"}
    client.force_login(second_editor)
    version = {"version": "0", **check_everything_of}
    assert client.post(reverse("review:item", args=[dump.pk, openai.key]), version).status_code == 302
    client.force_login(editor)
    figures = client.get(reverse("review:figures_json")).json()
    slices = {part["label"]: part["scope"] for part in figures["by_provider"]}
    assert slices["openai"] == {
        "visible_items": len(by_response[1]) - 1,
        "items": len(by_response[1]),
        "complete": False,
    }
    assert slices["perplexity"] == {
        "visible_items": len(by_response[0]),
        "items": len(by_response[0]),
        "complete": True,
    }
    assert figures["scope"]["items"] == len(items)


def test_the_items_each_response_offers_follow_the_checks_order_up_to_the_limit():
    from citeview.core.checking.items import checkable_per_response

    # Citations of every response first, then markers, then statements: a limit of 5 takes the three
    # responses' citations (1 + 2 + 0) and the first response's two markers.
    assert checkable_per_response([(1, 2, 3), (2, 0, 1), (0, 1, 1)], 5) == [3, 2, 0]
    assert checkable_per_response([(1, 2, 3), (2, 0, 1), (0, 1, 1)], 100) == [6, 3, 2]
