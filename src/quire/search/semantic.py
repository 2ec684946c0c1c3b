"""Semantic search, the optional ``semantic`` extra: the notes nearest a query in meaning.

A note's vector is WordLlama's embedding of its title and the start of its text (the model's
weights ship inside the ``wordllama`` package: nothing is ever downloaded). Vectors are kept by
content hash in their own SQLite file beside the index, so a moved or copied note is not
embedded again and a rebuilt index keeps them; the file is derived, like the index.

Blocking (SQLite, numpy, the model): call every method from a worker thread.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import itertools
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from quire.search.schema import connect

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

Reading = Callable[[], AbstractContextManager[sqlite3.Connection]]
"""Opens a read of the search index (``SearchIndex.reading``)."""

MODEL = "wordllama l2_supercat 256"
"""The model the stored vectors come from; a store of another model is emptied."""

DIMENSIONS = 256
"""How many numbers a vector of ``MODEL`` holds."""

PACKAGE = "wordllama"

EMBEDDED_CHARS = 2000
"""How much of a note (its title, then its text) its vector is made from."""

_BATCH = 64
_WINDOW = 256
"""How many of the best texts a search first looks up notes for (four times more each time
the notes found fall short: filters and ``keep`` may leave many out)."""
_LOOKUP = 500
"""Texts per lookup statement (SQLite caps a statement's parameters)."""

NOT_INSTALLED = (
    "Semantic search is not installed on the server, so these are results of the words index "
    "(ranked, words in any order). To add it, install the extra where the server runs "
    "(pip install 'quire[semantic]') and restart it."
)


def installed() -> bool:
    """Whether the extra's package can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(PACKAGE) is not None
    except (ImportError, ValueError):
        return False


class Embedder(Protocol):
    """Turns texts into unit vectors, one row per text."""

    def embed(self, texts: Sequence[str]) -> Matrix:
        """The unit vectors of ``texts`` (float32, one row each)."""
        ...


class WordLlamaEmbedder:
    """The extra's model, loaded from the files inside its package (never fetched)."""

    def __init__(self) -> None:
        self._model = _load_model()

    def embed(self, texts: Sequence[str]) -> Matrix:
        """The unit vectors of ``texts``; a text with no token the model knows (an empty one)
        gets the zero vector, near nothing (the model's own normalising would make it NaN)."""
        import numpy as np

        vectors = np.asarray(
            self._model.embed(list(texts), norm=False, batch_size=_BATCH), dtype=np.float32
        )
        lengths = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: Matrix = np.divide(vectors, lengths, out=np.zeros_like(vectors), where=lengths > 0)
        return unit


@functools.cache
def _load_model() -> Any:
    """The extra's model, loaded once per process."""
    wordllama = _import_keeping_logging("wordllama")

    # The package looks for its tokenizer under "tokenizers/" of the cache folder only, so the
    # package's own folder is named as the cache: its files are found there.
    folder = Path(wordllama.__file__).parent
    return wordllama.WordLlama.load(cache_dir=folder, disable_download=True)


def _import_keeping_logging(name: str) -> Any:
    """Import the module ``name``, undoing what its import did to the root logger: WordLlama
    calls ``logging.basicConfig(level=INFO)`` as it loads, which would make a process that
    set up no logging of its own (a CLI, a benchmark) print every library's INFO lines."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        return importlib.import_module(name)
    finally:
        root.setLevel(level)
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)


@dataclass(frozen=True)
class Progress:
    """How many of the index's distinct notes have a vector, of how many."""

    done: int
    total: int

    @property
    def complete(self) -> bool:
        """Whether every note has its vector."""
        return self.done >= self.total


class SemanticIndex:
    """The vectors of the index's notes, in ``path``: ``fill`` embeds the notes that have
    none yet, ``nearest`` ranks notes by meaning. ``close`` it when done.

    In memory the vectors are the rows of one matrix (a row per distinct text, found by its
    content hash), so a search scores them all in one product and copies none."""

    def __init__(self, path: Path, embedder: Callable[[], Embedder] = WordLlamaEmbedder) -> None:
        self._path = path
        self._make_embedder = embedder
        self._embedder: Embedder | None = None
        self._lock = threading.Lock()
        self._model_lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._rows: dict[str, int] = {}
        self._digests: list[str] = []
        """The text of each row of the matrix (``_rows`` the other way)."""
        self._matrix: Matrix | None = None
        self.progress = Progress(0, 0)

    def close(self) -> None:
        """Close the vectors' file."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def fill(self, reading: Reading, stop: threading.Event) -> Progress:
        """Embed every note of the index (read through ``reading``) that has no vector yet, a
        batch at a time, until done or ``stop`` is set; the progress at the end. Searches go
        on meanwhile, with the vectors made so far."""
        with reading() as db:
            hashes = [str(row[0]) for row in db.execute("SELECT DISTINCT hash FROM notes")]
        with self._lock:
            self._open()
            missing = [digest for digest in hashes if digest not in self._rows]
            if len(self._rows) - (len(hashes) - len(missing)) > max(len(hashes), _BATCH):
                self._forget_all_but(set(hashes))
        self.progress = Progress(len(hashes) - len(missing), len(hashes))
        for start in range(0, len(missing), _BATCH):
            if stop.is_set():
                break
            batch = missing[start : start + _BATCH]
            with reading() as db:
                texts = texts_of(db, batch)
            found = [digest for digest in batch if digest in texts]
            if found:
                vectors = self._embed([texts[digest] for digest in found])
                with self._lock:
                    self._store(found, vectors)
            self.progress = Progress(self.progress.done + len(batch), len(hashes))
        return self.progress

    def nearest(
        self,
        db: sqlite3.Connection,
        text: str,
        *,
        count: int,
        workspace: str | None,
        tags: Sequence[str],
        keep: Callable[[int], bool] | None = None,
    ) -> list[int]:
        """The rowids of the ``count`` notes nearest ``text`` in meaning, nearest first (notes
        of one text by rowid): of ``workspace`` (None: all), tagged with every one of
        ``tags``, accepted by ``keep``. Notes with no vector yet are left out.

        Every vector is scored in one product; the notes are then looked up for the best
        texts only, a window at a time (``_notes_holding``), so a search reads a few hundred
        notes of the index, not all of them."""
        if not text.strip() or count <= 0:
            return []
        query = self._embed([text])[0]
        if not query.any():  # no word the model knows: nothing to rank by
            return []
        with self._lock:  # one hold: a fill may compact the matrix between two
            self._open()
            if self._matrix is None or not self._digests:
                return []
            # No copy: a fill only appends to this list, and a compaction makes a new one.
            digests = self._digests
            scores = self._matrix[: len(digests)] @ query
        window = max(count, _WINDOW)
        ranked = _by_score(scores, window)
        where, params = _filters(workspace, tags)
        found: list[int] = []
        while best := [digests[row] for row in itertools.islice(ranked, window)]:
            holders = _notes_holding(db, best, where, params)
            for digest in best:
                for rowid in holders.get(digest, ()):
                    if keep is None or keep(rowid):
                        found.append(rowid)
                        if len(found) == count:
                            return found
            window *= 4
        return found

    def _embed(self, texts: Sequence[str]) -> Matrix:
        """The model's vectors of ``texts`` (the model loaded on first use; one caller at a
        time)."""
        with self._model_lock:
            if self._embedder is None:
                self._embedder = self._make_embedder()
            return self._embedder.embed(texts)

    def _open(self) -> None:
        """Open the vectors' file once and load what it holds (emptied if of another model;
        a row of the wrong size is left out, and made again)."""
        if self._db is not None:
            return
        import numpy as np

        self._path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = _open_store(self._path)
        except sqlite3.DatabaseError:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self._path}{suffix}").unlink(missing_ok=True)
            db = _open_store(self._path)
        self._db = db
        stored = [
            (str(digest), bytes(blob))
            for digest, blob in db.execute("SELECT hash, vector FROM vectors")
            if isinstance(blob, bytes) and len(blob) == DIMENSIONS * 4
        ]
        if stored:
            digests = [digest for digest, _ in stored]
            matrix = np.frombuffer(b"".join(blob for _, blob in stored), dtype=np.float32)
            self._append(digests, matrix.reshape(len(stored), DIMENSIONS))

    def _forget_all_but(self, kept: set[str]) -> None:
        """Drop the vectors of texts no note holds any more (once they outnumber the notes:
        a note that comes back soon keeps its vector)."""
        assert self._db is not None and self._matrix is not None
        gone = [(digest,) for digest in self._rows if digest not in kept]
        self._db.execute("BEGIN")
        self._db.executemany("DELETE FROM vectors WHERE hash = ?", gone)
        self._db.execute("COMMIT")
        staying = [(digest, row) for digest, row in self._rows.items() if digest in kept]
        matrix = self._matrix[[row for _, row in staying]]
        self._rows, self._digests, self._matrix = {}, [], None
        self._append([digest for digest, _ in staying], matrix)

    def _store(self, digests: list[str], vectors: Matrix) -> None:
        assert self._db is not None
        rows = [(digest, vector.tobytes()) for digest, vector in zip(digests, vectors, strict=True)]
        self._db.execute("BEGIN")
        self._db.executemany("INSERT OR REPLACE INTO vectors(hash, vector) VALUES (?, ?)", rows)
        self._db.execute("COMMIT")
        self._append(digests, vectors)

    def _append(self, digests: Sequence[str], vectors: Matrix) -> None:
        """Put ``vectors`` in the matrix (a known text's row is overwritten), growing it by
        half again when full."""
        import numpy as np

        for digest, vector in zip(digests, vectors, strict=True):
            row = self._rows.get(digest)
            if row is None:
                row = len(self._rows)
                if self._matrix is None or row == len(self._matrix):
                    grown = np.zeros((max(1024, row + row // 2), DIMENSIONS), dtype=np.float32)
                    if self._matrix is not None:
                        grown[:row] = self._matrix[:row]
                    self._matrix = grown
                self._rows[digest] = row
                self._digests.append(digest)
            assert self._matrix is not None
            self._matrix[row] = vector


FUSE_K = 60
"""Reciprocal rank fusion's constant: how much the first places outweigh the next ones."""


def fuse(rankings: Sequence[Sequence[int]]) -> list[int]:
    """Rowids ranked by reciprocal rank fusion of ``rankings`` (each best first): a note's
    score is the sum of 1 / (``FUSE_K`` + its place) over the rankings holding it; ties keep
    the order of first appearance."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for place, rowid in enumerate(ranking, start=1):
            scores[rowid] = scores.get(rowid, 0.0) + 1.0 / (FUSE_K + place)
    return sorted(scores, key=lambda rowid: -scores[rowid])


def _open_store(path: Path) -> sqlite3.Connection:
    db = connect(path)
    db.executescript(
        "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS vectors(hash TEXT PRIMARY KEY, vector BLOB NOT NULL) "
        "WITHOUT ROWID;"
    )
    row = db.execute("SELECT value FROM meta WHERE key = 'model'").fetchone()
    if row is None or row[0] != MODEL:
        db.execute("DELETE FROM vectors")
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('model', ?)", (MODEL,))
    return db


def texts_of(db: sqlite3.Connection, digests: Sequence[str] | None = None) -> dict[str, str]:
    """What the notes holding each of ``digests`` (None: every note) are embedded from, by
    content hash."""
    sql = (
        f"SELECT n.hash, b.title, substr(b.text, 1, {EMBEDDED_CHARS}) FROM notes n "
        "JOIN bodies b ON b.id = n.id"
    )
    params: Sequence[str] = ()
    if digests is not None:
        sql += f" WHERE n.hash IN ({', '.join('?' * len(digests))})"
        params = digests
    return {str(digest): f"{title}\n{text}" for digest, title, text in db.execute(sql, params)}


def _by_score(scores: Matrix, first: int) -> Iterator[int]:
    """The rows of ``scores``, best first, each once: the best ``first`` picked without
    sorting the others (ties by row), the others sorted only when a caller reads on."""
    import numpy as np

    if first >= len(scores):
        yield from (int(row) for row in np.argsort(-scores, kind="stable"))
        return
    top = np.argpartition(-scores, first - 1)[:first]
    top = top[np.lexsort((top, -scores[top]))]
    yield from (int(row) for row in top)
    others = np.ones(len(scores), dtype=bool)
    others[top] = False
    rest = np.flatnonzero(others)
    yield from (int(row) for row in rest[np.argsort(-scores[rest], kind="stable")])


def _notes_holding(
    db: sqlite3.Connection, digests: Sequence[str], where: str, params: Sequence[object]
) -> dict[str, list[int]]:
    """The rowids (ascending) of the notes whose text is each of ``digests``, among those
    ``where`` keeps; a text no such note holds is not in the answer."""
    holders: dict[str, list[int]] = {}
    joined = f"{where} AND" if where else "WHERE"
    for start in range(0, len(digests), _LOOKUP):
        part = digests[start : start + _LOOKUP]
        marks = ", ".join("?" * len(part))
        rows = db.execute(
            f"SELECT id, hash FROM notes {joined} hash IN ({marks}) ORDER BY id",
            [*params, *part],
        )
        for rowid, digest in rows:
            holders.setdefault(str(digest), []).append(int(rowid))
    return holders


def _filters(workspace: str | None, tags: Sequence[str]) -> tuple[str, list[object]]:
    where: list[str] = []
    params: list[object] = []
    if workspace is not None:
        where.append("workspace = ?")
        params.append(workspace)
    for tag in tags:
        where.append("id IN (SELECT note FROM tags WHERE tag = ?)")
        params.append(tag)
    return ("WHERE " + " AND ".join(where)) if where else "", params
