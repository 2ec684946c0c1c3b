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
from pathlib import Path, PurePosixPath
from typing import Literal

from quire.core.errors import QuireError
from quire.fs.safeio import read_document
from quire.search.extract import note_facts
from quire.search.grep import unread_reason
from quire.search.schema import connect, has_trigram, open_index_file

Outcome = Literal["indexed", "unchanged", "moved", "unreadable", "gone"]


@dataclass(frozen=True)
class Known:
    """What the index holds of one path: its stat when indexed, and whether it was unreadable."""

    mtime_ns: int
    size: int
    unreadable: bool


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
            for table in ("notes", "bodies", "links", "tags", "unreadable"):
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
        key = str(path)
        try:
            info = path.stat()
        except OSError:
            self.remove(db, path)
            return "gone"
        row = db.execute(
            "SELECT id, mtime_ns, size, hash FROM notes WHERE path = ?", (key,)
        ).fetchone()
        if row is not None and row[1] == info.st_mtime_ns and row[2] == info.st_size:
            return "unchanged"
        try:
            text = read_document(path)
        except QuireError as exc:
            if not os.path.lexists(path):
                self.remove(db, path)
                return "gone"
            self.remove(db, path)
            db.execute(
                "INSERT OR REPLACE INTO unreadable(path, workspace, reason, mtime_ns, size) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, str(workspace), unread_reason(exc), info.st_mtime_ns, info.st_size),
            )
            return "unreadable"
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        stat_now = (info.st_mtime_ns, info.st_size)
        if row is not None and row[3] == digest:
            db.execute("UPDATE notes SET mtime_ns = ?, size = ? WHERE id = ?", (*stat_now, row[0]))
            return "unchanged"
        db.execute("DELETE FROM unreadable WHERE path = ?", (key,))
        rel_path = path.relative_to(workspace).as_posix()
        if row is None:
            moved = self._moved_from(db, digest)
            if moved is not None:
                self._write(db, moved, path, workspace, rel_path, text, digest, stat_now)
                return "moved"
        self._write(
            db, None if row is None else row[0], path, workspace, rel_path, text, digest, stat_now
        )
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
        """Take every indexed path inside ``folder`` out of the index; how many were notes."""
        prefix = str(folder).rstrip("/") + "/"
        pattern = _like_prefix(prefix)
        db.execute("DELETE FROM unreadable WHERE path LIKE ? ESCAPE '\\'", (pattern,))
        paths = [
            r[0]
            for r in db.execute("SELECT path FROM notes WHERE path LIKE ? ESCAPE '\\'", (pattern,))
        ]
        return sum(self.remove(db, Path(path)) for path in paths)

    def _moved_from(self, db: sqlite3.Connection, digest: str) -> int | None:
        for note_id, old in db.execute("SELECT id, path FROM notes WHERE hash = ?", (digest,)):
            if not os.path.lexists(old):
                return int(note_id)
        return None

    def _write(
        self,
        db: sqlite3.Connection,
        note_id: int | None,
        path: Path,
        workspace: Path,
        rel_path: str,
        text: str,
        digest: str,
        stat_now: tuple[int, int],
    ) -> None:
        facts = note_facts(text, PurePosixPath(path), PurePosixPath(workspace))
        front = json.dumps(facts.front_matter, ensure_ascii=False)
        title_key = f"{facts.title}\n{rel_path}".casefold()
        values = (
            str(path),
            str(workspace),
            rel_path,
            *stat_now,
            digest,
            facts.title,
            title_key,
            front,
        )
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
        if self.trigram:
            db.execute(
                "INSERT INTO substrings(rowid, folded) VALUES (?, ?)", (note_id, text.casefold())
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
        if self.trigram:
            db.execute(
                "INSERT INTO substrings(substrings, rowid, folded) VALUES ('delete', ?, ?)",
                (note_id, row[1].casefold()),
            )
        db.execute("DELETE FROM bodies WHERE id = ?", (note_id,))


def _like_prefix(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
