"""Reading the search index: substring (grep) and words searches, titles, backlinks, tags.

Every search is top-k: it stops once it has one hit more than asked for (so it can say more
match), never ranking or verifying every match. A substring search takes candidates from the
trigram table (every note holding all of the query's trigrams) and keeps those whose stored
casefolded text holds the query (checked inside SQLite, so only hits reach Python); a query
shorter than three characters checks the notes in order.

A search made for an account passes ``visible`` (whether the note at a path may be shown): a
note it refuses is skipped before its text is read, and never counts towards a page or its
"more".
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from quire.markdown.links import link_names
from quire.markdown.parser import front_matter_lines
from quire.search.snippets import MARK_END, MARK_START, SNIPPET_CHARS, clean, grep_snippet

_BATCH = 256
RANKED = 2000
"""How many matching notes a words search ranks (the first by rowid); later ones follow."""
_MAX_TRIGRAMS = 16
_TAG_TERM = re.compile(r"(?:^|\s)tag:#?(\S+)", re.IGNORECASE)
_WORD = re.compile(r"\w+")
_FTS_OPEN, _FTS_CLOSE = "\ue000", "\ue001"

_T = TypeVar("_T")

Visible = Callable[[str], bool]
"""Whether the note at this path (as the index holds it) may be shown."""


@dataclass(frozen=True)
class Found:
    """A note a search found: where it is, its title, the line and snippet of its first
    match, and (grep) how often the query occurs in it; ``rowid`` orders the pages."""

    rowid: int
    path: str
    workspace: str
    rel_path: str
    title: str
    line: int
    snippet: str
    matches: int | None


@dataclass(frozen=True)
class Query:
    """A query split into its text and its ``tag:NAME`` filters (lowercased)."""

    text: str
    tags: tuple[str, ...]


def parse_query(raw: str) -> Query:
    """``raw`` with every ``tag:NAME`` term taken out as a filter."""
    tags = tuple(dict.fromkeys(m.group(1).lower() for m in _TAG_TERM.finditer(raw)))
    return Query(_TAG_TERM.sub(" ", raw).strip(), tags)


def grep(
    db: sqlite3.Connection,
    query: Query,
    *,
    after: int,
    limit: int,
    workspace: str | None,
    trigram: bool,
    visible: Visible | None = None,
) -> tuple[list[Found], bool]:
    """The first ``limit`` notes past rowid ``after`` holding ``query.text`` ignoring case
    (casefolded substring), in rowid order, and whether more do (``visible`` ones only)."""
    needle = query.text.casefold()
    hits: list[Found] = []
    for rowid in _holding(db, needle, query.tags, after, workspace, trigram, first=limit + 1):
        row = db.execute(
            "SELECT n.path, n.workspace, n.rel_path, n.title, b.text, f.text FROM notes n "
            "JOIN bodies b ON b.id = n.id JOIN folded f ON f.id = n.id WHERE n.id = ?",
            (rowid,),
        ).fetchone()
        if row is None or (visible is not None and not visible(str(row[0]))):
            continue
        if len(hits) == limit:
            return hits, True
        text: str = row[4]
        folded: str = row[5]
        if needle:
            line, snippet = grep_snippet(text, folded, folded.find(needle), needle)
            count: int | None = folded.count(needle)
        else:
            line, snippet, count = 1, clean(text[:SNIPPET_CHARS]).strip(), None
        hits.append(Found(rowid, row[0], row[1], row[2], row[3], line, snippet, count))
    return hits, False


def words(
    db: sqlite3.Connection,
    query: Query,
    *,
    offset: int,
    limit: int,
    workspace: str | None,
    visible: Visible | None = None,
) -> tuple[list[Found], bool]:
    """The notes holding every word of ``query.text`` (in any order) from ``offset``, and
    whether more do, in the order of ``words_ranking``."""
    ids, more = words_ranking(
        db, query, offset=offset, count=limit, workspace=workspace, visible=visible
    )
    hits = [words_hit(db, query, rowid) for rowid in ids]
    return [hit for hit in hits if hit is not None], more


def words_ranking(
    db: sqlite3.Connection,
    query: Query,
    *,
    offset: int,
    count: int,
    workspace: str | None,
    visible: Visible | None = None,
) -> tuple[list[int], bool]:
    """The rowids of the ``count`` notes holding every word of ``query.text`` from
    ``offset``, and whether more do. Top-k, never ranking every hit: the first ``RANKED``
    matching notes (in rowid order) come first, best first by bm25 (a title match weighs five
    times a body match); the notes after them follow in rowid order, so every page of a word
    held by most of a large vault costs the same. With ``visible``, ``offset`` counts visible
    notes only."""
    match = _words_match(query)
    if match is None:
        return [], False
    where = "FROM words JOIN notes n ON n.id = words.rowid WHERE words MATCH ?"
    params: list[object] = [match]
    if workspace is not None:
        where += " AND n.workspace = ?"
        params.append(workspace)
    for tag in query.tags:
        where += " AND words.rowid IN (SELECT note FROM tags WHERE tag = ?)"
        params.append(tag)
    window = db.execute(
        f"SELECT words.rowid, bm25(words, 5.0, 1.0) {where} ORDER BY words.rowid LIMIT {RANKED}",
        params,
    ).fetchall()
    ranked = [int(row[0]) for row in sorted(window, key=lambda row: (row[1], row[0]))]
    wanted = count + 1
    if visible is not None:
        tail_sql = f"SELECT words.rowid {where} AND words.rowid > ? ORDER BY words.rowid"
        after = [*params, window[-1][0]] if len(window) == RANKED else None
        ids = _visible_ids(db, ranked, tail_sql, after, visible, offset, wanted)
        return ids[:count], len(ids) > count
    ids = ranked[offset : offset + wanted]
    if len(window) == RANKED and len(ids) < wanted:
        skip = max(0, offset - RANKED)
        tail = db.execute(
            f"SELECT words.rowid {where} AND words.rowid > ? ORDER BY words.rowid LIMIT ? OFFSET ?",
            [*params, window[-1][0], wanted - len(ids), skip],
        )
        ids += [int(row[0]) for row in tail]
    return ids[:count], len(ids) > count


def _words_match(query: Query) -> str | None:
    """The FTS5 query of every word of ``query.text`` (None: it holds no word)."""
    terms = _WORD.findall(query.text)
    if not terms:
        return None
    return " ".join('"' + term.replace('"', '""') + '"' for term in terms)


def titles(
    db: sqlite3.Connection,
    query: str,
    limit: int,
    recent: Mapping[str, int],
    visible: Visible | None = None,
) -> list[Found]:
    """Quick open: notes whose title or path holds ``query`` (ignoring case), or holds its
    characters in order (fuzzy), best first: title prefix, then title, then path, then fuzzy
    by how close the characters are; a more recently used note (``recent``: path to rank,
    0 the latest) first among equals. Only ``visible`` notes, when given."""
    needle = query.casefold().strip()
    columns = "SELECT id, path, workspace, rel_path, title, title_key FROM notes"
    if not needle:
        if visible is None:
            rows = db.execute(f"{columns} ORDER BY rel_path LIMIT ?", (limit,)).fetchall()
        else:
            every = db.execute(f"{columns} ORDER BY rel_path")
            rows = _first(every, limit, lambda row: visible(str(row[1])))
        ranked = sorted(rows, key=lambda row: (recent.get(row[1], len(recent)), row[3]))
        return [_title_hit(row) for row in ranked[:limit]]
    rows = db.execute(
        f"{columns} WHERE title_key LIKE ? ESCAPE '\\' LIMIT 2000", (f"%{_escape(needle)}%",)
    ).fetchall()
    if len(rows) < limit:
        fuzzy = "%" + "%".join(_escape(char) for char in needle) + "%"
        seen = {row[0] for row in rows}
        more = db.execute(f"{columns} WHERE title_key LIKE ? ESCAPE '\\' LIMIT 2000", (fuzzy,))
        rows += [row for row in more if row[0] not in seen]
    scored = [(_title_score(row[5], needle), recent.get(row[1], len(recent)), row) for row in rows]
    scored.sort(key=lambda item: (item[0], item[1], len(item[2][3]), item[2][3]))
    if visible is None:
        return [_title_hit(row) for _score, _recent, row in scored[:limit]]
    best = (row for _score, _recent, row in scored)
    return [_title_hit(row) for row in _first(best, limit, lambda row: visible(str(row[1])))]


def backlinks(
    db: sqlite3.Connection, path: str, rel_path: str | None, visible: Visible | None = None
) -> list[tuple[str, str, int]]:
    """The notes linking to ``path`` (by a Markdown link, or by a wikilink naming its file or
    its path in its workspace ``rel_path``): path, title and first line of such a link (only
    the ``visible`` notes, when given)."""
    names = link_names(rel_path) if rel_path is not None else ("\0", "\0")
    rows = db.execute(
        "SELECT n.path, n.title, min(l.line) FROM links l JOIN notes n ON n.id = l.note "
        "WHERE (l.target_path = ? OR l.target_name IN (?, ?)) AND n.path != ? "
        "GROUP BY n.id ORDER BY n.path",
        (path, *names, path),
    )
    found = [(str(p), str(t), int(line)) for p, t, line in rows]
    return found if visible is None else [item for item in found if visible(item[0])]


def linking(db: sqlite3.Connection, path: str, rel_path: str | None, *, folder: bool) -> set[str]:
    """The notes that may link to ``path`` (a note, or with ``folder`` anything inside the
    folder ``path``), by the links table (``rel_path``: its path in its workspace), and the
    notes at or inside ``path`` themselves (their own relative links move with them)."""
    inside = _escape(path) + "/%"
    if folder:
        names = _escape(rel_path.lower()) + "/%" if rel_path is not None else "\0"
        rows = db.execute(
            "SELECT n.path FROM links l JOIN notes n ON n.id = l.note "
            "WHERE l.target_path LIKE ? ESCAPE '\\' OR l.target_name LIKE ? ESCAPE '\\'",
            (inside, names),
        )
        found = {str(row[0]) for row in rows}
    else:
        found = {linking_note for linking_note, _title, _line in backlinks(db, path, rel_path)}
    own = db.execute(
        "SELECT path FROM notes WHERE path = ? OR path LIKE ? ESCAPE '\\'", (path, inside)
    )
    found.update(str(row[0]) for row in own)
    return found


def holding(db: sqlite3.Connection, needle: str, *, trigram: bool) -> set[str]:
    """The notes whose text holds ``needle``, ignoring case (every one, not a page)."""
    rowids = list(_holding(db, needle.casefold(), (), 0, None, trigram))
    found: set[str] = set()
    for start in range(0, len(rowids), _BATCH):
        batch = rowids[start : start + _BATCH]
        marks = ", ".join("?" * len(batch))
        rows = db.execute(f"SELECT path FROM notes WHERE id IN ({marks})", batch)
        found.update(str(row[0]) for row in rows)
    return found


def note_at(db: sqlite3.Connection, path: str) -> tuple[str, str] | None:
    """The workspace and relative path of the note at ``path``, or None when not indexed."""
    row = db.execute("SELECT workspace, rel_path FROM notes WHERE path = ?", (path,)).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def unreadable(
    db: sqlite3.Connection, workspace: str | None, limit: int
) -> tuple[list[tuple[str, str]], int]:
    """The first ``limit`` unreadable files (by path; -1: every one) with their reasons, and
    how many in all."""
    where, params = ("WHERE workspace = ?", [workspace]) if workspace is not None else ("", [])
    rows = db.execute(
        f"SELECT path, reason FROM unreadable {where} ORDER BY path LIMIT ?", [*params, limit]
    ).fetchall()
    count = db.execute(f"SELECT count(*) FROM unreadable {where}", params).fetchone()[0]
    return [(str(p), str(r)) for p, r in rows], int(count)


def note_count(db: sqlite3.Connection, within: Sequence[tuple[str, str]] | None = None) -> int:
    """How many notes the index holds; with ``within`` (workspace, path prefix inside it, ""
    for all of it), only those under one of them (whole segments, case and all), each counted
    once, on the ``notes_place`` index."""
    if within is None:
        return int(db.execute("SELECT count(*) FROM notes").fetchone()[0])
    total = 0
    for workspace, prefix in _outermost(within):
        if not prefix:
            row = db.execute("SELECT count(*) FROM notes WHERE workspace = ?", (workspace,))
            total += int(row.fetchone()[0])
            continue
        # Below ``prefix/``: from "prefix/" up to "prefix0" ("0" follows "/"), as bytes.
        total += int(
            db.execute(
                "SELECT (SELECT count(*) FROM notes WHERE workspace = ? AND rel_path = ?) + "
                "(SELECT count(*) FROM notes WHERE workspace = ? AND rel_path >= ? "
                "AND rel_path < ?)",
                (workspace, prefix, workspace, prefix + "/", prefix + "0"),
            ).fetchone()[0]
        )
    return total


def _outermost(within: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``within`` without the places another one holds (so none is counted twice)."""

    def holds(outer: tuple[str, str], inner: tuple[str, str]) -> bool:
        return outer[0] == inner[0] and (
            not outer[1] or inner[1] == outer[1] or inner[1].startswith(outer[1] + "/")
        )

    places = list(dict.fromkeys(within))
    return [
        place
        for place in places
        if not any(other != place and holds(other, place) for other in places)
    ]


def _holding(
    db: sqlite3.Connection,
    needle: str,
    tags: Sequence[str],
    after: int,
    workspace: str | None,
    trigram: bool,
    *,
    first: int = _BATCH,
) -> Iterator[int]:
    """The rowids past ``after`` of the notes whose casefolded text holds ``needle``, in
    order: candidates from the trigram table (``trigram``: it exists) when it can spell the
    needle, else every note, each checked by SQLite against its stored casefolded text.

    They are read in batches: ``first`` rows (what a page needs: checking a candidate reads
    its whole text, so a page of 50 should not check the candidates of 256), then twice as
    many each time, up to ``_BATCH``."""
    if trigram and _trigrams(needle):
        sql = (
            "SELECT substrings.rowid FROM substrings CROSS JOIN folded f ON f.id = substrings.rowid"
        )
        where = ["substrings MATCH ?", "substrings.rowid > ?"]
        params: list[object] = [_trigram_query(needle), after]
        column = "substrings.rowid"
    else:
        sql = "SELECT f.id FROM folded f"
        where = ["f.id > ?"]
        params = [after]
        column = "f.id"
    after_at = len(params) - 1
    if needle:
        where.append("instr(f.text, ?) > 0")
        params.append(needle)
    if workspace is not None:
        sql += f" CROSS JOIN notes n ON n.id = {column}"
        where.append("n.workspace = ?")
        params.append(workspace)
    for tag in tags:
        where.append(f"{column} IN (SELECT note FROM tags WHERE tag = ?)")
        params.append(tag)
    sql += f" WHERE {' AND '.join(where)} ORDER BY {column} LIMIT ?"
    size = max(1, min(first, _BATCH))
    while True:
        batch = [int(row[0]) for row in db.execute(sql, [*params, size])]
        yield from batch
        if len(batch) < size:
            return
        params[after_at] = batch[-1]
        size = min(size * 2, _BATCH)


def shown(db: sqlite3.Connection, rowid: int, *, visible: Visible) -> bool:
    """Whether the note ``rowid`` is there and ``visible``."""
    row = db.execute("SELECT path FROM notes WHERE id = ?", (rowid,)).fetchone()
    return row is not None and visible(str(row[0]))


def _visible_ids(
    db: sqlite3.Connection,
    ranked: list[int],
    tail_sql: str,
    tail_params: list[object] | None,
    visible: Visible,
    offset: int,
    wanted: int,
) -> list[int]:
    """``wanted`` visible rowids after the first ``offset`` visible ones, from ``ranked`` and
    then (``tail_params`` given) the rows of ``tail_sql``, read only as far as needed."""

    def every() -> Iterator[int]:
        yield from ranked
        if tail_params is not None:
            yield from (int(row[0]) for row in db.execute(tail_sql, tail_params))

    kept = (rowid for rowid in every() if shown(db, rowid, visible=visible))
    return _first(kept, offset + wanted, lambda _rowid: True)[offset:]


def _first(items: Iterable[_T], count: int, keep: Callable[[_T], bool]) -> list[_T]:
    """The first ``count`` of ``items`` that ``keep`` accepts (read no further)."""
    found: list[_T] = []
    if count <= 0:
        return found
    for item in items:
        if keep(item):
            found.append(item)
            if len(found) == count:
                break
    return found


def _trigram_query(needle: str) -> str:
    """An FTS5 query for the notes holding every trigram of ``needle`` (at most 16, spread
    over it: still every note that holds it), each trigram one quoted term."""
    grams = _trigrams(needle)
    if len(grams) > _MAX_TRIGRAMS:
        step = (len(grams) - 1) / (_MAX_TRIGRAMS - 1)
        grams = [grams[round(i * step)] for i in range(_MAX_TRIGRAMS)]
    return " ".join('"' + gram.replace('"', '""') + '"' for gram in grams)


def _trigrams(needle: str) -> list[str]:
    """The needle's distinct trigrams an FTS5 query can spell (one holding NUL cannot)."""
    grams = (needle[i : i + 3] for i in range(len(needle) - 2))
    return list(dict.fromkeys(gram for gram in grams if "\0" not in gram))


def words_hit(db: sqlite3.Connection, query: Query, rowid: int) -> Found | None:
    """The note ``rowid`` as a words hit: the line and snippet of its match (None when it is
    gone or holds no word of ``query`` any more)."""
    match = _words_match(query)
    if match is None:
        return None
    row = db.execute(
        "SELECT n.path, n.workspace, n.rel_path, n.title, b.text, "
        f"snippet(words, -1, '{_FTS_OPEN}', '{_FTS_CLOSE}', '…', 24) "
        "FROM words JOIN notes n ON n.id = words.rowid JOIN bodies b ON b.id = n.id "
        "WHERE words MATCH ? AND words.rowid = ?",
        (match, rowid),
    ).fetchone()
    if row is None:
        return None
    path, workspace, rel_path, title, body, raw = row
    snippet = clean(str(raw or "")).replace(_FTS_OPEN, MARK_START).replace(_FTS_CLOSE, MARK_END)
    core = snippet.removeprefix("…").removesuffix("…")
    first_mark = max(core.find(MARK_START), 0)
    plain = core.replace(MARK_START, "").replace(MARK_END, "")
    line = 1
    if plain.strip():
        text = clean(str(body))
        at = text.find(plain)
        if at >= 0:
            line = text.count("\n", 0, at + first_mark) + 1
    return Found(
        rowid,
        str(path),
        str(workspace),
        str(rel_path),
        str(title),
        line,
        " ".join(snippet.split()),
        None,
    )


def lead(db: sqlite3.Connection, rowid: int) -> Found | None:
    """The note ``rowid`` as a hit with no match in it: the line its text starts on (after its
    front matter and a heading that only repeats its title) and that opening as the snippet
    (None when it is gone)."""
    row = db.execute(
        "SELECT n.path, n.workspace, n.rel_path, n.title, substr(b.text, 1, ?) FROM notes n "
        "JOIN bodies b ON b.id = n.id WHERE n.id = ?",
        (SNIPPET_CHARS * 4, rowid),
    ).fetchone()
    if row is None:
        return None
    path, workspace, rel_path, title, text = row
    lines = clean(str(text)).split("\n")
    closed = front_matter_lines(lines)
    line = 0 if closed is None else closed + 1
    while line < len(lines) and (
        not lines[line].strip() or lines[line].lstrip("#").strip() == str(title)
    ):
        line += 1
    opening = " ".join(" ".join(lines[line:]).split())[:SNIPPET_CHARS]
    return Found(
        rowid,
        str(path),
        str(workspace),
        str(rel_path),
        str(title),
        min(line + 1, len(lines)),
        opening,
        None,
    )


def _title_hit(row: Sequence[object]) -> Found:
    rowid, path, workspace, rel_path, title, _key = row
    return Found(
        int(str(rowid)), str(path), str(workspace), str(rel_path), str(title), 1, str(title), None
    )


def _title_score(key: str, needle: str) -> float:
    title, _, rel_path = key.partition("\n")
    if title.startswith(needle):
        return 0.0
    if needle in title:
        return 1.0
    if needle in rel_path:
        return 2.0
    position, spread, start = -1, 0, -1
    for char in needle:
        found = key.find(char, position + 1)
        if found < 0:
            return 9.0
        if start < 0:
            start = found
        position = found
    spread = position - start
    return 3.0 + spread / (spread + len(needle))


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
