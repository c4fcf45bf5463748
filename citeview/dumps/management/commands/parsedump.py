"""``python manage.py parsedump FILE [--provider NAME] [--request REQ | --document DOC ...]``: the
normalised JSON of a dump, on stdout."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from citeview.core.common.errors import DumpError
from citeview.core.detection import registry
from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.parse import Attachment, parse_dump


class Command(BaseCommand):
    help = "Print the normalised citation JSON of a saved API response (FILE, or - for standard input)."
    requires_system_checks: list[str] = []  # a pure read: no database, no checks

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the dump to read, or - for standard input")
        sent = parser.add_mutually_exclusive_group()
        sent.add_argument("--request", help="the request that produced the response, to check quotes against")
        sent.add_argument(
            "--document",
            action="append",
            default=[],
            metavar="DOC",
            help="a document the request sent (plain text or PDF), without the request; repeat it for each, "
            "in the request's order: the first is document 0",
        )
        parser.add_argument(
            "--provider",
            choices=[*registry.provider_names(), *registry.api_names()],
            help="read the dump as this provider (or API) instead of detecting it",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            request: Attachment | None = Path(options["request"]).read_bytes() if options["request"] else None
            if options["document"]:
                request = [AttachedFile(Path(name).name, Path(name).read_bytes()) for name in options["document"]]
            # The file is read a part at a time as it is parsed; standard input, which cannot seek, whole.
            with _opened(options["file"]) as raw:
                parsed = parse_dump(
                    raw, provider=options["provider"], max_bytes=settings.CITEVIEW_MAX_DUMP_BYTES, request=request
                )
        except OSError as error:
            self._fail(f"cannot read {error.filename or options['file']}: {error.strerror or error}")
        except DumpError as error:
            self._fail(f"{options['file']}: {error.message}")
        output = json.dumps(parsed.to_json(), ensure_ascii=False, indent=2) + "\n"
        sys.stdout.buffer.write(output.encode("utf-8"))  # UTF-8 whatever the locale says
        sys.stdout.buffer.flush()

    def _fail(self, message: str) -> None:
        sys.stderr.write(f"parsedump: {message}\n")
        sys.exit(2)


def _opened(name: str) -> IO[bytes]:
    return io.BytesIO(sys.stdin.buffer.read()) if name == "-" else Path(name).open("rb")
