"""The queries each busy page makes, pinned (as Zulip pins its views'): a change that adds one fails
here and says which page, so a new query is a decision, not an accident. The list and the viewer are
counted cold (nothing in the cache: every row and piece made; the viewer's body, kept in its own table
since the dump's first view, read) and warm (all kept); the check page on any view.

If a count here changes on purpose, change it with the reason in the commit."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.services import editors_assign
from tests.conftest import own_fixture, user_with_role

pytestmark = pytest.mark.django_db

SEED = "agent-seed-incomplete.sse"  # four items: [2] with two URLs, [9], and [8] with no source

# Every page pays four for the session, the user and their permissions; the check page reads its dump
# twice (the decorator that queues a stale result's rebuild, then the view). `pytest -vv` on a failing count
# lists every query made.
# Cold, the list reads its rows' editors (several per dump); the viewer its editors. (For a lead, who
# assigns, the list also reads the editors its bulk assignment offers, and the viewer those its form
# offers, who is assigned and who has judged an item.)
LIST_COLD, LIST_WARM = 36, 8
VIEWER_COLD, VIEWER_WARM = 18, 6
# The check page reads its items' flags and hints, kept since its first view (issue 42), in one query.
CHECK_PAGE = 25
# A batch's page with its pieces kept: the viewer's warm queries but the kept body, whether the rows
# are current, the checks per response, and the navigator and response kept; and its counts of the
# likely problems, kept (issue 45: citeview/review/triage.py), in one read of the cache.
BATCH_WARM = 11
# A lead's (or staff's) header says how many disagreements wait to be settled: one count on each of
# their pages (citeview/review/context_processors.py). An editor's or a reviewer's page pays none.
SETTLE_LINK = 1
# A lead's list and viewer are kept by the editors their assignment forms offer: read on each view.
ASSIGN_FORM = 1


@pytest.fixture(autouse=True)
def nothing_kept_yet() -> None:
    cache.clear()


@pytest.fixture
def dumps(editor) -> list[Dump]:
    """Three dumps, one of them assigned, commented on and with a check saved."""
    made = []
    for n in range(3):
        raw = own_fixture(SEED).replace(b"\xe6\x9d\xa1\xe4\xbb\xb6A", f"条件A{n}".encode())
        made.append(dump_ingest(raw=raw, uploaded_by=editor)[0])
    return made


@pytest.fixture
def worked_on(editor_client, editor, dumps) -> Dump:
    dump = dumps[0]
    editor_client.post(reverse("dumps:details", args=[dump.pk]), {"title": "条件", "tags": "a, b"})
    editors_assign(dump=dump, editors=[editor], by=editor, checks_needed=2)
    editor_client.post(reverse("review:comment", args=[dump.pk]), {"text": "年度を確認"})
    editor_client.post(reverse("review:item", args=[dump.pk, "r0-c0-1"]), {"version": "0", "verdict": "complete"})
    cache.clear()
    return dump


def get(client, url: str) -> None:
    assert client.get(url, HTTP_ACCEPT_LANGUAGE="ja").status_code == 200


def test_the_list(editor_client, worked_on, django_assert_num_queries):
    with django_assert_num_queries(LIST_COLD):
        get(editor_client, reverse("pages:home"))
    with django_assert_num_queries(LIST_WARM):
        get(editor_client, reverse("pages:home"))


def test_the_viewer(editor_client, worked_on, django_assert_num_queries):
    get(editor_client, worked_on.get_absolute_url())  # the body is made and kept on the first view ever
    cache.clear()
    with django_assert_num_queries(VIEWER_COLD):
        get(editor_client, worked_on.get_absolute_url())
    with django_assert_num_queries(VIEWER_WARM):
        get(editor_client, worked_on.get_absolute_url())


def test_the_check_page(editor_client, worked_on, django_assert_num_queries):
    url = reverse("review:item", args=[worked_on.pk, "r0-c1"])
    get(editor_client, url)
    with django_assert_num_queries(CHECK_PAGE):
        get(editor_client, url)


def test_a_leads_pages_pay_for_the_disagreements_waiting_and_the_editors_they_assign(
    client, django_user_model, worked_on, django_assert_num_queries
):
    client.force_login(user_with_role(django_user_model, "sato", "lead"))
    for url, warm in ((reverse("pages:home"), LIST_WARM), (worked_on.get_absolute_url(), VIEWER_WARM)):
        get(client, url)  # a lead's pieces are kept apart from an editor's: made on the first view
        with django_assert_num_queries(warm + SETTLE_LINK + ASSIGN_FORM):
            get(client, url)


def test_a_batch_page_reads_a_page_of_rows_and_one_response(editor_client, django_assert_num_queries):
    from tests.dumps.test_batches import batch_of

    editor_client.post(reverse("pages:home"), {"text": batch_of(60)})
    url = Dump.objects.get().get_absolute_url()
    get(editor_client, url + "?response=40")  # the rows are made on the first view, and the pieces kept
    with django_assert_num_queries(BATCH_WARM):
        get(editor_client, url + "?response=40")
