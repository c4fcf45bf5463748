"""Take the response body out of a VCR cassette (pydantic-ai's, vcrpy's YAML) as the dump it was on the wire.

    python scripts/cassette_body.py CASSETTE.yaml OUT [--interaction N]

pydantic-ai stores a JSON body parsed, as YAML (``response.parsed_body``): it is written back as JSON,
its keys in the cassette's order, two spaces of indent, characters as they are. A body stored as text
(``response.body.string``, an event stream) is written byte for byte. Nothing else is changed: a
fixture made this way is the recording, re-serialised, never edited by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml


def response_body(cassette: dict[str, Any], interaction: int) -> str:
    response = cassette["interactions"][interaction]["response"]
    if "parsed_body" in response:
        return json.dumps(response["parsed_body"], indent=2, ensure_ascii=False) + "\n"
    body = response["body"]["string"]
    return body if isinstance(body, str) else body.decode("utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cassette", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--interaction", type=int, default=0)
    options = parser.parse_args(argv)
    cassette = yaml.safe_load(options.cassette.read_text(encoding="utf-8"))
    options.out.write_text(response_body(cassette, options.interaction), encoding="utf-8", newline="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
