"""Small PDFs written for the tests, byte by byte: one text line or more per page, in Helvetica for
ASCII or in a CID font with a ToUnicode map for any other text (Japanese), so pypdf reads back
exactly what was written."""

from __future__ import annotations

import zlib


def _to_unicode(characters: set[str]) -> bytes:
    """A ToUnicode map of each character used to itself (its code is its code point): one entry per
    character, as a real subset font has, in groups of at most 100 as the format wants."""
    codes = sorted(f"{ord(ch):04X}".encode() for ch in characters if ord(ch) < 0x10000)
    groups = [codes[i : i + 100] for i in range(0, len(codes), 100)]
    body = b" ".join(
        b"%d beginbfchar %s endbfchar" % (len(group), b" ".join(b"<%s> <%s>" % (code, code) for code in group))
        for group in groups
    )
    return (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def "
        b"/CMapName /Adobe-Identity-UCS def /CMapType 2 def "
        b"1 begincodespacerange <0000> <FFFF> endcodespacerange " + body + b" "
        b"endcmap CMapName currentdict /CMap defineresource pop end end"
    )


def pdf_with_pages(pages: list[str], encrypt_trailer: bytes = b"") -> bytes:
    """A PDF of one page per text; each line of a text is a line on its page."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below, once the page tree's number is known
    tree = add(b"")
    helvetica = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    cmap = _to_unicode({ch for text in pages for ch in text if not ch.isascii()} or {"a"})
    to_unicode = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap))
    descendant = add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Test /CIDSystemInfo << /Registry (Adobe) "
        b"/Ordering (Identity) /Supplement 0 >> /FontDescriptor << /Type /FontDescriptor /FontName /Test "
        b"/Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 1000 /Descent 0 /CapHeight 1000 "
        b"/StemV 80 >> /DW 1000 >>"
    )
    cid_font = add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /Test /Encoding /Identity-H /DescendantFonts [%d 0 R] "
        b"/ToUnicode %d 0 R >>" % (descendant, to_unicode)
    )
    kids = []
    for text in pages:
        lines = []
        for number, line in enumerate(text.split("\n")):
            if line.isascii():
                escaped = line.encode().replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
                shown = b"/F1 10 Tf (" + escaped + b") Tj"
            else:
                shown = b"/F2 10 Tf <" + line.encode("utf-16-be").hex().encode() + b"> Tj"
            lines.append(b"BT 1 0 0 1 40 %d Tm %s ET" % (800 - 14 * number, shown))
        stream = b"\n".join(lines)
        contents = add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R "
                b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> >>" % (tree, contents, helvetica, cid_font)
            )
        )
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids),
    )
    return _written(objects, catalog, encrypt_trailer)


def _written(objects: list[bytes], catalog: int, trailer: bytes = b"") -> bytes:
    """A PDF file of ``objects`` (numbered from 1), with its cross-reference table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        catalog,
        trailer,
        xref,
    )
    return bytes(out)


def pdf_form_bomb(calls: int = 5_000, shows: int = 1_000) -> bytes:
    """About a kilobyte that keeps a text extractor busy for hours (finding 2 of issue 29): one page
    draws a Flate-compressed form ``calls`` times (pypdf reads up to 5,000 form calls a page), and the
    form shows a character ``shows`` times, so each call decompresses and parses it again."""
    form = zlib.compress(b"BT /F1 1 Tf (x) Tj ET\n" * shows, 9)
    page = zlib.compress(b"/Fm0 Do\n" * calls, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /XObject << /Fm0 5 0 R >> /Font << /F1 6 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(page), page),
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /Font << /F1 6 0 R >> >> "
        b"/Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(form), form),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return _written(objects, 1)


def pdf_with_filter(name: bytes, pages: tuple[str, ...] = ("A page of text.",)) -> bytes:
    """A PDF whose every stream says it is encoded with the filter ``name`` (``/Foo``, which no reader
    knows; ``/Fl``, an abbreviation pypdf 7 no longer reads)."""
    return pdf_with_pages(list(pages)).replace(b"<< /Length ", b"<< /Filter %s /Length " % name)
