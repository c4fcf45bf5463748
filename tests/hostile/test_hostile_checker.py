"""The checker itself: it must fail on every shape the suite looks for, or the suite proves nothing."""

from __future__ import annotations

import pytest

from tests.hostile.pages import assert_escaped, assert_inert, norm, shown_text

OWN = '<main id="main"><p class="cv-x">{}</p></main>'
FRAME = '<iframe src="/dumps/1/responses/0/search-suggestions" sandbox="{}" referrerpolicy="no-referrer"></iframe>'

CAUGHT = {
    "inline script": "<script>alert(1)</script>",
    "script from elsewhere": '<script src="https://evil.example/x.js"></script>',
    "event handler": '<a href="/x" onclick="alert(1)">x</a>',
    "style attribute": '<span style="background:url(x)">x</span>',
    "javascript link": '<a href="javascript:alert(1)">x</a>',
    "entity-encoded tab in the scheme": '<a href="jav&#x09;ascript:alert(1)">x</a>',
    "leading control character": '<a href="&#1;javascript:alert(1)">x</a>',
    "data link": '<a href="data:text/html,x" target="_blank" rel="noopener noreferrer">x</a>',
    "protocol-relative link": '<a href="//evil.example">x</a>',
    "backslash host": '<a href="/\\evil.example">x</a>',
    "zero-width space in an http link": '<a href="https://ok.example/\u200b" target="_blank" rel="noopener noreferrer">x</a>',
    "http link without rel": '<a href="https://ok.example/">x</a>',
    "form action elsewhere": '<form action="https://evil.example"></form>',
    "formaction": '<button formaction="javascript:alert(1)">x</button>',
    "svg": "<svg><a>x</a></svg>",
    "img": '<img src="https://tracker.example/p.gif">',
    "meta refresh": '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    "foreign id": '<a id="login">x</a>',
    "clobbering our own id twice": '<span id="cv-r0-src-1"></span><span id="cv-r0-src-1"></span>',
    "foreign name": '<input name="attributes">',
    "frame without suggestions": FRAME.format("allow-popups allow-popups-to-escape-sandbox"),
    "frame allowing scripts": FRAME.format("allow-popups allow-scripts allow-same-origin"),
}


@pytest.mark.parametrize("markup", CAUGHT.values(), ids=CAUGHT.keys())
def test_the_checker_catches(markup):
    suggestions = "iframe" in markup and "allow-scripts" in markup
    with pytest.raises(AssertionError):
        assert_inert(OWN.format(markup), suggestions=suggestions)


def test_the_checker_passes_our_own_markup():
    own = (
        '<a href="#cv-r0-src-1">1</a><a href="/dumps/1/">d</a><form method="post" action="/dumps/1/comments/">'
        '<input type="hidden" name="csrfmiddlewaretoken" value="x"><textarea name="note" id="id_note"></textarea>'
        '<input type="radio" name="verdict" id="id_verdict_0"></form><span id="cv-r0-cite-0-1-card"></span>'
        '<a href="https://ok.example/a?q=a b" target="_blank" rel="noopener noreferrer nofollow">ok</a>'
    )
    assert_inert(OWN.format(own))
    assert_inert(OWN.format(FRAME.format("allow-popups allow-popups-to-escape-sandbox")), suggestions=True)


def test_escaped_and_shown_text():
    payload = "<b>x</b> &lt;"
    with pytest.raises(AssertionError):
        assert_escaped(OWN.format(payload), payload)
    page = OWN.format("&lt;b&gt;x&lt;/b&gt; &amp;lt;")
    assert_escaped(page, payload)
    assert shown_text(page, cls="cv-x") == norm(payload)
    assert shown_text('<textarea class="cv-x">hidden</textarea>', cls="cv-x") == ""
