"""The reviewer's view and settling disagreements (issue 30): a reviewer reads every editor's verdict in
the item list with progress by anyone and no editing hints; a disagreement is marked ≠ and filtered; a
lead settles it with a reason, as a save that is versioned and kept in the history, changed only by another
settlement;
the dump's final figures count settled and agreed verdicts, while κ and α stay on the editors' own."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest, dump_organise
from citeview.review.models import Check, CheckRevision
from citeview.review.services import editors_assign
from tests.conftest import own_fixture, user_with_role
from tests.review.conftest import AGREED, DISPUTED, SEED, TARO_NOTE, TARO_QUOTE, save, version_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def third_editor(django_user_model):
    return user_with_role(django_user_model, "jiro", "editor")


def item_url(dump: Dump, key: str, **query: str) -> str:
    url = reverse("review:item", args=[dump.pk, key])
    return f"{url}?show={query['show']}" if query else url


def settle(client, dump: Dump, key: str = DISPUTED, **fields: str):
    body = {"settle-version": str(version_of(dump, key)), "settle-verdict": "none", "settle-reason": "出典を確認した"}
    return client.post(reverse("review:settle", args=[dump.pk, key]), {**body, **fields})


def html(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def item_list(page: str) -> str:
    return page[page.index('class="cv-card cv-item-list"') :]


def row(page: str, key: str) -> str:
    """The item list's row of ``key``."""
    listing = item_list(page)
    return next(li for li in listing.split("<li")[1:] if f"/check/{key}/" in li)


def test_a_reviewer_reads_every_editors_verdict_and_progress_by_anyone(client, disputed, reviewer):
    client.force_login(reviewer)
    page = html(client, item_url(disputed, AGREED))
    assert "You have checked 0 of" not in page
    assert "Checked by 2 editors: 2/4" in page and "(hanako 2 · taro 2)" in page
    agreed, other = row(page, AGREED), row(page, "r0-c0-2")
    assert "✓" in agreed and "hanako: Complete support" in agreed and "taro: Complete support" in agreed
    assert "○" in other  # nobody has checked it
    assert "hanako: Partial support" in row(page, DISPUTED) and "taro: No support" in row(page, DISPUTED)


def test_a_reviewer_is_offered_no_editing_hints_but_moves_reads_and_comments(client, disputed, reviewer):
    client.force_login(reviewer)
    page = html(client, item_url(disputed, AGREED))
    for hint in ("1–6 the verdict", "Enter save", "Save and go to the next", "the verdict, in the order listed"):
        assert hint not in page, hint
    assert "undo your last save" not in page and "as the evidence quote" not in page
    assert 'name="verdict"' not in page and 'id="cv-check-form"' not in page
    assert "Keyboard: j / k next / previous item, ? every key." in page and 'rel="next"' in page
    assert 'name="text"' in page  # the comment box


def test_disagreements_are_marked_and_filtered(client, disputed, reviewer):
    client.force_login(reviewer)
    page = html(client, item_url(disputed, AGREED))
    assert "≠ editors disagree" in row(page, DISPUTED) and "≠ editors disagree" not in row(page, AGREED)
    assert "Editors disagree (1)" in page
    filtered = html(client, item_url(disputed, AGREED, show="disagree"))
    listed = item_list(filtered)
    assert re.findall(r'/check/([a-z0-9-]+)/\?show=disagree"', listed[listed.index("<ol>") :]) == [DISPUTED]
    on_it = html(client, item_url(disputed, DISPUTED))
    assert "Editors disagree on this item" in on_it and "A lead settles it." in on_it
    assert 'id="cv-settle"' not in on_it  # a reviewer cannot settle


def test_an_editor_who_has_not_checked_still_reads_nothing_of_the_others(client, disputed, third_editor, lead):
    client.force_login(lead)
    assert settle(client, disputed).status_code == 302
    client.force_login(third_editor)
    page = html(client, item_url(disputed, DISPUTED))
    others = page[page.index('id="cv-others-title"') : page.index('class="cv-comments-list"')]
    for words in (TARO_NOTE, TARO_QUOTE, "花子のメモ", "≠", "Settled by", "出典を確認した"):
        assert words not in page, words
    assert "Partial support" not in others and "No support" not in others
    assert "Partial support" not in item_list(page) and "No support" not in item_list(page)
    assert "Editors disagree (" not in page
    assert "Hidden until you save your own check of this item" in page
    assert "Checked by 2 editors: 2/4" in page  # counts give no verdict away, and names are left out
    assert "(hanako 2" not in page
    # Once they have given their own, they read the others' and the settlement.
    save(client, disputed, DISPUTED, "complete")
    after = html(client, item_url(disputed, DISPUTED))
    assert TARO_NOTE in after and "Settled by sato: No support" in after


def test_a_lead_who_has_not_checked_reads_a_disputed_item_whole_and_settles_it_with_a_reason(client, disputed, lead):
    client.force_login(lead)
    page = html(client, item_url(disputed, DISPUTED))
    assert TARO_NOTE in page and TARO_QUOTE in page and "花子のメモ" in page
    assert 'id="cv-settle"' in page and 'href="#cv-settle"' in page
    form = page[page.index('id="cv-settle"') :]
    assert 'Partial support <span class="cv-muted">— hanako</span>' in form
    assert 'No support <span class="cv-muted">— taro</span>' in form
    # Not assigned to the dump, the lead reads every verdict, as a reviewer does, where editors agree too.
    agreed = html(client, item_url(disputed, AGREED))
    assert "Hidden until you save your own check of this item" not in agreed
    assert "hanako: Complete support" in row(agreed, AGREED) and "taro: Complete support" in row(agreed, AGREED)

    refused = settle(client, disputed, **{"settle-reason": ""})
    assert refused.status_code == 400 and "a settlement needs a reason" in refused.content.decode()
    assert not Check.settlements.exists()

    response = settle(
        client, disputed, **{"settle-verdict": "partial", "settle-reason": "本文の第2段落が一部を裏付ける"}
    )
    assert response.status_code == 302 and response["Location"] == item_url(disputed, DISPUTED)
    settlement = Check.settlements.get()
    assert (settlement.verdict, settlement.note, settlement.editor) == (
        "partial",
        "本文の第2段落が一部を裏付ける",
        lead,
    )
    assert Check.objects.filter(dump=disputed, item_key=DISPUTED).count() == 2  # the editors' own, unchanged
    after = html(client, item_url(disputed, DISPUTED))
    assert "Settled by sato: Partial support" in after and "⚖ settled: Partial support" in row(after, DISPUTED)


def test_only_a_settler_settles_and_only_where_editors_disagree(client, disputed, editor, reviewer, lead):
    for user in (editor, reviewer):
        client.force_login(user)
        assert settle(client, disputed).status_code == 403
        assert client.get(reverse("review:settle_queue")).status_code == 403
    client.force_login(lead)
    assert settle(client, disputed, key=AGREED).status_code == 302
    assert not Check.settlements.exists()  # the editors agree there: nothing to settle


def test_a_settlement_is_a_versioned_save_in_the_history_and_undo_leaves_it(client, disputed, lead, second_editor):
    client.force_login(lead)
    stale = version_of(disputed, DISPUTED)
    client.force_login(second_editor)
    save(client, disputed, DISPUTED, "none", note="太郎が書き直した")  # saved after the lead opened the item
    client.force_login(lead)
    refused = settle(client, disputed, **{"settle-version": str(stale)})
    assert refused.status_code == 302 and not Check.settlements.exists()
    assert "someone saved this item after you opened it" in html(client, refused["Location"])

    assert settle(client, disputed).status_code == 302
    history = html(client, item_url(disputed, DISPUTED))
    history = history[history.index('class="cv-history"') :]
    assert "⚖ settled by sato: 出典を確認した" in history
    revision = CheckRevision.objects.get(check_record__is_settlement=True)
    assert revision.after["verdict"] == "none" and revision.item_version == version_of(disputed, DISPUTED)

    # Only another settlement changes it: the lead's undo has nothing of theirs to take back.
    moved = version_of(disputed, DISPUTED)
    response = client.post(reverse("review:undo", args=[disputed.pk]), follow=True)
    assert "There is no save of yours in this dump to undo." in response.content.decode()
    assert Check.settlements.get().verdict == "none" and version_of(disputed, DISPUTED) == moved


def test_the_figures_count_settled_and_agreed_verdicts_and_name_the_unsettled(client, disputed, reviewer, lead):
    client.force_login(reviewer)
    before = client.get(reverse("review:figures_json")).json()
    # [2]'s first URL complete by both; [9] disputed, left out; the unresolved [8] supports nothing.
    precision = before["overall"]["citation_precision"]
    assert (precision["numerator"], precision["denominator"]) == (1, 2)
    assert before["unsettled"]["count"] == 1
    assert before["unsettled"]["items"][0]["url"] == item_url(disputed, DISPUTED)
    page = html(client, reverse("review:figures"))
    assert "1 item is left out until it is settled" in page and f'href="{item_url(disputed, DISPUTED)}"' in page
    assert "An item its editors disagree on is left out of them" in page

    client.force_login(lead)
    assert settle(client, disputed, **{"settle-verdict": "complete"}).status_code == 302
    client.force_login(reviewer)
    after = client.get(reverse("review:figures_json")).json()
    precision = after["overall"]["citation_precision"]
    assert (precision["numerator"], precision["denominator"]) == (2, 3)  # [9] counts as settled: complete
    assert after["unsettled"]["count"] == 0 and "left out until" not in html(client, reverse("review:figures"))
    # Agreement is the editors' own: the lead's settlement is no third rater and agrees with nobody by decree.
    assert after["agreement"] == before["agreement"] and after["agreement"]["verdicts"]["raters"] == 2
    assert after["overall"]["editors"] == 2 and after["overall"]["checks"] == 4


def test_the_settle_queue_lists_disagreements_waiting_the_longest_first(client, disputed, editor, second_editor, lead):
    later = dump_ingest(raw=own_fixture(SEED) + b"\n", uploaded_by=editor, filename="later.sse")[0]  # other bytes
    dump_organise(dump=later, title="後の回答", tag_names=[])
    for user, verdict in ((editor, "complete"), (second_editor, "unclear")):
        client.force_login(user)
        save(client, later, AGREED, verdict)
    client.force_login(lead)
    assert "Disagreements waiting to be settled" in html(client, reverse("review:queue"))
    queue = html(client, reverse("review:settle_queue"))
    assert "2 items where editors gave different verdicts have not been settled" in queue
    first, second = queue.index(f'{item_url(disputed, DISPUTED)}#cv-settle"'), queue.index("後の回答")
    assert first < second  # the older disagreement first
    assert "hanako: Partial support" in queue and "taro: No support" in queue and "taro: Statement unclear" in queue
    assert settle(client, disputed).status_code == 302
    assert item_url(disputed, DISPUTED) not in html(client, reverse("review:settle_queue"))


def test_the_check_page_and_the_settle_queue_cost_the_same_queries_however_much_is_checked(
    client, dump, editor, second_editor, reviewer, lead
):
    def queries(user, url: str) -> int:
        client.force_login(user)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    for user, verdict in ((editor, "partial"), (second_editor, "none")):
        client.force_login(user)
        save(client, dump, DISPUTED, verdict)
    queries(reviewer, item_url(dump, DISPUTED))  # the first view keeps what the page compares (issue 42)
    one = {user: queries(user, item_url(dump, DISPUTED)) for user in (reviewer, lead)}
    one_queue = queries(lead, reverse("review:settle_queue"))
    for user, verdict in ((editor, "partial"), (second_editor, "none")):
        client.force_login(user)
        for key in ("r0-c0-1", "r0-c0-2"):
            save(client, dump, key, verdict)
    assert {user: queries(user, item_url(dump, DISPUTED)) for user in (reviewer, lead)} == one
    assert queries(lead, reverse("review:settle_queue")) == one_queue  # three disputes, as many queries as one


def test_with_nothing_more_assigned_the_unassigned_unchecked_dumps_are_offered(client, editor):
    mine = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename="mine.sse")[0]
    dump_organise(dump=mine, title="自分の回答", tag_names=[])
    editors_assign(dump=mine, editors=[editor], by=editor, checks_needed=1)
    for number in range(4):
        other = dump_ingest(raw=own_fixture(SEED) + b"\n" * (number + 1), uploaded_by=editor)[0]
        dump_organise(dump=other, title=f"未割り当て{number}", tag_names=[])
    client.force_login(editor)
    for key in ("r0-c0-1", "r0-c0-2", "r0-c1"):
        save(client, mine, key, "complete")
    response = client.post(item_url(mine, "r0-u0"), {"version": "0", "verification_worthy": "yes"})
    done = html(client, response["Location"])
    assert "Nothing else assigned to you is waiting." in done
    assert "4 dumps assigned to nobody are not checked yet:" in done and "未割り当て0" in done
    assert "?assignee=-&amp;progress=unchecked" in done


def test_a_lead_reads_what_their_role_lets_them_do_on_their_account_page(client, lead):
    client.force_login(lead)
    page = client.get(reverse("account")).content.decode()
    assert "lead: an editor who also settles where editors disagree" in page
