"""The history benchmark's repository: fast-import makes exactly the notes and commits asked
for, checked out clean, the same every time."""

from __future__ import annotations

from pathlib import Path

from bench import history
from tests.support.git_repo import user_git


def test_the_bench_repository_holds_the_notes_and_commits_asked_for(tmp_path: Path) -> None:
    repo = history.make_repository(tmp_path, notes=20, commits=45)
    assert user_git(repo, "rev-list", "--count", "HEAD").strip() == "45"
    assert len(list((repo / "notes").rglob("*.md"))) == 20
    assert user_git(repo, "status", "--porcelain") == ""
    assert (repo / "notes" / "000" / "n00004.md").read_text(encoding="utf-8") == (
        "# Note 4\n\nChanged in commit 44.\n"
    )
    (tmp_path / "again").mkdir()
    again = history.make_repository(tmp_path / "again", notes=20, commits=45)
    assert user_git(again, "rev-parse", "HEAD") == user_git(repo, "rev-parse", "HEAD")
