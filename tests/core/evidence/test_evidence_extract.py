"""The text of a saved source page: HTML's main text, a PDF's pages, plain text; and hostile files read
in bounded time, or refused with a code and a sentence.

The rules are tested through the public ``extract_text`` (which reads in a limited child); what needs
the parsers in this process (a patched library, the CPU they spend, hundreds of generated files) calls
the child's own reader, ``_read_in_process``."""

from __future__ import annotations

import io
import time

import pypdf
import pytest
import trafilatura

from citeview.core.evidence.extract import (
    MAX_MAIN_TEXT_ELEMENTS,
    MAX_TEXT_CHARS,
    ExtractionError,
    _extract_pdf,
    _read_in_process,
    extract_text,
    parse_content_type,
)
from tests.core.pdfs import pdf_with_pages

ARTICLE = """<!doctype html><html><head><meta charset="utf-8"><title>人口</title>
<script>document.write("スクリプトの文");</script><style>p { color: red }</style></head><body>
<nav><a href="/">ホーム</a> | <a href="/about">概要</a></nav>
<article><h1>東京都の人口</h1>
<p>2024年1月1日現在の東京都の人口は約1,410万人で、前年と比べて0.3％増加しました。</p>
<p>世帯数は約740万世帯となりました。1世帯あたりの人員は1.9人で、過去最少を更新しました。</p>
<p>65歳以上の人口の割合は22.8％、15歳未満の人口の割合は10.9％でした。<img src="x" onerror="alert(1)"></p>
</article><footer>(c) 東京都</footer></body></html>"""


def refused(content: bytes, content_type: str | None, extract=extract_text) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        extract(content, content_type)
    return caught.value


def cpu_seconds(action) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


def test_html_gives_its_main_text_one_paragraph_a_line_without_scripts_or_styles():
    extraction = extract_text(ARTICLE.encode(), "text/html; charset=utf-8")
    assert extraction.method == "main_text" and extraction.extractor == "trafilatura"
    assert extraction.source_type == "html" and extraction.charset == "utf-8" and extraction.pages == ()
    lines = extraction.text.split("\n")
    assert "2024年1月1日現在の東京都の人口は約1,410万人で、前年と比べて0.3％増加しました。" in lines
    assert "65歳以上の人口の割合は22.8％、15歳未満の人口の割合は10.9％でした。" in lines
    assert "スクリプト" not in extraction.text and "color" not in extraction.text and "alert" not in extraction.text
    assert extraction.extractor_version == trafilatura.__version__
    assert extraction.to_json()["method"] == "main_text"


def test_the_charset_comes_from_the_content_type_then_the_document_and_shift_jis_reads_as_browsers_do():
    page = ARTICLE.replace('charset="utf-8"', 'charset="Shift_JIS"').replace("人口", "人口①")
    from_document = extract_text(page.encode("cp932"), "text/html")
    assert from_document.charset == "cp932" and "東京都の人口①" in from_document.text  # ① is Microsoft's
    from_header = extract_text(ARTICLE.encode("euc_jp").replace(b"utf-8", b"x"), "text/html; charset=EUC-JP")
    assert from_header.charset == "euc_jp" and "約1,410万人" in from_header.text
    with_bom = extract_text(b"\xef\xbb\xbf" + ARTICLE.encode(), "text/html; charset=iso-8859-1")
    assert with_bom.charset == "utf-8" and "約1,410万人" in with_bom.text  # a BOM outweighs the header


def test_a_page_with_no_main_content_gives_its_whole_text():
    page = (
        b"<html><body><div id='comments'><p>A reader says 14.1 million.</p></div><footer>Contact</footer></body></html>"
    )
    extraction = extract_text(page, "text/html")
    assert extraction.method == "whole_text" and extraction.extractor == "lxml"
    assert extraction.text == "A reader says 14.1 million.\nContact"
    assert "No main content" in str(extraction.notes[0])


def test_plain_text_is_taken_as_it_is_in_utf8_or_its_declared_charset():
    assert extract_text("東京都の人口\n約1,410万人".encode(), "text/plain").text == "東京都の人口\n約1,410万人"
    latin = extract_text("café, 3 °C".encode("cp1252"), "text/plain; charset=windows-1252")
    assert latin.text == "café, 3 °C" and latin.method == "as_is" and latin.charset == "cp1252"


def test_an_untyped_file_is_recognised_by_its_first_bytes():
    assert extract_text(ARTICLE.encode(), "application/octet-stream").source_type == "html"
    assert extract_text(pdf_with_pages(["One."]), None).source_type == "pdf"
    assert extract_text(b"just words", "").source_type == "text"


def test_content_types_are_read_with_their_parameters():
    assert parse_content_type('Text/HTML; Charset="Shift_JIS"') == ("text/html", "Shift_JIS")
    assert parse_content_type("application/pdf") == ("application/pdf", None)
    assert parse_content_type(None) == ("", None)


@pytest.mark.parametrize(
    ("content", "content_type", "code", "words"),
    [
        (b"", "text/html", "empty", "empty"),
        (b"   \n", "text/plain", "empty", "empty"),
        (b"{}", "application/json", "unsupported_type", "application/json"),
        (b"<p>x</p>", "image/svg+xml", "unsupported_type", "image/svg+xml"),
        (b"x", "text/plain; charset=base64", "unknown_charset", "'base64'"),  # a codec, but no charset
        (b"x", "text/plain; charset=klingon", "unknown_charset", "'klingon'"),
        (b"caf\xe9 au lait", "text/plain", "undecodable", "byte 3"),
        (b"%PDF-1.7\nnot really", "application/pdf", "damaged_pdf", "PDF"),
        (b"<html>not a pdf</html>", "application/pdf", "not_pdf", "%PDF-"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_with_a_code_and_a_sentence(content, content_type, code, words):
    error = refused(content, content_type)
    assert error.code == code and words in error.message and error.phrase.template


def test_a_file_over_the_limit_is_refused_before_it_is_parsed():
    with pytest.raises(ExtractionError) as caught:
        extract_text(b"<p>" + b"x" * 2_000, "text/html", max_bytes=1_000)
    assert caught.value.code == "too_large" and "2,003 bytes; the limit is 1,000 bytes" in caught.value.message


# --- PDF ----------------------------------------------------------------------------------------


def test_a_pdf_gives_each_page_with_its_number_from_one():
    content = pdf_with_pages(
        ["Page one says 14.1 million.", "東京都の人口は約1,410万人である。\n二行目。", "Third page."]
    )
    extraction = extract_text(content, "application/pdf")
    assert extraction.method == "pages" and extraction.extractor == "pypdf"
    assert [page.number for page in extraction.pages] == [1, 2, 3]
    assert extraction.page_text(2) == "東京都の人口は約1,410万人である。\n二行目。"
    second = extraction.text.index("東京都")
    assert (
        extraction.page_at(second) == 2 and extraction.page_at(0) == 1 and extraction.page_at(len(extraction.text)) == 3
    )
    assert extraction.text.count("\n\n") == 2  # pages are set apart


def test_a_pdf_with_more_pages_than_the_limit_keeps_the_first_ones_and_says_so():
    extraction = _extract_pdf(pdf_with_pages([f"Page {n}." for n in range(1, 31)]), max_pages=20)
    assert len(extraction.pages) == 20 and extraction.page_text(20) == "Page 20."
    assert str(extraction.notes[0]) == "Only the first 20 of the 30 pages are read."


def test_a_pdf_whose_text_passes_the_limit_stops_at_a_page_and_says_so():
    extraction = _extract_pdf(pdf_with_pages(["a" * 60, "b" * 60, "c" * 60]), max_chars=100)
    assert len(extraction.pages) == 1
    assert str(extraction.notes[0]) == "The text stops before page 2: the limit is 100 characters."


def test_a_pdf_that_takes_too_long_stops_after_a_page_and_says_so():
    extraction = _extract_pdf(pdf_with_pages(["One.", "Two.", "Three."]), time_budget=0)
    assert len(extraction.pages) == 1
    assert str(extraction.notes[0]) == "The text stops after page 1: reading took longer than 0 seconds."


def _encrypted(user_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf_with_pages(["Secret page."]))))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_that_needs_a_password_is_refused_and_one_locked_only_for_editing_is_read():
    error = refused(_encrypted("secret"), "application/pdf")
    assert error.code == "encrypted" and "password" in error.message
    assert extract_text(_encrypted(""), "application/pdf").text == "Secret page."


def test_a_pdf_encrypted_with_aes_without_the_library_for_it_is_refused_with_that_reason(monkeypatch):
    def needs_cryptography(self, password):
        raise pypdf.errors.DependencyError("cryptography>=3.1 is required for AES algorithm")

    monkeypatch.setattr(pypdf.PdfReader, "decrypt", needs_cryptography)
    error = refused(_encrypted(""), "application/pdf", extract=_read_in_process)
    assert error.code == "encrypted" and "AES" in error.message


@pytest.mark.parametrize(
    "damage",
    [
        lambda pdf: pdf[: len(pdf) // 2],  # truncated
        lambda pdf: pdf.replace(b"/Type /Pages", b"/Type /Nope"),
        lambda pdf: pdf.replace(b"/Kids [", b"/Kids [1 0 R "),  # the catalogue as a page: a loop
        lambda pdf: pdf.replace(b"/Count ", b"/Count 99999999"),
        lambda pdf: b"%PDF-1.7\n" + b"\x00\xff" * 10_000,
        lambda pdf: pdf.replace(b"stream\n", b"stream\n\x78\x9c\xff\xff"),  # a broken zlib stream
    ],
)
def test_a_broken_pdf_is_a_clear_error_or_its_text_never_a_crash(damage):
    content = damage(pdf_with_pages(["First page.", "Second page."]))
    try:
        extraction = extract_text(content, "application/pdf")
    except ExtractionError as error:
        assert error.code == "damaged_pdf" and "cannot be read" in error.message
    else:
        assert all(page.number >= 1 for page in extraction.pages)


# --- hostile HTML -------------------------------------------------------------------------------


def test_html_nested_too_deeply_for_a_tree_is_read_between_the_tags_with_nothing_lost():
    nested = "<div>" * 100_000 + "deep &amp; text" + "</div>" * 100_000
    page = f"<html><body><p>before</p>{nested}<script>x<y</script><p>after</p></body></html>".encode()
    spent = cpu_seconds(lambda: _read_in_process(page, "text/html"))
    extraction = extract_text(page, "text/html")
    assert extraction.method == "markup_stripped" and extraction.text == "before\ndeep & text\nafter"
    assert "nested too deeply" in str(extraction.notes[0])
    assert spent < 2


def test_html_with_more_elements_than_the_main_text_is_looked_for_in_gives_its_whole_text_quickly():
    page = ("<html><body>" + "<div>x</div>" * (MAX_MAIN_TEXT_ELEMENTS + 1) + "</body></html>").encode()
    spent = cpu_seconds(lambda: _read_in_process(page, "text/html"))
    extraction = extract_text(page, "text/html")
    assert extraction.method == "whole_text" and extraction.text.count("x") == MAX_MAIN_TEXT_ELEMENTS + 1
    assert "more than the 30,000" in str(extraction.notes[0])
    assert spent < 3


@pytest.mark.parametrize(
    "body",
    [
        '<p title="' + "a" * 3_000_000 + '">huge attribute</p>',
        "<p>" + "<a " * 200_000,  # tags that never close
        "<script>" * 50_000 + "<p>after scripts</p>",
        "<p>" + "&#" * 500_000 + "</p>",
        "<p>" + "<" * 500_000 + "</p>",
        "<!--" * 100_000,
    ],
)
def test_hostile_html_is_read_in_bounded_time(body):
    page = f"<html><body>{body}</body></html>".encode()
    spent = cpu_seconds(lambda: _read_in_process(page, "text/html"))
    assert spent < 5


def test_markup_is_never_kept_as_markup_in_the_text():
    page = b"<html><body><article><p>Safe <b>bold</b> words</p><p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"
    page += b"<iframe src='https://evil.example/'></iframe><svg><text>svg text</text></svg></article></body></html>"
    extraction = extract_text(page, "text/html")
    assert "Safe bold words" in extraction.text and "<b>" not in extraction.text
    assert "<script>alert(1)</script>" in extraction.text  # the page's own words, shown escaped wherever shown


# --- any bytes in: a text or one clear error out -----------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_MARKUP_BITS = st.sampled_from(
    ["<p>", "</p>", "<div>", "<script>", "</script>", "<!--", "-->", "&amp;", "&#", "<", ">", "<meta charset=x>",
     "<svg>", "<table><tr><td>", "東京", "１，２", "\x00", "\ufeff", "\n", " ", "text. ", "<html><body>"]
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    content=st.one_of(
        st.binary(max_size=2_000), st.lists(_MARKUP_BITS, max_size=200).map(lambda p: "".join(p).encode())
    ),
    content_type=st.sampled_from(["text/html", "text/plain", "application/pdf", "", None, "text/html; charset=cp932"]),
)
def test_any_bytes_give_a_text_or_one_clear_error(content, content_type):
    try:
        extraction = _read_in_process(content, content_type)
    except ExtractionError as error:
        assert error.code and error.message
    else:
        assert isinstance(extraction.text, str)
        assert all(0 <= page.start <= page.end <= len(extraction.text) for page in extraction.pages)


@settings(max_examples=60, deadline=None)
@given(pages=st.lists(st.text(max_size=80).filter(lambda t: "\r" not in t), min_size=1, max_size=4))
def test_any_page_texts_written_to_a_pdf_are_read_back_page_by_page(pages):
    extraction = _read_in_process(pdf_with_pages(pages), "application/pdf")
    assert [page.number for page in extraction.pages] == list(range(1, len(pages) + 1))


# --- issue 29: one cap on the text whatever its type; whatever a parser raises, a refusal ---------

from tests.core.pdfs import pdf_with_filter  # noqa: E402


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"x" * 10_000_000, "text/plain"),  # finding 1: ten million characters were kept whole
        (("<html><body>" + "<div>x</div>" * 40_000 + "</body></html>").encode(), "text/html"),  # whole text
        (("<article><p>" + "word " * 400 + "</p></article>").encode(), "text/html"),  # main text
    ],
    ids=["text", "html-whole-text", "html-main-text"],
)
def test_the_text_of_any_type_is_cut_at_the_cap_with_a_note_saying_so(content, content_type):
    limit = MAX_TEXT_CHARS if len(content) > MAX_TEXT_CHARS else 1_000
    extraction = extract_text(content, content_type, max_chars=limit)
    assert len(extraction.text) == limit
    assert str(extraction.notes[-1]) == f"The text stops after {limit:,} characters, the most citeview keeps of a page."


@pytest.mark.parametrize("name", [b"/Foo", b"/Fl"])
def test_a_pdf_whose_streams_have_a_filter_pypdf_cannot_read_is_refused(name):
    error = refused(pdf_with_filter(name), "application/pdf")  # NotImplementedError, DeprecationError escaped
    assert error.code == "damaged_pdf" and "The PDF cannot be read (" in error.message


def test_a_page_whose_text_cannot_be_read_is_noted_and_the_others_are_kept():
    pdf = pdf_with_pages(["First page.", "Second page.", "Third page."])
    second = pdf.index(b"<< /Length ", pdf.index(b"<< /Length ", pdf.index(b"<< /Length ") + 1) + 1)
    pdf = pdf[:second] + b"<< /Filter /Foo /Length " + pdf[second + len(b"<< /Length ") :]
    extraction = extract_text(pdf, "application/pdf")
    assert extraction.page_text(1) == "First page." and extraction.page_text(3) == "Third page."
    assert [str(note) for note in extraction.notes] == ["The text of page 2 could not be read."]


def test_whatever_a_parser_raises_is_a_refusal_naming_its_kind(monkeypatch):
    from lxml import html as lxml_html

    def broken(*args, **kwargs):
        raise RuntimeError("a parser's own bug")

    monkeypatch.setattr(trafilatura, "extract", broken)  # the main text fails: the whole text stays
    extraction = _read_in_process(ARTICLE.encode(), "text/html")
    assert extraction.method == "whole_text" and "約1,410万人" in extraction.text
    monkeypatch.setattr(lxml_html, "document_fromstring", broken)
    error = refused(ARTICLE.encode(), "text/html", extract=_read_in_process)
    assert error.code == "unreadable" and error.message == "The saved page cannot be read (RuntimeError)."
