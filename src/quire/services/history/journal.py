"""The pending-commit journal: what history still owes, in a file that outlives a crash.

A line is written when a commit becomes due (before the save answers), another when it is
made; on start the lines without their ``done`` are committed from the files as they are.
A file in the state folder, not a table: it is written on the save's path, where a database
round trip (or a PostgreSQL shared by replicas, each with its own queue) would cost more than
one small append. Appends are tiny ``write`` calls on the event loop, which a killed process
cannot lose; ``sync`` (fsync, in a worker thread) makes them survive a power cut too.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from quire.core.history import CommitAuthor

logger = logging.getLogger(__name__)

JOURNAL_FILE: Final = "history-pending.jsonl"


@dataclass(frozen=True)
class Owed:
    """A commit the journal says is owed: its id, repository root, paths (``folder`` marks a
    folder), author, message and time."""

    job_id: str
    root: str
    paths: tuple[tuple[str, bool], ...]
    author: CommitAuthor
    message: str
    when_s: int


class Journal:
    """The journal file of one server (see the module)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def open(self) -> list[Owed]:
        """Open the file for appending and return what a previous run still owed."""
        owed = read_owed(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        return owed

    def owe(self, item: Owed) -> None:
        """Write that ``item`` is owed."""
        self._write(
            {
                "id": item.job_id,
                "root": item.root,
                "paths": [list(path) for path in item.paths],
                "author": [item.author.name, item.author.email],
                "agent": item.author.agent,
                "account": item.author.account,
                "message": item.message,
                "when": item.when_s,
            }
        )

    def paid(self, job_id: str) -> None:
        """Write that the commit ``job_id`` was made (or given up on)."""
        self._write({"done": job_id})

    def clear(self) -> None:
        """Empty the file: nothing is owed."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)

    def sync(self) -> None:
        """fsync the file (blocking: call it from a worker thread)."""
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        """Close the file."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def _write(self, record: dict[str, object]) -> None:
        if self._fd is None:
            return
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            os.write(self._fd, line.encode("utf-8"))
        except OSError as exc:
            logger.error("Cannot write the history journal %s: %s", self.path, exc)


def read_owed(path: Path) -> list[Owed]:
    """The commits ``path`` says are owed, in order; unreadable lines are skipped (logged)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    added: dict[str, Owed] = {}
    for number, line in enumerate(raw.splitlines(), 1):
        try:
            record = json.loads(line)
            if "done" in record:
                added.pop(str(record["done"]), None)
                continue
            name, email = record["author"]
            author = CommitAuthor(str(name), str(email), record.get("agent"), record["account"])
            added[str(record["id"])] = Owed(
                job_id=str(record["id"]),
                root=str(record["root"]),
                paths=tuple((str(rel), bool(folder)) for rel, folder in record["paths"]),
                author=author,
                message=str(record["message"]),
                when_s=int(record["when"]),
            )
        except (ValueError, KeyError, TypeError) as exc:
            logger.warning("Skipping line %d of the history journal %s: %s", number, path, exc)
    return list(added.values())
