"""Commits of one path through a temporary index, against a real git repository."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from quire.core.history import commit_author
from quire.vault.commits import Change, CommitRequest, Held, Repository
from quire.vault.git import Git
from tests.support.git_repo import git_env, log, make_repo, user_git

ALICE = commit_author("alice")
AGENT = commit_author("alice", agent="claude-code")


def repository(folder: Path) -> Repository:
    return Repository(Git(folder, git_env()))


def request(*changes: Change, author=ALICE, message: str = "Edit by alice") -> CommitRequest:  # type: ignore[no-untyped-def]
    return CommitRequest(tuple(changes), author, message, int(time.time()))


def test_a_commit_takes_one_path_and_leaves_staged_and_working_changes_as_they_were(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "r", {"a.md": "a\n", "b.md": "b\n", "c.md": "c\n"})
    (repo / "b.md").write_text("b staged\n", encoding="utf-8")
    user_git(repo, "add", "b.md")
    (repo / "c.md").write_text("c in the working tree\n", encoding="utf-8")
    (repo / "a.md").write_text("a saved\n", encoding="utf-8")
    made = repository(repo).commit(
        request(Change("a.md", b"a saved\n"), author=AGENT, message="Edit by claude-code")
    )
    assert made is not None
    assert log(repo, "-1") == ["claude-code (via alice)|Edit by claude-code"]
    assert user_git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["a.md"]
    status = user_git(repo, "status", "--porcelain")
    assert sorted(status.splitlines()) == [" M c.md", "M  b.md"]
    assert user_git(repo, "show", ":b.md") == "b staged\n"
    assert (repo / "c.md").read_text(encoding="utf-8") == "c in the working tree\n"


def test_a_path_the_user_staged_stays_staged_while_its_save_is_committed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.md": "one\n"})
    (repo / "a.md").write_text("staged by the user\n", encoding="utf-8")
    user_git(repo, "add", "a.md")
    repository(repo).commit(request(Change("a.md", b"saved by quire\n")))
    assert user_git(repo, "show", "HEAD:a.md") == "saved by quire\n"
    assert user_git(repo, "show", ":a.md") == "staged by the user\n"


def test_the_first_commit_of_an_empty_repository_and_nothing_to_commit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "n.md").write_text("new\n", encoding="utf-8")
    keeper = repository(repo)
    first = keeper.commit(request(Change("n.md")))
    assert first is not None and keeper.head() == first
    assert keeper.commit(request(Change("n.md"))) is None
    assert user_git(repo, "status", "--porcelain") == ""


def test_a_commit_lands_on_the_users_new_head(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.md": "a\n", "b.md": "b\n"})
    keeper = repository(repo)
    (repo / "b.md").write_text("b by the user\n", encoding="utf-8")
    user_git(repo, "commit", "-qam", "user's own")
    keeper.commit(request(Change("a.md", b"a2\n")))
    assert log(repo) == ["alice|Edit by alice", "Test User|user's own", "Test User|start"]
    assert user_git(repo, "show", "HEAD:b.md") == "b by the user\n"


def test_a_folder_rename_is_a_rename_and_a_delete_removes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"d/x.md": "x\n", "d/y.md": "y\n", "z.md": "z\n"})
    (repo / "d").rename(repo / "e")
    keeper = repository(repo)
    keeper.commit(
        request(Change("d", folder=True), Change("e", folder=True), message="Rename d → e")
    )
    renames = user_git(repo, "show", "-M", "--name-status", "--format=", "HEAD").splitlines()
    assert sorted(renames) == ["R100\td/x.md\te/x.md", "R100\td/y.md\te/y.md"]
    (repo / "z.md").unlink()
    keeper.commit(request(Change("z.md"), message="Delete z.md"))
    assert user_git(repo, "show", "--name-status", "--format=", "HEAD").split() == ["D", "z.md"]
    assert user_git(repo, "status", "--porcelain") == ""


def test_a_stale_index_lock_is_removed_and_reported_but_a_held_one_is_kept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.md": "a\n"})
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"")
    old = time.time() - 60
    os.utime(lock, (old, old))
    keeper = repository(repo)
    (repo / "a.md").write_text("a2\n", encoding="utf-8")
    assert keeper.commit(request(Change("a.md"))) is not None
    assert not lock.exists()
    assert [found.path for found in keeper.stale_locks] == [lock]
    assert user_git(repo, "status", "--porcelain") == ""
    # A lock a running process holds open is never taken for a stale one.
    lock.write_bytes(b"")
    os.utime(lock, (old, old))
    with lock.open("rb"):
        assert keeper.clear_stale_locks() == []
        assert lock.exists()
    lock.unlink()


def test_a_stale_branch_lock_does_not_stop_history(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.md": "a\n"})
    lock = repo / ".git" / "refs" / "heads" / "main.lock"
    lock.write_bytes(b"")
    old = time.time() - 60
    os.utime(lock, (old, old))
    assert repository(repo).commit(request(Change("a.md", b"a2\n"))) is not None
    assert user_git(repo, "show", "HEAD:a.md") == "a2\n"


def test_hooks_and_signing_the_user_configured_never_run(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.md": "a\n"})
    user_git(repo, "config", "commit.gpgSign", "true")
    user_git(repo, "config", "gpg.program", "/bin/false")
    hooks = repo / ".git" / "hooks"
    for name in ("pre-commit", "post-commit", "reference-transaction"):
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\ntouch {tmp_path}/ran-{name}\nexit 1\n", encoding="utf-8")
        hook.chmod(0o755)
    assert repository(repo).commit(request(Change("a.md", b"a2\n"))) is not None
    assert list(tmp_path.glob("ran-*")) == []


@pytest.mark.parametrize("name", ["*.md", ":(glob)x", "-n.md", "sp ace.md", "ü.md"])
def test_odd_names_are_literal_paths(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path / "r", {"other.md": "o\n"})
    (repo / name).write_text("odd\n", encoding="utf-8")
    repository(repo).commit(request(Change(name)))
    files = (
        subprocess.run(
            ["git", "-c", "core.quotePath=false", "ls-files", "-z"],
            cwd=repo,
            capture_output=True,
            env=git_env(),
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    assert sorted(filter(None, files)) == sorted([name, "other.md"])


def test_a_user_commit_landing_mid_commit_is_kept_and_the_save_built_again_on_it(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "r", {"a.md": "a\n", "b.md": "b\n"})
    keeper = repository(repo)
    built = keeper._commit_tree
    raced: list[str] = []

    def racing(tree: str, head: str | None, request: CommitRequest) -> str:
        if not raced:  # the user commits between Quire's tree and its update-ref
            (repo / "b.md").write_text("b by the user\n", encoding="utf-8")
            user_git(repo, "commit", "-qm", "user's own", "--", "b.md")
            raced.append(user_git(repo, "rev-parse", "HEAD").strip())
        return built(tree, head, request)

    keeper._commit_tree = racing  # type: ignore[method-assign]
    (repo / "a.md").write_text("a by quire\n", encoding="utf-8")
    made = keeper.commit(request(Change("a.md", b"a by quire\n")))
    assert log(repo) == ["alice|Edit by alice", "Test User|user's own", "Test User|start"]
    assert user_git(repo, "rev-parse", "HEAD~1").strip() == raced[0]
    assert made == user_git(repo, "rev-parse", "HEAD").strip()
    assert user_git(repo, "show", "HEAD:b.md") == "b by the user\n"
    assert user_git(repo, "show", "HEAD:a.md") == "a by quire\n"
    assert user_git(repo, "status", "--porcelain") == ""


def test_a_merge_under_way_holds_the_commit_even_one_begun_while_it_was_built(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "r", {"a.md": "a\n", "b.md": "b\n"})
    user_git(repo, "switch", "-q", "-c", "other")
    (repo / "b.md").write_text("b on other\n", encoding="utf-8")
    user_git(repo, "commit", "-qam", "other's b")
    user_git(repo, "switch", "-q", "main")
    (repo / "b.md").write_text("b on main\n", encoding="utf-8")
    user_git(repo, "commit", "-qam", "main's b")
    keeper = repository(repo)
    built = keeper._commit_tree

    def merging(tree: str, head: str | None, request: CommitRequest) -> str:
        # The user's merge stops on its conflict between Quire's tree and its update-ref.
        subprocess.run(["git", "merge", "-q", "other"], cwd=repo, env=git_env(), check=False)
        return built(tree, head, request)

    keeper._commit_tree = merging  # type: ignore[method-assign]
    head = user_git(repo, "rev-parse", "HEAD")
    assert keeper.commit(request(Change("a.md", b"a2\n"))) == Held("merge")
    assert user_git(repo, "rev-parse", "HEAD") == head
    keeper._commit_tree = built  # type: ignore[method-assign]
    assert keeper.commit(request(Change("a.md", b"a2\n"))) == Held("merge")
    user_git(repo, "merge", "--abort")
    assert keeper.operation() is None
    made = keeper.commit(request(Change("a.md", b"a2\n")))
    assert isinstance(made, str) and user_git(repo, "show", f"{made}:a.md") == "a2\n"
