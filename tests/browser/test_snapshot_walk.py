"""From a Perplexity citation to a recorded verdict, in a real browser: Fetch the cited page from a
loopback server the test starts (allow-listed), read the passage found beside the claim with the
differing figure marked, take it as the evidence quote with one click, and save. In English and in
Japanese, with screenshots at desktop and phone width and axe at both."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from django.contrib.auth.models import Group

from citeview.dumps.services import dump_ingest
from citeview.review.models import Check
from citeview.snapshots.models import Snapshot, SnapshotFetch
from citeview.snapshots.services import snapshot_fetch_request
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_check_queue import sign_in
from tests.browser.test_reviewer_flows import shoot
from tests.builders import sonar_object
from tests.conftest import OWN_FIXTURES
from tests.snapshots.pages import POPULATION_PAGE, html_route, page_server

pytestmark = pytest.mark.django_db(transaction=True)


def _japanese_page() -> bytes:
    text = (OWN_FIXTURES / "snapshots" / "ja-population-other-figure.txt").read_text(encoding="utf-8")
    paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in text.splitlines() if line.strip())
    page = '<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>東京都の人口</title></head>'
    page += f"<body><main><article>{paragraphs}</article></main><script>alert(1)</script></body></html>"
    return page.encode()


WALKS = {
    "en-US": {
        "claim": "As of January 2024, the population of Tokyo was about 14.1 million[1].",
        "page": POPULATION_PAGE,
        "claim_mark": "14.1 million",
        "passage_mark": "13.9 million",
        "fetch": "Fetch the page",
        "use": "Use as the evidence quote",
        "saved": "Saved.",
    },
    "ja-JP": {
        "claim": "東京都の人口は約1410万人で、前年比0.3%増です[1]。",
        "page": _japanese_page(),
        "claim_mark": "1410万",
        "passage_mark": "1,390万",
        "fetch": "ページを取得",
        "use": "根拠の引用に使う",
        "saved": "保存しました。",
    },
}


@pytest.fixture
def editor_tab(browser: Any, live_server: Any, django_user_model: Any):
    contexts = []

    def open_tab(locale: str) -> Any:
        user = django_user_model.objects.create_user(username="hanako", password=PASSWORD)
        user.groups.add(Group.objects.get(name="editor"))
        tab = sign_in(browser, live_server, user, locale, 1280)
        contexts.append(tab.context)
        tab.user = user
        return tab

    yield open_tab
    for context in contexts:
        context.close()


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_a_perplexity_citation_fetched_compared_quoted_and_judged(editor_tab, settings, locale):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    settings.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS = ["127.0.0.0/8"]
    walk = WALKS[locale]
    page = editor_tab(locale)
    with page_server({"/tokyo": html_route(walk["page"])}) as base:
        raw = json.dumps(sonar_object(walk["claim"], [f"{base}/tokyo"])).encode()
        dump = dump_ingest(raw=raw, uploaded_by=page.user)[0]
        page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
        assert page.locator(".cv-no-snapshot").is_visible()
        page.click(f"button:has-text('{walk['fetch']}')")
        page.wait_for_selector(".cv-snapshot-passage")
    snapshot = Snapshot.objects.get()
    assert snapshot.method == "fetch" and snapshot.http_status == 200

    # The passage beside the claim, the figure that differs marked on both sides; the page's script
    # and markup are nowhere (only its text is shown).
    assert page.inner_text(".cv-snapshot-claim mark.cv-number-diff") == walk["claim_mark"]
    assert walk["passage_mark"] in page.locator(".cv-snapshot-passage mark.cv-number-diff").all_inner_texts()
    assert page.locator(".cv-snapshot-differs").is_visible()
    assert page.locator(".cv-snapshot script, .cv-snapshot nav").count() == 0
    assert not page.evaluate("window.__pwned === true")
    shoot(page, f"check-snapshot-{locale}")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert not serious_violations(page), width
    page.set_viewport_size({"width": 1280, "height": 900})

    # One click takes the passage as the quote; nothing is saved until the editor saves.
    passage = page.inner_text(".cv-snapshot-passage").strip()
    page.click(f"button.cv-use-passage:has-text('{walk['use']}')")
    assert page.input_value("textarea[name=evidence_quote]") == passage
    assert not Check.objects.exists()
    page.click("label:has(input[name=verdict][value=partial])")
    page.check("input[name=time][value=yes]")
    page.click(".cv-save-bar button[type=submit]")
    page.wait_for_url(f"**/dumps/{dump.pk}/check**")
    page.wait_for_load_state()
    check = Check.objects.get(item_key="r0-c0")
    assert (check.verdict, check.evidence_quote, check.time) == ("partial", passage, "yes")
    assert not page.console_errors, page.console_errors


def test_a_fetch_that_never_ends_is_asked_after_less_and_less_often_then_said_to_take_long(
    editor_tab, settings, database_queue
):
    """The panel polled every second for ever (issue 29, finding 4). Now it waits twice as long each
    time, up to 15 s, and stops after three minutes, saying so with the reload link. Driven on a fake
    clock: three minutes pass in seconds."""
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    page = editor_tab("en-US")
    url = "https://stats.example/tokyo"
    dump = dump_ingest(raw=json.dumps(sonar_object(WALKS["en-US"]["claim"], [url])).encode(), uploaded_by=page.user)[0]
    snapshot_fetch_request(url=url, requested_by=page.user)  # queued, and no worker runs it
    asked: list[str] = []
    answered: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if request.url.endswith("/snapshot/status") else None)
    for event in ("requestfinished", "requestfailed"):
        page.on(
            event, lambda request: answered.append(request.url) if request.url.endswith("/snapshot/status") else None
        )
    page.clock.install()
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    assert page.locator(".cv-snapshot-fetching").is_visible()
    assert not page.locator(".cv-fetch-late").is_visible() and not page.locator(".cv-fetch-reload").is_visible()

    def seconds_pass(seconds: int) -> None:
        for _ in range(seconds):
            page.clock.run_for(1_000)
            for _ in range(500):  # the question a timer sent is answered before the clock goes on
                page.wait_for_timeout(10)  # (in real time, and handing Playwright its events)
                if len(answered) == len(asked):
                    break

    seconds_pass(179)
    assert not page.locator(".cv-fetch-late").is_visible()
    assert 10 <= len(asked) <= 16  # after 1, 3, 7 and 15 s, then every 15 s: not 179 times
    seconds_pass(20)
    assert page.locator(".cv-fetch-late").is_visible() and page.locator(".cv-fetch-reload").is_visible()
    assert "taking longer than expected" in page.inner_text(".cv-snapshot-fetching")
    stopped = len(asked)
    seconds_pass(60)
    assert len(asked) == stopped  # it has stopped asking
    assert SnapshotFetch.objects.get().state == "queued"
    assert not page.console_errors, page.console_errors
