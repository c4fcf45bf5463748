"""Every public entry point that reads a PDF holds its own limits (issue 42, finding 3): a one-page form
bomb, which kept pypdf busy for 250 s inside one page call, is refused with the limit said, within the
limit and a margin, whoever calls: ``extract_text``, ``pdf_text``, and a Claude or Bedrock dump whose
request sends the bomb as a document. Each call runs in a thread that must end in time, so that a
reader that runs away fails its test rather than hanging the run."""

from __future__ import annotations

import ast
import base64
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.core.evidence import extract
from citeview.core.evidence.extract import ExtractionError, extract_text
from citeview.core.parsing import pdf
from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.parse import parse_dump
from citeview.dumps.models import Dump
from tests.conftest import PROJECT_DIR, SHARED_FIXTURES
from tests.core.pdfs import pdf_form_bomb
from tests.documents import REPORT_PAGES, claude_answer, page_citation, pdf_of
from tests.tasks.test_reading import run_the_queue

LIMIT = 2  # seconds each read is given here
MARGIN = 8  # the forkserver's first start and a loaded 2-core machine
QUOTE = "The WBGT alert level is 33."


@pytest.fixture
def short_limit(monkeypatch):
    """Each reader's default limit, made short (set even where a reader has none, as on issue 42's main:
    the test then fails on the reader's own time, not on a missing name)."""
    monkeypatch.setattr(pdf, "READ_SECONDS", LIMIT, raising=False)
    monkeypatch.setattr(extract, "EXTRACT_SECONDS", LIMIT, raising=False)


def within(seconds: float, call: Callable[[], Any]) -> tuple[Any, float]:
    """What ``call`` returned or raised, and how long it took; the test fails if it has not ended
    after ``seconds`` (its thread is left to run on, as a daemon)."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as error:
            outcome.append(error)

    start = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still reading after {seconds} s: the reader is not bounded"
    return outcome[0], time.monotonic() - start


def bomb_as_document(response: dict[str, Any]) -> list[str]:
    """The unreadable-PDF warnings of a parsed response."""
    return [d["message"] for d in response["diagnostics"] if d["code"] == "location_unverifiable"]


def claude_exchange(*pdfs: bytes) -> bytes:
    """A Claude exchange whose request sends ``pdfs`` as base64 documents, the answer citing page 1 of the first."""
    documents = [
        {
            "type": "document",
            "title": f"Report {number}",
            "source": {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(data).decode()},
            "citations": {"enabled": True},
        }
        for number, data in enumerate(pdfs)
    ]
    request = {"model": "claude", "max_tokens": 64, "messages": [{"role": "user", "content": documents}]}
    answer = json.loads(claude_answer(page_citation(QUOTE, 1, 2, index=0)))
    return json.dumps({"request": request, "response": answer}).encode()


def parsed(raw: bytes, request: Any = None) -> dict[str, Any]:
    return parse_dump(raw, request=request).to_json()["responses"][0]


# --- each entry point, on the bomb ------------------------------------------------------------


def test_extract_text_refuses_a_form_bomb_at_its_own_time_limit(short_limit):
    error, took = within(LIMIT + MARGIN, lambda: extract_text(pdf_form_bomb(), "application/pdf"))
    assert isinstance(error, ExtractionError) and error.code == "too_slow"
    assert error.message == (
        "Reading the saved page took longer than 2 seconds, the most citeview allows: it was stopped."
    )
    assert took < LIMIT + MARGIN


def test_pdf_text_refuses_a_form_bomb_at_its_own_time_limit(short_limit):
    error, took = within(LIMIT + MARGIN, lambda: pdf.pdf_text(pdf_form_bomb()))
    assert isinstance(error, pdf.PdfUnreadable)
    assert str(error.reason) == "reading it took longer than 2 seconds, the most citeview allows"
    assert took < LIMIT + MARGIN


def test_a_claude_request_sending_a_form_bomb_as_a_document_is_read_within_the_limit(short_limit):
    response, took = within(LIMIT + MARGIN, lambda: parsed(claude_exchange(pdf_form_bomb())))
    assert isinstance(response, dict), response
    assert response["citations"][0]["quote_check"] == {"result": "unchecked", "unit": None}
    assert bomb_as_document(response) == [
        "doc:0 (Report 0) is a PDF that citeview cannot read (reading it took longer than 2 seconds, the most citeview "
        "allows); quotes from it are not compared."
    ]
    assert took < LIMIT + MARGIN


def test_a_form_bomb_attached_on_its_own_is_read_within_the_limit(short_limit):
    attached = [AttachedFile("bomb.pdf", pdf_form_bomb())]
    raw = claude_answer(page_citation(QUOTE, 1, 2, index=0))
    response, took = within(LIMIT + MARGIN, lambda: parsed(raw, attached))
    assert isinstance(response, dict), response
    (message,) = bomb_as_document(response)
    assert "bomb.pdf" in message and "reading it took longer than 2 seconds" in message
    assert took < LIMIT + MARGIN


@pytest.mark.skipif(not (SHARED_FIXTURES / "bedrock").is_dir(), reason="../shared/fixtures is not beside the project")
def test_a_bedrock_request_sending_a_form_bomb_as_a_document_is_read_within_the_limit(short_limit):
    document = {
        "format": "pdf",
        "name": "Document 1",
        "source": {"bytes": base64.b64encode(pdf_form_bomb()).decode()},
        "citations": {"enabled": True},
    }
    request = json.dumps({"messages": [{"role": "user", "content": [{"text": "Q?"}, {"document": document}]}]})
    raw = (SHARED_FIXTURES / "bedrock" / "bedrock-converse-pdf-page-sonnet45.json").read_bytes()
    response, took = within(LIMIT + MARGIN, lambda: parsed(raw, request.encode()))
    assert isinstance(response, dict), response
    assert response["citations"][0]["quote_check"] == {"result": "unchecked", "unit": None}
    (message,) = bomb_as_document(response)
    assert "reading it took longer than 2 seconds" in message
    assert took < LIMIT + MARGIN


# --- many bombs in one dump -----------------------------------------------------------------------


def test_the_pdfs_of_one_dump_share_one_budget_however_many_bombs_it_sends(short_limit, monkeypatch):
    monkeypatch.setattr(pdf, "BUDGET_SECONDS", 3, raising=False)
    bombs = [pdf_form_bomb(calls=5_000 - number) for number in range(6)]  # six different files
    response, took = within(3 + MARGIN, lambda: parsed(claude_exchange(*bombs)))
    assert isinstance(response, dict), response
    reasons = bomb_as_document(response)
    assert len(reasons) == 6 and "reading it took longer than 2 seconds" in reasons[0]
    assert all("reading this dump's PDFs took 3 seconds, the most citeview allows" in r for r in reasons[2:])
    assert took < 3 + MARGIN  # where each read alone would have taken 2 s: 12 s


def test_the_same_pdf_sent_again_in_one_dump_is_read_once(short_limit):
    copies = 8
    response, took = within(copies * LIMIT, lambda: parsed(claude_exchange(*[pdf_form_bomb()] * copies)))
    assert isinstance(response, dict), response
    assert len(set(bomb_as_document(response))) == copies  # one warning per document, each naming its own
    assert took < LIMIT + 6  # 16 s if each copy were read


def test_a_pdf_read_within_the_limits_gives_what_it_gave_in_the_process():
    report = pdf_of(*REPORT_PAGES)
    assert pdf.pdf_text(report) == pdf._read_in_process(report)
    response = parsed(claude_exchange(pdf_of("The WBGT alert level is 33."), report))
    assert response["citations"][0]["quote_check"] == {"result": "match", "unit": None}


# --- in the app: the request that stores the dump, and the pages after it ---------------------------


@pytest.mark.django_db
@pytest.mark.timeout(LIMIT + MARGIN + 30)  # not in a thread (the database is this thread's): the run's own guard
def test_an_upload_sending_a_form_bomb_starts_no_reader_in_the_request_and_its_pages_read_no_pdf_again(
    client, editor, short_limit, monkeypatch, database_queue
):
    """The web request stores the bytes and answers at once, never starting the child that reads a PDF
    (a bomb would hold a web worker for the dump's whole budget, 20 s); a worker reads it."""
    client.force_login(editor)
    answer = SimpleUploadedFile("answer.json", claude_answer(page_citation(QUOTE, 1, 2, index=0)))
    bomb = SimpleUploadedFile("bomb.pdf", pdf_form_bomb(), content_type="application/pdf")
    starts: list[str] = []

    def no_child(*args: Any, **kwargs: Any) -> Any:
        starts.append("a PDF reader's child")
        raise AssertionError("the web request started a PDF reader's child")

    monkeypatch.setattr(pdf, "run_limited", no_child, raising=False)  # every PDF reader's one way to its child
    monkeypatch.setattr(extract, "run_limited", no_child, raising=False)
    start = time.monotonic()
    response = client.post("/", {"file": answer, "request_file": [bomb]})
    assert response.status_code == 302 and time.monotonic() - start < MARGIN
    assert starts == []
    dump = Dump.objects.get()
    assert dump.read_state == "queued" and "waiting for a worker" in client.get(dump.get_absolute_url()).text
    monkeypatch.undo()
    monkeypatch.setattr(pdf, "READ_SECONDS", LIMIT)
    run_the_queue()  # the worker reads the bomb, within its limit
    monkeypatch.setattr(pdf, "run_limited", no_child, raising=False)
    monkeypatch.setattr(extract, "run_limited", no_child, raising=False)
    page = client.get(dump.get_absolute_url())
    assert page.status_code == 200 and "bomb.pdf" in page.content.decode()
    assert client.get(f"/dumps/{dump.pk}/check/", follow=True).status_code == 200
    assert starts == []  # the pages read no PDF again: what the dump's reading found is kept


# --- no other way in ----------------------------------------------------------------------------

# The parser calls that can run away: pypdf's reader and its pages' text, lxml's tree, trafilatura.
RUNAWAY_CALLS = {"PdfReader", "extract_text", "document_fromstring", "extract"}
RUNAWAY_OWNERS = {"pypdf", "trafilatura", "lxml_html", "pages", "reader"}


def runaway_calls(function: ast.AST) -> list[str]:
    """The parser calls in ``function``: ``PdfReader(…)``, ``pypdf.PdfReader(…)``,
    ``reader.pages[n].extract_text()``, ``lxml_html.document_fromstring(…)``, ``trafilatura.extract(…)``."""
    found = []
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id == "PdfReader":
            found.append("PdfReader")
        elif isinstance(node.func, ast.Attribute) and node.func.attr in RUNAWAY_CALLS:
            owner = ast.unparse(node.func.value)
            if any(name in owner for name in RUNAWAY_OWNERS):
                found.append(f"{owner}.{node.func.attr}")
    return found


def test_only_private_functions_call_the_parsers_so_every_public_reader_goes_through_the_child():
    """What makes the next caller safe: the functions that parse are private to the modules that run
    them in a child, and the public readers are the limited ones tested above."""
    public_callers = []
    seen = set()
    for path in sorted((PROJECT_DIR / "citeview").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef | ast.ClassDef):
                continue
            calls = runaway_calls(node)
            seen.update(calls)
            if calls and not node.name.startswith("_"):
                public_callers.append(f"{Path(path).relative_to(PROJECT_DIR)}: {node.name} calls {', '.join(calls)}")
    assert {"PdfReader", "reader.pages[index].extract_text", "trafilatura.extract"} <= seen  # the check sees them
    assert public_callers == []
