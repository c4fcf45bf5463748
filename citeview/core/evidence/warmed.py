"""Imported once by the forkserver of :mod:`citeview.core.evidence.isolated`, before it forks a child
for each page: reading one small page here sets up what trafilatura builds on its first use, so that
no child has to."""

from __future__ import annotations

from citeview.core.evidence.extract import extract_text

_PAGE = b"<html><body><article><p>A first page, read before any other.</p></article></body></html>"

extract_text(_PAGE, "text/html")
