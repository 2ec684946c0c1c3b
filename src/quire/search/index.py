"""Writing the search index: a note in (read through ``quire.fs``), a note out, a move kept.

One writer at a time (a lock), any number of readers (WAL, a small pool of connections).
Indexing never writes a user's file: it stats and reads them, and writes only the index.
Blocking: call every method from a worker thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal

from quire.core.errors import QuireError
from quire.fs.documents import read_document
from quire.fs.folders import AllowedFolders
from quire.search.extract import NoteFacts, note_facts
from quire.search.grep import unread_reason
from quire.search.schema import connect, has_trigram, open_index_file

Outcome = Literal["indexed", "unchanged", "moved", "unreadable", "gone"]


@dataclass(frozen=True)
class Known:
    """What the index holds of one path: its stat when indexed, and whether it was unreadable."""

    mtime_ns: int
    size: int
    unreadable: bool


@dataclass(frozen=True)
class Prepared:
    """What indexing a file needs from disk, read without the index (so reading the next
    files overlaps writing these): the text (None when unreadable, with ``reason``, or gone,
    without), its stat before the read, hash, casefolded text and facts."""

    path: Path
    workspace: Path
    stat: tuple[int, int]
    text: str | None
    reason: str | None = None
    digest: str = ""
    folded: str = ""
    facts: NoteFacts | None = None


def prepare(path: Path, workspace: Path) -> Prepared:
    """Read ``path`` (a real file inside ``workspace``) through ``quire.fs`` and work out what
    the index keeps of it. Never writes anything."""
    try:
        info = path.stat()
    except OSError:
        return Prepared(path, workspace, (0, 0), None)
    stat_now = (info.st_mtime_ns, info.st_size)
    try:
        _found, text = read_document(_within(workspace), path)
    except QuireError as exc:
        if not os.path.lexists(path):
            return Prepared(path, workspace, stat_now, None)
        return Prepared(path, workspace, stat_now, None, unread_reason(exc))
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    facts = note_facts(text, PurePosixPath(path), PurePosixPath(workspace))
    return Prepared(path, workspace, stat_now, text, None, digest, text.casefold(), facts)


@lru_cache(maxsize=64)
def _within(workspace: Path) -> AllowedFolders:
    """The workspace as the only folder a note of it is read from."""
    return AllowedFolders([workspace])


class SearchIndex:
    """The index file of one server. ``close`` it when done."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.trigram = has_trigram()
        self._writer = open_index_file(path, trigram=self.trigram)
        self._lock = threading.Lock()
        self._pool: list[sqlite3.Connection] = []
        self._pool_lock = threading.Lock()
        self._closed = False

    def close(self) -> None:
        """Close every connection (readers first)."""
        with self._pool_lock:
            self._closed = True
            for connection in self._pool:
                connection.close()
            self._pool.clear()
        with self._lock:
            self._writer.close()

    @contextlib.contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A connection to read with, in one snapshot of the index (a read transaction)."""
        with self._pool_lock:
            connection = self._pool.pop() if self._pool else connect(self.path)
        try:
            connection.execute("BEGIN")
            try:
                yield connection
            finally:
                connection.execute("COMMIT")
        finally:
            with self._pool_lock:
                if self._closed or len(self._pool) >= 4:
                    connection.close()
                else:
                    self._pool.append(connection)

    @contextlib.contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """The writer's connection inside one transaction, committed on success."""
        with self._lock:
            db = self._writer
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def clear(self) -> None:
        """Empty every table (``quire reindex`` starts from nothing)."""
        with self.writing() as db:
            for table in ("notes", "bodies", "folded", "links", "tags", "unreadable"):
                db.execute(f"DELETE FROM {table}")
            db.execute("INSERT INTO words(words) VALUES ('delete-all')")
            if self.trigram:
                db.execute("INSERT INTO substrings(substrings) VALUES ('delete-all')")

    def known(self) -> dict[str, Known]:
        """Every path the index holds (notes and unreadable files), with its stat."""
        with self.reading() as db:
            found = {
                path: Known(mtime, size, False)
                for path, mtime, size in db.execute("SELECT path, mtime_ns, size FROM notes")
            }
            for path, mtime, size in db.execute("SELECT path, mtime_ns, size FROM unreadable"):
                found[path] = Known(mtime, size, True)
        return found

    def index_file(self, db: sqlite3.Connection, path: Path, workspace: Path) -> Outcome:
        """Bring ``path`` (a real file inside ``workspace``) up to date in the index.

        Unchanged (same mtime and size, or same text) is left alone; a new path whose text is
        that of a note whose file is gone is that note moved (its rowid kept); a file that
        cannot be read is listed as unreadable with the reason; one that vanished leaves.
        """
        row = db.execute("SELECT mtime_ns, size FROM notes WHERE path = ?", (str(path),)).fetchone()
        try:
            info = path.stat()
        except OSError:
            self.remove(db, path)
            return "gone"
        if row is not None and (row[0], row[1]) == (info.st_mtime_ns, info.st_size):
            return "unchanged"
        return self.store(db, prepare(path, workspace))

    def store(self, db: sqlite3.Connection, note: Prepared) -> Outcome:
        """Write what ``prepare`` read of a file into the index (see ``index_file``)."""
        path, key = note.path, str(note.path)
        if note.text is None:
            self.remove(db, path)
            if note.reason is None:
                return "gone"
            db.execute(
                "INSERT OR REPLACE INTO unreadable(path, workspace, reason, mtime_ns, size) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, str(note.workspace), note.reason, *note.stat),
            )
            return "unreadable"
        row = db.execute("SELECT id, hash FROM notes WHERE path = ?", (key,)).fetchone()
        if row is not None and row[1] == note.digest:
            db.execute("UPDATE notes SET mtime_ns = ?, size = ? WHERE id = ?", (*note.stat, row[0]))
            return "unchanged"
        db.execute("DELETE FROM unreadable WHERE path = ?", (key,))
        if row is None:
            moved = self._moved_from(db, note.digest)
            if moved is not None:
                self._write(db, moved, note)
                return "moved"
        self._write(db, None if row is None else int(row[0]), note)
        return "indexed"

    def remove(self, db: sqlite3.Connection, path: Path) -> bool:
        """Take ``path`` out of the index (note and unreadable entry); whether it was there."""
        key = str(path)
        db.execute("DELETE FROM unreadable WHERE path = ?", (key,))
        row = db.execute("SELECT id FROM notes WHERE path = ?", (key,)).fetchone()
        if row is None:
            return False
        self._drop_text(db, row[0])
        for table, column in (("notes", "id"), ("links", "note"), ("tags", "note")):
            db.execute(f"DELETE FROM {table} WHERE {column} = ?", (row[0],))
        return True

    def remove_under(self, db: sqlite3.Connection, folder: Path) -> int:
        """Take every indexed path inside ``folder`` out of the index; how many were notes.
        A range over the paths' index (``folder/`` up to ``folder0``), never a table scan."""
        low = str(folder).rstrip("/") + "/"
        high = low[:-1] + chr(ord("/") + 1)
        db.execute("DELETE FROM unreadable WHERE path >= ? AND path < ?", (low, high))
        paths = [
            row[0]
            for row in db.execute(
                "SELECT path FROM notes WHERE path >= ? AND path < ?", (low, high)
            )
        ]
        return sum(self.remove(db, Path(path)) for path in paths)

    def _moved_from(self, db: sqlite3.Connection, digest: str) -> int | None:
        for note_id, old in db.execute("SELECT id, path FROM notes WHERE hash = ?", (digest,)):
            if not os.path.lexists(old):
                return int(note_id)
        return None

    def _write(self, db: sqlite3.Connection, note_id: int | None, note: Prepared) -> None:
        assert note.text is not None and note.facts is not None
        facts, text = note.facts, note.text
        rel_path = note.path.relative_to(note.workspace).as_posix()
        front = json.dumps(facts.front_matter, ensure_ascii=False)
        title_key = f"{facts.title}\n{rel_path}".casefold()
        values = (str(note.path), str(note.workspace), rel_path, *note.stat, note.digest,
                  facts.title, title_key, front)  # fmt: skip
        if note_id is None:
            cursor = db.execute(
                "INSERT INTO notes(path, workspace, rel_path, mtime_ns, size, hash, title, "
                "title_key, front_matter) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            note_id = int(cursor.lastrowid or 0)
        else:
            self._drop_text(db, note_id)
            db.execute(
                "UPDATE notes SET path = ?, workspace = ?, rel_path = ?, mtime_ns = ?, size = ?, "
                "hash = ?, title = ?, title_key = ?, front_matter = ? WHERE id = ?",
                (*values, note_id),
            )
            db.execute("DELETE FROM links WHERE note = ?", (note_id,))
            db.execute("DELETE FROM tags WHERE note = ?", (note_id,))
        db.execute(
            "INSERT INTO bodies(id, title, text) VALUES (?, ?, ?)", (note_id, facts.title, text)
        )
        db.execute(
            "INSERT INTO words(rowid, title, text) VALUES (?, ?, ?)", (note_id, facts.title, text)
        )
        db.execute("INSERT INTO folded(id, text) VALUES (?, ?)", (note_id, note.folded))
        if self.trigram:
            db.execute(
                "INSERT INTO substrings(rowid, folded) VALUES (?, ?)", (note_id, note.folded)
            )
        db.executemany(
            "INSERT OR IGNORE INTO tags(tag, note) VALUES (?, ?)",
            [(tag, note_id) for tag in facts.tags],
        )
        db.executemany(
            "INSERT INTO links(note, line, target_path, target_name) VALUES (?, ?, ?, ?)",
            [(note_id, link.line, link.target_path, link.target_name) for link in facts.links],
        )

    def _drop_text(self, db: sqlite3.Connection, note_id: int) -> None:
        """Delete the note's rows from both full-text tables by rowid, with the text they were
        indexed with (FTS5 needs it to remove their tokens), and its stored text."""
        row = db.execute("SELECT title, text FROM bodies WHERE id = ?", (note_id,)).fetchone()
        if row is None:
            return
        db.execute(
            "INSERT INTO words(words, rowid, title, text) VALUES ('delete', ?, ?, ?)",
            (note_id, row[0], row[1]),
        )
        folded = db.execute("SELECT text FROM folded WHERE id = ?", (note_id,)).fetchone()
        if self.trigram and folded is not None:
            db.execute(
                "INSERT INTO substrings(substrings, rowid, folded) VALUES ('delete', ?, ?)",
                (note_id, folded[0]),
            )
        db.execute("DELETE FROM bodies WHERE id = ?", (note_id,))
        db.execute("DELETE FROM folded WHERE id = ?", (note_id,))
