"""A saved page's HTML or PDF is read in a child process held to a time and a memory budget, enforced
from outside the parsers: a page that runs away inside one parser call is stopped and refused with
the limit said; the result of a page that does not is the same as reading it in the process; and no
child is left behind, whatever threads the caller has."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest

from citeview.core.common import limited
from citeview.core.evidence import extract
from citeview.core.evidence.extract import MAX_SNAPSHOT_BYTES, MAX_TEXT_CHARS, ExtractionError, extract_text
from tests.core.evidence.test_evidence_extract import ARTICLE, _encrypted
from tests.core.pdfs import pdf_form_bomb, pdf_with_pages


def refused(content: bytes, content_type: str, **limits: float) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract_text(content, content_type, **limits)  # type: ignore[arg-type]
    return caught.value


def forkserver_children() -> list[int]:
    """The processes the forkserver of this process has running (or not yet reaped): its children."""
    mine = [pid for pid, parent in _parents().items() if parent == _own_pid()]
    return [pid for pid, parent in _parents().items() if parent in mine and _is_forkserver(parent)]


def _own_pid() -> int:
    import os

    return os.getpid()


def _parents() -> dict[int, int]:
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # gone meanwhile
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    return parents


def _is_forkserver(pid: int) -> bool:
    try:
        return b"forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_a_pdf_that_draws_a_form_thousands_of_times_is_stopped_at_the_time_budget():
    bomb = pdf_form_bomb()
    assert len(bomb) < 1_100  # a kilobyte that held a request for two minutes (issue 29, finding 2)
    start = time.monotonic()
    error = refused(bomb, "application/pdf", seconds=2)
    assert time.monotonic() - start < 10  # the budget, the forkserver's start, a loaded machine
    assert error.code == "too_slow"
    assert (
        error.message == "Reading the saved page took longer than 2 seconds, the most citeview allows: it was stopped."
    )


def test_the_child_stopped_is_gone_and_reaped_not_left_a_zombie_or_an_orphan():
    refused(pdf_form_bomb(), "application/pdf", seconds=1)
    assert forkserver_children() == []


def test_a_child_left_alone_is_still_ended_by_its_own_cpu_limit():
    """What bounds a child whose parent died before killing it."""
    context = limited.forkserver()
    receiving, sending = context.Pipe(duplex=False)
    reading = (pdf_form_bomb(), "application/pdf", MAX_SNAPSHOT_BYTES, MAX_TEXT_CHARS, 60)
    arguments = (sending, extract._read_in_child, reading, 1, 512)
    child = context.Process(target=limited._run_in_child, args=arguments, daemon=True)
    child.start()
    sending.close()
    child.join(30)
    receiving.close()
    assert child.exitcode == -signal.SIGXCPU  # its CPU limit (a second), not a kill of ours


def test_a_page_that_needs_more_memory_than_the_budget_is_refused_saying_so():
    page = ("<html><body>" + "<div><span>words</span></div>" * 300_000 + "</body></html>").encode()
    error = refused(page, "text/html", megabytes=150)
    assert error.code == "too_much_memory"
    assert error.message == (
        "Reading the saved page needed more than 150 MB of memory, the most citeview allows: it was stopped."
    )


def test_a_page_read_in_the_child_gives_what_it_gives_in_the_process():
    pdf = pdf_with_pages(["Page one says 14.1 million.", "東京都の人口は約1,410万人である。"])
    for content, content_type in ((ARTICLE.encode(), "text/html; charset=utf-8"), (pdf, "application/pdf")):
        assert extract_text(content, content_type) == extract._read_in_process(content, content_type)
    capped = extract_text(("<p>" + "word " * 5_000 + "</p>").encode(), "text/html", max_chars=1_000)
    assert len(capped.text) == 1_000 and "1,000 characters" in str(capped.notes[-1])


def test_a_refusal_in_the_child_keeps_its_code_and_sentence():
    error = refused(_encrypted("secret"), "application/pdf")
    assert error.code == "encrypted" and "needs a password" in error.message
    assert refused(b"   ", "text/html").code == "empty"  # refused before any child is started


def test_plain_text_is_read_without_a_child(monkeypatch):
    def no_children():
        raise AssertionError("plain text needs no child")

    monkeypatch.setattr(limited, "forkserver", no_children)
    extraction = extract_text(b"x" * 2_000, "text/plain", max_chars=1_500)
    assert len(extraction.text) == 1_500


def test_pages_are_read_alongside_threads_and_each_other():
    """A web server's or a worker's threads: the children are forked from the forkserver, which has none."""
    busy = threading.Event()
    holder = threading.Thread(target=busy.wait, args=(30,), daemon=True)  # a thread that holds on
    holder.start()
    pdf = pdf_with_pages(["One page."])
    results: list[str] = []

    def read() -> None:
        results.append(extract_text(pdf, "application/pdf").text)

    readers = [threading.Thread(target=read) for _ in range(4)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(60)
    busy.set()
    assert results == ["One page."] * 4
    assert forkserver_children() == []


@pytest.mark.parametrize(
    ("exitcode", "code", "words"),
    [
        (-signal.SIGXCPU, "too_slow", "longer than 3 seconds"),
        (86, "too_much_memory", "more than 64 MB"),
        (-signal.SIGSEGV, "unreadable", "stopped by signal SIGSEGV"),
        (1, "unreadable", "ended with exit code 1"),
        (None, "unreadable", "gave no answer"),
    ],
)
def test_a_child_that_ends_without_answering_is_a_refusal_saying_how(exitcode, code, words):
    error = extract._refusal(limited.stopped_by(exitcode), 3, 64)
    assert error.code == code and words in error.message


def test_an_answer_that_is_not_one_is_a_refusal():
    with pytest.raises(ExtractionError, match="gave no answer"):
        extract._result(("extraction", "not an extraction"))
