"""A batch in a real browser: the navigator lists its responses, a click shows one alone, the filters
narrow the list, and the response shown works as any viewer's (its footnotes lead to its sources)."""

from __future__ import annotations

import pytest

from citeview.dumps.services import dump_ingest
from tests.browser.test_reviewer_flows import shoot
from tests.conftest import PROJECT_DIR

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLE = PROJECT_DIR / "citeview" / "dumps" / "samples" / "25-batch-200-sonar-ja-en.jsonl"


def test_a_batch_is_browsed_one_response_at_a_time(signed_in, account):
    dump, _ = dump_ingest(raw=SAMPLE.read_bytes(), uploaded_by=account, filename=SAMPLE.name)
    page = signed_in
    page.goto(dump.get_absolute_url())
    assert page.locator(".cv-batch-row").count() == 50
    assert page.locator(".cv-response").count() == 1
    assert page.locator(".cv-response").get_attribute("id") == "cv-r0"
    page.locator(".cv-batch-row").nth(2).locator("a").first.click()
    page.wait_for_url("**?response=3*")
    assert page.locator(".cv-response").get_attribute("id") == "cv-r2"
    assert page.locator(".cv-batch-current a").first.inner_text() == "3"
    page.locator(".cv-answer .cv-cite-link").first.click()  # a footnote leads to its source
    assert page.evaluate("location.hash").startswith("#cv-r2-src-")
    page.select_option("select[name=needs]", "unresolved")
    page.click(".cv-batch-filters button[type=submit]")
    page.wait_for_url("**needs=unresolved*")
    assert page.locator(".cv-batch-row").count() == 15
    assert page.locator(".cv-response .cv-unresolved").count() >= 1  # the first listed has its marker shown
    first_listed = int(page.locator(".cv-batch-row a").first.inner_text())
    second_listed = int(page.locator(".cv-batch-row").nth(1).locator("a").first.inner_text())
    assert page.locator(".cv-response").get_attribute("id") == f"cv-r{first_listed - 1}"
    page.click(".cv-batch-steps a[rel=next]")  # the next response the filter lists
    page.wait_for_function(f"document.querySelector('.cv-response').id === 'cv-r{second_listed - 1}'")
    assert not page.console_errors
    shoot(page, "viewer-batch")
