"""Rendering answers to safe HTML: the Markdown renderer, its citation anchors, the sanitiser."""
