"""Gemini's Search Suggestions: served unsanitised (Google's terms), so isolated instead.

The viewer embeds the snippet only through one sandboxed frame (no allow-scripts, no
allow-same-origin) and never inlines it; the frame's URL answers with its own strict policy.
"""

from __future__ import annotations

import pytest

from citeview.dumps.services import dump_ingest
from tests.dumps.test_suggestions_frame import IN_OUR_FRAME
from tests.hostile.corpus import SUGGESTIONS, params
from tests.hostile.dumps import gemini_dump
from tests.hostile.pages import SUGGESTIONS_SANDBOX, assert_pages_inert, dump_pages, parsed

pytestmark = pytest.mark.django_db


def csp_directives(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        assert name not in directives, f"{name} given twice"
        directives[name] = values
    return directives


@pytest.mark.parametrize("snippet", params(SUGGESTIONS))
def test_gemini_search_suggestions_are_framed_in_a_sandbox_and_never_inlined(editor_client, editor, snippet):
    dump = dump_ingest(raw=gemini_dump("東京", suggestions=snippet), uploaded_by=editor)[0]
    pages = dump_pages(editor_client, dump, "viewer", "check", "report")
    assert_pages_inert(pages, snippet, suggestions=True)  # the viewer alone may hold the one frame
    frames = [e.attrs for e in parsed(pages["viewer"]).elements if e.tag == "iframe"]
    url = f"/dumps/{dump.pk}/responses/0/search-suggestions"
    assert [f["src"] for f in frames] == [url]
    assert frames[0]["sandbox"] == SUGGESTIONS_SANDBOX == "allow-popups allow-popups-to-escape-sandbox"

    response = editor_client.get(url, **IN_OUR_FRAME)  # as the viewer's frame asks for it
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert snippet in response.content.decode()  # as provided, byte for byte
    header = response["Content-Security-Policy"]
    csp = csp_directives(header)
    assert csp["default-src"] == ["'none'"]
    assert csp["sandbox"] == ["allow-popups", "allow-popups-to-escape-sandbox"]
    assert "script-src" not in csp and "script-src-elem" not in csp and "script-src-attr" not in csp
    assert "allow-scripts" not in header and "allow-same-origin" not in header and "unsafe-eval" not in header
    assert csp["base-uri"] == ["'none'"] and csp["form-action"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'self'"]
    assert response["X-Frame-Options"] == "SAMEORIGIN" and response["Referrer-Policy"] == "no-referrer"
