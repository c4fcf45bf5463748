"""Documents and the answers that cite them, made in the tests themselves.

The PDFs are one page of Latin text per string, in Helvetica, written by hand (objects,
cross-reference table and trailer), so no fixture file and no PDF library is needed to make them, and
pypdf reads them as any viewer would."""

from __future__ import annotations

import json
from typing import Any

POLICY = "Returns are accepted within thirty days.\n\nRefunds go to the original card."
REPORT_PAGES = ("Heat report 2026\nAlerts rose in July.", "The WBGT alert level is 33.\nIt was reached 12 times.")


def claude_answer(*citations: dict[str, Any], texts: tuple[str, ...] = ()) -> bytes:
    """A Claude Messages answer with a text block per citation (its text from ``texts``, or a claim)."""
    texts = texts or tuple("A claim. " for _ in citations)
    content = [{"type": "text", "text": t, "citations": [c]} for t, c in zip(texts, citations, strict=True)]
    message = {"type": "message", "role": "assistant", "id": "msg_1", "stop_reason": "end_turn", "content": content}
    return json.dumps(message).encode()


def char_citation(quote: str, document: str, index: int = 0) -> dict[str, Any]:
    start = document.index(quote)
    return {
        "type": "char_location",
        "cited_text": quote,
        "document_index": index,
        "document_title": None,
        "start_char_index": start,
        "end_char_index": start + len(quote),
    }


def page_citation(quote: str, start: int, end: int, index: int = 1) -> dict[str, Any]:
    return {
        "type": "page_location",
        "cited_text": quote,
        "document_index": index,
        "document_title": None,
        "start_page_number": start,
        "end_page_number": end,
    }


def policy_and_report_answer() -> bytes:
    """An answer citing document 0 (the policy, as text) by characters and document 1 (the report, a
    two-page PDF) by its second page."""
    return claude_answer(
        char_citation("Returns are accepted within thirty days.", POLICY),
        page_citation("The WBGT alert level is 33.", 2, 3),
        texts=("Returns are taken back for thirty days. ", "The heat alert starts at a WBGT of 33."),
    )


def pdf_of(*pages: str) -> bytes:
    """A PDF whose page N shows ``pages[N - 1]``, a line of the PDF per line of the text."""
    count = len(pages)
    # 1 catalog, 2 page tree, 3 font, then a page object and its content stream per page.
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for index, text in enumerate(pages):
        lines = " ".join(f"({_escaped(line)}) Tj T*" for line in text.split("\n"))
        stream = f"BT /F1 12 Tf 72 720 Td 16 TL {lines} ET".encode("cp1252")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * index} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, table)
    return bytes(out)


def _escaped(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
