"""The search index's SQLite file: its tables, and opening it (rebuilt when its schema is old).

One file per server (``<state>/search.sqlite3``), derived from the workspaces and never the
truth: deleting it loses nothing. ``notes.id`` is the rowid of a note in both full-text tables
(the rowid map): rows leave them by that rowid, with the text they were indexed with.
``folded`` keeps each note's casefolded text, so a substring search checks its candidates in
SQLite (``instr``) instead of decoding and folding every candidate's text in Python.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

SCHEMA_VERSION = "2"

_TABLES = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    workspace TEXT NOT NULL,
    rel_path TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    hash TEXT NOT NULL,
    title TEXT NOT NULL,
    title_key TEXT NOT NULL,
    front_matter TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_hash ON notes(hash);
CREATE INDEX IF NOT EXISTS notes_place ON notes(workspace, rel_path);
CREATE TABLE IF NOT EXISTS bodies(id INTEGER PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS folded(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(
    title, text, content='bodies', content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS links(
    note INTEGER NOT NULL, line INTEGER NOT NULL, target_path TEXT, target_name TEXT
);
CREATE INDEX IF NOT EXISTS links_note ON links(note);
CREATE INDEX IF NOT EXISTS links_path ON links(target_path) WHERE target_path IS NOT NULL;
CREATE INDEX IF NOT EXISTS links_name ON links(target_name) WHERE target_name IS NOT NULL;
CREATE TABLE IF NOT EXISTS tags(tag TEXT NOT NULL, note INTEGER NOT NULL, PRIMARY KEY(tag, note))
    WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tags_note ON tags(note);
CREATE TABLE IF NOT EXISTS unreadable(
    path TEXT PRIMARY KEY, workspace TEXT NOT NULL, reason TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL
);
"""

_SUBSTRINGS = """
CREATE VIRTUAL TABLE IF NOT EXISTS substrings USING fts5(
    folded, content='', detail='none', tokenize='trigram'
);
"""


def has_trigram() -> bool:
    """Whether this Python's SQLite has FTS5's trigram tokenizer (SQLite 3.34 and later)."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram', detail='none')")
    except sqlite3.OperationalError:
        return False
    finally:
        probe.close()
    return True


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the index at ``path`` (WAL, so searches read while it is written)."""
    connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA busy_timeout=10000")
    connection.execute("PRAGMA cache_size=-32000")
    return connection


def open_index_file(path: Path, *, trigram: bool) -> sqlite3.Connection:
    """The writer's connection to the index at ``path``, its tables made. A file of another
    schema version, or one SQLite cannot read as a database, is replaced by an empty one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        connection = connect(path)
        found = _version(connection)
    except sqlite3.DatabaseError:
        found = "unreadable"
        connection = None
    if found not in (None, SCHEMA_VERSION):
        if connection is not None:
            connection.close()
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{path}{suffix}").unlink()
        connection = connect(path)
    assert connection is not None
    connection.executescript(_TABLES + (_SUBSTRINGS if trigram else ""))
    # Fewer, larger merges while many notes go in (measured: about a third less time per
    # note on a bulk build); queries are no slower.
    for table in ("words", "substrings") if trigram else ("words",):
        for option, value in (("automerge", 8), ("crisismerge", 64)):
            connection.execute(
                f"INSERT INTO {table}({table}, rank) VALUES (?, ?)",
                (option, value),
            )
    connection.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
    )
    return connection


def _version(connection: sqlite3.Connection) -> str | None:
    listed = connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if listed is None:
        has_tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        return "other" if has_tables else None
    row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return None if row is None else str(row[0])
