"""Mutation fuzzing (Hypothesis) of the PDF and HTML extractors: small valid PDFs and pages, with
bytes flipped, cut, repeated and PDF or HTML tokens spliced in, give an :class:`Extraction` or an
:class:`ExtractionError` with a documented code, and nothing else. A fuzz of 354,135 PDFs in two
minutes had let pypdf's NotImplementedError (``/Filter /Foo``) and DeprecationError (``/Fl``)
escape 1,808 times (issue 29, finding 4).

The profile is deterministic (``derandomize``, no example database) and bounded to seconds, so CI
runs the same examples every time; ``CITEVIEW_HYPOTHESIS_PROFILE=citeview-fuzz`` runs many more,
randomly, to look for new escapes.
"""

from __future__ import annotations

import os
import random
import re
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeview.core.evidence.extract import Extraction, ExtractionError, _read_in_process, extract_text
from tests.core.evidence.test_evidence_extract import ARTICLE
from tests.core.pdfs import pdf_form_bomb, pdf_with_filter, pdf_with_pages
from tests.snapshots.pages import POPULATION_PAGE

settings.register_profile(
    "citeview-extract",
    max_examples=1_000,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "citeview-extract-fuzz", parent=settings.get_profile("citeview-extract"), max_examples=20_000, derandomize=False
)
_CHOSEN = os.environ.get("CITEVIEW_HYPOTHESIS_PROFILE", "")
PROFILE = settings.get_profile("citeview-extract-fuzz" if _CHOSEN == "citeview-fuzz" else "citeview-extract")

# The codes ExtractionError documents: an error with any other code is not a clear refusal.
ERROR_CODES = set(re.findall(r"``([a-z_]+)``", (ExtractionError.__doc__ or "").partition("Codes:")[2]))


def _compressed_page_pdf() -> bytes:
    """A page whose content stream is Flate-compressed, as most PDFs' are: the filters get read."""
    plain = pdf_with_pages(["Compressed page text."])
    start = plain.index(b"BT 1 0 0 1")
    end = plain.index(b"\nendstream", start)
    stream = zlib.compress(plain[start:end])
    head = plain[: plain.rindex(b"<< /Length", 0, start)]
    return head + b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s" % (len(stream), stream) + plain[end:]


PDF_SEEDS = [
    pdf_with_pages(["Annual report.", "The population of Tokyo was 13.9 million."]),
    pdf_with_pages(["東京都の人口は約1,410万人です。\n二行目。"]),
    _compressed_page_pdf(),
    pdf_form_bomb(calls=3, shows=5),
    pdf_with_filter(b"/ASCIIHexDecode"),
]
HTML_SEEDS = [
    ARTICLE.encode(),
    POPULATION_PAGE,
    b"<html><body>" + b"<div><p>deep</p>" * 40 + b"</div>" * 40 + b"</body></html>",
    b'<meta charset="shift_jis"><p>\x93\x8c\x8b\x9e</p>',
]
PDF_TOKENS = [
    b"/Filter /Fl ", b"/Filter /Foo ", b"/Filter [/FlateDecode /LZWDecode] ", b"/FlateDecode", b"/AHx",
    b"/DecodeParms << /Predictor 15 /Columns 99999 >> ", b"<<", b">>", b"[", b"]", b"(", b")", b"\\",
    b" 0 R ", b" obj ", b"endobj\n", b"stream\n", b"\nendstream", b"/Length 0 ", b"/Length 99999999 ",
    b"-1 ", b"99999999999 ", b"1e308 ", b"/Type /Page ", b"/Type /Pages ", b"/Kids [1 0 R] ", b"/Count -5 ",
    b"/Resources << /XObject << /Fm0 5 0 R >> >> ", b"/Fm0 Do ", b"BT ", b"ET ", b"Tj ", b"TJ ", b"Tf ",
    b"/Encrypt << /Filter /Standard /V 9 >> ", b"/ToUnicode 1 0 R ", b"xref\n", b"trailer\n", b"%%EOF\n", b"\x00",
]  # fmt: skip
HTML_TOKENS = [
    b"<", b">", b"</", b"<p>", b"</p>", b"<div>", b"<script>", b"</script>", b"<style>", b"<!--", b"-->",
    b"&#", b"&#x110000;", b"&amp", b"<![CDATA[", b"<?xml ", b'<meta charset="utf-16">', b'<meta charset="x">',
    b"<svg><foreignObject>", b"<table><tr><td>", b"<template>", b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\r",
]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes], tokens: list[bytes]) -> bytes:
    """A seed after a few mutations, made by a random generator Hypothesis seeds (its own draws lean
    to the smallest values, which would put every mutation at the first byte). Each is at a position
    between the seed's first line and a PDF's cross-reference table: a file that does not begin as a
    PDF, or has lost its trailer, is refused at once and tells little (a truncation, now and then,
    cuts that too)."""
    chance = random.Random(draw(st.integers(0, 2**64 - 1)))
    content = bytearray(chance.choice(seeds))
    for _ in range(chance.randint(1, 4)):
        body_end = content.rfind(b"\nxref") if b"\nxref" in content else len(content)
        at = chance.randint(min(16, body_end), body_end)
        kind = chance.choice(["token"] * 6 + ["byte"] * 3 + ["cut", "repeat", "truncate"])
        if kind == "token":
            content[at:at] = chance.choice(tokens)
        elif kind == "byte" and at < len(content):
            content[at] = chance.randrange(256)
        elif kind == "cut":
            del content[at : at + chance.randint(1, 64)]
        elif kind == "repeat":
            piece = bytes(content[at : at + chance.randint(1, 64)])
            content[at:at] = piece * chance.randint(1, 8)
        elif kind == "truncate":
            del content[at:]
    # Mostly with the cross-reference table written again for the objects where they now are, as a
    # tool that saves a damaged file does: else most mutations end at "cannot find the Root object".
    return _reindexed(bytes(content)) if chance.randrange(4) else bytes(content)


_OBJECT = re.compile(rb"(?m)^(\d+) 0 obj\b")


def _reindexed(content: bytes) -> bytes:
    xref, trailer = content.rfind(b"\nxref\n"), content.rfind(b"trailer")
    if xref < 0 or trailer < xref:
        return content
    body = content[: xref + 1]
    offsets = {int(match.group(1)): match.start() for match in _OBJECT.finditer(body)}
    if not offsets:
        return content
    size = max(offsets) + 1
    rows = b"".join(b"%010d 00000 n \n" % offsets[n] if n in offsets else b"0000000000 65535 f \n" for n in range(size))
    tail = content[trailer:]
    tail = re.sub(rb"startxref\s+\d+", b"startxref\n%d" % len(body), tail)
    return body + b"xref\n0 %d\n%s" % (size, rows) + tail


# The parsers are fuzzed in this process, thousands of files a run (a child each would add 25 ms a
# file); the last test takes the path every caller takes, through the child.
def assert_text_or_refusal(content: bytes, content_type: str, extract=_read_in_process) -> None:
    try:
        extraction = extract(content, content_type)
    except ExtractionError as error:
        assert error.code in ERROR_CODES and error.message, (error.code, error.message)
        return
    assert isinstance(extraction, Extraction) and isinstance(extraction.text, str)
    assert all(0 <= page.start <= page.end <= len(extraction.text) for page in extraction.pages)


def test_the_seeds_are_read_as_they_are():
    for seed in PDF_SEEDS[:3]:
        assert _read_in_process(seed, "application/pdf").text.strip()
    for seed in HTML_SEEDS:
        assert_text_or_refusal(seed, "text/html")


@PROFILE
@given(content=mutated(PDF_SEEDS, PDF_TOKENS), content_type=st.sampled_from(["application/pdf", ""]))
def test_a_mutated_pdf_gives_its_text_or_a_refusal_and_nothing_else(content, content_type):
    assert_text_or_refusal(content, content_type)


@settings(PROFILE, max_examples=max(50, PROFILE.max_examples // 3))
@given(
    content=mutated(HTML_SEEDS, HTML_TOKENS), content_type=st.sampled_from(["text/html", "text/html; charset=cp932"])
)
def test_a_mutated_html_page_gives_its_text_or_a_refusal_and_nothing_else(content, content_type):
    assert_text_or_refusal(content, content_type)


@pytest.mark.parametrize("seed", range(len(PDF_SEEDS)))
@settings(PROFILE, max_examples=5)
@given(data=st.data())
def test_a_mutated_pdf_read_in_the_child_gives_its_text_or_a_refusal(seed, data):
    """The same through the bounded path the app takes: the child's answer crosses the pipe intact."""
    content = data.draw(mutated([PDF_SEEDS[seed]], PDF_TOKENS))
    assert_text_or_refusal(content, "application/pdf", extract=extract_text)
