"""The list's rows and the viewer's header and panels are kept in the cache (the database's): what a
reader sees is what the page would show made afresh, after any edit, in their language and role, and
never another editor's view of what blind first hides."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citeview.accounts.roles import fragment_audience
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.services import editors_assign
from tests.conftest import own_fixture, user_with_role

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def nothing_kept_yet() -> None:
    """Each test starts from an empty cache: a test before it in the same process, one that commits
    (a live server's), may have kept the same forms' fields, and the counts here start cold."""
    cache.clear()


SEED = "agent-seed-incomplete.sse"  # four items: [2] with two URLs, [9], and [8] with no source


@pytest.fixture
def dump(editor) -> Dump:
    return dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]


def page(client, url: str, language: str = "en") -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def both_pages(client, dump: Dump, language: str = "en") -> tuple[str, str]:
    return page(client, reverse("pages:home"), language), page(client, dump.get_absolute_url(), language)


def without_csrf_tokens(pages: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html) for html in pages)


def header(viewer: str) -> str:
    return re.search(r'<header class="cv-dump-header">.*?</header>', viewer, re.S).group(0)


def test_the_default_cache_is_a_table_of_the_database_that_migrate_made():
    assert settings.CACHES["default"]["BACKEND"] == "citeview.dumps.cache.BulkDatabaseCache"
    assert settings.CACHE_TABLE in connection.introspection.table_names()
    cache.set_many({"a": "一", "b": "二"})
    cache.set_many({"b": "三"})  # kept again: replaced, not a second row
    assert cache.get_many(["a", "b", "c"]) == {"a": "一", "b": "三"}


def test_a_page_seen_again_reads_its_rows_and_panels_kept(editor_client, dump):
    first = both_pages(editor_client, dump)
    read = {}
    for name, url in (("list", reverse("pages:home")), ("viewer", dump.get_absolute_url())):
        with CaptureQueriesContext(connection) as again:
            page(editor_client, url)
        read[name] = " ".join(query["sql"] for query in again.captured_queries)
    assert without_csrf_tokens(both_pages(editor_client, dump)) == without_csrf_tokens(first)
    assert "dumps_dump_tags" not in read["list"] and "review_check" not in read["list"]  # kept, not made again
    assert "review_comment" not in read["viewer"] and "review_check" not in read["viewer"]
    assert "INSERT" not in read["list"] + read["viewer"]


def test_title_tags_editors_checks_and_comments_show_at_once(editor_client, editor, second_editor, dump):
    both_pages(editor_client, dump)  # kept now
    details = {"title": "厚労省の条件 調査", "tags": "health"}
    editor_client.post(reverse("dumps:details", args=[dump.pk]), details)
    editors_assign(dump=dump, editors=[second_editor], by=editor, checks_needed=1)  # as a lead assigns it
    listed, viewer = both_pages(editor_client, dump)
    for shown in (listed, header(viewer)):
        assert "厚労省の条件 調査" in shown and "health" in shown and "taro" in shown

    editor_client.post(reverse("review:item", args=[dump.pk, "r0-c0-1"]), {"version": "0", "verdict": "complete"})
    listed, viewer = both_pages(editor_client, dump)
    assert "hanako: 1" in listed and "1 / 4" in listed
    assert "1 of 4 items checked · hanako: 1" in viewer

    editor_client.post(reverse("review:comment", args=[dump.pk]), {"text": "年度を確認してください"})
    viewer = page(editor_client, dump.get_absolute_url())
    assert "年度を確認してください" in viewer and "1 comment" in viewer


def test_each_language_and_role_gets_its_own(client, editor, reviewer, dump):
    client.force_login(editor)
    assert "Check the citations" in page(client, dump.get_absolute_url())
    japanese = page(client, dump.get_absolute_url(), "ja")
    assert "引用を確認する" in japanese and "引き継ぎレポート" in header(japanese)
    assert "Citations" not in page(client, reverse("pages:home"), "ja").split("<tbody>")[1]
    client.force_login(reviewer)
    viewer = page(client, dump.get_absolute_url())
    assert "Read the checks" in viewer and "Check the citations" not in viewer


def test_no_editor_sees_what_blind_first_keeps_from_them(client, editor, second_editor, reviewer, dump):
    client.force_login(editor)
    note = "二つ目のURLは古い版"
    item = reverse("review:item", args=[dump.pk, "r0-c0-1"])
    client.post(item, {"version": "0", "verdict": "partial", "note": note})
    assert note in page(client, item)  # their own check
    both_pages(client, dump)  # kept for editors, in the state after hanako's check
    client.force_login(second_editor)
    listed, viewer = both_pages(client, dump)
    assert "hanako: 1" in listed and "hanako: 1" in viewer  # progress is everyone's to read
    assert note not in listed + viewer + page(client, item)  # hanako's verdict is not, until taro checks the item
    client.post(item, {"version": "1", "verdict": "complete"})
    assert note in page(client, item)


def test_a_fragment_that_shows_checks_is_kept_per_editor_and_one_that_does_not_per_role(
    editor, second_editor, reviewer
):
    assert fragment_audience(editor) == fragment_audience(second_editor) == "editor"
    assert fragment_audience(reviewer) == "reviewer"
    mine, theirs = (fragment_audience(user, shows_own_checks=True) for user in (editor, second_editor))
    assert mine != theirs and "editor" in mine
    assert fragment_audience(reviewer, shows_own_checks=True) == "reviewer"  # reviewers read every check


def test_the_list_keeps_its_query_count_cold_and_warm(editor_client, editor):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            page(editor_client, reverse("pages:home"))
        return len(captured)

    dump_ingest(raw=own_fixture(SEED), uploaded_by=editor)
    cold, warm = queries(), queries()
    for n in range(30):
        raw = own_fixture(SEED).replace(b"\xe6\x9d\xa1\xe4\xbb\xb6A", f"条件A{n}".encode())
        dump_ingest(raw=raw, uploaded_by=editor)
    cache.clear()  # nothing kept: every row and form made
    assert queries() == cold and queries() == warm < cold


def test_the_viewer_seen_again_pays_the_same_few_queries_whatever_the_team_added(
    editor_client, editor, second_editor, dump
):
    def queries(url: str) -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            page(editor_client, url)
        return [query["sql"] for query in captured.captured_queries]

    plain = dump_ingest(raw=own_fixture(SEED).replace("条件A".encode(), "条件B".encode()), uploaded_by=None)[0]
    details = {"title": "厚労省の条件", "tags": "health, 2026-Q3, batch-7"}
    editor_client.post(reverse("dumps:details", args=[dump.pk]), details)
    editors_assign(dump=dump, editors=[second_editor], by=editor, checks_needed=2)
    for text in ("年度を確認してください", "二つ目のURLは古い版", "確認済み"):
        editor_client.post(reverse("review:comment", args=[dump.pk]), {"text": text})
    editor_client.post(reverse("review:item", args=[dump.pk, "r0-c0-1"]), {"version": "0", "verdict": "complete"})
    cold = queries(dump.get_absolute_url())
    warm = queries(dump.get_absolute_url())
    queries(plain.get_absolute_url())  # kept now
    assert len(warm) == len(queries(plain.get_absolute_url())) < len(cold)
    read = " ".join(warm)
    # Its kept pieces are current: neither its tags nor its uploader and editors are read to show them.
    assert "dumps_dump_tags" not in read and "LEFT OUTER JOIN" not in read


def test_an_editor_made_renamed_or_let_go_is_offered_as_such_at_once(client, django_user_model, dump):
    client.force_login(user_with_role(django_user_model, "sato", "lead"))  # who assigns editors

    def offered() -> tuple[str, str]:
        listed, viewer = both_pages(client, dump)
        filters = re.search(r'<select name="assignee".*?</select>', listed, re.S).group(0)
        assignee = re.search(r'class="cv-assign-editors".*?</fieldset>', viewer, re.S).group(0)
        return filters, assignee

    filters, assignee = offered()  # kept now
    assert "jiro" not in filters + assignee
    jiro = user_with_role(django_user_model, "jiro", "editor")
    filters, assignee = offered()
    assert "jiro" in filters and "jiro" in assignee
    jiro.username = "jiro-s"
    jiro.save()
    filters, assignee = offered()
    assert "jiro-s" in filters and "jiro-s" in assignee
    jiro.is_active = False  # no longer assignable; the dumps assigned to them can still be found
    jiro.save()
    filters, assignee = offered()
    assert "jiro-s" in filters and "jiro-s" not in assignee


def test_the_forms_of_a_kept_viewer_carry_each_readers_own_csrf_token(editor, second_editor, reviewer, dump):
    client = Client(enforce_csrf_checks=True)  # as a browser's post is checked
    comments = reverse("review:comment", args=[dump.pk])
    for user, text in ((editor, "年度を確認してください"), (second_editor, "確認済み"), (reviewer, "出典は一次資料")):
        client.force_login(user)  # the second editor reads the page kept for the first
        viewer = page(client, dump.get_absolute_url())
        assert "csrf-token-of-the-reader" not in viewer
        form = viewer.split(f'action="{comments}"')[1]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
        assert client.post(comments, {"text": text}).status_code == 403  # without it
        assert client.post(comments, {"text": text, "csrfmiddlewaretoken": token}).status_code == 302
        assert ('action="' + reverse("dumps:details", args=[dump.pk]) in viewer) == (user != reviewer)
    viewer = page(client, dump.get_absolute_url())
    assert "年度を確認してください" in viewer and "確認済み" in viewer and "出典は一次資料" in viewer


def test_the_kept_list_shows_each_role_its_own_and_a_new_dump_at_once(editor, reviewer, dump):
    client = Client(enforce_csrf_checks=True)
    home = reverse("pages:home")
    client.force_login(editor)
    listed = page(client, home)  # kept now, for editors
    assert "1 dump" in listed and "Read the dump" in listed
    client.force_login(reviewer)
    listed = page(client, home)
    assert "1 dump" in listed and "Read the dump" not in listed and "csrf-token-of-the-reader" not in listed
    client.force_login(editor)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page(client, home).split("cv-intake-form")[1])
    raw = own_fixture(SEED).replace("条件A".encode(), "条件Z".encode()).decode()
    assert client.post(home, {"text": raw, "csrfmiddlewaretoken": token.group(1)}).status_code == 302
    listed = page(client, home)
    assert "2 dumps" in listed and listed.count("<tr") == 3  # the header's row and both dumps'


def test_each_page_of_the_kept_list_shows_its_own_dumps(editor_client, editor, dump):
    for n in range(25):
        dump_ingest(raw=own_fixture(SEED).replace("条件A".encode(), f"条件A{n}".encode()), uploaded_by=editor)
    home = reverse("pages:home")
    for _view in range(2):  # made, then kept
        first, second = page(editor_client, home), page(editor_client, home + "?page=2")
        assert first.count("<tr") == 26 and second.count("<tr") == 2
        assert "Page 1 of 2" in first and "Page 2 of 2" in second
        assert f'href="{dump.get_absolute_url()}"' in second and f'href="{dump.get_absolute_url()}"' not in first
