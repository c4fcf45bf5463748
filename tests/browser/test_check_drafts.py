"""Nothing typed on the check page is lost (issue 30): the form keeps a draft in the browser, a
snapshot taken after deciding keeps the verdict, quote and note, and every way off the page with
unsaved input asks first. In English and in Japanese, in a real browser."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from citeview.dumps.services import dump_ingest
from citeview.review.models import Check
from citeview.review.selectors import dump_check_items, item_version
from citeview.review.services import check_save
from citeview.snapshots.kept_passages import snapshot_passages_find
from citeview.snapshots.models import Snapshot, SnapshotFetch
from citeview.snapshots.services import snapshot_paste
from citeview.snapshots.worker import snapshot_read_run
from tests.browser.conftest import PASSWORD
from tests.browser.test_check_queue import sign_in
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db(transaction=True)

TOKYO = "https://stats.example/tokyo"
CLAIM = (
    "As of January 2024, the population of Tokyo was about 14.1 million[1]. It grew by 0.3% over the year[2]. "
    "Half of it lives in the wards[1]."
)
PAGE_TEXT = (
    "Tokyo's population was 13.9 million in January 2024, up 0.2% on the year before. "
    "Most residents live in the 23 special wards.\n\nOther text about the city and its history."
)
WORDS = {
    "en-US": {
        "restored": "is restored",
        "older": "typed before this item was saved again",
        "kept": "kept on this device",
    },
    "ja-JP": {"restored": "復元しました", "older": "保存し直されています", "kept": "この端末に残ります"},
}
LOCALES = ["en-US", "ja-JP"]


@pytest.fixture
def editor_tab(browser: Any, live_server: Any, django_user_model: Any):
    contexts = []

    def open_tab(locale: str = "en-US", width: int = 1280) -> Any:
        user = django_user_model.objects.create_user(username="hanako", password=PASSWORD)
        user.groups.add(Group.objects.get(name="editor"))
        tab = sign_in(browser, live_server, user, locale, width)
        contexts.append(tab.context)
        tab.user = user
        return tab

    yield open_tab
    for context in contexts:
        context.close()


def _dump(user: Any) -> Any:
    raw = json.dumps(sonar_object(CLAIM, [TOKYO, "https://stats.example/growth"])).encode()
    return dump_ingest(raw=raw, uploaded_by=user)[0]


def _decide(page: Any, verdict: str = "partial", quote: str = "13.9 million", note: str = "数字が違う") -> None:
    page.click(f"label:has(input[name=verdict][value={verdict}])")
    page.fill("textarea[name=evidence_quote]", quote)
    page.fill("textarea[name=note]", note)


def _form(page: Any) -> tuple[str, str, str]:
    verdict = page.evaluate("document.getElementById('cv-check-form').elements.namedItem('verdict').value")
    return verdict, page.input_value("textarea[name=evidence_quote]"), page.input_value("textarea[name=note]")


def _draft_keys(page: Any) -> list[str]:
    return page.evaluate("Object.keys(localStorage).filter((key) => key.startsWith('citeview:draft:'))")


def _unfocus(page: Any) -> None:
    page.evaluate("document.activeElement && document.activeElement.blur()")


@pytest.mark.parametrize("locale", LOCALES)
def test_a_snapshot_pasted_after_deciding_keeps_the_verdict_quote_and_note(editor_tab, locale):
    page = editor_tab(locale)
    dump = _dump(page.user)
    item = f"/dumps/{dump.pk}/check/r0-c0/"
    page.goto(item)
    _decide(page)
    page.click(".cv-snapshot-paste-fold > summary")  # folded until wanted
    page.fill(".cv-snapshot-paste textarea", PAGE_TEXT)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.type), dialog.dismiss()))
    with page.expect_navigation():
        page.click(".cv-snapshot-paste button[type=submit]")
    page.wait_for_selector(".cv-snapshot-passage")
    assert not dialogs  # a snapshot is a round trip: no question

    # The input is back, said so, and the page is at the snapshot just taken.
    assert _form(page) == ("partial", "13.9 million", "数字が違う")
    assert page.locator("#cv-draft").is_visible()
    assert WORDS[locale]["restored"] in page.inner_text("#cv-draft")
    box = page.locator("#cv-snapshot").bounding_box()
    assert 0 <= box["y"] < 900

    # Saving records it, forgets the draft, and the next item opens at its top (it opened 539 px
    # down: the #cv-snapshot of the address followed the redirect).
    page.click(".cv-save-bar button[type=submit]")
    page.wait_for_url(f"**/dumps/{dump.pk}/check/r0-c1/")
    page.wait_for_load_state()
    check = Check.objects.get(item_key="r0-c0")
    assert (check.verdict, check.evidence_quote, check.note) == ("partial", "13.9 million", "数字が違う")
    assert page.evaluate("window.scrollY") == 0 and "#" not in page.url
    assert _draft_keys(page) == []
    assert not dialogs
    page.goto(item)
    assert not page.locator("#cv-draft").is_visible()  # what is saved is no draft
    assert not page.console_errors, page.console_errors


def test_the_last_save_takes_its_draft_on_the_page_it_leads_to_which_has_no_check_script(editor_tab):
    # The page after the last item is no check page: the script every page loads forgets the draft there.
    page = editor_tab("en-US")
    dump = _dump(page.user)
    *saved, last = dump_check_items(dump)
    values = {"verdict": "partial", "subject": "", "time": "", "conditions": "", "evidence_quote": "", "note": ""}
    for item in saved:
        check_save(dump=dump, item=item, editor=page.user, values=values, statement_values={}, seen_version=0)
    page.goto(f"/dumps/{dump.pk}/check/{last.key}/")
    _decide(page)
    assert _draft_keys(page)
    page.click(".cv-save-bar button[type=submit]")
    page.wait_for_url(f"**/dumps/{dump.pk}/checked/")
    page.wait_for_load_state()
    assert page.locator("script[src*='check.js']").count() == 0
    assert _draft_keys(page) == []
    assert not page.console_errors, page.console_errors


READING = {"en-US": "Reading the uploaded page…", "ja-JP": "アップロードされたページを読み込んでいます…"}


@pytest.mark.parametrize("locale", LOCALES)
def test_an_upload_read_by_a_worker_keeps_the_draft_while_the_panel_waits_and_once_it_is_read(
    editor_tab, locale, database_queue
):
    """An upload is read by a worker (issue 42): the page comes back at once saying so, with the input
    put back; once the worker has read it, the panel (asking how it stands) shows the passage, and the
    input is still there."""
    page = editor_tab(locale)
    dump = _dump(page.user)
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    _decide(page)
    page.click(".cv-snapshot-paste-fold > summary")
    saved = {"name": "tokyo.txt", "mimeType": "text/plain", "buffer": PAGE_TEXT.encode()}
    page.set_input_files(".cv-snapshot-upload input[type=file]", files=[saved])
    with page.expect_navigation():
        page.click(".cv-snapshot-upload button[type=submit]")
    assert READING[locale] in page.inner_text(".cv-snapshot-fetching")
    assert _form(page) == ("partial", "13.9 million", "数字が違う")
    assert not Snapshot.objects.exists()  # waiting for a worker, none runs yet

    reading = SnapshotFetch.objects.get()
    assert snapshot_read_run(fetch_id=reading.pk) == "done"  # what the worker does
    snapshot_passages_find(snapshot_id=Snapshot.objects.get().pk)
    page.wait_for_selector(".cv-snapshot-passage", timeout=30_000)  # the panel asked, then reloaded
    assert _form(page) == ("partial", "13.9 million", "数字が違う")
    assert not page.locator(".cv-snapshot-fetching").count()
    assert not page.console_errors, page.console_errors


WAYS_OUT = ["next-link", "figures-link", "language", "j-key"]


def _take_way_out(page: Any, way: str) -> None:
    if way == "next-link":
        page.click(".cv-item-steps a[rel=next]")
    elif way == "figures-link":
        page.click(".cv-nav a[href='/figures/']")
    elif way == "language":
        page.click(".cv-language button:not(.cv-current)")
    else:
        _unfocus(page)
        page.keyboard.press("j")


@pytest.mark.parametrize("way", WAYS_OUT)
@pytest.mark.parametrize("locale", LOCALES)
def test_every_way_off_the_page_asks_first_and_the_draft_comes_back(editor_tab, locale, way):
    page = editor_tab(locale)
    dump = _dump(page.user)
    item = f"/dumps/{dump.pk}/check/r0-c0/"
    page.goto(item)
    _decide(page)
    dialog = page.locator("#cv-leave")

    # Asked, the editor stays: nothing moved, nothing lost.
    _take_way_out(page, way)
    assert dialog.is_visible()
    assert WORDS[locale]["kept"] in dialog.inner_text()
    dialog.locator("button[value=stay]").click()
    assert not dialog.is_visible()
    assert page.url.endswith(item) and _form(page) == ("partial", "13.9 million", "数字が違う")

    # Asked again, the editor leaves: the page goes, and no browser prompt follows the page's own.
    prompts: list[str] = []
    page.on("dialog", lambda browser_dialog: (prompts.append(browser_dialog.type), browser_dialog.accept()))
    with page.expect_navigation():
        _take_way_out(page, way)
        dialog.locator("button[value=leave]").click()
    assert not prompts
    words = WORDS[locale]
    if way == "language":  # the same item again, in the other language
        words = WORDS["ja-JP" if locale == "en-US" else "en-US"]
    else:
        assert not page.url.endswith(item)
        page.goto(item)

    # Back on the item, the draft is in the form and a line says so; discarded, it is gone for good.
    assert _form(page) == ("partial", "13.9 million", "数字が違う")
    assert words["restored"] in page.inner_text("#cv-draft")
    page.click(".cv-draft-discard")
    assert _form(page) == ("", "", "") and not page.locator("#cv-draft").is_visible()
    assert _draft_keys(page) == []
    page.reload()
    assert _form(page) == ("", "", "")
    # Nothing unsaved: no question, the page goes. Waiting for it also keeps the tab from being
    # closed mid-navigation, which can hang Chromium's context close for good.
    with page.expect_navigation():
        _take_way_out(page, way)
    assert not prompts
    assert not Check.objects.exists()
    assert not page.console_errors, page.console_errors


def test_leave_works_when_the_question_is_asked_again_at_once(editor_tab):
    """The editor answers "Stay", then presses j straight away: the dialog's close for "Stay" is queued and arrives after the
    question is open again. It must not use up the new question, or "Leave" does nothing."""
    page = editor_tab("en-US")
    dump = _dump(page.user)
    item = f"/dumps/{dump.pk}/check/r0-c0/"
    page.goto(item)
    _decide(page)
    dialog = page.locator("#cv-leave")
    _take_way_out(page, "j-key")
    assert dialog.is_visible()
    # Both in one turn of the page's event loop, so the close event of "Stay" comes after.
    page.evaluate(
        """() => {
            document.querySelector("#cv-leave button[value=stay]").click();
            document.body.dispatchEvent(new KeyboardEvent("keydown", {key: "j", bubbles: true}));
        }"""
    )
    assert dialog.is_visible()
    with page.expect_navigation():
        dialog.locator("button[value=leave]").click()
    assert page.url.endswith(f"/dumps/{dump.pk}/check/r0-c1/")
    assert not page.console_errors, page.console_errors


@pytest.mark.parametrize("locale", LOCALES)
def test_reloading_or_closing_the_tab_asks_the_browser_question_and_saving_does_not(editor_tab, locale):
    page = editor_tab(locale)
    dump = _dump(page.user)
    item = f"/dumps/{dump.pk}/check/r0-c0/"
    page.goto(item)
    _decide(page, note="年度は合っている")
    prompts: list[str] = []
    page.on("dialog", lambda dialog: (prompts.append(dialog.type), dialog.accept()))
    page.reload()
    assert prompts == ["beforeunload"]
    assert _form(page) == ("partial", "13.9 million", "年度は合っている")  # the draft, after the reload
    assert WORDS[locale]["restored"] in page.inner_text("#cv-draft")

    # Saving asks nothing.
    page.click(".cv-save-bar button[type=submit]")
    page.wait_for_url(f"**/dumps/{dump.pk}/check/r0-c1/")
    assert prompts == ["beforeunload"]
    assert Check.objects.get(item_key="r0-c0").note == "年度は合っている"

    # Closing the tab with a note typed gets the browser's question too.
    page.fill("textarea[name=note]", "未保存")
    page.close(run_before_unload=True)
    page.wait_for_event("close")
    assert prompts == ["beforeunload", "beforeunload"]


@pytest.mark.parametrize("locale", LOCALES)
def test_a_draft_for_an_older_version_is_offered_not_applied(editor_tab, django_user_model, locale):
    page = editor_tab(locale)
    dump = _dump(page.user)
    item = f"/dumps/{dump.pk}/check/r0-c0/"
    page.goto(item)
    _decide(page, verdict="none", note="出典に記載なし")
    page.goto("about:blank")  # a way out the page cannot ask about: the draft is kept all the same
    other = django_user_model.objects.create_user(username="taro", password="x")
    check_item = next(i for i in dump_check_items(dump) if i.key == "r0-c0")
    check_save(
        dump=dump,
        item=check_item,
        editor=other,
        values={"verdict": "complete", "subject": "", "time": "", "conditions": "", "evidence_quote": "", "note": ""},
        statement_values={},
        seen_version=item_version(dump, "r0-c0"),
    )
    page.goto(item)
    assert _form(page) == ("", "", "")  # not applied silently
    line = page.locator("#cv-draft")
    assert WORDS[locale]["older"] in line.inner_text()
    page.click(".cv-draft-restore")
    assert _form(page) == ("none", "13.9 million", "出典に記載なし")
    assert WORDS[locale]["restored"] in line.inner_text()
    page.click(".cv-save-bar button[type=submit]")
    page.wait_for_url(f"**/dumps/{dump.pk}/check/r0-c1/")
    assert Check.objects.get(item_key="r0-c0", editor=page.user).note == "出典に記載なし"
    assert not page.console_errors, page.console_errors


@pytest.mark.parametrize("shortcut", ["Control+Enter", "Meta+Enter"])
def test_ctrl_enter_in_the_note_or_quote_saves(editor_tab, shortcut):
    page = editor_tab("en-US")
    dump = _dump(page.user)
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    _decide(page, verdict="complete", note="first line")
    page.focus("textarea[name=note]")
    page.keyboard.press("Enter")  # Enter alone is a new line there
    page.keyboard.type("second line")
    page.focus("textarea[name=evidence_quote]")
    page.keyboard.press(shortcut)
    page.wait_for_url(f"**/dumps/{dump.pk}/check/r0-c1/")
    check = Check.objects.get(item_key="r0-c0")
    assert (check.verdict, check.note.replace("\r\n", "\n")) == ("complete", "first line\nsecond line")


def test_the_verdicts_start_on_the_first_screen_and_the_save_bar_covers_nothing_at_the_end(editor_tab):
    page = editor_tab("en-US")
    dump = _dump(page.user)
    snapshot_paste(url=TOKYO, text=PAGE_TEXT, taken_by=page.user)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    page.wait_for_selector(".cv-snapshot-passage")
    bar = page.locator(".cv-save-bar").bounding_box()
    verdicts = page.locator(".cv-choice-verdict").bounding_box()
    assert verdicts["y"] + 40 < bar["y"] < 800, (verdicts, bar)  # the legend and a first verdict in sight
    # At the end of the form the bar stands in its place, under the note, covering nothing.
    page.evaluate("document.getElementById('cv-check-form').scrollIntoView({block: 'end'})")
    note = page.locator("textarea[name=note]").bounding_box()
    bar = page.locator(".cv-save-bar").bounding_box()
    assert note["y"] + note["height"] <= bar["y"]
    # Whatever is scrolled to stops above the bar: the note, focused from the top of the page.
    page.evaluate("window.scrollTo(0, 0)")
    page.focus("textarea[name=note]")
    note = page.locator("textarea[name=note]").bounding_box()
    bar = page.locator(".cv-save-bar").bounding_box()
    assert note["y"] + note["height"] <= bar["y"] + 1


def test_on_a_phone_the_paste_box_is_folded_and_the_list_is_near(editor_tab):
    page = editor_tab("ja-JP", width=390)
    page.set_viewport_size({"width": 390, "height": 844})
    dump = _dump(page.user)
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    assert not page.locator(".cv-snapshot-paste textarea").is_visible()
    form_end = page.locator("#cv-check-form").bounding_box()
    items = page.locator(".cv-item-list").bounding_box()
    # Between the form and the list of items, less than a screen (the open paste box alone was one).
    assert items["y"] - (form_end["y"] + form_end["height"]) < 844, (form_end, items)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # The list is one tap away from the first screen, and the tap keeps the draft without asking.
    _decide(page)
    to_items = page.locator(".cv-to-items")
    assert to_items.bounding_box()["y"] < 844
    to_items.click()
    assert not page.locator("#cv-leave").is_visible()
    expect(page.locator(".cv-item-list h2, .cv-item-list").first).to_be_in_viewport()
    assert _form(page)[1] == "13.9 million"


def test_slash_searches_the_answer_on_the_check_page(editor_tab):
    page = editor_tab("en-US")
    dump = _dump(page.user)
    page.goto(f"/dumps/{dump.pk}/check/r0-c0/")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.matches('.cv-check-answer-wrap .cv-find-input')")
    page.keyboard.type("wards")
    page.wait_for_selector(".cv-find-status:has-text('1')")
    page.keyboard.press("j")  # typed into the box: no item change
    assert page.url.endswith("/check/r0-c0/") and page.input_value(".cv-find-input") == "wardsj"


def _phone_with_touch(browser: Any, live_server: Any, user: Any) -> Any:
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 844}, locale="ja-JP", has_touch=True, is_mobile=True
    )
    tab = context.new_page()
    tab.goto("/accounts/login/")
    tab.fill("#id_username", user.username)
    tab.fill("#id_password", PASSWORD)
    tab.click(".cv-login button[type=submit]")
    tab.wait_for_url(lambda url: "/accounts/login/" not in url)
    return tab


def test_on_a_touch_phone_footnotes_are_big_enough_and_a_tap_pops_the_card_only(editor_tab, browser, live_server):
    editor = editor_tab("ja-JP")
    dump = _dump(editor.user)
    phone = _phone_with_touch(browser, live_server, editor.user)
    try:
        phone.goto(f"/dumps/{dump.pk}/")
        # Every footnote and every way back is a target of 24 x 24 px at least (WCAG 2.5.8).
        for selector in (".cv-answer .cv-cite-link", ".cv-backlinks a"):
            boxes = [link.bounding_box() for link in phone.locator(selector).all()]
            assert boxes and all(b["width"] >= 24 and b["height"] >= 24 for b in boxes), (selector, boxes)
        # A tap pops the card and stays; the card's link jumps.
        url = phone.url
        phone.locator(".cv-answer .cv-cite-link").first.tap()
        card = phone.locator(".cv-cite > .cv-pop")
        assert card.is_visible() and phone.url == url
        jump = card.locator(".cv-pop-jump")
        assert jump.inner_text() == "出典へ移動"
        target = jump.get_attribute("href")
        jump.tap()
        phone.wait_for_url(f"**{target}")
        assert phone.locator(target).is_visible()
    finally:
        phone.context.close()


def test_on_a_phone_a_table_wider_than_the_screen_shows_that_it_scrolls(editor_tab):
    page = editor_tab("ja-JP", width=390)
    dump = _dump(page.user)
    item = next(i for i in dump_check_items(dump) if i.key == "r0-c0")
    values = {"verdict": "partial", "subject": "", "time": "", "conditions": "", "evidence_quote": "", "note": ""}
    check_save(dump=dump, item=item, editor=page.user, values=values, statement_values={}, seen_version=0)
    page.goto("/figures/")
    wide = page.evaluate(
        """() => [...document.querySelectorAll('.cv-table-wrap')]
        .filter((wrap) => wrap.scrollWidth > wrap.clientWidth)
        .map((wrap) => getComputedStyle(wrap).backgroundImage)"""
    )
    assert wide and all(image.count("gradient") == 4 for image in wide), wide
