"""What the search benchmark measures Quire against, on the same files in the same run:
ripgrep (``rg -l -i -F``, the tool a person would reach for) and a bare FTS5 index (a words
table and a trigram table, the floor of any index built on SQLite); and the RSS of a process.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

from bench.timing import progress

BATCH = 2000


def ripgrep() -> str | None:
    """The ``rg`` program, or None when ripgrep is not installed."""
    return shutil.which("rg")


def ripgrep_files(program: str, query: str, folder: Path) -> tuple[float, int]:
    """One ``rg -l -i -F`` over ``folder``: seconds taken and how many files matched."""
    start = time.perf_counter()
    done = subprocess.run(
        [program, "-l", "-i", "-F", "--no-messages", "-g", "*.md", "--", query, str(folder)],
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"rg failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    return elapsed, done.stdout.count(b"\n")


class BareIndex:
    """An FTS5 words table and a trigram table over the notes, nothing else: no titles, no
    snippets, no paths, no freshness. Queries answer rowids only, top 50."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = sqlite3.connect(path)
        self.db.executescript(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;"
            "CREATE VIRTUAL TABLE words USING fts5(body, tokenize='unicode61 remove_diacritics 2');"
            "CREATE VIRTUAL TABLE grams USING fts5(body, tokenize='trigram', detail='none');"
        )

    def build(self, files: Iterable[Path]) -> float:
        """Index every file; seconds taken (reading the files included)."""
        start = time.perf_counter()
        batch: list[tuple[int, str]] = []
        for rowid, path in enumerate(files, 1):
            batch.append((rowid, path.read_text(encoding="utf-8")))
            if len(batch) == BATCH:
                self._insert(batch)
                progress(f"bare FTS5: {rowid:,} notes")
        self._insert(batch)
        self.db.execute("INSERT INTO words(words) VALUES ('optimize')")
        self.db.execute("INSERT INTO grams(grams) VALUES ('optimize')")
        self.db.commit()
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return time.perf_counter() - start

    def _insert(self, batch: list[tuple[int, str]]) -> None:
        with self.db:
            self.db.executemany("INSERT INTO words(rowid, body) VALUES (?, ?)", batch)
            self.db.executemany("INSERT INTO grams(rowid, body) VALUES (?, ?)", batch)
        batch.clear()

    def size(self) -> int:
        """Bytes on disk."""
        return sum(
            path.stat().st_size
            for path in self.path.parent.glob(self.path.name + "*")
            if path.is_file()
        )

    def query(self, query: str, mode: str, limit: int = 50) -> int:
        """Rowids of the first ``limit`` matches: substring (trigram ``LIKE``) in grep mode,
        every word ranked by bm25 in words mode."""
        if mode == "grep":
            escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = self.db.execute(
                "SELECT rowid FROM grams WHERE body LIKE ? ESCAPE '\\' LIMIT ?",
                (f"%{escaped}%", limit),
            ).fetchall()
        else:
            match = " ".join('"' + word.replace('"', '""') + '"' for word in query.split())
            rows = self.db.execute(
                "SELECT rowid FROM words WHERE words MATCH ? ORDER BY rank LIMIT ?",
                (match, limit),
            ).fetchall()
        return len(rows)

    def close(self) -> None:
        """Close the database."""
        self.db.close()


def rss_bytes(pid: int) -> tuple[int, int]:
    """The resident set size of process ``pid`` and its peak, in bytes (Linux ``/proc``)."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]
