"""Whether a dump's reading may read a PDF, told from its bytes alone (issue 42: a web worker never
parses a PDF): never "no" for a PDF the reading would give pypdf, whatever bytes come before its header
and however JSON spells its base64; "no" for the dumps that carry none."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeview.core.parsing import pdf
from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.parse import may_read_pdf, parse_dump
from tests.documents import REPORT_PAGES, claude_answer, page_citation, pdf_of

QUOTE = "The WBGT alert level is 33."


def exchange(data: str, *, source_type: str = "base64") -> bytes:
    """A Claude exchange whose request sends ``data`` as a document's source."""
    document = {"type": "document", "source": {"type": source_type, "media_type": "application/pdf", "data": data}}
    request = {"model": "claude", "max_tokens": 64, "messages": [{"role": "user", "content": [document]}]}
    answer = json.loads(claude_answer(page_citation(QUOTE, 1, 2, index=0)))
    return json.dumps({"request": request, "response": answer}).encode()


def escaped(text: str) -> str:
    """``text`` with every character spelled as a JSON escape, as a writer may."""
    return "".join(f"\\u{ord(character):04x}" for character in text)


def pdf_checks(raw: bytes, request: Any = None) -> list[Any]:
    return [c["quote_check"] for c in parse_dump(raw, request=request).to_json()["responses"][0]["citations"]]


@given(junk=st.binary(max_size=1019), tail=st.binary(max_size=12))
def test_base64_of_bytes_is_pdf_takes_for_a_pdf_is_always_seen_whatever_comes_before_the_header(junk, tail):
    data = junk + b"%PDF-" + tail
    assert pdf.is_pdf(data)
    assert may_read_pdf(exchange(base64.b64encode(data).decode()))


@pytest.mark.parametrize("junk", [b"", b"x", b"xy"])
def test_each_of_the_three_places_of_the_header_is_seen_spelled_as_json_may_spell_it(junk):
    encoded = base64.b64encode(junk + pdf_of(*REPORT_PAGES)).decode()
    assert may_read_pdf(exchange(encoded))
    assert may_read_pdf(exchange(encoded).replace(b"/", b"\\/"))  # JSON's "/" escaped
    assert may_read_pdf(('{"data": "' + escaped(encoded[:40]) + '"}').encode())  # every character escaped


def test_a_request_attached_as_bytes_and_documents_attached_on_their_own_are_looked_at():
    answer = claude_answer(page_citation(QUOTE, 1, 2, index=0))
    assert not may_read_pdf(answer)
    request = json.loads(exchange(base64.b64encode(pdf_of(QUOTE)).decode()))["request"]
    assert may_read_pdf(answer, json.dumps(request).encode())
    assert may_read_pdf(answer, [AttachedFile("notes.txt", b"notes"), AttachedFile("r.pdf", b"junk %PDF-1.7")])
    assert not may_read_pdf(answer, [AttachedFile("notes.txt", b"The WBGT alert level is 33.")])
    assert not may_read_pdf(answer, json.dumps({"model": "claude", "messages": []}).encode())


def test_dumps_without_a_pdf_are_read_where_they_are_sent():
    text_document = exchange("The WBGT alert level is 33.", source_type="text")
    assert not may_read_pdf(text_document)
    assert not may_read_pdf(rb'{"text": "caf\u00e9 \u2014 \ud83d\ude00"}')  # escapes of no base64 letter
    assert not may_read_pdf(rb'{"text": "\u003cb\u003e \u0026 \u003d"}')  # Go's and .NET's escapes of <, >, &, =


def test_bytes_that_do_not_say_they_are_a_pdf_never_reach_a_child(monkeypatch):
    """So what ``may_read_pdf`` looks for is all the reading gives pypdf: base64 of anything else is
    said not to be a PDF, and pypdf (which reads a PDF whose header is missing) never sees it."""

    def no_child(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("bytes that are no PDF were given to pypdf")

    monkeypatch.setattr(pdf, "run_limited", no_child)
    headless = pdf_of(QUOTE).replace(b"%PDF-", b"%XXX-", 1)
    raw = exchange(base64.b64encode(headless).decode())
    assert not may_read_pdf(raw)
    assert pdf_checks(raw) == [{"result": "unchecked", "unit": None}]
    with pytest.raises(pdf.PdfUnreadable, match="no PDF header"):
        pdf.pdf_text(headless)


def test_within_pdf_reads_refused_the_reading_of_a_pdf_is_refused_not_started(monkeypatch):
    def no_child(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a PDF was read where reads are refused")

    raw = exchange(base64.b64encode(pdf_of(QUOTE)).decode())
    monkeypatch.setattr(pdf, "run_limited", no_child)
    with pdf.pdf_reads_refused(), pytest.raises(pdf.PdfReadRefused):
        parse_dump(raw)
    monkeypatch.undo()
    assert pdf_checks(raw) == [{"result": "match", "unit": None}]  # outside it, read as before
