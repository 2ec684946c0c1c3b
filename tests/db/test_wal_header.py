"""The WAL-index header tells a reader whether anything was committed since it last looked,
and the quick access counter skips its query while nothing was."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from quire.db.access_changes import QuickCounter
from quire.db.wal_header import HEADER_BYTES, RECHECK_S, WalHeader


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(tmp_path / "quire.db", isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("CREATE TABLE access_changes (id INTEGER PRIMARY KEY, counter INTEGER)")
    connection.execute("CREATE TABLE other (value INTEGER)")
    connection.execute("INSERT INTO access_changes VALUES (1, 0)")
    yield connection
    connection.close()


def _commit_in_another_process(path: Path, statement: str) -> None:
    code = (
        f"import sqlite3; c = sqlite3.connect({str(path)!r}); c.execute({statement!r}); c.commit()"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_header_changes_with_each_commit_and_only_then(
    tmp_path: Path, writer: sqlite3.Connection
) -> None:
    header = WalHeader(str(tmp_path / "quire.db"))
    try:
        first = header.read()
        assert first is not None and len(first) == HEADER_BYTES
        writer.execute("SELECT * FROM other").fetchall()
        assert header.read() == first  # a read commits nothing
        writer.execute("INSERT INTO other VALUES (1)")
        second = header.read()
        assert second is not None and second != first
        _commit_in_another_process(tmp_path / "quire.db", "INSERT INTO other VALUES (2)")
        third = header.read()
        assert third is not None and third != second
    finally:
        header.close()


def test_no_header_without_a_shm_file_or_a_whole_one(tmp_path: Path) -> None:
    header = WalHeader(str(tmp_path / "quire.db"))
    assert header.read() is None
    (tmp_path / "quire.db-shm").write_bytes(b"\0" * (2 * HEADER_BYTES - 1))
    assert header.read() is None
    # Two copies that differ (a writer between them) are no answer either.
    (tmp_path / "quire.db-shm").write_bytes(b"\1" * HEADER_BYTES + b"\2" * HEADER_BYTES)
    assert header.read() is None
    header.close()


class _Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def mapped(tmp_path: Path) -> Iterator[tuple[WalHeader, Path, _Clock]]:
    """A header mapped from a ``-shm`` file of ones, with the clock it rechecks the file by."""
    shm = tmp_path / "quire.db-shm"
    shm.write_bytes(b"\1" * 2 * HEADER_BYTES)
    clock = _Clock()
    header = WalHeader(str(tmp_path / "quire.db"), clock=clock)
    assert header.read() == b"\1" * HEADER_BYTES
    yield header, shm, clock
    header.close()


def test_a_replaced_shm_file_is_mapped_again_within_the_recheck_time(
    mapped: tuple[WalHeader, Path, _Clock],
) -> None:
    header, shm, clock = mapped
    replacement = shm.with_name("new-shm")
    replacement.write_bytes(b"\3" * 2 * HEADER_BYTES)
    replacement.replace(shm)
    # The file is looked at again only every RECHECK_S: a read is a memory read, no stat.
    clock.now += RECHECK_S / 2
    assert header.read() == b"\1" * HEADER_BYTES
    clock.now += RECHECK_S
    assert header.read() == b"\3" * HEADER_BYTES


def test_a_removed_shm_file_is_noticed_at_the_next_recheck(
    mapped: tuple[WalHeader, Path, _Clock],
) -> None:
    header, shm, clock = mapped
    shm.unlink()
    clock.now += RECHECK_S * 2
    assert header.read() is None


def test_the_counter_is_queried_only_after_a_commit(
    tmp_path: Path, writer: sqlite3.Connection
) -> None:
    path = tmp_path / "quire.db"
    quick = QuickCounter(str(path))
    try:
        assert quick.read() == 0
        assert quick.read() == 0  # now the header is known
        queries: list[str] = []
        assert quick._connection is not None
        quick._connection.set_trace_callback(queries.append)
        for _ in range(5):
            assert quick.read() == 0
        assert queries == []
        writer.execute("INSERT INTO other VALUES (1)")  # a commit that changes no access
        assert quick.read() == 0
        assert len(queries) == 1
        _commit_in_another_process(path, "UPDATE access_changes SET counter = 7")
        assert quick.read() == 7  # the very next read sees another process's change
        assert len(queries) == 2
        assert quick.read() == 7
        assert len(queries) == 2
    finally:
        quick.close()
