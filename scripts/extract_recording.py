"""The response bodies of a recorded HTTP exchange, written out byte for byte: a vcrpy cassette
(YAML, a body as ``!!binary`` or as a string) or a HAR (Polly.js, a body base64-encoded when its
``content.encoding`` says so). Nothing is decoded past the recorder's own encoding: an AWS event
stream stays the binary stream the server sent. Run from the project root, after `make setup`:

    .venv/bin/python scripts/extract_recording.py RECORDING OUT_PREFIX [--interaction N] [--events]

It writes ``OUT_PREFIX.<N>.<ext>`` for each interaction (only N when asked), the extension from
the response's content type (``eventstream`` for ``application/vnd.amazon.eventstream``, ``json``,
``sse``; a body whose type was not recorded is known by its first bytes), and prints each file
with its size and sha256, so PROVENANCE.md can say which bytes came from where and anyone can make
them again.

With ``--events``, an AWS event stream is also written as JSON Lines (``.events.jsonl``), one
event a line, as the AWS SDKs decode it: ``{"<:event-type>": <payload>}``, the payload's bytes
unchanged (a ``chunk``'s ``bytes`` stays base64). Each message's two CRC32 checksums are checked
first; a stream with one that fails is refused.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
import zlib
from pathlib import Path
from typing import Any

import yaml

_EXTENSIONS = {
    "application/vnd.amazon.eventstream": "eventstream",
    "application/json": "json",
    "text/event-stream": "sse",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording", type=Path)
    parser.add_argument("out_prefix")
    parser.add_argument("--interaction", type=int, default=None, help="only this interaction (0 is the first)")
    parser.add_argument("--events", action="store_true", help="also write an event stream's events as JSON Lines")
    arguments = parser.parse_args()
    bodies = list(_bodies(arguments.recording))
    if not bodies:
        print(f"{arguments.recording}: no response body found", file=sys.stderr)
        return 1
    for number, (content_type, body) in enumerate(bodies):
        if arguments.interaction is not None and number != arguments.interaction:
            continue
        extension = _EXTENSIONS.get(content_type.split(";")[0].strip().lower()) or _sniffed_extension(body)
        out = Path(f"{arguments.out_prefix}.{number}.{extension}")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(body)
        _say(out, body, content_type)
        if arguments.events and extension == "eventstream":
            lines = b"".join(_event_line(name, payload) for name, payload in _messages(body))
            events = out.with_suffix(".events.jsonl")
            events.write_bytes(lines)
            _say(events, lines, "JSON Lines of the stream's events")
    return 0


def _say(out: Path, body: bytes, what: str) -> None:
    print(f"{out}\t{len(body)} bytes\tsha256 {hashlib.sha256(body).hexdigest()}\t{what}")


def _messages(stream: bytes) -> list[tuple[bytes, bytes]]:
    """Each message of an AWS event stream: its ``:event-type`` (``:exception-type`` for an exception)
    and its payload. A message is its total length and its headers' length (4 bytes each), their
    CRC32, the headers, the payload, and the CRC32 of all before it."""
    found = []
    offset = 0
    while offset < len(stream):
        total = int.from_bytes(stream[offset : offset + 4], "big")
        headers_length = int.from_bytes(stream[offset + 4 : offset + 8], "big")
        message = stream[offset : offset + total]
        if zlib.crc32(message[:8]) != int.from_bytes(message[8:12], "big"):
            raise SystemExit(f"the prelude's checksum fails at byte {offset}")
        if zlib.crc32(message[:-4]) != int.from_bytes(message[-4:], "big"):
            raise SystemExit(f"the message's checksum fails at byte {offset}")
        headers = _headers(message[12 : 12 + headers_length])
        name = headers.get(b":event-type") or headers.get(b":exception-type") or b"?"
        found.append((name, message[12 + headers_length : -4]))
        offset += total
    return found


def _headers(data: bytes) -> dict[bytes, bytes]:
    """The string headers of a message (every header the AWS services send is a string: type 7)."""
    headers = {}
    offset = 0
    while offset < len(data):
        name_length = data[offset]
        name = data[offset + 1 : offset + 1 + name_length]
        offset += 1 + name_length
        if data[offset] != 7:
            raise SystemExit(f"header {name!r} is not a string")
        value_length = int.from_bytes(data[offset + 1 : offset + 3], "big")
        headers[name] = data[offset + 3 : offset + 3 + value_length]
        offset += 3 + value_length
    return headers


def _event_line(name: bytes, payload: bytes) -> bytes:
    return b'{"' + name + b'":' + payload + b"}\n"


def _sniffed_extension(body: bytes) -> str:
    """A body whose recorder kept no content type: an AWS event stream when its first 12 bytes are a
    message's prelude (two lengths and their CRC32), JSON when it parses, else ``bin``."""
    if len(body) >= 12 and zlib.crc32(body[:8]) == int.from_bytes(body[8:12], "big"):
        return "eventstream"
    try:
        json.loads(body)
    except ValueError:
        return "bin"
    return "json"


def _bodies(recording: Path) -> list[tuple[str, bytes]]:
    """Each interaction's response: its content type and its body's bytes, in order."""
    text = recording.read_text(encoding="utf-8")
    if recording.suffix == ".har":
        return [_har_body(entry["response"]) for entry in json.loads(text)["log"]["entries"]]
    # The cassette is the repository's own file; `!!binary` is the only tag it needs.
    cassette = yaml.safe_load(text)
    return [_cassette_body(interaction["response"]) for interaction in cassette["interactions"]]


def _har_body(response: dict[str, Any]) -> tuple[str, bytes]:
    content = response["content"]
    text = content.get("text", "")
    body = base64.b64decode(text) if content.get("encoding") == "base64" else text.encode("utf-8")
    return str(content.get("mimeType", "")), body


def _cassette_body(response: dict[str, Any]) -> tuple[str, bytes]:
    headers = {str(name).lower(): value for name, value in (response.get("headers") or {}).items()}
    content_type = headers.get("content-type", [""])
    content_type = content_type[0] if isinstance(content_type, list) and content_type else str(content_type or "")
    body = response["body"]
    value = body.get("string", b"") if isinstance(body, dict) else body
    return content_type, value if isinstance(value, bytes) else str(value).encode("utf-8")


if __name__ == "__main__":
    sys.exit(main())
