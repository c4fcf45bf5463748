"""The check queue: what it offers and in what order, a marker without a source as an item of its own,
the statement questions answered, several statements marked at once, undo, the item list's filters
and the work queue across dumps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

import citeview.dumps
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest, dump_organise
from citeview.review.models import RECORDED, Check, CheckRevision
from citeview.review.services import editors_assign
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

SAMPLES = Path(citeview.dumps.__file__).parent / "samples"
SEED = "agent-seed-incomplete.sse"  # 条件A[2]、条件B[9]、条件C[8]: [2] has two URLs, [8] no source
HEAT = "01-agent-stream-ja-tokyo-heat.sse"  # six citations, a lead-in, a table, two closing sentences
TAX = "02-agent-ja-incomplete-unresolved.sse"  # [8] without a source; the stream stops mid-sentence


def sample(editor, name: str) -> Dump:
    return dump_ingest(raw=(SAMPLES / name).read_bytes(), uploaded_by=editor, filename=name)[0]


def item_url(dump: Dump, key: str, **query: str) -> str:
    url = reverse("review:item", args=[dump.pk, key])
    return f"{url}?show={query['show']}" if query else url


def not_claims_url(dump: Dump, back: str) -> str:
    return f"{reverse('review:not_claims', args=[dump.pk])}?back={back}"


def page(client, dump: Dump, key: str, **query: str) -> str:
    response = client.get(item_url(dump, key, **query))
    assert response.status_code == 200
    return response.content.decode()


def item_list(html: str) -> str:
    return html[html.index('class="cv-card cv-item-list"') :]


def listed_keys(html: str) -> list[str]:
    listing = item_list(html)
    return re.findall(r'/check/([a-z0-9-]+)/(?:\?[^"]*)?"', listing[listing.index("<ol>") :])


def test_the_heat_answer_offers_its_six_citations_before_four_statements_and_never_a_table_cell(client, editor):
    dump = sample(editor, HEAT)
    client.force_login(editor)
    html = page(client, dump, "r0-c0")
    keys = listed_keys(html)
    assert keys[:6] == ["r0-c0", "r0-c1", "r0-c2", "r0-c3", "r0-c4", "r0-c5"] and len(keys) == 10
    listing = item_list(html)
    assert "熱中症警戒アラート | 33以上 | 前日17時頃・当日5時頃" in listing  # a row, its cells together
    assert ">情報<" not in listing and "基準（WBGT） |" not in listing  # the header row is no statement
    # Statements read as text: no Markdown marks in the panel or the list (the stored check keeps them).
    statement = html[
        html.index('class="cv-statement"') : html.index("</blockquote>", html.index('class="cv-statement"'))
    ]
    assert "発表基準：暑さ指数（WBGT）が33以上と予測されると" in statement and "**" not in statement
    assert "**" not in listing


def test_a_marker_without_a_source_is_its_own_item_and_points_at_its_place(client, editor):
    dump = sample(editor, TAX)
    client.force_login(editor)
    html = page(client, dump, "r0-u0")
    assert "Citation with no source [8]" in html
    assert 'data-anchor="cv-r0-unresolved-0"' in html  # marked in the answer beside the panel
    assert f'href="/dumps/{dump.pk}/#cv-r0-unresolved-0"' in html  # and a link to it in the viewer
    assert "[8] points at no search result" in html
    assert 'name="verdict"' not in html and 'name="verification_worthy"' in html
    keys = listed_keys(html)
    assert keys == ["r0-c0-1", "r0-c0-2", "r0-c1", "r0-u0", "r0-s0-23", "r0-s222-257"]
    # The statement that holds [8] is not offered as one without a citation.
    assert "r0-s170-220" not in keys


def test_the_cut_off_sentence_is_labelled_cut_off(client, editor):
    dump = sample(editor, TAX)
    client.force_login(editor)
    html = page(client, dump, "r0-s222-257")
    assert "Cut off: the response stopped in this sentence" in html
    assert "Cut off" not in page(client, dump, "r0-s0-23").split('class="cv-card cv-item-list"')[0]


def test_a_citation_comes_with_verification_worthy_yes_and_saving_it_answers_the_statement(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    html = page(client, dump, "r0-c0-1")
    assert re.search(r'name="verification_worthy" value="yes"[^>]*checked', html)
    assert re.search(r'name="seen_verification_worthy" id="[^"]*">', html)  # blank: the prefilled answer is written
    form = {"version": "0", "verdict": "complete", "seen_verification_worthy": "", "seen_supported_together": ""}
    client.post(item_url(dump, "r0-c0-1"), {**form, "verification_worthy": "yes", "supported_together": "yes"})
    statement = Check.objects.get(editor=editor, is_item=False)
    assert (statement.verification_worthy, statement.supported_together) == ("yes", "yes")


def test_the_form_shows_the_key_beside_each_answer(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    html = page(client, dump, "r0-c0-1")
    form = html[html.index('id="cv-check-form"') :]
    assert re.search(r'value="complete"[^>]*><kbd>1</kbd><span class="cv-choice-label">Complete support', form)
    assert re.search(r'name="verification_worthy" value="no"[^>]*><kbd>n</kbd>', form)
    assert re.search(r'name="supported_together" value="contradict"[^>]*><kbd>9</kbd>', form)
    assert "Use selection as quote" in form
    help_dialog = html[html.index('id="cv-keys"') :]
    for key in ("1 – 6", "y / n", "7 / 8 / 9", "Enter", "j / k", "m", "q", "u", "?", "Esc"):
        assert f"<kbd>{key}</kbd>" in help_dialog


def test_a_marker_without_a_source_shares_its_statements_answers_with_its_citations(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    html = page(client, dump, "r0-u0")
    assert 'name="supported_together"' in html  # its statement has real citations too
    seen = {"seen_verification_worthy": "", "seen_supported_together": ""}
    client.post(item_url(dump, "r0-u0"), {"version": "0", "verification_worthy": "yes", **seen, "note": "8は欠番"})
    own = Check.objects.get(item_key="r0-u0")
    assert (own.kind, own.marker, own.is_item, own.verification_worthy, own.note) == (
        "statement",
        "[8]",
        True,
        "yes",
        "8は欠番",
    )
    shared = Check.objects.get(is_item=False)
    assert shared.verification_worthy == "yes" and shared.statement_key == own.statement_key
    # Changed from a citation of the same statement, the answer is the marker's as well.
    body = {"version": "0", "verdict": "none", "verification_worthy": "no", "supported_together": "no"}
    client.post(item_url(dump, "r0-c1"), {**body, "seen_verification_worthy": "yes", "seen_supported_together": ""})
    own.refresh_from_db()
    assert (own.verification_worthy, own.supported_together) == ("no", "no")
    assert re.search(r'name="verification_worthy" value="no"[^>]*checked', page(client, dump, "r0-u0"))


def test_the_api_records_a_marker_without_a_source_as_the_page_does(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    response = client.post(
        f"/api/dumps/{dump.pk}/checks",
        {"item": "r0-u0", "version": 0, "verification_worthy": "yes"},
        content_type="application/json",
    )
    assert response.status_code in (200, 201), response.content
    assert Check.objects.get(item_key="r0-u0").verification_worthy == "yes"
    assert Check.objects.get(is_item=False).verification_worthy == "yes"


def test_several_statements_are_marked_not_a_claim_at_once_and_undone_together(client, editor):
    dump = sample(editor, HEAT)
    client.force_login(editor)
    html = page(client, dump, "r0-s0-33")
    bulk = html[html.index('class="cv-not-claims"') :]
    uncited = re.findall(r'name="item_key" value="([a-z0-9-]+)@0"', bulk)  # each with its version
    assert len(uncited) == 4 and re.search(r'value="r0-s0-33@0" checked', bulk)  # the current one ticked
    body = {"item_key": [f"{key}@0" for key in uncited[:3]]}
    response = client.post(not_claims_url(dump, "r0-s0-33"), body)
    assert response.status_code == 302 and response["Location"] == item_url(dump, "r0-s441-499")  # the one left
    marked = Check.objects.filter(editor=editor, verification_worthy="no")
    assert sorted(marked.values_list("item_key", flat=True)) == sorted(uncited[:3])
    saves = set(CheckRevision.objects.values_list("save_id", flat=True))
    assert len(saves) == 1 and CheckRevision.objects.count() == 3  # one save, a revision each
    dump.refresh_from_db()
    assert dump.checked_item_count == 3
    assert "Marked 3 statements as not a factual claim." in client.get(response["Location"]).content.decode()

    response = client.post(reverse("review:undo", args=[dump.pk]))
    assert response.status_code == 302
    assert not Check.objects.filter(RECORDED).exists()  # each was new: undone, it records nothing
    assert Check.objects.count() == 3 and CheckRevision.objects.count() == 6  # and its history is kept
    dump.refresh_from_db()
    assert dump.checked_item_count == 0


def test_marking_several_leaves_an_item_saved_meanwhile_as_it_is(client, editor, second_editor):
    dump = sample(editor, HEAT)
    client.force_login(second_editor)
    client.post(item_url(dump, "r0-s0-33"), {"version": "0", "verification_worthy": "yes"})
    client.force_login(editor)
    body = {"item_key": ["r0-s0-33@0", "r0-s369-400@0"]}
    response = client.post(not_claims_url(dump, "r0-s0-33"), body, follow=True)
    assert "1 statement was saved by someone after you opened the page" in response.content.decode()
    assert list(Check.objects.filter(editor=editor).values_list("item_key", flat=True)) == ["r0-s369-400"]


def test_marking_several_takes_only_statements_without_a_citation(client, editor, reviewer):
    dump = sample(editor, HEAT)
    client.force_login(editor)
    body = {"item_key": ["r0-c0@0", "r0-s0-33", "r0-s0-33@x"]}  # a citation; no version; a bad one
    response = client.post(not_claims_url(dump, "r0-s0-33"), body, follow=True)
    assert not Check.objects.exists() and "Choose at least one statement to mark." in response.content.decode()
    client.force_login(reviewer)
    assert client.post(not_claims_url(dump, "r0-s0-33"), {"item_key": "r0-s0-33@0"}).status_code == 403


def test_undo_restores_the_previous_version_as_a_new_revision_and_then_empties_a_new_check(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    client.post(item_url(dump, "r0-c1"), {"version": "0", "verdict": "complete", "note": "一度目"})
    client.post(item_url(dump, "r0-c1"), {"version": "1", "verdict": "none", "note": "二度目"})
    html = page(client, dump, "r0-c1")
    assert "Undo your last save" in html and "Your last save was of item 3" in html

    response = client.post(reverse("review:undo", args=[dump.pk]))
    assert response["Location"] == item_url(dump, "r0-c1")  # back to the item it saved
    check = Check.objects.get(item_key="r0-c1")
    assert (check.verdict, check.note) == ("complete", "一度目")
    undo = CheckRevision.objects.filter(check_record=check).last()
    assert undo.is_undo and undo.before["verdict"] == "none" and undo.after["verdict"] == "complete"
    html = page(client, dump, "r0-c1")
    assert "<del>No support</del> → <ins>Complete support</ins>" in html  # the history keeps both
    assert 'name="version" value="3"' in html  # a page opened before the undo cannot overwrite it

    client.post(reverse("review:undo", args=[dump.pk]))  # further back: the check was new
    check.refresh_from_db()
    assert (check.verdict, check.note) == ("", "")  # emptied, never deleted
    assert check.revisions.count() == 4  # two saves and two undos
    response = client.post(reverse("review:undo", args=[dump.pk]), follow=True)
    assert "There is no save of yours in this dump to undo." in response.content.decode()
    assert "一度目" in page(client, dump, "r0-c1")  # the history still shows the first save


def test_undo_takes_back_only_your_own_last_save(client, editor, second_editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    client.post(item_url(dump, "r0-c1"), {"version": "0", "verdict": "complete"})
    client.force_login(second_editor)
    client.post(item_url(dump, "r0-c1"), {"version": "1", "verdict": "partial"})
    client.force_login(editor)
    client.post(reverse("review:undo", args=[dump.pk]))
    recorded = Check.objects.filter(RECORDED, is_item=True)
    assert list(recorded.values_list("editor__username", "verdict")) == [("taro", "partial")]


def test_undo_of_a_citation_save_puts_its_statements_answers_back(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    seen = {"seen_verification_worthy": "", "seen_supported_together": ""}
    client.post(item_url(dump, "r0-u0"), {"version": "0", "verification_worthy": "yes", **seen})
    body = {"version": "0", "verdict": "none", "verification_worthy": "no", "supported_together": "no"}
    client.post(item_url(dump, "r0-c1"), {**body, "seen_verification_worthy": "yes", "seen_supported_together": ""})
    client.post(reverse("review:undo", args=[dump.pk]))
    shared = Check.objects.get(is_item=False)
    assert (shared.verification_worthy, shared.supported_together) == ("yes", "")
    assert Check.objects.get(item_key="r0-u0").verification_worthy == "yes"  # the marker's copy follows
    assert Check.objects.get(item_key="r0-c1").verdict == ""


def test_the_item_list_filters_by_unchecked_attention_and_verdict_blind_first(client, editor, second_editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(second_editor)
    client.post(item_url(dump, "r0-c1"), {"version": "0", "verdict": "none"})
    client.force_login(editor)
    # [2] has two URLs (a conflict), [8] has no source.
    assert listed_keys(page(client, dump, "r0-c0-1", show="attention")) == ["r0-c0-1", "r0-c0-2", "r0-u0"]
    assert listed_keys(page(client, dump, "r0-c0-1", show="verdict-none")) == []  # taro's stays hidden
    client.post(item_url(dump, "r0-c1"), {"version": "1", "verdict": "complete"})
    html = page(client, dump, "r0-c0-1", show="verdict-none")
    assert listed_keys(html) == ["r0-c1"]  # now that hanako has judged it too
    assert "Needs attention (4)" in html  # taro's "No support" asks for a second look
    assert listed_keys(page(client, dump, "r0-c0-1", show="unchecked")) == ["r0-c0-1", "r0-c0-2", "r0-u0"]
    assert listed_keys(page(client, dump, "r0-c0-1", show="nonsense")) == ["r0-c0-1", "r0-c0-2", "r0-c1", "r0-u0"]


def test_the_filter_stays_while_saving_and_moving_on(client, editor):
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)[0]
    client.force_login(editor)
    response = client.post(item_url(dump, "r0-c0-1", show="attention"), {"version": "0", "verdict": "complete"})
    assert response["Location"] == item_url(dump, "r0-c0-2", show="attention")


def test_a_claim_whose_figure_differs_from_its_quote_needs_attention_and_one_it_does_not_state_does_not(client, editor):
    dump = sample(editor, "06-claude-ja-documents-exchange.json")  # 80% claimed, 62% quoted; dates unquoted
    client.force_login(editor)
    html = page(client, dump, "r0-c2", show="attention")
    assert listed_keys(html) == ["r0-c2"]  # as the evidence view marks its passage
    panel = html.split('class="cv-card cv-item-list"')[0]
    assert "figure differs" in panel and "figure not stated in the evidence" in panel
    # The date its quote leaves out is said quietly, and asks for no attention.
    quiet = page(client, dump, "r0-c0").split('class="cv-card cv-item-list"')[0]
    assert "date not stated in the evidence" in quiet and "cv-hint-differs" not in quiet


def test_the_work_queue_lists_the_dumps_assigned_to_you_that_you_have_not_finished(client, editor, second_editor):
    first = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename="first.sse")[0]
    second = sample(editor, TAX)
    for dump, title in ((first, "一件目"), (second, "二件目")):
        dump_organise(dump=dump, title=title, tag_names=[])
        editors_assign(dump=dump, editors=[editor], by=editor, checks_needed=1)
    sample(editor, HEAT)  # assigned to no one
    client.force_login(editor)
    queue = client.get(reverse("review:queue")).content.decode()
    assert "一件目" in queue and "二件目" in queue and "東京" not in queue
    assert queue.index("一件目") < queue.index("二件目")  # the longest waiting first
    assert "0 of 4 checked by you" in queue

    for key in ("r0-c0-1", "r0-c0-2", "r0-c1"):
        client.post(item_url(first, key), {"version": "0", "verdict": "complete"})
    response = client.post(item_url(first, "r0-u0"), {"version": "0", "verification_worthy": "yes"})
    done = client.get(response["Location"])
    html = done.content.decode()
    assert done.status_code == 200 and "You have checked every item of this dump." in html
    assert f'href="{reverse("review:start", args=[second.pk])}"' in html and "Next dump assigned to you: 二件目" in html
    assert "一件目" not in client.get(reverse("review:queue")).content.decode()
    assert "Next dump assigned to you: 二件目" in page(client, first, "r0-c1")  # on the check page too

    client.force_login(second_editor)
    assert "Nothing assigned to you is waiting to be checked." in client.get(reverse("review:queue")).content.decode()


def test_the_japanese_check_panel_speaks_plainly(client, editor):
    dump = sample(editor, HEAT)
    client.force_login(editor)
    html = client.get(item_url(dump, "r0-s0-33"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "事実についての主張なら、引用のない主張です" not in html  # circular: it said nothing
    assert "この文が確かめられる事実を述べていれば「はい」" in html
    bulk = html[html.index('class="cv-not-claims"') :]
    assert "まとめて「事実についての主張ではない」にする" in bulk and "ダンプ" not in bulk


def test_the_key_help_lists_search_and_saving_from_the_note(client, editor):
    dump = sample(editor, HEAT)
    client.force_login(editor)
    html = client.get(item_url(dump, "r0-s0-33")).content.decode()
    keys = html[html.index('id="cv-keys"') :]
    assert "search the answer" in keys and "save, from inside the quote or the note" in keys
