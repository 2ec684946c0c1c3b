"""The WAL-index header of a SQLite file in WAL mode: 48 bytes that change with every commit.

SQLite keeps the header twice at the start of the ``-shm`` file; a reader finds the last
committed frame there, so a commit becomes visible to readers exactly when the header
changes (its change counter, last frame and salts). While the header reads the same as
before, no commit was made since, by any process, and what a read would find is what the
last read found. Read from a shared memory map: no system call, but a ``stat`` at most every
``RECHECK_S`` to notice a ``-shm`` file replaced by another (a database swapped under a
running server).

The map is kept only while its owner holds a SQLite connection to the same file open: that
connection's share of the ``-shm`` locks keeps SQLite from truncating the file under the map.
"""

from __future__ import annotations

import mmap
import os
import time
from collections.abc import Callable
from pathlib import Path

HEADER_BYTES = 48
"""One copy of the header; the second copy follows it."""
RECHECK_S = 1.0
"""How often the ``-shm`` file is looked at again for being another file (as long as a
sign-in may be reused without reading the database: ``quire.web.auth.CACHE_MAX_AGE_S``)."""


class WalHeader:
    """The current WAL-index header of the database at ``path``, or None when it cannot be
    read whole and consistent (no ``-shm`` file, a file too short, the two copies differing
    while a writer updates them): the caller then reads the database itself."""

    def __init__(self, path: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._path = Path(f"{path}-shm")
        self._map: mmap.mmap | None = None
        self._identity: tuple[int, int] | None = None
        self._clock = clock
        self._checked_at = 0.0

    def read(self) -> bytes | None:
        """The header now, or None (see the class)."""
        if self._map is not None and self._clock() - self._checked_at < RECHECK_S:
            return self._header()
        try:
            found = self._path.stat()
        except OSError:
            self.close()
            return None
        self._checked_at = self._clock()
        identity = (found.st_dev, found.st_ino)
        if self._map is None or identity != self._identity:
            self.close()
            if found.st_size < 2 * HEADER_BYTES:
                return None
            try:
                self._open(identity)
            except (OSError, ValueError):
                self.close()
                return None
        return self._header()

    def _header(self) -> bytes | None:
        assert self._map is not None
        first = self._map[:HEADER_BYTES]
        second = self._map[HEADER_BYTES : 2 * HEADER_BYTES]
        return first if first == second else None

    def _open(self, identity: tuple[int, int]) -> None:
        descriptor = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            opened = os.fstat(descriptor)
            if (opened.st_dev, opened.st_ino) != identity:
                raise OSError("the -shm file was replaced while it was opened")
            self._map = mmap.mmap(descriptor, 2 * HEADER_BYTES, access=mmap.ACCESS_READ)
            self._identity = identity
        finally:
            os.close(descriptor)

    def close(self) -> None:
        """Drop the map (the next read maps the file again)."""
        memory, self._map, self._identity = self._map, None, None
        if memory is not None:
            memory.close()
