"""The editor's day in the check panel, in a real browser: a dump checked end to end with the keyboard
alone, in Japanese and in English, at desktop and phone width; the help, undo, quoting a selection,
marking several statements at once, the work queue; and the figures filled afterwards."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import Group

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest, dump_organise
from citeview.review.models import Check
from citeview.review.services import editors_assign
from tests.browser.conftest import PASSWORD
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_reviewer_flows import SCREENSHOTS, shoot
from tests.conftest import PROJECT_DIR

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLES = PROJECT_DIR / "citeview" / "dumps" / "samples"
TAX = "02-agent-ja-incomplete-unresolved.sse"  # 3 citations ([2] twice: two URLs), [8] without a source,
# a lead-in and a sentence cut off where the stream stopped: six items
HEAT = "01-agent-stream-ja-tokyo-heat.sse"  # six citations, then a lead-in, two table rows, a closing sentence


def store(user: Any, name: str, title: str = "") -> Dump:
    dump = dump_ingest(raw=(SAMPLES / name).read_bytes(), uploaded_by=user, filename=name)[0]
    if title:
        dump_organise(dump=dump, title=title, tag_names=[])
        editors_assign(dump=dump, editors=[user], by=user, checks_needed=1)
    return dump


def sign_in(browser: Any, live_server: Any, user: Any, locale: str, width: int) -> Any:
    context = browser.new_context(base_url=live_server.url, viewport={"width": width, "height": 900}, locale=locale)
    tab = context.new_page()
    tab.console_errors = []
    tab.on("console", lambda m: tab.console_errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: tab.console_errors.append(str(e)))
    tab.goto("/accounts/login/")
    tab.fill("#id_username", user.username)
    tab.fill("#id_password", PASSWORD)
    tab.click(".cv-login button[type=submit]")
    tab.wait_for_url(lambda url: "/accounts/login/" not in url)
    return tab


@pytest.fixture
def editor_tab(browser: Any, live_server: Any, django_user_model: Any):
    contexts = []

    def open_tab(locale: str = "en-US", width: int = 1280, username: str = "hanako") -> Any:
        user = django_user_model.objects.create_user(username=username, password=PASSWORD)
        user.groups.add(Group.objects.get(name="editor"))
        tab = sign_in(browser, live_server, user, locale, width)
        contexts.append(tab.context)
        tab.user = user
        return tab

    yield open_tab
    for context in contexts:
        context.close()


def snap(tab: Any, name: str) -> None:
    """``shoot``'s full pages at both widths, and what a screen shows at once (the Save bar in view),
    then the width the test runs at again."""
    width = tab.viewport_size["width"]
    shoot(tab, name)
    for screen, label in ((1280, "desktop"), (390, "phone")):
        tab.set_viewport_size({"width": screen, "height": 900 if screen > 900 else 844})
        tab.screenshot(path=str(SCREENSHOTS / f"{name}-{label}-screen.png"))
    tab.set_viewport_size({"width": width, "height": 900})


def press(tab: Any, *keys: str) -> None:
    for key in keys:
        tab.keyboard.press(key)


def save(tab: Any, *keys: str) -> None:
    """Answer with ``keys``, then Enter: the page saves and opens the next item."""
    before = tab.url
    press(tab, *keys)
    with tab.expect_navigation():
        tab.keyboard.press("Enter")
    assert tab.url != before


def item_key(tab: Any) -> str:
    return tab.url.rstrip("/").split("/")[-1].split("?")[0]


def tap_targets_too_small(tab: Any) -> list[str]:
    """The check panel's controls a finger must hit, smaller than 44 × 44 px (WCAG 2.5.5)."""
    return tab.evaluate(
        """() => Array.from(document.querySelectorAll(
              '.cv-check-panel .cv-choice-option, .cv-check-panel button:not([hidden]), .cv-item-steps a,'
              + ' .cv-not-claim, .cv-answer-fold > summary, .cv-item-list li > a'))
            .filter(e => e.offsetParent !== null)
            .map(e => [e, e.getBoundingClientRect()])
            .filter(([e, r]) => r.height < 44 || r.width < 44)
            .map(([e, r]) => `${e.className || e.tagName} ${Math.round(r.width)}×${Math.round(r.height)}`)"""
    )


@pytest.mark.parametrize(("locale", "width"), [("ja-JP", 1280), ("en-US", 1280), ("ja-JP", 390), ("en-US", 390)])
def test_a_dump_is_checked_end_to_end_with_the_keyboard_alone(editor_tab, locale, width):
    label = locale[:2]
    shots = width > 900  # each shot is at both widths; the phone runs walk the same pages
    tab = editor_tab(locale, width)
    dump = store(tab.user, TAX, title="医療費控除の条件")
    tab.goto(f"/dumps/{dump.pk}/check/")
    assert item_key(tab) == "r0-c0-1"
    if width < 900:
        # On a phone the sentence and the form come first; the whole answer is folded away below.
        assert not tab.locator(".cv-answer-fold").evaluate("e => e.open")
        statement = tab.locator(".cv-statement").bounding_box()
        assert statement["y"] + statement["height"] < 900  # the sentence on the first screen
        assert statement["y"] < tab.locator(".cv-choice-verdict").bounding_box()["y"]  # above the form's questions
        assert tab.locator(".cv-answer-fold").bounding_box()["y"] > tab.locator(".cv-save-bar").bounding_box()["y"]
        assert not tap_targets_too_small(tab), tap_targets_too_small(tab)
    else:
        assert tab.locator(".cv-answer-fold").evaluate("e => e.open")
        assert tab.locator(".cv-current-cite").is_visible()  # the citation is marked in the answer
    save_bar = tab.locator(".cv-save-bar")
    assert save_bar.evaluate("e => getComputedStyle(e).position") == "sticky"
    assert save_bar.bounding_box()["y"] + save_bar.bounding_box()["height"] <= 900  # Save in view at once
    if shots:
        snap(tab, f"check-keyboard-{label}")

    # 1 = complete, 7 = supported together; "verification-worthy: yes" is already chosen.
    assert tab.is_checked("input[name=verification_worthy][value=yes]")
    save(tab, "1", "7")
    assert item_key(tab) == "r0-c0-2"
    save(tab, "2")  # partial
    assert item_key(tab) == "r0-c1"
    save(tab, "1", "7")
    assert item_key(tab) == "r0-u0"
    assert tab.locator("#cv-item-title").inner_text().endswith("[8]")  # a citation with no source
    assert tab.locator(".cv-current-cite").count() == 1  # its marker is marked in the answer
    if shots:
        snap(tab, f"check-unresolved-{label}")
    save(tab, "y")
    assert item_key(tab) == "r0-s0-23"  # the lead-in: not a factual claim
    save(tab, "n")
    assert item_key(tab) == "r0-s222-257"
    assert tab.locator(".cv-item-flags .cv-chip-warning").is_visible()  # cut off
    save(tab, "y")
    assert "/checked/" in tab.url
    assert tab.locator(".cv-check-done").is_visible()
    if shots:
        shoot(tab, f"check-done-{label}")

    checks = Check.objects.filter(dump=dump, editor=tab.user, is_item=True)
    assert checks.count() == 6
    assert dict(checks.filter(kind="citation").values_list("item_key", "verdict")) == {
        "r0-c0-1": "complete",
        "r0-c0-2": "partial",
        "r0-c1": "complete",
    }
    # The figures are filled: recall 2 of 4 worthy statements ([8]'s and the cut-off one have no
    # source), precision 3 of 4 citations (the [8] that points nowhere supports nothing).
    figures = json.loads(tab.request.get("/figures.json").text())["overall"]
    assert figures["citation_recall"]["value"] == 0.5 and figures["citation_precision"]["value"] == 0.75
    tab.goto("/figures/")
    text = tab.inner_text("main")
    assert "50" in text and "75" in text
    if shots:
        shoot(tab, f"check-figures-{label}")
    assert not tab.console_errors, tab.console_errors


def test_help_undo_the_next_unresolved_marker_and_quoting_a_selection_by_keyboard(editor_tab):
    tab = editor_tab("ja-JP")
    dump = store(tab.user, TAX)
    tab.goto(f"/dumps/{dump.pk}/check/r0-c0-1/")

    press(tab, "?")  # every key, over the page
    help_dialog = tab.locator("#cv-keys")
    assert help_dialog.is_visible() and "7 / 8 / 9" in help_dialog.inner_text()
    snap(tab, "check-help")
    press(tab, "Escape")
    assert not help_dialog.is_visible()

    with tab.expect_navigation():
        press(tab, "m")  # the next citation with no source
    assert item_key(tab) == "r0-u0"
    with tab.expect_navigation():
        press(tab, "k")
    assert item_key(tab) == "r0-c1"

    # q: the source's text as the quote (nothing selected); a selection in it: just that.
    press(tab, "q")
    assert tab.input_value("textarea[name=evidence_quote]") == tab.inner_text(".cv-check-source .cv-quotable").strip()
    tab.evaluate(
        """() => { const text = document.querySelector('.cv-check-source .cv-quotable').firstChild;
                   const range = document.createRange(); range.setStart(text, 0); range.setEnd(text, 4);
                   const selection = getSelection(); selection.removeAllRanges(); selection.addRange(range); }"""
    )
    tab.click(".cv-use-selection")
    quote = tab.input_value("textarea[name=evidence_quote]")
    assert len(quote) == 4 and tab.inner_text(".cv-check-source .cv-quotable").startswith(quote)
    tab.focus("input[name=verdict][value=complete]")
    save(tab, "1")
    assert Check.objects.get(item_key="r0-c1").evidence_quote == quote

    # u: the last save undone, back on its item, the history keeps both.
    with tab.expect_navigation():
        press(tab, "u")
    assert item_key(tab) == "r0-c1"
    undone = Check.objects.get(item_key="r0-c1")
    assert (undone.verdict, undone.evidence_quote) == ("", "")  # emptied: its two saves stay in the history
    assert undone.revisions.count() == 2
    assert tab.locator(".cv-messages").is_visible()
    assert not tab.console_errors, tab.console_errors


def test_several_statements_are_marked_not_a_claim_at_once(editor_tab):
    tab = editor_tab("en-US", 390)
    dump = store(tab.user, HEAT)
    tab.goto(f"/dumps/{dump.pk}/check/r0-s0-33/")
    boxes = tab.locator(".cv-not-claims input[name=item_key]")
    assert boxes.count() == 4 and boxes.nth(0).is_checked()
    boxes.nth(1).check()
    boxes.nth(2).check()
    snap(tab, "check-not-claims")
    with tab.expect_navigation():
        tab.click(".cv-not-claims button[type=submit]")
    assert item_key(tab) == "r0-s441-499"  # the one left
    worthy = dict(Check.objects.filter(editor=tab.user).values_list("item_key", "verification_worthy"))
    assert worthy == {"r0-s0-33": "no", "r0-s369-400": "no", "r0-s405-437": "no"}
    assert "Marked 3 statements as not a factual claim." in tab.inner_text(".cv-messages")
    # The statements read as text, the table rows with their cells: no Markdown marks anywhere.
    assert "**" not in tab.inner_text(".cv-item-list") and "熱中症警戒アラート | 33以上" in tab.inner_text(
        ".cv-item-list"
    )


def test_the_work_queue_leads_from_one_finished_dump_to_the_next(editor_tab):
    tab = editor_tab("ja-JP")
    first = store(tab.user, TAX, title="一件目: 医療費控除")
    store(tab.user, HEAT, title="二件目: 熱中症")
    tab.goto("/queue/")
    assert tab.locator(".cv-queue-entry").count() == 2
    shoot(tab, "check-queue")
    with tab.expect_navigation():
        tab.click(f"a[href='/dumps/{first.pk}/check/']")
    for keys in (("1",), ("1",), ("1",), ("y",), ("n",), ("y",)):
        save(tab, *keys)
    assert tab.locator(".cv-next-dump").is_visible() and "二件目" in tab.inner_text(".cv-next-dump")
    with tab.expect_navigation():
        tab.keyboard.press("Enter")  # the link has the focus
    assert "二件目" in tab.title()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_check_panel_has_no_serious_accessibility_violations(editor_tab, width):
    tab = editor_tab("ja-JP", width)
    dump = store(tab.user, TAX)
    problems = {}
    for key in ("r0-c0-1", "r0-u0", "r0-s0-23"):
        tab.goto(f"/dumps/{dump.pk}/check/{key}/")
        tab.wait_for_load_state("networkidle")
        if found := serious_violations(tab):
            problems[key] = found
    tab.goto("/queue/")
    if found := serious_violations(tab):
        problems["queue"] = found
    assert not problems, problems
