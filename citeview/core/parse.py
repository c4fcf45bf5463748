"""The one entry point: a dump's bytes in, the normalised model out (or one DumpError)."""

from __future__ import annotations

import hashlib

from citeview.core.citing import add_source_checks
from citeview.core.detect import API_NAMES, PROVIDERS, split_responses
from citeview.core.errors import DumpError, too_large_error
from citeview.core.framing import read_dump
from citeview.core.model import ParsedDump, Response
from citeview.core.providers import PARSERS

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
# Bump when parsers or the renderer change what they produce: stored dumps are then rebuilt from their bytes.
RESULT_VERSION = 1


def parse_dump(raw: bytes, *, provider: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> ParsedDump:
    if len(raw) > max_bytes:
        raise too_large_error(len(raw), max_bytes)
    if provider is not None and provider not in PROVIDERS and provider not in API_NAMES:
        names = ", ".join([*PROVIDERS, *API_NAMES])
        raise DumpError("unknown_provider", f"Unknown provider {provider!r}; use one of: {names}.")
    framed = read_dump(raw)
    responses = []
    for group in split_responses(framed, provider):
        parser = PARSERS.get(group.api)
        if parser is None:
            raise DumpError(
                "unsupported_provider",
                f"This dump was recognised as {API_NAMES[group.api]}, which citeview cannot read yet.",
            )
        response = parser(group.values, group.streamed)
        if group.ignored:
            response.diagnose(
                "unknown_event",
                "info",
                f"{group.ignored} value(s) in the dump have no shape citeview knows and were not read.",
            )
        add_source_checks(response)
        responses.append(response)
    if framed.cut_off:
        _note_cut_off(responses[-1])
    if framed.repaired_strings:
        responses[0].diagnose(
            "invalid_unicode",
            "warning",
            f"{framed.repaired_strings} string(s) in the dump hold half of a character (a lone surrogate escape); "
            "it is shown as \ufffd. The raw dump keeps it as sent.",
        )
    return ParsedDump(hashlib.sha256(raw).hexdigest(), len(raw), framed.framing, responses)


def _note_cut_off(response: Response) -> None:
    response.diagnose(
        "truncated_event",
        "warning",
        "The last event of the stream was cut off mid-way and could not be read; the events before it are shown.",
    )
    if response.status == "completed":
        response.mark_incomplete("the stream was cut off")
