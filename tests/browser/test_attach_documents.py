"""Attaching the documents a Claude answer cites, on their own, through the form in a real browser: a
plain-text file and a two-page PDF, numbered in the order chosen, each quote checked against them."""

from __future__ import annotations

import pytest

from citeview.dumps.models import Dump
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_reviewer_flows import shoot
from tests.documents import POLICY, REPORT_PAGES, pdf_of, policy_and_report_answer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def files(tmp_path):
    answer = tmp_path / "claude-answer.json"
    answer.write_bytes(policy_and_report_answer())
    policy = tmp_path / "1-policy.txt"
    policy.write_text(POLICY, encoding="utf-8")
    report = tmp_path / "2-heat-report.pdf"
    report.write_bytes(pdf_of(*REPORT_PAGES))
    return answer, policy, report


def test_a_text_document_and_a_two_page_pdf_attached_to_a_claude_answer_check_its_quotes(signed_in, files):
    page = signed_in
    answer, policy, report = files
    page.set_input_files("#id_file", str(answer))
    page.click(".cv-request > summary")
    page.set_input_files("#id_request_file", [str(policy), str(report)])
    assert page.inner_text(".cv-request .cv-file-name") == "0: 1-policy.txt, 1: 2-heat-report.pdf"
    page.click(".cv-request-example > summary")
    assert "リクエスト全体の例" in page.inner_text(".cv-request-example summary")
    assert '"citations": {"enabled": true}' in page.inner_text(".cv-request-example")
    assert "0、1、2…と番号が付きます" in page.inner_text(".cv-request")
    assert serious_violations(page) == []  # the opened field and its example too
    shoot(page, "attach-documents")
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_url("**/dumps/*/")
    dump = Dump.objects.get()
    assert [(d.position, d.name) for d in dump.documents.all()] == [(0, "1-policy.txt"), (1, "2-heat-report.pdf")]
    chips = page.locator(".cv-evidence .cv-chip-ok")
    assert chips.count() == 2 and chips.first.inner_text() == "✓ 引用は文書と一致"
    assert page.locator(".cv-evidence .cv-chip-error").count() == 0
    sources = page.inner_text(".cv-sources") if page.locator(".cv-sources").count() else page.inner_text("body")
    assert "1-policy.txt" in sources and "2-heat-report.pdf" in sources
    assert "文書 1 · 2-heat-report.pdf" in page.inner_text("#cv-attached-request")
    page.locator(".cv-evidence").scroll_into_view_if_needed()
    shoot(page, "attach-documents-checked")
    assert not page.console_errors, page.console_errors


def test_a_request_that_cannot_be_read_says_what_one_looks_like(signed_in, files):
    page = signed_in
    answer, _policy, _report = files
    page.set_input_files("#id_file", str(answer))
    page.click(".cv-request > summary")
    page.fill("#id_request_text", '{"messages": [')
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_selector("#intake-error")
    error = page.inner_text("#intake-error")
    assert error.startswith("添付したリクエストを読めません") and '"citations": {"enabled": true}' in error
    assert "文書だけをプレーンテキスト（.txt）か PDF で添付することもできます" in error
    assert page.locator(".cv-request").get_attribute("open") is not None  # the field stays open, the paste kept
    assert page.input_value("#id_request_text") == '{"messages": ['
    shoot(page, "attach-request-error")
    assert not Dump.objects.exists()
