"""A dump's file, read a part at a time: no read asks it for more than ``PART_BYTES``, so a stream's
reader holds a part of it, never the whole (a JSON document, which is read whole, is the one layout
that holds it all: its value needs every byte). The file is hashed as it is read."""

from __future__ import annotations

import hashlib
from typing import IO

# A stream is read this much at a time: its values for a part are a few times the part, far below
# the whole stream's.
PART_BYTES = 1024 * 1024


class DumpFile:
    """The bytes of a binary file object (a stored blob opened ``rb``), from where it stands to its end,
    or a dump already in memory (a paste), taken in order by the layout's reader."""

    def __init__(self, file: IO[bytes] | bytes) -> None:
        self._file = file
        self._buffer = b""  # bytes read from the file, from ``_at`` on not taken yet
        self._at = 0
        self._ended = False
        self._sha256 = hashlib.sha256()
        self.offset = 0  # where in the dump the bytes not taken yet start
        self.size = 0  # bytes read from the file so far
        if isinstance(file, bytes):  # already held whole: read at once, no part of it copied to be read
            self._buffer, self._ended, self.size = file, True, len(file)
            self._sha256.update(file)

    def _read_part(self) -> bool:
        """One more part of the file after the buffer's bytes; False at the file's end."""
        if self._ended or isinstance(self._file, bytes):
            return False
        part = self._file.read(PART_BYTES)
        if not part:
            self._ended = True
            return False
        self._sha256.update(part)
        self.size += len(part)
        self._buffer = self._buffer[self._at :] + part if self._at < len(self._buffer) else part
        self._at = 0
        return True

    def has(self, size: int) -> bool:
        """Whether ``size`` bytes are left to take (read from the file until they are, or it ends)."""
        while len(self._buffer) - self._at < size:
            if not self._read_part():
                return False
        return True

    def peek(self, size: int, at: int = 0) -> bytes:
        """Up to ``size`` bytes, ``at`` bytes after those not taken yet, left to take."""
        self.has(at + size)
        start = self._at + at
        return self._buffer[start : start + size]

    def take(self, size: int) -> bytes:
        """The next ``size`` bytes (fewer at the file's end)."""
        self.has(size)
        data = self._buffer[self._at : self._at + size]
        self._at += len(data)
        self.offset += len(data)
        return data

    def take_through(self, separator: bytes, after: int) -> bytes:
        """The bytes through the first ``separator`` that ends at least ``after`` bytes on, or all
        that is left when no separator follows."""
        start = after
        while True:
            found = self._buffer.find(separator, self._at + start)
            if found != -1:
                return self.take(found + len(separator) - self._at)
            start = max(after, len(self._buffer) - self._at - len(separator) + 1)
            if not self._read_part():
                return self.take(len(self._buffer) - self._at)

    def at_end(self) -> bool:
        return not self.has(1)

    def rest(self) -> bytes:
        """All that is left, at once: for a layout that needs it whole."""
        if self._ended:  # (all of it in the buffer: a dump in memory is given as it is)
            data = self._buffer[self._at :]
            self._buffer, self._at = b"", 0
            self.offset += len(data)
            return data
        # Gathered in one buffer, which is given back whole once copied: a list of parts, each freed on
        # its own, left the memory they took to the process (Gemini's 50 MB peak: 3.60x to 3.78x).
        gathered = bytearray(self._buffer[self._at :])
        self._buffer, self._at = b"", 0
        while self._read_part():
            gathered += self._buffer
            self._buffer = b""
        data = bytes(gathered)
        del gathered
        self.offset += len(data)
        return data

    def sha256(self) -> str:
        """The SHA-256 of every byte of the file from where it stood, read to its end for it."""
        self._buffer, self._at = b"", 0
        while self._read_part():
            self._buffer = b""
        return self._sha256.hexdigest()
