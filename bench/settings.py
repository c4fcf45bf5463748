"""The production settings, plus one page for the serving benchmark (``bench/urls.py``)."""

from citeview.settings import *  # noqa: F403 (the same server in every other respect)

ROOT_URLCONF = "bench.urls"
