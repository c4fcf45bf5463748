"""Reading the real pages as a browser would, and the one check every hostile case must pass.

`assert_inert` walks the parsed HTML of a whole page and allows only what our own templates emit:
our tags, our attribute names, our ids and form field names, links that are http(s) with a host
or our own relative and fragment links, our own scripts and stylesheets, and the one sandboxed
frame of Gemini's Search Suggestions. `shown_text` answers the other half: the hostile text must
still be there, as text, where a reviewer expects to read it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from typing import Any

from django.urls import reverse
from django.utils.text import Truncator
from markdown_it import MarkdownIt

from citeview.core.common.bidi_controls import show_bidi_controls
from citeview.dumps.models import Dump
from citeview.review.selectors import dump_check_items


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


VOID = _words("area base br col embed hr img input link meta source track wbr")
# Every element our templates, Django's form widgets and the answer renderer emit.
OUR_TAGS = _words(
    """html head meta title link script body main header nav section article aside footer div span p a
    h1 h2 h3 h4 h5 h6 ul ol li dl dt dd table thead tbody tr th td form label input textarea select option
    button fieldset legend details summary progress time strong em code pre blockquote q small sup s del
    ins mark kbd figure figcaption br hr iframe caption dialog"""
)
# Every attribute name they use; `aria-*` and `data-*` are checked by prefix.
OUR_ATTRIBUTES = _words(
    """id class href src rel target title type name value method action enctype for lang charset content
    defer role tabindex hidden open autofocus accept rows cols required checked selected maxlength min max
    datetime colspan scope start download sandbox referrerpolicy loading spellcheck autocomplete
    multiple disabled readonly form"""
)
URL_ATTRIBUTES = _words(
    """href src action formaction xlink:href data poster background cite longdesc srcset ping manifest
    codebase dynsrc lowsrc icon"""
)

# The ids our pages generate: fixed ones in the templates, Django's `id_<field>` (radio buttons add
# `_<n>`), and the answer's ids, all numbered by position, never taken from the dump.
OUR_IDS = re.compile(
    r"^(?:main|(?:intake|list|review|import|account|tokens)-(?:title|error)|report-\d+|new-token"
    r"|id_[a-z_]+(?:_\d+)?"
    r"|cv-(?:keys|check-form|attached-request|draft|all-items|leave(?:-title|-text)?|(?:item|others|comments|conflict)-title)"
    r"|cv-(?:bulk-assign|bulk-checks-needed|checks-needed-\d+|settle|settle-title)"
    r"|cv-snapshot(?:-(?:title|passage|take|take-title|page|text))?"
    r"|cv-r\d+(?:-(?:end|sources-title|evidence-title|recitations-title|src-\d+|(?:(?:plan|thinking)\d+-)?cite-\d+"
    r"(?:-\d+)?(?:-card)?|unresolved-\d+(?:-tip)?))?"
    # The report's summary, and its statements and items by their keys (r0-c3, r0-s12-40, r2-u1), linked to.
    r"|report-summary|figures-verdicts|cv-(?:item|statement)-r\d+(?:-[a-z]?\d+)+)$"
)
# The `name` of every form field on our pages, and of the two <meta> tags.
OUR_NAMES = _words(
    """csrfmiddlewaretoken next language text file request_text request_file q provider status tag
    assignee progress title tags version verdict subject time conditions evidence_quote note
    verification_worthy supported_together seen_verification_worthy seen_supported_together item_key
    name lifetime viewport color-scheme take page editors checks_needed dumps"""
)
SUGGESTIONS_SRC = re.compile(r"^/dumps/\d+/responses/\d+/search-suggestions$")
SUGGESTIONS_SANDBOX = "allow-popups allow-popups-to-escape-sandbox"

# What a browser ignores in a URL before reading its scheme: leading/trailing C0 controls and
# spaces, and tabs and newlines anywhere (so `jav&#x09;ascript:` is `javascript:`).
_URL_EDGES = "".join(chr(c) for c in range(0x21))
_URL_DROPPED = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
# Characters that must never be in a followed link: controls, invisibles, bidi controls, backslash.
_NEVER_IN_LINK = re.compile(r"[\x00-\x1f\x7f\u00ad\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\\]")


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    parents: tuple[Element, ...] = ()
    text: list[str] = field(default_factory=list)

    def within(self, tag: str | None = None, cls: str | None = None) -> bool:
        return any(e.matches(tag, cls) for e in (*self.parents, self))

    def matches(self, tag: str | None, cls: str | None) -> bool:
        return (tag is None or self.tag == tag) and (cls is None or cls in self.attrs.get("class", "").split())


class PageElements(HTMLParser):
    """Every start tag with its attributes (entities decoded, as the browser reads them), and every
    piece of text with the elements it sits in."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.texts: list[tuple[str, Element | None]] = []
        self.duplicate_attributes: list[tuple[str, str]] = []
        self._open: list[Element] = []
        self.feed(html)
        self.close()

    @property
    def tags(self) -> list[tuple[str, dict[str, str]]]:
        return [(e.tag, e.attrs) for e in self.elements]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if len(values) != len(attrs):
            self.duplicate_attributes.append((tag, str(attrs)))
        element = Element(tag, values, tuple(self._open))
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self._open and self._open[-1].tag == tag:
            self._open.pop()

    def handle_endtag(self, tag: str) -> None:
        for position in range(len(self._open) - 1, -1, -1):
            if self._open[position].tag == tag:
                del self._open[position:]
                return

    def handle_data(self, data: str) -> None:
        current = self._open[-1] if self._open else None
        if current is not None:
            current.text.append(data)
        self.texts.append((data, current))


@lru_cache(maxsize=16)
def parsed(html: str) -> PageElements:
    """A page parsed once, however many checks read it."""
    return PageElements(html)


def norm(text: str) -> str:
    """Text as a reader compares it: runs of whitespace as one space."""
    return " ".join(text.split())


def shown_text(html: str, tag: str | None = None, cls: str | None = None) -> str:
    """The text of the page inside elements with this tag and/or class, never from <head>, a form
    field's value or a script (it has to be shown, not merely present)."""
    page = parsed(html)
    pieces = [
        data
        for data, element in page.texts
        if element is not None
        and ((tag is None and cls is None) or element.within(tag, cls))
        and not element.within("head")
        and not element.within("textarea")
        and not element.within("script")
    ]
    return norm("".join(pieces))


def truncated(text: str, length: int) -> str:
    """What `truncatechars:length` shows of a text."""
    return Truncator(text).chars(length)


def _link_is_ours_or_http(value: str) -> bool:
    url = _URL_DROPPED.sub("", value.strip(_URL_EDGES))
    scheme = _SCHEME.match(url)
    if scheme is None:
        # Our own links: a path on this site, a fragment, a query on this page. Never `//host`
        # (protocol-relative) or `/\host` (browsers read the backslash as a slash).
        return url.startswith(("/", "#", "?")) and not url.startswith(("//", "/\\"))
    if scheme.group(1).lower() not in ("http", "https") or _NEVER_IN_LINK.search(value):
        return False
    rest = url[scheme.end() :]
    return rest.startswith("//") and len(rest.split("/")[2]) > 0


def assert_inert(html: str, *, suggestions: bool = False) -> None:
    """Nothing in the page can run script, leave for a non-http(s) target, or clobber our ids."""
    page = parsed(html)
    assert not page.duplicate_attributes, page.duplicate_attributes
    ids: list[str] = []
    frames = 0
    for element in page.elements:
        tag, attrs = element.tag, element.attrs
        assert tag in OUR_TAGS, (tag, attrs)
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name, value)
            assert name != "style", (tag, attrs)
            assert name in OUR_ATTRIBUTES or name.startswith(("aria-", "data-")), (tag, name, value)
            if name in URL_ATTRIBUTES:
                assert _link_is_ours_or_http(value), (tag, name, value)
        if tag == "script":
            assert attrs.get("src", "").startswith("/static/") and not "".join(element.text).strip(), attrs
        if tag == "link":
            assert attrs.get("href", "").startswith("/static/"), attrs
        if tag == "meta":
            assert set(attrs) <= {"charset", "name", "content"}, attrs  # no http-equiv (refresh)
        if tag == "form":
            assert attrs.get("action", "/").startswith("/"), attrs
        if tag == "iframe":
            frames += 1
            assert suggestions, ("a frame in a page without Search Suggestions", attrs)
            assert SUGGESTIONS_SRC.match(attrs.get("src", "")), attrs
            assert attrs.get("sandbox") == SUGGESTIONS_SANDBOX, attrs  # no allow-scripts, no allow-same-origin
            assert attrs.get("referrerpolicy") == "no-referrer" and "srcdoc" not in attrs, attrs
        if tag == "a" and _SCHEME.match(attrs.get("href", "").strip(_URL_EDGES)):
            assert attrs.get("target") == "_blank", attrs
            assert {"noopener", "noreferrer"} <= set(attrs.get("rel", "").split()), attrs
        if "id" in attrs:
            assert OUR_IDS.match(attrs["id"]), (tag, attrs)
            ids.append(attrs["id"])
        if "name" in attrs:
            assert attrs["name"] in OUR_NAMES, (tag, attrs)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)  # a second one clobbers
    assert frames <= 1, frames


def assert_escaped(html: str, payload: str) -> None:
    """Markup in the payload never reaches the page as markup: every `<` of it is `&lt;`."""
    if "<" in payload:
        assert payload.strip() not in html, payload


# --- fetching the pages a piece of dump text reaches ---------------------------------------------


def check_url(dump: Dump, key: str) -> str:
    return reverse("review:item", args=[dump.pk, key])


def item_keys(dump: Dump) -> list[str]:
    return [item.key for item in dump_check_items(dump)]


def get_ok(client: Any, url: str, **query: str) -> str:
    response = client.get(url, query)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def dump_pages(client: Any, dump: Dump, *which: str) -> dict[str, str]:
    """The pages of one dump a place reaches: "viewer", "list", "report", "check" (the first
    item's check page: in our agent dumps the citation of the hostile source [1]) or "checks"
    (every item's). All of them when none is named."""
    which = which or ("viewer", "list", "report", "checks")
    urls = {
        "viewer": dump.get_absolute_url(),
        "list": reverse("pages:home"),
        "report": reverse("review:report", args=[dump.pk]),
    }
    pages = {name: get_ok(client, urls[name]) for name in which if name in urls}
    keys = item_keys(dump)
    if "check" in which:
        pages["check"] = get_ok(client, check_url(dump, keys[0]))
    if "checks" in which:
        pages.update({f"check {key}": get_ok(client, check_url(dump, key)) for key in keys})
    return pages


def assert_pages_inert(pages: dict[str, str], payload: str = "", *, suggestions: bool = False) -> None:
    for name, html in pages.items():
        try:
            assert_inert(html, suggestions=suggestions and name == "viewer")
            if payload:
                assert_escaped(html, payload)
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}") from error


def report_downloads(client: Any, dump: Dump) -> tuple[str, dict[str, Any]]:
    """report.md and report.json: attachments, never rendered by us, never sniffed as HTML."""
    downloads = {}
    for name in ("report_md", "report_json"):
        response = client.get(reverse(f"review:{name}", args=[dump.pk]))
        assert response.status_code == 200, name
        assert response["Content-Disposition"].startswith("attachment;"), name
        assert response["X-Content-Type-Options"] == "nosniff", name
        assert "html" not in response["Content-Type"], name
        downloads[name] = response.content.decode()
    return downloads["report_md"], json.loads(downloads["report_json"])


def assert_markdown_report_inert(markdown: str, expected: str) -> None:
    """The Markdown report stays inert even in a viewer that passes raw HTML through (CommonMark's
    default), and still reads as what was typed, its bidi controls written out."""
    html = MarkdownIt("commonmark").render(markdown)
    assert_inert(html)
    assert norm(show_bidi_controls(expected)) in shown_text(html)
