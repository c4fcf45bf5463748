"""A dump carrying a PDF is read by a worker, whatever its size (issue 42: a web worker never parses a
PDF): a small Claude exchange sending a PDF document, documents attached later, and a stale dump's
first view after a deploy. The web request stores the bytes and answers at once, without starting the
child that reads a PDF; the worker then reads it, its quotes checked as before. A dump with no PDF is
still read in the request."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.core.parsing import pdf
from citeview.dumps import reading
from citeview.dumps.derived import result_version
from citeview.dumps.models import Dump
from tests.documents import claude_answer, page_citation, pdf_of
from tests.tasks.test_reading import run_the_queue

pytestmark = pytest.mark.django_db

QUOTE = "The WBGT alert level is 33."


def exchange(source: dict[str, Any]) -> bytes:
    """A Claude exchange whose request sends one document of ``source``, the answer citing page 1 of it."""
    document = {"type": "document", "title": "Heat report", "source": source, "citations": {"enabled": True}}
    request = {"model": "claude", "max_tokens": 64, "messages": [{"role": "user", "content": [document]}]}
    answer = json.loads(claude_answer(page_citation(QUOTE, 1, 2, index=0)))
    return json.dumps({"request": request, "response": answer}).encode()


def pdf_exchange() -> bytes:
    encoded = base64.b64encode(pdf_of(QUOTE)).decode()
    return exchange({"type": "base64", "media_type": "application/pdf", "data": encoded})


@pytest.fixture
def no_child_in_the_request(monkeypatch):
    """Every PDF read fails the test until ``undo``: what the web request does must start no child."""

    def no_child(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the web request started the child that reads a PDF")

    monkeypatch.setattr(pdf, "run_limited", no_child)
    return monkeypatch


def quote_checks(dump: Dump) -> list[Any]:
    return [c["quote_check"] for c in Dump.objects.get(pk=dump.pk).result["responses"][0]["citations"]]


def test_the_api_stores_a_small_exchange_with_a_pdf_and_answers_202_then_a_worker_reads_it(
    editor_api, database_queue, no_child_in_the_request
):
    raw = pdf_exchange()
    assert len(raw) < 4096  # far below CITEVIEW_READ_IN_TASK_ABOVE
    response = editor_api.generic("POST", "/api/dumps", raw, content_type="application/json")
    assert response.status_code == 202 and response.json()["state"] == "queued"
    dump = Dump.objects.get()
    assert dump.read_state == "queued" and bytes(dump.raw) == raw
    no_child_in_the_request.undo()
    run_the_queue()
    assert Dump.objects.get().read_state == "ready"
    assert quote_checks(dump) == [{"result": "match", "unit": None}]
    assert editor_api.get(f"/api/dumps/{dump.pk}").status_code == 200


def test_the_form_stores_it_and_shows_the_progress_until_a_worker_has_read_it(
    editor_client, database_queue, no_child_in_the_request
):
    upload = SimpleUploadedFile("exchange.json", pdf_exchange())
    page = editor_client.post("/", {"file": upload}, follow=True).content.decode()
    assert "waiting for a worker" in page and 'class="cv-card cv-reading"' in page
    no_child_in_the_request.undo()
    run_the_queue()
    dump = Dump.objects.get()
    assert quote_checks(dump) == [{"result": "match", "unit": None}]
    assert "waiting for a worker" not in editor_client.get(dump.get_absolute_url()).content.decode()


def test_a_small_dump_without_a_pdf_is_still_read_in_the_request(editor_api, database_queue):
    raw = exchange({"type": "text", "media_type": "text/plain", "data": QUOTE})
    response = editor_api.generic("POST", "/api/dumps", raw, content_type="application/json")
    assert response.status_code == 201
    assert Dump.objects.get().read_state == "ready"


def test_a_pdf_the_bytes_do_not_show_is_still_not_read_in_the_request(
    editor_api, database_queue, no_child_in_the_request
):
    """Should the look at the bytes miss a PDF (a base64 text a stream joins from pieces), the reading
    in the request stops at the PDF and the dump goes to a worker."""
    no_child_in_the_request.setattr(reading, "may_read_pdf", lambda *args: False)
    response = editor_api.generic("POST", "/api/dumps", pdf_exchange(), content_type="application/json")
    assert response.status_code == 202
    no_child_in_the_request.undo()
    run_the_queue()
    assert quote_checks(Dump.objects.get()) == [{"result": "match", "unit": None}]


def test_a_pdf_attached_later_is_stored_and_the_dump_read_again_by_a_worker(
    client, editor, second_editor, database_queue, no_child_in_the_request
):
    answer = claude_answer(page_citation(QUOTE, 1, 2, index=0))

    def attach(name: str, data: bytes, **extra: Any) -> Any:
        files = {"file": SimpleUploadedFile("answer.json", answer), "request_file": [SimpleUploadedFile(name, data)]}
        return client.post("/", files, **extra)

    client.force_login(editor)
    client.post("/", {"file": SimpleUploadedFile("answer.json", answer)})  # no PDF: read in the request
    dump = Dump.objects.get()
    assert dump.read_state == "ready" and quote_checks(dump) == [None]
    client.force_login(second_editor)
    attach("other.pdf", pdf_of("Another report."))  # not the uploader: nothing attached, nothing queued
    assert Dump.objects.get().read_state == "ready" and not dump.documents.exists()
    client.force_login(editor)
    page = attach("report.pdf", pdf_of(QUOTE), follow=True).content.decode()
    assert "waiting for a worker" in page
    stored = Dump.objects.get()
    assert stored.read_state == "queued" and stored.request_attached_by == editor
    attach("other.pdf", pdf_of("Another report."))  # a second one while it waits: the first is kept
    assert [(d.name, bytes(d.raw)) for d in stored.documents.all()] == [("report.pdf", pdf_of(QUOTE))]
    no_child_in_the_request.undo()
    run_the_queue()
    assert Dump.objects.get().read_state == "ready" and quote_checks(dump) == [{"result": "match", "unit": None}]


def test_a_document_neither_text_nor_pdf_sent_with_a_pdf_is_refused_at_once(client, editor, database_queue):
    client.force_login(editor)
    files = [SimpleUploadedFile("report.pdf", pdf_of(QUOTE)), SimpleUploadedFile("scan.bin", b"\xff\xfe\x00binary")]
    upload = SimpleUploadedFile("answer.json", claude_answer(page_citation(QUOTE, 1, 2, index=0)))
    page = client.post("/", {"file": upload, "request_file": files})
    assert "Document 1 (scan.bin) is neither UTF-8 text nor a PDF" in page.content.decode()
    assert not Dump.objects.exists()


def test_a_stale_small_dump_with_a_pdf_is_rebuilt_by_a_worker_not_in_its_first_view(
    editor_client, database_queue, no_child_in_the_request
):
    no_child_in_the_request.undo()
    editor_client.post("/", {"file": SimpleUploadedFile("exchange.json", pdf_exchange())})
    run_the_queue()
    dump = Dump.objects.get()
    Dump.objects.filter(pk=dump.pk).update(result_version="older code", headline="older code")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pdf, "run_limited", lambda *args, **kwargs: pytest.fail("the first view read the PDF"))
        page = editor_client.get(dump.get_absolute_url()).content.decode()
    assert "cv-rebuilding" in page  # the stored result, shown while a worker rebuilds it
    stored = Dump.objects.get()
    assert stored.headline == "older code" and stored.read_state == "ready"
    run_the_queue()
    rebuilt = Dump.objects.get()
    assert rebuilt.read_state == "ready" and rebuilt.result_version == result_version()
    assert quote_checks(rebuilt) == [{"result": "match", "unit": None}]
