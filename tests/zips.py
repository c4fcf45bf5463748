"""Zip archives for the import's tests: made with zipfile, or built byte by byte where zipfile would take
minutes (300,000 entries) or would not lie (an end record that miscounts, a size that is not the real one)."""

from __future__ import annotations

import io
import struct
import zipfile

_DIRECTORY_ENTRY = b"PK\x01\x02"
_END = b"PK\x05\x06"


def archive(files: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zipped:
        for name, data in files.items():
            zipped.writestr(name, data)
    return buffer.getvalue()


def listing(count: int, *, claimed: int | None = None, zip64: bool = False) -> bytes:
    """A .zip whose central directory lists ``count`` entries, each the same small file, and whose end
    record says it lists ``claimed`` (``count`` unless given). With ``zip64`` the counts are in the
    ZIP64 end record, as an archiver writes them past 65,535 entries."""
    single = archive({"a.json": b"{}"}, zipfile.ZIP_STORED)
    start, end = single.index(_DIRECTORY_ENTRY), single.index(_END)
    local, directory = single[:start], single[start:end] * count
    claimed = count if claimed is None else claimed
    if not zip64:
        return local + directory + _end_record(claimed, len(directory), len(local))
    zip64_end = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, claimed, claimed, len(directory), len(local))
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(local) + len(directory), 1)
    return local + directory + zip64_end + locator + _end_record(0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF)


def _end_record(entries: int, size: int, offset: int) -> bytes:
    return struct.pack("<4s4H2LH", _END, 0, 0, entries, entries, size, offset, 0)


def understated(data: bytes, name: str, size: int) -> bytes:
    """``data`` with the central directory saying that ``name`` unpacks to ``size`` bytes."""
    changed = bytearray(data)
    entry = changed.index(_DIRECTORY_ENTRY)
    while changed[entry + 46 : entry + 46 + len(name.encode())] != name.encode():
        entry = changed.index(_DIRECTORY_ENTRY, entry + 4)
    struct.pack_into("<L", changed, entry + 24, size)
    return bytes(changed)
