"""Which URLs become clickable."""

from __future__ import annotations

import pytest

from citeview.core.common.links import is_safe_http_url, url_domain


@pytest.mark.parametrize("url", ["https://example.org/a?b=c#d", "http://例え.jp/パス", "HTTPS://EXAMPLE.ORG"])
def test_plain_http_and_https_urls_are_links(url):
    assert is_safe_http_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "data:text/html,x",
        "//evil.example",
        "https:evil.example",
        "ftp://x.example",
        "java\u200bscript:alert(1)",
        " https://x.example",
        "https://x.example\n",
        "http://evil.example\\@good.example/",
        "https://",
        None,
        42,
    ],
)
def test_anything_else_is_not(url):
    assert not is_safe_http_url(url)


def test_the_domain_shown_is_the_host_visited():
    assert url_domain("https://good.example@evil.example/x") == "evil.example"
    assert url_domain("https://www.mhlw.go.jp/stf/") == "mhlw.go.jp"
