"""A bulk import split into the dumps it holds: a ``.zip`` of dump files, or JSON Lines with one
response per line. Each entry is read only when it is stored, and on its own, so that one bad
entry never stops the others.

What one import may cost is bounded before any entry is read: how many dumps it holds, how many
entries its .zip lists, and what the .zip's files unpack to. Every bound is checked without holding
anything per entry (no list of lines, no zipfile reading of a directory too long to be allowed), and
reaching one refuses the import with a sentence that names it."""

from __future__ import annotations

import codecs
import io
import itertools
import json
import re
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from citeview.core.common.errors import DumpError, too_large_error
from citeview.core.common.phrases import phrase
from citeview.core.common.sizes import mebibytes

_ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a first entry, or an empty archive
# zipfile unpacks Deflate a bounded piece at a time (``decompress(data, max_length)``), but bzip2 and
# LZMA a whole read at a time: a few KB of either can become gigabytes before a size can be checked.
_UNPACKED_IN_BOUNDED_PIECES = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
_METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA", 9: "Deflate64"}  # zipfile has no name for 9
_MIB = 1024 * 1024
_CR = ord("\r")


@dataclass(frozen=True)
class ImportLimits:
    """What one import may hold. The core knows no settings: the caller passes them in."""

    dump_bytes: int  # each dump
    dumps: int  # the dumps of one import: lines of JSON Lines, or files of a .zip
    unpacked_bytes: int  # what a .zip's files may unpack to in all

    @property
    def zip_entries(self) -> int:
        """The entries a .zip may list: its dumps, and as many again for the folders and the
        bookkeeping (``__MACOSX/``, ``.DS_Store``) that archivers add and the import skips."""
        return 2 * self.dumps


@dataclass
class ImportEntry:
    name: str  # where it came from: "batch.jsonl, line 12" or "batch.zip: run-3/answer.json"
    filename: str  # the name the stored dump keeps
    read: Callable[[], bytes]  # its bytes; raises DumpError when they cannot be had


@dataclass(frozen=True)
class ImportEntries:
    """The entries of an import, made one at a time as they are iterated; ``len()`` is how many
    there are, known before any is read (a page shows it before the first row)."""

    count: int
    each: Callable[[], Iterator[ImportEntry]]

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[ImportEntry]:
        return self.each()


def split_import(name: str, data: bytes, limits: ImportLimits) -> ImportEntries:
    """The entries of an import file; a DumpError if the file as a whole is no import, or holds
    more than ``limits`` allow."""
    start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    if not _SOMETHING.search(data, start):  # not data.strip(): that would copy the whole file
        raise DumpError("empty", phrase("The import file is empty."))
    if data.startswith(_ZIP_STARTS, start):
        return _zip_entries(name, data[start:] if start else data, limits)
    return _jsonl_entries(name, data, start, limits)


# --- .zip --------------------------------------------------------------------------------------------


def _zip_entries(name: str, data: bytes, limits: ImportLimits) -> ImportEntries:
    _refuse_a_long_directory(data, limits)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [info for info in archive.infolist() if _is_dump_file(info)]
    except (zipfile.BadZipFile, ValueError, OSError):
        raise DumpError("invalid_zip", phrase("The .zip file is damaged or cut off: it cannot be opened.")) from None
    if not members:
        raise DumpError("empty", phrase("The .zip file holds no files."))
    if len(members) > limits.dumps:
        raise DumpError(
            "too_many_entries",
            phrase(
                "The .zip holds {count:,} dump files; one import can hold at most {limit:,} dumps. "
                "Split it into several imports.",
                count=len(members),
                limit=limits.dumps,
            ),
        )
    _refuse_too_much_declared(members, limits.unpacked_bytes)
    budget = _UnpackBudget(limits.unpacked_bytes)
    entries = [
        ImportEntry(
            f"{name}: {info.filename}",
            PurePosixPath(info.filename).name,
            _member_reader(archive, info, limits.dump_bytes, budget),
        )
        for info in members
    ]
    return ImportEntries(len(entries), lambda: iter(entries))


def _refuse_a_long_directory(data: bytes, limits: ImportLimits) -> None:
    """Refuse a .zip that lists more entries than allowed, before zipfile reads its directory.

    zipfile makes a ZipInfo of every entry in the central directory, as long as the end record says
    the directory is, whatever count the record gives (its cost: bench/README.md, "Costs behind the
    limits").
    So the count in the end record (or the ZIP64 one) is checked first, and then the directory is
    walked header by header, keeping none, no further than one past the cap, in case the record
    miscounts. What the walk cannot read is left for zipfile to call damaged."""
    directory = _central_directory(data)
    if directory is None:
        return
    declared, start, size = directory
    if declared > limits.zip_entries or _listed_entries(data, start, size, limits.zip_entries) > limits.zip_entries:
        raise DumpError(
            "too_many_entries",
            phrase(
                "The .zip lists more than {limit:,} files and folders; citeview opens a .zip of at most "
                "twice the {dumps:,} dumps one import can hold. Split it into several imports.",
                limit=limits.zip_entries,
                dumps=limits.dumps,
            ),
        )


# The records at a .zip's end, found as zipfile finds them (``zipfile._EndRecData``): the end record
# last, or followed by a comment of up to 64 KiB; the ZIP64 locator and end record just before it.
_END = struct.Struct("<4s4H2LH")  # signature, disk numbers, entries here and in all, size, offset, comment
_END_SIGNATURE = b"PK\x05\x06"
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"
_ZIP64_END = struct.Struct("<4sQ2H2L4Q")  # ..., entries here and in all, size, offset
_ZIP64_END_SIGNATURE = b"PK\x06\x06"
_DIRECTORY_ENTRY = struct.Struct("<4s4B4HL2L5H2L")
_DIRECTORY_ENTRY_SIGNATURE = b"PK\x01\x02"


def _central_directory(data: bytes) -> tuple[int, int, int] | None:
    """The entries the end record says the directory lists, and where the directory starts and how
    long it is; None when there is no end record (zipfile then calls the file damaged)."""
    end = len(data) - _END.size
    if not (end >= 0 and data.startswith(_END_SIGNATURE, end) and data.endswith(b"\x00\x00")):
        end = data.rfind(_END_SIGNATURE, max(len(data) - 0x10000 - _END.size, 0))  # after a comment
        if end < 0 or end + _END.size > len(data):
            return None
    fields = _END.unpack_from(data, end)
    declared, size = fields[4], fields[5]
    locator = end - _ZIP64_LOCATOR.size
    zip64_end = locator - _ZIP64_END.size
    if zip64_end >= 0 and data.startswith(_ZIP64_LOCATOR_SIGNATURE, locator):
        if not data.startswith(_ZIP64_END_SIGNATURE, zip64_end):
            return declared, end - size, size
        zip64_fields = _ZIP64_END.unpack_from(data, zip64_end)
        declared, size = zip64_fields[7], zip64_fields[8]
        end = zip64_end
    return declared, end - size, size


def _listed_entries(data: bytes, start: int, size: int, limit: int) -> int:
    """How many entries the directory holds, as zipfile would read them, counting no further than
    ``limit + 1``."""
    if start < 0:
        return 0
    stop = min(start + size, len(data))
    count, position = 0, start
    while position < stop and count <= limit:
        if position + _DIRECTORY_ENTRY.size > stop or not data.startswith(_DIRECTORY_ENTRY_SIGNATURE, position):
            break
        fields = _DIRECTORY_ENTRY.unpack_from(data, position)
        position += _DIRECTORY_ENTRY.size + fields[12] + fields[13] + fields[14]  # name, extra, comment
        count += 1
    return count


def _refuse_too_much_declared(members: list[zipfile.ZipInfo], budget: int) -> None:
    """Refuse a .zip whose files say they unpack to more than the budget, before reading any. Their
    headers may understate: the real sizes are held to the budget again as they are read."""
    declared = sum(info.file_size for info in members)
    if declared > budget:
        raise DumpError(
            "too_large",
            phrase(
                "The .zip's files unpack to {size} ({bytes:,} bytes) in all; one import can unpack to at "
                "most {limit}. Split it into several imports.",
                size=mebibytes(declared),
                bytes=declared,
                limit=mebibytes(budget),
            ),
        )


class _UnpackBudget:
    """The bytes a .zip's entries may still unpack to, spent as each is read."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.left = total

    def spend(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise DumpError(
                "too_large",
                phrase(
                    "The .zip unpacks to more than {limit} in all; this file and those after it were not read.",
                    limit=mebibytes(self.total),
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
        if info.compress_type not in _UNPACKED_IN_BOUNDED_PIECES:
            method = _METHOD_NAMES.get(info.compress_type, f"method {info.compress_type}")
            raise DumpError(
                "unsupported_compression",
                phrase(
                    "This file is packed with {method} in the .zip, which citeview does not unpack: pack it "
                    "with Deflate (the usual compression of a .zip) or store it uncompressed.",
                    method=method,
                ),
            )
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


# --- JSON Lines --------------------------------------------------------------------------------------

# A byte other than whitespace: the bytes ``bytes.strip()`` removes are those ``\s`` matches. The regex
# engine skips whitespace in C, so runs of blank lines cost no Python step each.
_SOMETHING = re.compile(rb"\S")


def _jsonl_entries(name: str, data: bytes, start: int, limits: ImportLimits) -> ImportEntries:
    """One entry a line that holds something. The lines are found as they are stored, never listed;
    counting them first stops one past the cap, so the count costs no more than the cap allows."""
    first_start, first_end = next(_filled_lines(data, start))  # there is one: the file holds something
    # A first line over the dump limit is not decoded here: it is refused on its own as too large.
    if first_end - first_start <= limits.dump_bytes and not _is_json_alone(data[first_start:first_end]):
        raise DumpError(
            "not_jsonl",
            phrase(
                "An import is JSON Lines (one whole response per line) or a .zip of dump files, and the first "
                "line of this file is not a JSON value by itself. To store one dump, use the form on the dumps page."
            ),
        )
    count = sum(1 for _ in itertools.islice(_filled_lines(data, start), limits.dumps + 1))
    if count > limits.dumps:
        raise DumpError(
            "too_many_entries",
            phrase(
                "The import has more than {limit:,} lines that hold a response; one import can hold at "
                "most {limit:,} dumps. Split it into several imports.",
                limit=limits.dumps,
            ),
        )
    stem = PurePosixPath(name).stem or "import"

    def each() -> Iterator[ImportEntry]:
        number, counted_to = 1, start  # the line number, and where newlines were counted up to
        for line_start, line_end in _filled_lines(data, start):
            number += data.count(b"\n", counted_to, line_start)
            counted_to = line_start
            reader = _line_reader(data, line_start, line_end, limits.dump_bytes)
            yield ImportEntry(f"{name}, line {number}", f"{stem}-line-{number}.json", reader)

    return ImportEntries(count, each)


def _filled_lines(data: bytes, start: int) -> Iterator[tuple[int, int]]:
    """Where each line that holds something begins and ends (its newline left out), from ``start``."""
    position = start
    while (something := _SOMETHING.search(data, position)) is not None:
        begins = max(data.rfind(b"\n", start, something.start()) + 1, start)
        ends = data.find(b"\n", something.start())
        if ends < 0:
            ends = len(data)
        yield begins, ends
        position = ends + 1


def _is_json_alone(line: bytes) -> bool:
    try:
        json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return True


def _line_reader(data: bytes, start: int, end: int, limit: int) -> Callable[[], bytes]:
    """A line's bytes without the ``\\r`` of a CRLF file, copied out of the file only when it is read."""

    def read() -> bytes:
        stop = end
        while data[stop - 1] == _CR:  # the line holds something other than whitespace: this stops there
            stop -= 1
        if stop - start > limit:
            raise too_large_error(stop - start, limit)
        return data[start:stop]

    return read
