"""A bulk import split into the dumps it holds: a ``.zip`` of dump files, or JSON Lines with one
response per line. Each entry is read only when it is stored, and on its own, so that one bad
entry never stops the others."""

from __future__ import annotations

import codecs
import io
import json
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from citeview.core.errors import DumpError, too_large_error
from citeview.core.phrases import phrase

MAX_ENTRIES = 10_000
# What a .zip may unpack to in all: each entry is held to the dump limit, but 10,000 of them could
# otherwise make 100 GB out of an upload of 100 MB.
MAX_UNPACKED_BYTES = 2 * 1024**3
_ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a first entry, or an empty archive


@dataclass
class ImportEntry:
    name: str  # where it came from: "batch.jsonl, line 12" or "batch.zip: run-3/answer.json"
    filename: str  # the name the stored dump keeps
    read: Callable[[], bytes]  # its bytes; raises DumpError when they cannot be had


def split_import(name: str, data: bytes, max_entry_bytes: int) -> list[ImportEntry]:
    """The entries of an import file; a DumpError if the file as a whole is no import."""
    data = data.removeprefix(codecs.BOM_UTF8)
    if not data.strip():
        raise DumpError("empty", phrase("The import file is empty."))
    if data.startswith(_ZIP_STARTS):
        return _zip_entries(name, data, max_entry_bytes)
    return _jsonl_entries(name, data, max_entry_bytes)


def _zip_entries(name: str, data: bytes, max_entry_bytes: int) -> list[ImportEntry]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [info for info in archive.infolist() if _is_dump_file(info)]
    except (zipfile.BadZipFile, ValueError, OSError):
        raise DumpError("invalid_zip", phrase("The .zip file is damaged or cut off: it cannot be opened.")) from None
    if not members:
        raise DumpError("empty", phrase("The .zip file holds no files."))
    _refuse_too_many(len(members))
    budget = _UnpackBudget(MAX_UNPACKED_BYTES)
    return [
        ImportEntry(
            f"{name}: {info.filename}",
            PurePosixPath(info.filename).name,
            _member_reader(archive, info, max_entry_bytes, budget),
        )
        for info in members
    ]


class _UnpackBudget:
    """The bytes a .zip's entries may still unpack to, spent as each is read."""

    def __init__(self, total: int) -> None:
        self.left = total

    def spend(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise DumpError(
                "too_large",
                phrase(
                    "The .zip unpacks to more than {limit:,} bytes in all; this file and those after it were not read.",
                    limit=MAX_UNPACKED_BYTES,
                ),
            )


def _is_dump_file(info: zipfile.ZipInfo) -> bool:
    """Files, without the folders and the bookkeeping that archivers add (``__MACOSX/``, ``.DS_Store``)."""
    path = PurePosixPath(info.filename)
    return not info.is_dir() and "__MACOSX" not in path.parts and not path.name.startswith(".")


def _member_reader(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, budget: _UnpackBudget
) -> Callable[[], bytes]:
    def read() -> bytes:
        if info.file_size > limit:
            raise too_large_error(info.file_size, limit)
        budget.spend(0)  # once spent, no later entry is read
        if info.flag_bits & 0x1:
            raise DumpError("encrypted", phrase("This file is encrypted in the .zip; citeview cannot read it."))
        try:
            with archive.open(info) as member:
                raw = member.read(limit + 1)  # the size in the header may lie: never read past the limit
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, EOFError) as error:
            raise DumpError(
                "invalid_zip", phrase("This file cannot be taken out of the .zip ({reason}).", reason=str(error))
            ) from None
        if len(raw) > limit:
            raise too_large_error(len(raw), limit)
        budget.spend(len(raw))
        return raw

    return read


def _jsonl_entries(name: str, data: bytes, max_entry_bytes: int) -> list[ImportEntry]:
    numbered = [(number, line.rstrip(b"\r")) for number, line in enumerate(data.split(b"\n"), 1) if line.strip()]
    first = numbered[0][1]
    if not _is_json_alone(first):
        raise DumpError(
            "not_jsonl",
            phrase(
                "An import is JSON Lines (one whole response per line) or a .zip of dump files, and the first "
                "line of this file is not a JSON value by itself. To store one dump, use the form on the dumps page."
            ),
        )
    _refuse_too_many(len(numbered))
    stem = PurePosixPath(name).stem or "import"
    return [
        ImportEntry(f"{name}, line {number}", f"{stem}-line-{number}.json", _line_reader(line, max_entry_bytes))
        for number, line in numbered
    ]


def _is_json_alone(line: bytes) -> bool:
    try:
        json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return True


def _line_reader(line: bytes, limit: int) -> Callable[[], bytes]:
    def read() -> bytes:
        if len(line) > limit:
            raise too_large_error(len(line), limit)
        return line

    return read


def _refuse_too_many(count: int) -> None:
    if count > MAX_ENTRIES:
        raise DumpError(
            "too_many_entries",
            phrase(
                "The import holds {count:,} dumps; one import can hold at most {limit:,}.",
                count=count,
                limit=MAX_ENTRIES,
            ),
        )
