"""Quire's temp files: recognised by name, removed only when stale, never anyone else's file."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from watchfiles import Change

from quire.fs.atomic import write_atomic
from quire.fs.temp_names import STALE_AFTER_S, is_stale, is_temp_name, temp_name
from quire.fs.walk import walk_tree
from quire.vault.temp_files import remove_if_stale, sweep
from quire.vault.watch import fold_changes


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def temp_of(pid: int, final: str = "chat.md") -> str:
    return temp_name(final).replace(f"-{os.getpid()}-", f"-{pid}-")


def test_a_temp_name_is_recognised_and_names_its_final_file() -> None:
    name = temp_name("chat.md")
    assert name.startswith(".chat.md.") and name.endswith(".quire.tmp")
    assert is_temp_name(name)
    assert is_temp_name(temp_name("x" * 300))
    assert len(temp_name("x" * 300)) < 100


def test_other_names_are_not_temp_names() -> None:
    for name in [
        "chat.md",
        ".chat.md.tmp",
        ".chat.md.abc.tmp",
        ".env.0123456789ab.tmp",  # not a Markdown document's old temp name
        ".chat.md.0123456789AB.tmp",
        ".chat.md.01234567-12-0123456789ab.quire.tmp.bak",
        "chat.md.01234567-12-0123456789ab.quire.tmp",
        ".chat.md.0123456-12-0123456789ab.quire.tmp",
        ".chat.md.01234567-0-0123456789ab.quire.tmp",
    ]:
        assert not is_temp_name(name), name
    # The name Quire wrote before this rule, for a Markdown document.
    assert is_temp_name(".chat.md.0123456789ab.tmp")


def test_a_temp_of_a_running_writer_is_fresh_and_of_a_dead_one_stale(tmp_path: Path) -> None:
    now = time.time()
    mine = tmp_path / temp_name("a.md")
    mine.write_text("x")
    assert not is_stale(mine.name, mine.lstat(), now=now)
    assert is_stale(mine.name, mine.lstat(), now=now + STALE_AFTER_S + 1)
    gone = tmp_path / temp_of(dead_pid())
    gone.write_text("x")
    assert is_stale(gone.name, gone.lstat(), now=now)


def test_removal_never_touches_links_folders_or_other_files(tmp_path: Path) -> None:
    later = time.time() + STALE_AFTER_S + 10
    outside = tmp_path / "outside.md"
    outside.write_text("keep")
    link = tmp_path / temp_of(dead_pid(), "link.md")
    link.symlink_to(outside)
    folder = tmp_path / temp_of(dead_pid(), "dir.md")
    folder.mkdir()
    other = tmp_path / ".notes.md.tmp"
    other.write_text("someone's")
    for path in (link, folder, other, outside):
        assert remove_if_stale(path, now=later) is None
    assert link.is_symlink() and folder.is_dir() and other.exists() and outside.exists()


def test_a_sweep_removes_stale_temps_below_the_root_and_keeps_fresh_ones(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "note.md").write_text("note")
    stale = tmp_path / "sub" / temp_of(dead_pid())
    stale.write_text("half a chat")
    fresh = tmp_path / temp_name("note.md")
    fresh.write_text("being written")
    hidden = tmp_path / ".git"
    hidden.mkdir()
    in_hidden = hidden / temp_of(dead_pid())
    in_hidden.write_text("not walked")
    swept = sweep([tmp_path])
    assert swept.removed == [stale] and swept.fresh == [fresh]
    assert not stale.exists() and fresh.exists() and in_hidden.exists()
    assert (tmp_path / "note.md").read_text() == "note"


def test_temp_files_are_never_listed_nor_reported_as_changes(tmp_path: Path) -> None:
    temp = tmp_path / temp_name("note.md")
    temp.write_text("x")
    walk = walk_tree(tmp_path, keep=lambda name: True)
    assert walk.files == [] and walk.temp_files == [temp]
    assert fold_changes([(Change.added, str(temp))]) == []


def test_an_atomic_write_uses_a_temp_name_and_leaves_none(tmp_path: Path) -> None:
    target = tmp_path / "doc.md"
    write_atomic(target, "text", overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.md"]
