"""Imported once by the forkserver of :mod:`citeview.core.common.limited`, before it forks a child for each
read: reading one small page here sets up what trafilatura builds on its first use, so that no child
has to. (The page is ours and tiny: the only place the parsers are called outside a child.)"""

from __future__ import annotations

from citeview.core.evidence import extract

_PAGE = b"<html><body><article><p>A first page, read before any other.</p></article></body></html>"

extract._read_in_process(_PAGE, "text/html")
