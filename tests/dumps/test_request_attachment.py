"""Who may attach a request (or the documents it sent) to a stored dump, the record of who did and when,
and documents attached on their own through the form."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from citeview.core.parsing.attached import AttachedFile
from citeview.dumps.models import AttachedDocument, Dump
from citeview.dumps.reading import dump_rebuild
from citeview.dumps.services import (
    attachment_kept,
    can_attach_request,
    dump_attach_request,
    dump_ingest,
)
from tests.conftest import own_fixture, user_with_role
from tests.documents import POLICY, REPORT_PAGES, char_citation, claude_answer, pdf_of, policy_and_report_answer
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


# --- Documents attached on their own, without the request ----------------------------------------------


def _documents() -> list[SimpleUploadedFile]:
    return [
        SimpleUploadedFile("policy.txt", POLICY.encode(), content_type="text/plain"),
        SimpleUploadedFile("heat-report.pdf", pdf_of(*REPORT_PAGES), content_type="application/pdf"),
    ]


def _store_with_documents(client, documents=None, *, follow: bool = False):
    answer = SimpleUploadedFile("answer.json", policy_and_report_answer())
    return client.post("/", {"file": answer, "request_file": documents or _documents()}, follow=follow)


def test_a_text_document_and_a_pdf_are_stored_verbatim_in_their_order_and_every_quote_is_checked(client, editor):
    client.force_login(editor)
    before = timezone.now()
    response = _store_with_documents(client)
    dump = Dump.objects.get()
    assert response.status_code == 302 and response["Location"] == dump.get_absolute_url()
    assert [(d.position, d.name, bytes(d.raw)) for d in dump.documents.all()] == [
        (0, "policy.txt", POLICY.encode()),
        (1, "heat-report.pdf", pdf_of(*REPORT_PAGES)),
    ]
    assert dump.request_raw is None and dump.has_attachment
    assert dump.request_attached_by == editor and dump.request_attached_at >= before
    assert [c["result"] for c in _quote_checks(dump)] == ["match", "match"]
    titles = {s["key"]: s["title"] for s in dump.result["responses"][0]["sources"]}
    assert titles == {"doc:0": "policy.txt", "doc:1": "heat-report.pdf"}


def test_a_plain_text_document_alone_is_the_document_the_answer_cites(client, editor):
    # The case: a .txt the data team sends was "a request that cannot be read".
    client.force_login(editor)
    answer = SimpleUploadedFile("answer.json", claude_answer(char_citation("thirty days", POLICY)))
    client.post("/", {"file": answer, "request_file": SimpleUploadedFile("policy.txt", POLICY.encode())})
    dump = Dump.objects.get()
    assert _quote_checks(dump) == [{"result": "match", "unit": "code_points"}]


def test_a_pasted_document_is_document_0(client, editor):
    client.force_login(editor)
    client.post("/", {"text": claude_answer(char_citation("thirty days", POLICY)).decode(), "request_text": POLICY})
    dump = Dump.objects.get()
    assert [(d.name, bytes(d.raw)) for d in dump.documents.all()] == [("", POLICY.encode())]
    assert _quote_checks(dump)[0]["result"] == "match"


def test_documents_are_read_again_when_the_result_is_rebuilt(client, editor):
    client.force_login(editor)
    _store_with_documents(client)
    dump = Dump.objects.get()
    Dump.objects.filter(pk=dump.pk).update(result_version="old")
    rebuilt = dump_rebuild(dump=Dump.objects.get())
    assert [c["result"] for c in _quote_checks(rebuilt)] == ["match", "match"]


def test_the_uploader_attaches_documents_later_and_another_editor_cannot(client, editor, second_editor):
    client.force_login(editor)
    client.post("/", {"file": SimpleUploadedFile("answer.json", policy_and_report_answer())})
    assert _quote_checks(Dump.objects.get()) == [None, None]
    client.force_login(second_editor)
    text = _store_with_documents(client, follow=True).content.decode()
    assert "only hanako, who stored this dump, or staff" in text and not AttachedDocument.objects.exists()
    client.force_login(editor)
    _store_with_documents(client)
    dump = Dump.objects.get()
    assert [c["result"] for c in _quote_checks(dump)] == ["match", "match"] and dump.documents.count() == 2
    assert dump.request_attached_by == editor


def test_a_dump_with_documents_attached_keeps_them(client, editor):
    client.force_login(editor)
    _store_with_documents(client)
    dump = Dump.objects.get()
    request = own_fixture(REQUEST)
    assert dump_attach_request(dump=dump, request=request, attached_by=editor).request_raw is None
    assert Dump.objects.get().documents.count() == 2
    assert attachment_kept(dump, [AttachedFile(f.name, f.read()) for f in _documents()])
    assert not attachment_kept(dump, request)


def test_a_request_and_documents_together_are_refused_with_the_reason(client, editor):
    client.force_login(editor)
    request = SimpleUploadedFile("request.json", own_fixture(REQUEST))
    response = _store_with_documents(client, [request, *_documents()])
    assert response.status_code == 400 and "not both: request.json is a request" in response.content.decode()
    assert not Dump.objects.exists()


def test_a_file_that_is_neither_text_nor_a_pdf_is_refused_naming_it(client, editor):
    client.force_login(editor)
    response = _store_with_documents(client, [SimpleUploadedFile("notes.docx", b"PK\x03\x04\xff\xfe\x00")])
    assert response.status_code == 400
    assert "Document 0 (notes.docx) is neither UTF-8 text nor a PDF" in response.content.decode()


def test_a_request_that_cannot_be_read_shows_what_a_request_looks_like(client, editor):
    client.force_login(editor)
    answer = policy_and_report_answer().decode()
    response = client.post("/", {"text": answer, "request_text": '{"messages": [ '})
    page = response.content.decode()
    assert response.status_code == 400 and "The attached request cannot be read" in page
    assert "&quot;citations&quot;: {&quot;enabled&quot;: true}" in page.split('id="intake-error"')[1].split("</div>")[0]


def test_too_many_or_too_large_documents_are_refused(client, editor, settings):
    client.force_login(editor)
    many = [SimpleUploadedFile(f"{i}.txt", b"x") for i in range(21)]
    assert "At most 20 files can be attached" in _store_with_documents(client, many).content.decode()
    settings.CITEVIEW_MAX_DUMP_BYTES = 2000
    big = [SimpleUploadedFile(f"{i}.txt", b"x" * 900) for i in range(3)]
    response = _store_with_documents(client, big)
    assert response.status_code == 413 and "(2,700 bytes) in all" in response.content.decode()
    assert not Dump.objects.exists()


def test_the_form_offers_several_files_and_an_example_of_a_whole_request(client, editor):
    client.force_login(editor)
    page = client.get("/").content.decode()
    form = page.split('class="cv-intake-form"')[1].split("</form>")[0]
    assert 'name="request_file"' in form and " multiple>" in form
    assert "numbered 0, 1, 2, … in the order they are chosen" in form
    example = form.split('class="cv-request-example"')[1].split("</details>")[0]
    assert '"type": "document"' in example and '"citations": {"enabled": true}' in example
    assert '{"document": {"format": "txt"' in example  # Bedrock Converse


def test_uploading_again_with_the_same_documents_says_only_that_the_bytes_were_stored(client, editor):
    client.force_login(editor)
    _store_with_documents(client)
    text = _store_with_documents(client, follow=True).content.decode()
    assert "These exact bytes were stored already" in text
    assert "already has another request attached" not in text


def test_uploading_again_with_other_documents_says_the_first_ones_were_kept(client, editor):
    client.force_login(editor)
    _store_with_documents(client)
    other = [SimpleUploadedFile("other.txt", "別の文書です。".encode())]
    text = _store_with_documents(client, other, follow=True).content.decode()
    assert "already has another request attached; it was kept." in text
    assert Dump.objects.get().documents.count() == 2


def test_the_viewer_lists_the_attached_documents_in_the_order_the_answer_counts_them(client, editor):
    client.force_login(editor)
    page = _store_with_documents(client, follow=True).content.decode()
    listing = page[page.index('id="cv-attached-request"') :]
    names = [f.name for f in _documents()]
    assert "2 attached documents, in the order the answer counts them" in listing
    assert listing.index(f"document 0 · {names[0]}") < listing.index(f"document 1 · {names[1]}")
    assert 'href="#cv-attached-request">documents attached</a>' in page
