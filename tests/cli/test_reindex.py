"""`quire reindex`: rebuilds the index file when no server runs, quiet off a terminal; the
progress bar's line."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from quire.cli.main import cli
from quire.cli.reindex import ProgressBar


def test_reindex_rebuilds_the_index_from_the_files(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    for number in range(3):
        (notes / f"n{number}.md").write_text(f"# N{number}\n", encoding="utf-8")
    (notes / "bad.md").write_bytes(b"\xff\n")
    state = tmp_path / "state"
    result = CliRunner().invoke(cli, ["reindex", str(notes), "--state-dir", str(state)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        "Rebuilt the search index: 4 files (1 could not be read; a search's note names them).\n"
    )
    db = sqlite3.connect(state / "search.sqlite3")
    try:
        rows = db.execute("SELECT rel_path, title FROM notes ORDER BY rel_path").fetchall()
    finally:
        db.close()
    assert rows == [("n0.md", "N0"), ("n1.md", "N1"), ("n2.md", "N2")]


def test_the_progress_bar_shows_files_rate_and_time_left() -> None:
    stream = io.StringIO()
    ticks = iter([0.0, 2.0, 4.0])
    bar = ProgressBar(stream, lambda: next(ticks))
    bar(100, 400)
    bar(400, 400)
    bar.finish()
    first, second = stream.getvalue().strip("\n").split("\r")[1:]
    assert first.startswith("[#######.......................] 100/400 files  50 files/s")
    assert "ETA 6s" in first
    assert "400/400 files  100 files/s" in second
    assert "ETA" not in second
