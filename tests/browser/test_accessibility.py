"""An automated accessibility check (axe-core, from the npm registry) on every kind of page."""

from __future__ import annotations

import pytest

from citeview.dumps.services import dump_ingest
from tests.conftest import PROJECT_DIR, own_fixture

pytestmark = pytest.mark.django_db(transaction=True)

AXE = PROJECT_DIR / "tests" / "browser" / "node_modules" / "axe-core" / "axe.min.js"
SAMPLES = PROJECT_DIR / "citeview" / "dumps" / "samples"


def serious_violations(page) -> list[str]:
    if not AXE.exists():
        pytest.fail(f"axe-core is missing at {AXE}: run `npm ci --prefix tests/browser` (make test does it).")
    page.evaluate(AXE.read_text(encoding="utf-8"))  # evaluated by the browser, not injected as a page script
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[(n['target'], n['html'][:160]) for n in v['nodes']][:3]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("width", [1280, 390])
def test_pages_have_no_serious_accessibility_violations(signed_in, account, width):
    page = signed_in
    page.set_viewport_size({"width": width, "height": 900})
    urls = ["/"]
    for name in ("agent-seed-incomplete.sse", "claude-ja-documents-exchange.json"):
        dump, _ = dump_ingest(raw=own_fixture(name), uploaded_by=account)
        urls.append(dump.get_absolute_url())
    for name in ("08-gemini-stream-ja-sakura.sse", "09-openai-responses-ja-visitors.json"):
        dump, _ = dump_ingest(raw=(SAMPLES / name).read_bytes(), uploaded_by=account)
        urls.append(dump.get_absolute_url())
    problems = {}
    for url in urls:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        found = serious_violations(page)
        if found:
            problems[url] = found
    assert not problems, problems


def test_the_login_page_has_no_serious_accessibility_violations(page):
    page.goto("/accounts/login/")
    assert not serious_violations(page)
