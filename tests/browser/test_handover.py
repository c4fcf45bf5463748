"""The handover in a real browser, in Japanese and in English: the report read on screen and printed
to PDF by Chromium (A4 pages, no navigation, addresses wrapped), the viewer printed too, and the
figures filled, their charts' words the same size on a desktop and on a phone."""

from __future__ import annotations

import io
import json
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Group
from pypdf import PdfReader

from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from citeview.review.services import check_save, comment_add
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_reviewer_flows import shoot
from tests.builders import agent_object

pytestmark = pytest.mark.django_db(transaction=True)

# An address with nowhere to break but its characters: printed, it must wrap inside the page.
LONG_URL = (
    "https://www.wbgt.env.go.jp/alert_guidance/heatstroke_alert_criteria_"
    + "wbgt33_prefecture_area_forecast_" * 5
    + "index.html"
)
ANSWER = (
    "**発表基準**：暑さ指数（WBGT）が**33以上**と予測された日に熱中症警戒アラートが発表されます[1]。"
    "アラートは府県予報区ごとに前日の17時ごろと当日の5時ごろに発表されます[2]。"
)
SOURCES = [(1, LONG_URL, "熱中症警戒アラートの発表基準｜環境省"), (2, "https://www.jma.go.jp/heat/", "気象庁 熱中症")]
A4_POINTS = (595.28, 841.89)  # 210 × 297 mm
# A4 less the report's @page margins (14 mm a side), in CSS pixels: how wide a printed page lays out.
A4_CONTENT_PX = round((210 - 2 * 14) / 25.4 * 96)

WORDS = {
    "ja-JP": {
        "title": "引き継ぎレポート",
        "verdict": "完全に裏付ける",
        "quote": "根拠の引用",
        "note": "メモ",
        "notation": "本文中の [n] と [web:n] のマーカー",
        "time": "JST",
        "navigation": ("ログアウト", "インポート", "Markdown でダウンロード", "English"),
        "recall": "再現率",
    },
    "en-US": {
        "title": "Handover report",
        "verdict": "Complete support",
        "quote": "Evidence quote",
        "note": "Note",
        "notation": "[n] and [web:n] markers in the text",
        "time": "JST",
        "navigation": ("Log out", "Import", "Download as Markdown", "日本語"),
        "recall": "Recall",
    },
}


@pytest.fixture
def editor_in(browser: Any, live_server: Any, django_user_model: Any) -> Iterator[Any]:
    """A signed-in editor's tab in the given locale, with a checked and commented dump."""
    contexts = []

    def sign_in(locale: str) -> Any:
        user = django_user_model.objects.create_user(username="hanako", password=PASSWORD)
        user.groups.add(Group.objects.get(name="editor"))
        context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900}, locale=locale)
        contexts.append(context)
        tab = context.new_page()
        tab.console_errors = []
        tab.on("console", lambda m: tab.console_errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: tab.console_errors.append(str(e)))
        tab.goto("/accounts/login/")
        tab.fill("#id_username", user.username)
        tab.fill("#id_password", PASSWORD)
        tab.click(".cv-login button[type=submit]")
        tab.wait_for_url(lambda url: "/accounts/login/" not in url)
        tab.dump = checked_dump(user)
        return tab

    yield sign_in
    for context in contexts:
        context.close()


def checked_dump(user: Any) -> Any:
    raw = json.dumps(agent_object(ANSWER, SOURCES), ensure_ascii=False).encode()
    dump = dump_ingest(raw=raw, uploaded_by=user, filename="heat-alert.json")[0]
    statement = {"verification_worthy": "yes", "supported_together": "yes"}
    for item, verdict in zip(dump_check_items(dump), ("complete", "partial"), strict=True):
        values = {"verdict": verdict, "subject": "yes", "evidence_quote": "暑さ指数が33以上", "note": "年度は2026年"}
        check_save(dump=dump, item=item, editor=user, values=values, statement_values=statement, seen_version=0)
    comment_add(dump=dump, author=user, text="府県予報区の一覧を添付してください", item_key="r0-c0")
    comment_add(dump=dump, author=user, text="デスク確認済み")
    return dump


def pdf_text(pdf: bytes) -> tuple[PdfReader, str]:
    """The PDF's pages and their text, as :func:`flat` compares it."""
    reader = PdfReader(io.BytesIO(pdf))
    return reader, flat("".join(page.extract_text() for page in reader.pages))


def flat(text: str) -> str:
    """Text without its line breaks and spaces (a printed line breaks where the page ends), in NFKC:
    the CJK fonts draw 日 with the glyph of the Kangxi radical ⽇, and the text read back may name either."""
    return "".join(unicodedata.normalize("NFKC", text).split())


def assert_a4(reader: PdfReader) -> None:
    for number, page in enumerate(reader.pages, 1):
        size = (float(page.mediabox.width), float(page.mediabox.height))
        assert size == pytest.approx(A4_POINTS, abs=1), f"page {number} is {size} pt, not A4"


def assert_fits_a_printed_page(page: Any) -> None:
    """Laid out as printed, at an A4 page's width, nothing reaches past the page's side."""
    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_CONTENT_PX, "height": 1000})
    assert page.evaluate("document.documentElement.scrollWidth") <= A4_CONTENT_PX
    assert not page.locator(".cv-topbar").is_visible() and not page.locator("form").first.is_visible()
    page.emulate_media(media="null")  # as it was: page.pdf() prints with the print styles
    page.set_viewport_size({"width": 1280, "height": 900})


def assert_accessible(page: Any) -> None:
    """axe finds nothing serious at desktop or at phone width."""
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert not serious_violations(page), width
    page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_the_report_reads_and_prints_to_a4_pdf(editor_in, locale):
    words = WORDS[locale]
    page = editor_in(locale)
    page.goto(f"/dumps/{page.dump.pk}/report/")
    body = page.inner_text("main")
    for shown in ("title", "verdict", "quote", "note", "notation"):
        assert words[shown] in body, shown
    assert "発表基準：暑さ指数（WBGT）が33以上" in body and "**" not in body  # the statement as text
    assert "府県予報区の一覧を添付してください" in body and "デスク確認済み" in body
    shoot(page, f"handover-report-{locale[:2]}")
    assert_accessible(page)

    assert_fits_a_printed_page(page)
    reader, text = pdf_text(page.pdf(prefer_css_page_size=True))
    assert_a4(reader)
    for shown in ("title", "verdict", "quote", "notation"):
        assert flat(words[shown]) in text, shown
    for control in words["navigation"]:
        assert flat(control) not in text, f"{control!r} is printed"
    assert "←" not in text  # the link back to the viewer
    assert LONG_URL in text, "the long address is cut off, not wrapped"
    assert "デスク確認済み" in text and words["time"] in text
    assert not page.console_errors


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_the_viewer_prints_to_a4_pdf_without_its_navigation_or_forms(editor_in, locale):
    words = WORDS[locale]
    page = editor_in(locale)
    page.goto(f"/dumps/{page.dump.pk}/")
    assert_fits_a_printed_page(page)
    reader, text = pdf_text(page.pdf(prefer_css_page_size=True))
    assert_a4(reader)
    assert flat("熱中症警戒アラートが発表されます") in text and LONG_URL in text
    for control in words["navigation"]:
        assert flat(control) not in text, f"{control!r} is printed"


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_the_figures_are_filled_and_their_charts_words_keep_one_size(editor_in, locale):
    page = editor_in(locale)
    page.goto("/figures/")
    headline = page.inner_text(".cv-headline")
    assert WORDS[locale]["recall"] in headline and "100.0%" in headline  # both statements supported together
    assert "—" not in page.inner_text(".cv-headline-rate:first-child")
    assert page.locator("svg.cv-bars").count() == 2
    sizes = {}
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        sizes[width] = page.evaluate(
            """() => [...document.querySelectorAll('svg.cv-bars text')].map(
                t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"""
        )
        assert sizes[width] and all(13 <= size <= 14 for size in sizes[width]), (width, sizes[width])
    assert sizes[1280] == sizes[390]
    page.set_viewport_size({"width": 1280, "height": 900})
    shoot(page, f"handover-figures-{locale[:2]}")
    assert_accessible(page)
    assert not page.console_errors
