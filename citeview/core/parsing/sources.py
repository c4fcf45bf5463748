"""Collecting a response's sources: each key once, and a second URL under a key kept, never overwritten."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from citeview.core.common.model import Response, Source
from citeview.core.common.phrases import Phrase, phrase


class SourceTable:
    """The sources of one response, in the order first offered."""

    def __init__(self, response: Response) -> None:
        self._response = response
        self._keys_for: dict[str, list[str]] = {}  # provider key -> our keys ("2", "2#2", ...)
        self._by_key: dict[str, Source] = {}

    @classmethod
    def of(cls, response: Response) -> SourceTable:
        """A table over a response that already has sources, to add more later."""
        table = cls(response)
        for source in response.sources:
            table._by_key[source.key] = source
            table._keys_for.setdefault(source.key.split("#")[0], []).append(source.key)
        return table

    def add(
        self, key: str, *, kind: str, url: str | None, title: str | None, extra: dict[str, Any] | None = None
    ) -> str:
        """Add a source offered under ``key``; return the key it is stored under.

        The same key with the same URL is the same source (its missing fields are filled in). The
        same key with another URL is a conflict: both are kept and a ``source_conflict`` is raised.
        """
        # Only scalars are shown; anything deeper stays in the raw dump.
        extra = {k: v for k, v in (extra or {}).items() if isinstance(v, str | int | float | bool) and v != ""}
        for stored_key in self._keys_for.get(key, []):
            source = self.get(stored_key)
            if source.url == url:
                source.title = source.title or title
                for name, value in extra.items():
                    source.extra.setdefault(name, value)
                return stored_key
        existing = self._keys_for.setdefault(key, [])
        stored_key = self._free_key(key, len(existing) + 1)
        existing.append(stored_key)
        source = Source(stored_key, kind, url, title, extra)
        self._by_key[stored_key] = source
        self._response.sources.append(source)
        if len(existing) > 1:
            first = self.get(existing[0])
            self._response.diagnose(
                "source_conflict",
                "warning",
                phrase(
                    "Source {key} was given with two different URLs: {first} and {second}. Both are kept; "
                    "a citation of {key} points at both.",
                    key=key,
                    first=first.url,
                    second=url,
                ),
                key=key,
                keys=list(existing),
                urls=[self.get(k).url for k in existing],
            )
        return stored_key

    def _free_key(self, key: str, number: int) -> str:
        """``key`` itself for the first source under it, then ``key#2``, ``key#3``… — never one in use."""
        candidate = key if number == 1 else f"{key}#{number}"
        while candidate in self._by_key:
            number += 1
            candidate = f"{key}#{number}"
        return candidate

    def keys_for(self, key: str) -> list[str]:
        """Every stored key offered under the provider's ``key`` (more than one means a conflict)."""
        return list(self._keys_for.get(key, []))

    def get(self, stored_key: str) -> Source:
        return self._by_key[stored_key]


def cite_without_place(response: Response, keys: list[str], said: Callable[[int], Phrase]) -> None:
    """The rule for an answer that marks no citation but names what it read (Groq's compound
    systems, an OpenAI-compatible answer without annotations): each of those sources is cited by the
    answer as a whole, without a place in it, once; ``said(count)`` tells the reviewer why."""
    listed = set(response.cited_without_position)
    new = [key for key in dict.fromkeys(keys) if key not in listed]
    if not new:
        return
    response.cited_without_position += new
    response.diagnose("no_positions", "info", said(len(new)), count=len(new))
