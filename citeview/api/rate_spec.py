"""How an API rate is written in settings: ``"60/m"`` is 60 a minute, ``"600/5m"`` 600 in five
minutes, ``""`` no limit. No Django app here: settings.py reads its rates with it at start, so a
malformed one stops the start (``citeview.api.rates`` counts them)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from django.core.exceptions import ImproperlyConfigured

_UNIT_SECONDS = {"s": 1, "m": 60, "h": 60 * 60, "d": 24 * 60 * 60}
_RATE = re.compile(r"\A(\d+)/(\d*)([smhd])\Z")  # anchored: tried at one place only
_PER = {1: "a second", 60: "a minute", 60 * 60: "an hour", 24 * 60 * 60: "a day"}


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    def __str__(self) -> str:
        """The rate as django-ratelimit reads it: one spelling, so that only this module parses settings."""
        return f"{self.count}/{self.seconds}s"

    @property
    def per(self) -> str:
        return _PER.get(self.seconds, f"in {self.seconds} seconds")


@cache
def parse_rate(text: str) -> Rate | None:
    """``"60/m"`` is 60 a minute, ``"600/5m"`` 600 in five minutes; ``""``: no limit."""
    if not text.strip():
        return None
    match = _RATE.fullmatch(text.strip())
    if match is None or int(match[1]) < 1 or match[2] == "0":
        raise ImproperlyConfigured(f"An API rate is N/unit (60/m, 600/5m; units s, m, h, d), not {text!r}.")
    return Rate(int(match[1]), int(match[2] or 1) * _UNIT_SECONDS[match[3]])
