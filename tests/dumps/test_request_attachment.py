"""Who may attach a request to a stored dump, and the record of who did and when."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from citeview.dumps.models import Dump
from citeview.dumps.services import can_attach_request, dump_ingest
from tests.conftest import own_fixture, user_with_role
from tests.hostile.pages import assert_inert

pytestmark = pytest.mark.django_db

RESPONSE = "claude-content-blocks-search-results.json"
REQUEST = "claude-content-blocks-search-results.request.json"


@pytest.fixture
def staff_editor(django_user_model):
    user = user_with_role(django_user_model, "kenji", "editor")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


def _store(client, *, with_request: bool = False, follow: bool = False):
    data = {"file": SimpleUploadedFile(RESPONSE, own_fixture(RESPONSE))}
    if with_request:
        data["request_text"] = own_fixture(REQUEST).decode()
    return client.post("/", data, follow=follow)


def _quote_checks(dump: Dump) -> list[object]:
    return [c.get("quote_check") for c in dump.result["responses"][0]["citations"]]


def test_another_editors_request_is_refused_and_the_quote_checks_stay_as_they_were(client, editor, second_editor):
    client.force_login(editor)
    _store(client)
    before = Dump.objects.get()
    client.force_login(second_editor)
    page = _store(client, with_request=True, follow=True)
    text = page.content.decode()
    assert page.redirect_chain[-1][0] == before.get_absolute_url()
    assert "The request was not attached" in text and "only hanako, who stored this dump, or staff" in text
    dump = Dump.objects.get()
    assert dump.request_raw is None and dump.request_attached_by is None and dump.request_attached_at is None
    assert _quote_checks(dump) == _quote_checks(before) == [None, None, None]
    assert dump.derived_at == before.derived_at
    assert "Attached request" not in text


def test_a_refused_request_on_a_dump_nobody_owns_says_only_staff_may_attach_one(client, second_editor):
    dump_ingest(raw=own_fixture(RESPONSE), uploaded_by=None)
    client.force_login(second_editor)
    text = _store(client, with_request=True, follow=True).content.decode()
    assert "The request was not attached: only staff may attach a request to this dump." in text
    assert Dump.objects.get().request_raw is None


def test_the_uploader_can_attach_the_request_later_and_it_is_recorded(client, editor):
    client.force_login(editor)
    _store(client)
    before = timezone.now()
    text = _store(client, with_request=True, follow=True).content.decode()
    dump = Dump.objects.get()
    assert bytes(dump.request_raw) == own_fixture(REQUEST)
    assert [c["result"] for c in _quote_checks(dump)] == ["match"] * 3
    assert dump.request_attached_by == editor and dump.request_attached_at >= before
    assert "not attached" not in text


def test_staff_can_attach_a_request_to_another_editors_dump(client, editor, staff_editor):
    client.force_login(editor)
    _store(client)
    client.force_login(staff_editor)
    _store(client, with_request=True)
    dump = Dump.objects.get()
    assert bytes(dump.request_raw) == own_fixture(REQUEST) and dump.request_attached_by == staff_editor
    assert dump.uploaded_by == editor


def test_a_dump_stored_with_its_request_records_who_attached_it_and_when(client, editor):
    client.force_login(editor)
    before = timezone.now()
    _store(client, with_request=True)
    dump = Dump.objects.get()
    assert dump.request_attached_by == editor and before <= dump.request_attached_at <= timezone.now()


def test_a_dump_stored_without_a_request_records_no_attachment(client, editor):
    client.force_login(editor)
    _store(client)
    dump = Dump.objects.get()
    assert dump.request_attached_by is None and dump.request_attached_at is None


def test_the_viewer_shows_who_attached_the_request_and_when(client, editor, staff_editor):
    client.force_login(editor)
    _store(client)
    client.force_login(staff_editor)
    _store(client, with_request=True)
    dump = Dump.objects.get()
    client.force_login(editor)
    page = client.get(dump.get_absolute_url()).content.decode()
    header = page.split('<header class="cv-dump-header">')[1].split("</header>")[0]
    assert "request attached" in header and "by kenji" in header
    assert f'datetime="{timezone.localtime(dump.request_attached_at).isoformat()}"' in header
    assert 'href="#cv-attached-request"' in header and 'id="cv-attached-request"' in page
    assert_inert(page)  # the header's link and the request's id are our own


def test_the_viewer_shows_no_attachment_line_for_a_dump_without_a_request(client, editor):
    client.force_login(editor)
    _store(client)
    page = client.get(Dump.objects.get().get_absolute_url()).content.decode()
    assert "request attached" not in page


def test_the_rule_lets_only_the_uploader_and_staff_attach(editor, second_editor, reviewer, staff_editor):
    from django.contrib.auth.models import AnonymousUser

    dump, _ = dump_ingest(raw=own_fixture(RESPONSE), uploaded_by=editor)
    ownerless, _ = dump_ingest(raw=own_fixture("claude-ja-documents-exchange.json"), uploaded_by=None)
    assert can_attach_request(editor, dump) and can_attach_request(staff_editor, dump)
    assert not can_attach_request(second_editor, dump) and not can_attach_request(reviewer, dump)
    assert not can_attach_request(AnonymousUser(), dump) and not can_attach_request(None, dump)
    assert can_attach_request(staff_editor, ownerless) and not can_attach_request(editor, ownerless)


def test_the_service_itself_refuses_another_editors_request(editor, second_editor):
    dump, _ = dump_ingest(raw=own_fixture(RESPONSE), uploaded_by=editor)
    again, created = dump_ingest(raw=own_fixture(RESPONSE), uploaded_by=second_editor, request=own_fixture(REQUEST))
    assert not created and again.pk == dump.pk
    assert Dump.objects.get().request_raw is None
