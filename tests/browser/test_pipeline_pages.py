"""The pages a team's pipeline needs, in a real browser: a bulk import, and an API token."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.test import Client

from citeview.dumps.models import Dump
from tests.browser.test_reviewer_flows import shoot
from tests.builders import sonar_object
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db(transaction=True)


def batch() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("回答-1.json", json.dumps(sonar_object("東京の人口[1]", ["https://example.jp/a"])))
        archive.writestr("stream.sse", own_fixture("agent-seed-incomplete.sse"))
        archive.writestr("壊れた.json", b'{"choices": [')
    return buffer.getvalue()


def test_an_import_lists_each_file_then_opens_a_stored_dump(signed_in):
    page = signed_in
    page.click("nav.cv-nav >> text=一括取り込み")
    page.wait_for_url("**/imports/")
    page.set_input_files("#id_file", {"name": "batch.zip", "mimeType": "application/zip", "buffer": batch()})
    page.click(".cv-import-form button[type=submit]")
    page.wait_for_selector(".cv-import-summary")
    rows = page.locator(".cv-import-row")
    assert rows.count() == 3
    assert "3 / 3" in rows.nth(2).inner_text()
    assert page.locator(".cv-import-error").first.is_visible()  # the broken file, with its reason
    assert "2 件を保存" in page.locator(".cv-import-summary").inner_text()
    shoot(page, "import-results")
    page.locator(".cv-import-stored a").first.click()
    page.wait_for_url("**/dumps/*/")
    assert Dump.objects.count() == 2
    assert not page.console_errors, page.console_errors


def test_a_token_is_made_shown_once_used_and_revoked(signed_in, live_server):
    page = signed_in
    page.click(".cv-user")
    page.wait_for_url("**/accounts/")
    page.fill("#id_name", "夜間バッチ")
    page.click(".cv-token-form button[type=submit]")
    key = page.input_value("#new-token")
    assert key.startswith("cv_")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("button[data-copy=new-token]")
    # The button says so once the clipboard has taken the key, which is a promise: wait for it.
    page.wait_for_selector("button[data-copy=new-token]:text-is('コピーしました')", timeout=5000)
    assert page.evaluate("navigator.clipboard.readText()") == key
    shoot(page, "account-token")
    api = Client(headers={"Authorization": f"Bearer {key}"})
    assert api.get("/api/dumps").status_code == 200
    page.goto("/accounts/")
    assert page.locator("#new-token").count() == 0 and "夜間バッチ" in page.inner_text(".cv-tokens")
    page.click(".cv-tokens button:has-text('無効にする')")
    page.wait_for_selector(".cv-message")
    assert api.get("/api/dumps").status_code == 401
    assert not page.console_errors, page.console_errors
