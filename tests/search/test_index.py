"""The index against brute force: grep mode is a casefolded substring per file, every page
once; plus tags, links, moves by hash, deletions by rowid, and rebuild equal to incremental."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quire.search import queries
from quire.search.index import SearchIndex
from quire.search.snippets import MARK_END, MARK_START, clean
from quire.services.search.indexer import Indexer
from quire.vault.watch import FileChange
from quire.vault.workspaces import Workspaces

ALPHABET = "abAB \u00dfSs\u0130i\u0131\u00e9\u0301\n#[]\u03a3\u03c3\u03c2"


@contextmanager
def vault(files: dict[str, str]) -> Iterator[tuple[Path, SearchIndex]]:
    with tempfile.TemporaryDirectory() as raw:
        root = Path(raw).resolve()
        workspace = root / "ws"
        workspace.mkdir()
        for name, text in files.items():
            path = workspace / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        index = SearchIndex(root / "index.sqlite3")
        try:
            Indexer(index, Workspaces([workspace])).build()
            yield workspace, index
        finally:
            index.close()


def grep_all(index: SearchIndex, text: str, limit: int) -> list[queries.Found]:
    """Every page of a grep, following the rowid cursor."""
    found: list[queries.Found] = []
    after = 0
    with index.reading() as db:
        while True:
            page, more = queries.grep(
                db,
                queries.Query(text, ()),
                after=after,
                limit=limit,
                workspace=None,
                trigram=index.trigram,
            )
            found += page
            if not more:
                return found
            assert page, "a page that says more follow holds hits"
            after = page[-1].rowid


names = st.sampled_from(["a.md", "b.md", "sub/c.md", "sub/deep/d.md", "e.md", "f.md"])
texts = st.text(alphabet=ALPHABET, max_size=60)


@settings(max_examples=120, deadline=None)
@given(
    files=st.dictionaries(names, texts, max_size=6),
    query=st.one_of(st.text(alphabet=ALPHABET, min_size=1, max_size=5), st.just("ss")),
    limit=st.integers(1, 4),
)
def test_grep_finds_exactly_the_files_holding_the_query_ignoring_case(
    files: dict[str, str], query: str, limit: int
) -> None:
    with vault(files) as (workspace, index):
        found = grep_all(index, query, limit)
    expected = {name for name, text in files.items() if query.casefold() in text.casefold()}
    assert sorted(hit.rel_path for hit in found) == sorted(expected)
    for hit in found:
        text = files[hit.rel_path]
        folded = text.casefold()
        assert hit.line == folded[: folded.find(query.casefold())].count("\n") + 1
        assert hit.matches == folded.count(query.casefold())
        assert hit.path == str(workspace / hit.rel_path)


@settings(max_examples=40, deadline=None)
@given(files=st.dictionaries(names, texts, min_size=1, max_size=6), data=st.data())
def test_a_substring_of_a_note_always_finds_it(files: dict[str, str], data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(files)))
    text = files[name]
    start = data.draw(st.integers(0, max(len(text) - 1, 0)))
    query = text[start : start + data.draw(st.integers(1, 8))] or "a"
    with vault(files) as (_workspace, index):
        found = {hit.rel_path for hit in grep_all(index, query, 50)}
    assert (name in found) is (query.casefold() in text.casefold())


def test_a_snippet_marks_the_match_in_the_text_as_written(tmp_path: Path) -> None:
    with vault({"a.md": "# T\n\nline one\nWhere STRASSE and Straße meet\n"}) as (_w, index):
        (hit,) = grep_all(index, "straße", 5)
    assert hit.line == 4
    assert hit.snippet == f"Where {MARK_START}STRASSE{MARK_END} and Straße meet"
    assert hit.matches == 2


def test_marks_in_a_note_are_removed_from_its_snippets() -> None:
    with vault({"a.md": "x\u0002needle\u0003y\n"}) as (_w, index):
        (hit,) = grep_all(index, "needle", 5)
    assert hit.snippet == f"x{MARK_START}needle{MARK_END}y"


def notes_of(index: SearchIndex) -> list[tuple[object, ...]]:
    """What the index holds per note, rowids left out (a rebuild may number them anew)."""
    with index.reading() as db:
        rows = db.execute(
            "SELECT path, rel_path, hash, title, front_matter FROM notes ORDER BY path"
        ).fetchall()
        tags = db.execute(
            "SELECT n.path, t.tag FROM tags t JOIN notes n ON n.id = t.note ORDER BY 1, 2"
        ).fetchall()
        links = db.execute(
            "SELECT n.path, l.line, l.target_path, l.target_name FROM links l "
            "JOIN notes n ON n.id = l.note ORDER BY 1, 2, 3, 4"
        ).fetchall()
        words = db.execute(
            "SELECT n.path FROM words JOIN notes n ON n.id = words.rowid "
            "WHERE words MATCH 'second' ORDER BY 1"
        ).fetchall()
    return [*rows, *tags, *links, *words]


def test_a_rebuild_holds_what_the_incremental_changes_made(tmp_path: Path) -> None:
    files = {
        f"n{number}.md": f"# N{number}\nfirst #t{number % 3}\n[[n{number + 1}]]\n"
        for number in range(12)
    }
    with vault(files) as (workspace, index):
        indexer = Indexer(index, Workspaces([workspace]))
        (workspace / "n1.md").write_text("# One\nsecond text #changed\n", encoding="utf-8")
        (workspace / "n2.md").unlink()
        (workspace / "n3.md").rename(workspace / "moved.md")
        (workspace / "sub").mkdir()
        (workspace / "sub" / "new.md").write_text("second [x](../n4.md)\n", encoding="utf-8")
        indexer.apply(
            [
                FileChange(workspace / "n1.md", "changed"),
                FileChange(workspace / "n2.md", "deleted"),
                FileChange(workspace / "n3.md", "deleted"),
                FileChange(workspace / "moved.md", "changed"),
                FileChange(workspace / "sub", "changed"),
            ]
        )
        incremental = notes_of(index)
        indexer.build(fresh=True)
        rebuilt = notes_of(index)
        second = {hit.rel_path for hit in grep_all(index, "SECOND", 50)}
    assert incremental == rebuilt
    assert second == {"n1.md", "sub/new.md"}


def test_a_moved_note_keeps_its_rowid_and_leaves_no_copy(tmp_path: Path) -> None:
    with vault({"old.md": "# Old\nunique words here\n", "other.md": "x\n"}) as (ws, index):
        with index.reading() as db:
            before = db.execute("SELECT id FROM notes WHERE rel_path = 'old.md'").fetchone()
        (ws / "old.md").rename(ws / "new.md")
        # The watcher may report the new path first: the move is found by the hash.
        Indexer(index, Workspaces([ws])).apply([FileChange(ws / "new.md", "changed")])
        with index.reading() as db:
            after = db.execute(
                "SELECT id, rel_path FROM notes WHERE hash = (SELECT hash FROM "
                "notes WHERE rel_path = 'new.md')"
            ).fetchall()
            count = db.execute("SELECT count(*) FROM notes").fetchone()[0]
        found = grep_all(index, "unique words", 5)
    assert after == [(before[0], "new.md")]
    assert count == 2
    assert [hit.rel_path for hit in found] == ["new.md"]


def test_a_deleted_note_leaves_both_full_text_tables(tmp_path: Path) -> None:
    with vault({"a.md": "gone forever\n", "b.md": "stays\n"}) as (ws, index):
        (ws / "a.md").unlink()
        Indexer(index, Workspaces([ws])).apply([FileChange(ws / "a.md", "deleted")])
        with index.reading() as db:
            words = db.execute("SELECT rowid FROM words WHERE words MATCH 'forever'").fetchall()
            grams = db.execute(
                "SELECT rowid FROM substrings WHERE substrings MATCH '\"for\"'"
            ).fetchall()
        assert words == []
        assert grams == []


def test_the_words_table_passes_its_integrity_check_after_changes(tmp_path: Path) -> None:
    with vault({f"n{i}.md": f"text {i} shared\n" for i in range(5)}) as (ws, index):
        indexer = Indexer(index, Workspaces([ws]))
        for number in range(5):
            (ws / f"n{number}.md").write_text(f"new text {number}\n", encoding="utf-8")
        (ws / "n0.md").unlink()
        indexer.apply([FileChange(ws / f"n{i}.md", "changed") for i in range(5)])
        with index.writing() as db:
            db.execute("INSERT INTO words(words, rank) VALUES ('integrity-check', 1)")
        with index.reading() as db:
            assert (
                db.execute("SELECT count(*) FROM words WHERE words MATCH 'shared'").fetchone()[0]
                == 0
            )


def test_tags_come_from_front_matter_and_the_body_but_not_code() -> None:
    files = {
        "a.md": "---\ntags: [Project, 'two words']\n---\n# A\n",
        "b.md": "text #Project and #sub/tag, not a#b nor #123\n",
        "c.md": "```\n#project\n```\n`#project` inline\n",
        "d.md": "---\ntags: solo, duo\n---\n",
    }
    with vault(files) as (_ws, index), index.reading() as db:
        rows = db.execute(
            "SELECT t.tag, n.rel_path FROM tags t JOIN notes n ON n.id = t.note ORDER BY 1, 2"
        ).fetchall()
    assert rows == [
        ("duo", "d.md"),
        ("project", "a.md"),
        ("project", "b.md"),
        ("solo", "d.md"),
        ("sub/tag", "b.md"),
        ("two words", "a.md"),
    ]


def test_an_index_file_of_another_schema_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE notes(x)")
    old.commit()
    old.close()
    index = SearchIndex(path)
    try:
        with index.reading() as db:
            assert queries.note_count(db) == 0
    finally:
        index.close()


def test_a_file_that_is_not_an_index_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    path.write_bytes(b"not a database at all" * 100)
    SearchIndex(path).close()


@pytest.mark.parametrize("query", ["a", "ab", "abc", "é", "ss"])
def test_short_and_long_queries_agree_with_brute_force(query: str) -> None:
    files = {"x.md": "A b abc Straße", "y.md": "ÉCOLE", "z.md": "nothing"}
    with vault(files) as (_ws, index):
        found = {hit.rel_path for hit in grep_all(index, query, 1)}
    assert found == {n for n, t in files.items() if query.casefold() in t.casefold()}


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 20])
def test_words_pages_past_the_ranked_window_return_every_note_once(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    monkeypatch.setattr(queries, "RANKED", 4)
    files = {f"n{number:02}.md": "word " * (number % 5 + 1) + "\n" for number in range(11)}
    seen: list[str] = []
    with vault(files) as (_ws, index), index.reading() as db:
        offset = 0
        while True:
            page, more = queries.words(
                db, queries.Query("WORD", ()), offset=offset, limit=limit, workspace=None
            )
            seen += [hit.rel_path for hit in page]
            offset += len(page)
            if not more:
                break
        first = queries.words(db, queries.Query("word", ()), offset=0, limit=4, workspace=None)
    assert sorted(seen) == sorted(files)
    assert len(seen) == len(files)
    # The ranked window is the first four notes by rowid (built in path order).
    assert sorted(hit.rel_path for hit in first[0]) == ["n00.md", "n01.md", "n02.md", "n03.md"]


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="# \t\n\r-abc\\*`>\u00a0", max_size=30),
    front=st.sampled_from(["", "---\na: 1\n---\n", "\ufeff"]),
)
def test_the_fast_title_is_the_title_markdown_finds(text: str, front: str) -> None:
    from pathlib import PurePosixPath

    from quire.markdown.titles import document_title
    from quire.search.extract import note_facts

    source = front + text
    found = note_facts(source, PurePosixPath("/w/n.md"), PurePosixPath("/w")).title
    assert found == document_title(source, "n.md")


def test_a_heading_after_a_lone_carriage_return_is_the_title() -> None:
    from pathlib import PurePosixPath

    from quire.search.extract import note_facts

    assert note_facts("\r# >", PurePosixPath("/w/n.md"), PurePosixPath("/w")).title == ">"


@settings(max_examples=80, deadline=None)
@given(
    files=st.dictionaries(
        st.tuples(st.sampled_from(["one", "two"]), names),
        st.tuples(texts, st.booleans()),
        max_size=8,
    ),
    query=st.one_of(st.text(alphabet=ALPHABET, min_size=0, max_size=4), st.just("ss")),
    only=st.sampled_from([None, "one", "two"]),
    tagged=st.booleans(),
    limit=st.integers(1, 3),
)
def test_grep_within_a_workspace_and_a_tag_agrees_with_brute_force(
    files: dict[tuple[str, str], tuple[str, bool]],
    query: str,
    only: str | None,
    tagged: bool,
    limit: int,
) -> None:
    with tempfile.TemporaryDirectory() as raw:
        root = Path(raw).resolve()
        folders = {name: root / name for name in ("one", "two")}
        for folder in folders.values():
            folder.mkdir()
        for (workspace, name), (text, has_tag) in files.items():
            path = folders[workspace] / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + ("\n#mark\n" if has_tag else ""), encoding="utf-8")
        index = SearchIndex(root / "index.sqlite3")
        try:
            Indexer(index, Workspaces(list(folders.values()))).build()
            found: list[str] = []
            after = 0
            with index.reading() as db:
                while True:
                    page, more = queries.grep(
                        db,
                        queries.Query(query, ("mark",) if tagged else ()),
                        after=after,
                        limit=limit,
                        workspace=None if only is None else str(folders[only]),
                        trigram=index.trigram,
                    )
                    found += [str(Path(hit.path).relative_to(root)) for hit in page]
                    if not more:
                        break
                    after = page[-1].rowid
        finally:
            index.close()
    expected = {
        f"{workspace}/{name}"
        for (workspace, name), (text, has_tag) in files.items()
        if (only is None or workspace == only)
        and (not tagged or has_tag)
        and query.casefold() in (text + ("\n#mark\n" if has_tag else "")).casefold()
    }
    assert sorted(found) == sorted(expected)


def test_grep_pages_read_past_many_hidden_hits_and_return_each_visible_one_once() -> None:
    # Candidates are read in batches that start at a page's size and grow: a reader who may
    # see one note in ten needs many batches per page, and must get every visible note once.
    files = {f"n{number:03}.md": f"# N{number}\n\nA needle here.\n" for number in range(300)}
    seen = {name for number, name in enumerate(sorted(files)) if number % 10 == 3}
    found: list[str] = []
    with vault(files) as (_workspace, index), index.reading() as db:
        after, more = 0, True
        while more:
            page, more = queries.grep(
                db,
                queries.Query("NEEDLE", ()),
                after=after,
                limit=3,
                workspace=None,
                trigram=index.trigram,
                visible=lambda path: Path(path).name in seen,
            )
            assert page or not more
            found += [hit.rel_path for hit in page]
            after = page[-1].rowid if page else after
    assert sorted(found) == sorted(seen)
    assert len(found) == len(seen) == 30


@given(st.text(alphabet=st.sampled_from("a é\u2603\r\n\u0002\u0003ß"), max_size=80))
def test_clean_drops_exactly_the_mark_characters_and_carriage_returns(text: str) -> None:
    assert clean(text) == "".join(char for char in text if char not in "\u0002\u0003\r")
