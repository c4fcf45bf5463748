"""What a reviewer does, in a real browser: paste, upload, drop, follow footnotes and back, read cards."""

from __future__ import annotations

import json
import re

import pytest

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from tests.conftest import OWN_FIXTURES, PROJECT_DIR, own_fixture

pytestmark = pytest.mark.django_db(transaction=True)

SCREENSHOTS = PROJECT_DIR / "test-artifacts" / "screenshots"
SEED = "agent-seed-incomplete.sse"


def in_viewport(page, selector: str) -> bool:
    return page.eval_on_selector(
        selector, "e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"
    )


def shoot(page, name: str) -> None:
    """Screenshots at desktop and phone width; on a phone the page must fit, never scroll sideways."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width, label in ((1280, "desktop"), (390, "phone")):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{name} is wider than {width} px"
    page.set_viewport_size({"width": 1280, "height": 900})


def test_pasting_a_stream_opens_its_answer_page(signed_in):
    page = signed_in
    page.fill("#id_text", own_fixture(SEED).decode())
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_url("**/dumps/*/")
    # The browser asks for Japanese: citeview's own words are Japanese, the answer stays as written.
    assert (
        page.locator(".cv-banner-warning")
        .inner_text()
        .endswith("response.completed がないままストリームが終わっています")
    )
    assert page.locator(".cv-cite-link").count() == 3 and page.locator(".cv-unresolved").count() == 1
    assert not page.console_errors


def test_uploading_by_the_file_picker_shows_progress_and_opens_the_dump(signed_in):
    page = signed_in
    page.set_input_files("#id_file", str(OWN_FIXTURES / "sonar-stream-full-mode-crlf.sse"))
    assert page.locator(".cv-file-name").inner_text() == "sonar-stream-full-mode-crlf.sse"
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_url("**/dumps/*/")
    assert "地震の情報は気象庁が発表します" in page.locator(".cv-answer").inner_text()
    assert Dump.objects.get().filename == "sonar-stream-full-mode-crlf.sse"


def test_back_after_an_upload_returns_to_the_form_and_forward_to_the_dump(signed_in):
    page = signed_in
    page.set_input_files("#id_file", str(OWN_FIXTURES / "sonar-stream-full-mode-crlf.sse"))
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_url("**/dumps/*/")
    dump = Dump.objects.get()
    assert page.url.endswith(dump.get_absolute_url()) and page.locator(".cv-answer").is_visible()
    page.go_back()
    page.wait_for_url(lambda url: url.endswith("/") and "/dumps/" not in url)
    assert page.locator(".cv-intake-form").is_visible() and not page.locator(".cv-answer").count()
    assert page.locator(".cv-intake-form button[type=submit]").is_enabled()  # ready for the next file
    assert not page.locator(".cv-busy").inner_text()
    page.go_forward()
    page.wait_for_url(f"**{dump.get_absolute_url()}")
    assert "地震の情報は気象庁が発表します" in page.locator(".cv-answer").inner_text()
    # The same file again opens the stored dump, with the message saying so.
    page.goto("/")
    page.set_input_files("#id_file", str(OWN_FIXTURES / "sonar-stream-full-mode-crlf.sse"))
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_url(f"**{dump.get_absolute_url()}")
    assert page.locator(".cv-message").count() == 1 and Dump.objects.count() == 1  # "stored already"
    assert not page.console_errors


def test_dropping_a_file_on_the_form_chooses_it(signed_in):
    page = signed_in
    content = own_fixture("agent-two-responses.jsonl").decode()
    page.evaluate(
        """content => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([content], "dropped.jsonl", {type: "application/x-ndjson"}));
            const form = document.querySelector(".cv-intake-form");
            form.dispatchEvent(new DragEvent("dragover", {dataTransfer: transfer, bubbles: true, cancelable: true}));
            form.dispatchEvent(new DragEvent("drop", {dataTransfer: transfer, bubbles: true, cancelable: true}));
        }""",
        content,
    )
    assert page.locator(".cv-file-name").inner_text() == "dropped.jsonl"
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_url("**/dumps/*/")
    assert page.locator(".cv-response").count() == 2


@pytest.fixture
def seed_page(signed_in, account):
    dump, _ = dump_ingest(raw=own_fixture(SEED), uploaded_by=account, filename=SEED)
    signed_in.goto(dump.get_absolute_url())
    return signed_in


def test_a_footnote_leads_to_its_source_and_the_back_link_returns_to_it(seed_page):
    page = seed_page
    page.set_viewport_size({"width": 390, "height": 700})  # the sources sit below the answer
    page.click("#cv-r0-cite-1")  # [9], the second source listed
    assert page.evaluate("location.hash") == "#cv-r0-src-2"
    assert in_viewport(page, "#cv-r0-src-2")
    assert page.eval_on_selector("#cv-r0-src-2", "e => e.matches(':target')")
    page.click("#cv-r0-src-2 .cv-backlinks a")
    assert page.evaluate("location.hash") == "#cv-r0-cite-1" and in_viewport(page, "#cv-r0-cite-1")


def test_hover_and_keyboard_focus_show_the_source_card(seed_page):
    page = seed_page
    card = page.locator("sup:has(#cv-r0-cite-1) > .cv-pop")
    assert not card.is_visible()
    page.hover("#cv-r0-cite-1")
    assert card.is_visible() and "条件Bの解説" in card.inner_text() and "city.example.jp" in card.inner_text()
    page.mouse.move(0, 0)
    assert not card.is_visible()
    page.focus("#cv-r0-cite-0")
    both = page.locator("sup:has(#cv-r0-cite-0) > .cv-pop")  # [2] names two sources: both cards, side by side
    assert both.is_visible() and "条件Aについて" in both.inner_text() and "条件の速報" in both.inner_text()
    assert page.get_attribute("#cv-r0-cite-0", "aria-label") == "出典 2（⚠ 競合：この番号には URL が 2 つあります）"
    page.keyboard.press("Escape")
    assert not both.is_visible()


def test_a_source_cited_twice_has_one_card_shown_beside_each_footnote(signed_in, account):
    from playwright.sync_api import expect

    from tests.builders import agent_object

    text = "東京は首都です[1]。人口は約1400万人です[1]。"
    raw = json.dumps(agent_object(text, [(1, "https://www.metro.tokyo.lg.jp/", "東京都の統計")])).encode()
    dump, _ = dump_ingest(raw=raw, uploaded_by=account)
    page = signed_in
    page.goto(dump.get_absolute_url())
    assert page.locator(".cv-cards .cv-pop-entry").count() == 1  # written once
    for footnote in ("#cv-r0-cite-0", "#cv-r0-cite-1"):
        # A screen reader reads the card as the footnote's description.
        described = re.compile(r"^東京都の統計\s*metro\.tokyo\.lg\.jp\s*https://www\.metro\.tokyo\.lg\.jp/\s*$")
        expect(page.locator(footnote)).to_have_accessible_description(described)
    page.hover("#cv-r0-cite-0")
    first = page.locator("sup:has(#cv-r0-cite-0) > .cv-pop")
    assert first.is_visible() and "東京都の統計" in first.inner_text()
    page.mouse.move(0, 0)
    page.focus("#cv-r0-cite-1")
    second = page.locator("sup:has(#cv-r0-cite-1) > .cv-pop")
    assert second.is_visible() and "metro.tokyo.lg.jp" in second.inner_text() and not first.is_visible()
    page.keyboard.press("Tab")  # the focus moves on: the card goes
    assert not second.is_visible()
    assert not page.console_errors


def test_an_unresolved_marker_explains_itself_on_focus(seed_page):
    page = seed_page
    tip = page.locator(".cv-unresolved .cv-tip")
    assert not tip.is_visible()
    page.focus(".cv-unresolved")
    assert tip.is_visible() and "[8] はどの検索結果も指していません" in tip.inner_text()


def test_the_raw_dump_expands_and_collapses(seed_page):
    page = seed_page
    raw = page.locator(".cv-raw-text").first
    assert not raw.is_visible()
    page.click("details.cv-raw > summary")
    assert raw.is_visible() and "response.reasoning.search_results" in raw.inner_text()
    page.click("details.cv-raw > summary")
    assert not raw.is_visible()


def test_a_citation_permalink_opens_scrolled_to_it(seed_page):
    page = seed_page
    page.set_viewport_size({"width": 390, "height": 500})
    page.goto(page.url.split("#")[0] + "#cv-r0-cite-1")
    assert in_viewport(page, "#cv-r0-cite-1") and page.eval_on_selector("#cv-r0-cite-1", "e => e.matches(':target')")


def test_a_bad_paste_or_file_shows_its_message_and_keeps_the_paste(signed_in):
    page = signed_in
    page.fill("#id_text", '{"id": "resp_1", "output": [')
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_selector("#intake-error")
    assert "途中で切れているようです" in page.locator("#intake-error").inner_text()
    assert page.input_value("#id_text") == '{"id": "resp_1", "output": ['
    page.fill("#id_text", "")
    page.set_input_files("#id_file", {"name": "answer.json", "mimeType": "application/json", "buffer": b"%PDF-1.7 ..."})
    page.click(".cv-intake-form button[type=submit]")
    page.locator("#intake-error", has_text="PDF").wait_for()  # the file goes by XHR with a progress bar
    assert all("status of 4" in error for error in page.console_errors), (
        page.console_errors
    )  # only the error page's own status


def test_every_page_runs_under_the_strict_policy_with_no_console_errors(signed_in, account):
    page = signed_in
    names = {}
    fixtures = [
        "agent-seed-incomplete.sse",
        "claude-ja-documents-exchange.json",
        "claude-content-blocks-search-results.json",
    ]
    for name in fixtures:
        dump, _ = dump_ingest(raw=own_fixture(name), uploaded_by=account, filename=name)
        names[name] = dump.get_absolute_url()
    samples = sorted((PROJECT_DIR / "citeview" / "dumps" / "samples").iterdir())
    for path in samples:
        dump, _ = dump_ingest(raw=path.read_bytes(), uploaded_by=account, filename=path.name)
        names[path.name] = dump.get_absolute_url()
    responses = []
    page.on("response", lambda response: responses.append(response))
    for url in ["/", *names.values()]:
        page.goto(url)
        page.wait_for_load_state("networkidle")
    documents = [r for r in responses if r.request.resource_type == "document"]
    pages = [r for r in documents if "search-suggestions" not in r.url]
    frames = [r for r in documents if "search-suggestions" in r.url]
    assert pages and all("script-src 'self'" in r.headers.get("content-security-policy", "") for r in pages)
    assert frames and all("default-src 'none'" in r.headers.get("content-security-policy", "") for r in frames)
    assert not [e for e in page.console_errors if not e.startswith("Blocked script execution")]
    page.goto("/")
    shoot(page, "home")
    for label, name in (
        ("perplexity", SEED),
        ("claude-evidence", "claude-ja-documents-exchange.json"),
        ("gemini", "08-gemini-stream-ja-sakura.sse"),
        ("openai", "09-openai-responses-ja-visitors.json"),
    ):
        page.goto(names[name])
        page.wait_for_load_state("networkidle")
        shoot(page, f"viewer-{label}")
    assert (SCREENSHOTS / "viewer-claude-evidence-phone.png").exists()


def test_the_interface_follows_the_browser_language_and_switches_in_the_page(signed_in):
    page = signed_in  # the browser asks for Japanese
    assert page.locator(".cv-intake-form button[type=submit]").inner_text() == "回答を読み込む"
    assert page.get_attribute("html", "lang") == "ja"
    page.click(".cv-language button[value=en]")
    page.wait_for_selector("html[lang=en]")
    assert page.locator(".cv-intake-form button[type=submit]").inner_text() == "Read the dump"
    page.click(".cv-language button[value=ja]")
    page.wait_for_selector("html[lang=ja]")


def test_dump_content_is_never_translated(signed_in, account):
    dump, _ = dump_ingest(raw=own_fixture("sonar-stream-full-mode-crlf.sse"), uploaded_by=account)
    page = signed_in
    page.goto(dump.get_absolute_url())
    assert page.locator("#cv-r0-sources-title").inner_text() == "出典"
    assert "地震の情報は気象庁が発表します" in page.locator(".cv-answer").inner_text()


def test_a_slow_upload_shows_its_progress_then_that_the_dump_is_being_read(signed_in, tmp_path):
    page = signed_in
    big = tmp_path / "big.json"
    answer = "東京の人口は約1400万人です。" * 20_000  # about 900 KB of Japanese
    big.write_text(
        json.dumps(
            {
                "id": "0f0e0d0c-1111-4222-8333-444455556666",
                "model": "sonar",
                "object": "chat.completion",
                "citations": [],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
            },
            ensure_ascii=False,
        )
    )
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 20, "downloadThroughput": -1, "uploadThroughput": 400 * 1024},
    )
    page.set_input_files("#id_file", str(big))
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_selector(".cv-progress:not([hidden])")
    page.wait_for_function("document.querySelector('.cv-progress') && document.querySelector('.cv-progress').value > 0")
    page.wait_for_url("**/dumps/*/", timeout=60_000)
    assert Dump.objects.get().size == big.stat().st_size
