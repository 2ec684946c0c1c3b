"""Semantic search (the ``semantic`` extra) over real files with the real model: notes found by
meaning where no word matches, fused with the words ranking, kept fresh after a write, cached
by content hash, paged exactly once, and the words ranking with a note without the extra."""

from __future__ import annotations

import math
import re
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from quire.api.search import SearchPage
from quire.search import semantic
from quire.search.index import SearchIndex
from quire.search.semantic import SemanticIndex, WordLlamaEmbedder, fuse
from quire.services.search import INDEX_FILE, SearchService
from quire.services.search.indexer import Indexer
from quire.services.search.service import VECTORS_FILE
from quire.vault.workspaces import Workspaces
from tests.support.processes import python_prints

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        not semantic.installed(), reason="install the semantic extra: pip install -e '.[semantic]'"
    ),
]

WAIT_S = 20

NOTES = {
    "pets.md": "# Our pets\n\nThe dog barks at the mailman and the puppy chews shoes.\n",
    "money.md": "# Budget\n\nQuarterly revenue grew; invest the savings and pay the taxes.\n",
    "kitchen.md": "# Dinner\n\nBake the bread, then roast the vegetables in the oven.\n",
    "garden.md": "# Garden\n\nPlant tulips in autumn and water the roses every morning.\n",
}


def vault(folder: Path, notes: dict[str, str] = NOTES) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in notes.items():
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder.resolve()


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[SearchService]:
    folder = vault(tmp_path / "ws")
    async with SearchService(Workspaces([folder]), tmp_path / "state" / INDEX_FILE) as opened:
        with anyio.fail_after(WAIT_S):
            await opened.built.wait()
        yield opened


def names(page: SearchPage) -> list[str]:
    return [hit.rel_path for hit in page.hits]


async def test_a_note_is_found_by_meaning_when_no_word_matches(service: SearchService) -> None:
    words = await service.search("canine companion", mode="words")
    meaning = await service.search("canine companion", mode="semantic")
    assert words.hits == []
    assert meaning.mode == "semantic"
    assert meaning.note is None
    assert names(meaning)[0] == "pets.md"
    money = await service.search("finance and accounting", mode="semantic")
    assert names(money)[0] == "money.md"


async def test_a_word_match_and_a_meaning_match_are_both_found(service: SearchService) -> None:
    page = await service.search("roses", mode="semantic")
    assert names(page)[0] == "garden.md"
    # Found by its word, it carries the word's snippet, the match marked.
    assert "\u0002roses\u0003" in page.hits[0].snippet
    # Notes with no such word still follow, by meaning, each once.
    assert sorted(names(page)) == sorted(NOTES)


async def test_a_note_written_later_is_found_by_meaning(
    service: SearchService, tmp_path: Path
) -> None:
    await service.search("anything", mode="semantic")  # starts keeping the vectors
    (tmp_path / "ws" / "sea.md").write_text(
        "# Sailing\n\nThe boat left the harbour; waves and wind carried the ship to the coast.\n",
        encoding="utf-8",
    )
    with anyio.fail_after(WAIT_S):
        while True:
            made = service.vectors_made()  # each batch the index takes wakes the vectors
            page = await service.search("ocean voyage", mode="semantic")
            if page.hits and page.hits[0].rel_path == "sea.md" and page.note is None:
                break
            await made.wait()


async def test_pages_hold_every_fused_hit_exactly_once(service: SearchService) -> None:
    first = await service.search("the", mode="semantic", limit=3)
    assert first.truncated and first.next_cursor is not None
    second = await service.search("the", mode="semantic", limit=3, cursor=first.next_cursor)
    assert not second.truncated
    assert sorted(names(first) + names(second)) == sorted(NOTES)


async def test_without_the_extra_the_words_ranking_answers_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # what an absent package looks like
    folder = vault(tmp_path / "ws")
    async with SearchService(Workspaces([folder]), tmp_path / "state" / INDEX_FILE) as opened:
        with anyio.fail_after(WAIT_S):
            await opened.built.wait()
        page = await opened.search("roses", mode="semantic")
    assert page.mode == "semantic"
    assert names(page) == ["garden.md"]
    assert page.note == semantic.NOT_INSTALLED
    assert "pip install 'quire[semantic]'" in page.note
    assert not (tmp_path / "state" / VECTORS_FILE).exists()


class Counting:
    """The real model, counting the texts it embeds."""

    def __init__(self) -> None:
        self.model = WordLlamaEmbedder()
        self.texts = 0

    def embed(self, texts: Sequence[str]) -> semantic.Matrix:
        self.texts += len(texts)
        return self.model.embed(texts)


def test_vectors_are_kept_by_content_hash_across_restarts(tmp_path: Path) -> None:
    notes = {**NOTES, "copy/pets.md": NOTES["pets.md"]}
    folder = vault(tmp_path / "ws", notes)
    index = SearchIndex(tmp_path / INDEX_FILE)
    Indexer(index, Workspaces([folder])).build()
    counting = Counting()
    first = SemanticIndex(tmp_path / VECTORS_FILE, lambda: counting)
    done = first.fill(index.reading, threading.Event())
    first.close()
    # Two notes share one text: one vector.
    assert (done.done, done.total, counting.texts) == (4, 4, 4)
    again = SemanticIndex(tmp_path / VECTORS_FILE, lambda: counting)
    assert again.fill(index.reading, threading.Event()).complete
    assert counting.texts == 4
    with index.reading() as db:
        near = again.nearest(db, "a barking puppy", count=2, workspace=None, tags=())
        rows = [db.execute("SELECT rel_path FROM notes WHERE id = ?", (r,)) for r in near]
        paths = [row.fetchone()[0] for row in rows]
    again.close()
    index.close()
    assert sorted(paths) == ["copy/pets.md", "pets.md"]


def test_a_vectors_file_that_is_not_a_database_is_replaced(tmp_path: Path) -> None:
    folder = vault(tmp_path / "ws")
    index = SearchIndex(tmp_path / INDEX_FILE)
    Indexer(index, Workspaces([folder])).build()
    (tmp_path / VECTORS_FILE).write_bytes(b"not a database" * 100)
    vectors = SemanticIndex(tmp_path / VECTORS_FILE)
    assert vectors.fill(index.reading, threading.Event()).complete
    vectors.close()
    index.close()


def test_a_stop_ends_a_fill_between_batches(tmp_path: Path) -> None:
    folder = vault(tmp_path / "ws")
    index = SearchIndex(tmp_path / INDEX_FILE)
    Indexer(index, Workspaces([folder])).build()
    stop = threading.Event()
    stop.set()
    vectors = SemanticIndex(tmp_path / VECTORS_FILE)
    progress = vectors.fill(index.reading, stop)
    vectors.close()
    index.close()
    assert (progress.done, progress.total, progress.complete) == (0, 4, False)


def test_fusion_ranks_notes_both_lists_hold_first() -> None:
    assert fuse([[1, 2, 3], [3, 4, 1]]) == [1, 3, 2, 4]
    assert fuse([[], [7, 8]]) == [7, 8]
    assert fuse([]) == []


def test_vectors_no_note_holds_are_dropped_once_they_outnumber_the_notes(tmp_path: Path) -> None:
    folder = vault(tmp_path / "ws", {f"n{i}.md": f"# N{i}\n\nfirst text {i}\n" for i in range(80)})
    index = SearchIndex(tmp_path / INDEX_FILE)
    indexer = Indexer(index, Workspaces([folder]))
    indexer.build()
    vectors = SemanticIndex(tmp_path / VECTORS_FILE)
    assert vectors.fill(index.reading, threading.Event()).complete
    for old in folder.iterdir():
        old.unlink()
    vault(folder, {f"m{i}.md": f"# M{i}\n\nsecond text {i}\n" for i in range(10)})
    indexer.build()
    assert vectors.fill(index.reading, threading.Event()).complete
    vectors.close()
    index.close()
    stored = sqlite3.connect(tmp_path / VECTORS_FILE)
    assert stored.execute("SELECT count(*) FROM vectors").fetchone()[0] == 10
    stored.close()


async def test_a_broken_install_answers_with_words_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "site" / "wordllama"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('numpy.core.multiarray failed')\n")
    for name in [name for name in sys.modules if name.split(".")[0] == "wordllama"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(broken.parent))
    semantic._load_model.cache_clear()
    try:
        folder = vault(tmp_path / "ws")
        async with SearchService(Workspaces([folder]), tmp_path / "state" / INDEX_FILE) as opened:
            with anyio.fail_after(WAIT_S):
                await opened.built.wait()
            page = await opened.search("roses", mode="semantic")
    finally:
        semantic._load_model.cache_clear()
    assert names(page) == ["garden.md"]
    assert page.note is not None
    assert page.note.startswith("Semantic search is installed but failed (ImportError: numpy")
    assert "pip install --force-reinstall 'quire[semantic]'" in page.note


async def test_a_note_found_by_meaning_alone_shows_its_opening_after_title_and_front_matter(
    tmp_path: Path,
) -> None:
    folder = vault(
        tmp_path / "ws",
        {"pets.md": "---\ntags: [home]\n---\n\n# Our pets\n\nThe dog barks at the mailman.\n"},
    )
    async with SearchService(Workspaces([folder]), tmp_path / "state" / INDEX_FILE) as opened:
        with anyio.fail_after(WAIT_S):
            await opened.built.wait()
        page = await opened.search("canine companion", mode="semantic")
    hit = page.hits[0]
    assert (hit.title, hit.line, hit.snippet) == ("Our pets", 7, "The dog barks at the mailman.")


def test_a_stored_vector_of_the_wrong_size_is_made_again(tmp_path: Path) -> None:
    folder = vault(tmp_path / "ws")
    index = SearchIndex(tmp_path / INDEX_FILE)
    Indexer(index, Workspaces([folder])).build()
    first = SemanticIndex(tmp_path / VECTORS_FILE)
    assert first.fill(index.reading, threading.Event()).complete
    first.close()
    stored = sqlite3.connect(tmp_path / VECTORS_FILE)
    with stored:
        stored.execute(
            "UPDATE vectors SET vector = x'00ff' WHERE hash = (SELECT hash FROM vectors LIMIT 1)"
        )
    stored.close()
    counting = Counting()
    again = SemanticIndex(tmp_path / VECTORS_FILE, lambda: counting)
    assert again.fill(index.reading, threading.Event()).complete
    with index.reading() as db:
        near = again.nearest(db, "puppy", count=10, workspace=None, tags=())
    again.close()
    index.close()
    assert counting.texts == 2  # the one made again, and the query
    assert len(near) == 4


def test_more_notes_than_the_first_matrix_holds_are_all_ranked(tmp_path: Path) -> None:
    notes = {f"n{i}.md": f"# Note {i}\n\nitem number {i}\n" for i in range(1100)}
    notes["pets.md"] = NOTES["pets.md"]
    index = SearchIndex(tmp_path / INDEX_FILE)
    Indexer(index, Workspaces([vault(tmp_path / "ws", notes)])).build()
    vectors = SemanticIndex(tmp_path / VECTORS_FILE)
    assert vectors.fill(index.reading, threading.Event()).total == 1101
    with index.reading() as db:
        near = vectors.nearest(db, "a barking dog", count=2000, workspace=None, tags=())
        first = db.execute("SELECT rel_path FROM notes WHERE id = ?", (near[0],)).fetchone()[0]
    vectors.close()
    index.close()
    assert len(near) == 1101
    assert first == "pets.md"


async def test_empty_notes_and_a_query_of_no_words_rank_without_error(tmp_path: Path) -> None:
    folder = vault(tmp_path / "ws", {**NOTES, "empty.md": "", "blank.md": "\n\n   \n"})
    async with SearchService(Workspaces([folder]), tmp_path / "state" / INDEX_FILE) as opened:
        with anyio.fail_after(WAIT_S):
            await opened.built.wait()
        page = await opened.search("\u200b\u2060", mode="semantic")
        pets = await opened.search("puppy dog", mode="semantic")
    assert page.note is None
    assert names(pets)[0] == "pets.md"
    assert "empty.md" in names(pets)  # last, but ranked: every note has its vector


def test_loading_the_model_leaves_the_processs_logging_as_it_was() -> None:
    # The model's package sets the root logger to INFO with a handler of its own as it loads;
    # a process that set up no logging (a CLI, the benchmarks) would print every library's
    # INFO lines from then on. A fresh process, so the package is imported here for the first
    # time.
    code = (
        "import logging; from quire.search.semantic import WordLlamaEmbedder; "
        "WordLlamaEmbedder(); root = logging.getLogger(); "
        "print(logging.getLevelName(root.level), len(root.handlers))"
    )
    assert python_prints(code).split() == ["WARNING", "0"]


class Angles:
    """An embedder whose scores are known: the query is one axis, and the note holding
    ``item N`` is N thousandths of a right angle away from it (so notes rank by N)."""

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        vectors = np.zeros((len(texts), semantic.DIMENSIONS), dtype=np.float32)
        for row, text in enumerate(texts):
            found = re.search(r"item (\d+)", text)
            angle = 0.0 if found is None else int(found.group(1)) * math.pi / 2000
            vectors[row, 0], vectors[row, 1] = math.cos(angle), math.sin(angle)
        return vectors


def test_nearest_reads_on_past_its_first_windows_for_filters_and_keep(tmp_path: Path) -> None:
    # 1,200 texts: the best few hundred are looked up first, then more as filters and `keep`
    # leave notes out; the answer is always the brute-force ranking of the notes allowed.
    notes = {f"n{i:04}.md": f"# N{i}\n\nitem {i}\n" for i in range(1200)}
    notes |= {f"late/n{i:04}.md": f"# N{i}\n\nitem {i} #late\n" for i in range(1190, 1195)}
    notes["copy.md"] = notes["n0003.md"]  # one text, two notes: both, by rowid
    index = SearchIndex(tmp_path / INDEX_FILE)
    Indexer(index, Workspaces([vault(tmp_path / "ws", notes)])).build()
    vectors = SemanticIndex(tmp_path / VECTORS_FILE, embedder=Angles)
    vectors.fill(index.reading, threading.Event())
    with index.reading() as db:
        path_of = dict(db.execute("SELECT id, rel_path FROM notes"))
        rowid_of = {path: rowid for rowid, path in path_of.items()}

        def near(count: int, tags: Sequence[str] = (), keep: Any = None) -> list[str]:
            found = vectors.nearest(db, "q", count=count, workspace=None, tags=tags, keep=keep)
            return [path_of[rowid] for rowid in found]

        first = near(5)
        tagged = near(10, tags=("late",))
        sparse = near(12, keep=lambda rowid: rowid % 97 == 0)
    vectors.close()
    index.close()
    copies = sorted(["n0003.md", "copy.md"], key=rowid_of.__getitem__)
    assert first == ["n0000.md", "n0001.md", "n0002.md", *copies]
    assert tagged == [f"late/n{i:04}.md" for i in range(1190, 1195)]
    allowed = sorted(
        (path for path, rowid in rowid_of.items() if rowid % 97 == 0),
        key=lambda path: (int(re.search(r"item (\d+)", notes[path]).group(1)), rowid_of[path]),  # type: ignore[union-attr]
    )
    assert sparse == allowed[:12]
