"""Gemini's Search Suggestions in a real browser: shown with their own style, their script never runs."""

from __future__ import annotations

import json

import pytest

from citeview.dumps.services import dump_ingest
from tests.core.parsing.providers.test_gemini import body

pytestmark = pytest.mark.django_db(transaction=True)

SNIPPET = (
    "<style>.chip{color:rgb(1, 2, 3);display:inline-block;padding:4px}</style>"
    '<div class="container"><a class="chip" href="https://www.google.com/search?q=x">東京 人口</a></div>'
    "<script>document.body.dataset.ran = 'yes'; parent.document.body.dataset.ran = 'yes';</script>"
)


def test_the_suggestions_render_with_their_style_and_run_no_script(signed_in, account):
    raw = json.dumps(body("東京は日本の首都です。", [], searchEntryPoint={"renderedContent": SNIPPET})).encode()
    dump, _ = dump_ingest(raw=raw, uploaded_by=account)
    page = signed_in
    page.goto(dump.get_absolute_url())
    frame_element = page.wait_for_selector("iframe.cv-suggestions")
    assert frame_element.get_attribute("sandbox") == "allow-popups allow-popups-to-escape-sandbox"
    frame = frame_element.content_frame()
    chip = frame.wait_for_selector(".chip")
    assert chip.inner_text() == "東京 人口"
    assert chip.evaluate("element => getComputedStyle(element).color") == "rgb(1, 2, 3)"
    assert frame.evaluate("document.body.dataset.ran") is None
    assert page.evaluate("document.body.dataset.ran") is None
    # The browser reports the snippet's script as blocked by the sandbox; nothing else goes wrong.
    blocked = [e for e in page.console_errors if e.startswith("Blocked script execution")]
    assert blocked and len(blocked) == len(page.console_errors)


def test_the_suggestions_opened_as_a_page_of_their_own_are_refused(signed_in, account):
    raw = json.dumps(body("東京は日本の首都です。", [], searchEntryPoint={"renderedContent": SNIPPET})).encode()
    dump, _ = dump_ingest(raw=raw, uploaded_by=account)
    page = signed_in
    response = page.goto(f"/dumps/{dump.pk}/responses/0/search-suggestions")
    assert response.status == 403 and response.headers["content-type"] == "text/plain; charset=utf-8"
    assert "東京 人口" not in page.content() and dump.get_absolute_url() in page.inner_text("body")
