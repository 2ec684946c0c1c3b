"""The user's own git work under way while notes are saved, with a real git: a rebase stopped
for an edit or on a conflict, a merge with a conflict, and a pull from another clone. History
holds its commits while a rebase or merge is under way (HEAD is the user's then) and makes
them once it ends, on top of the user's result; nothing is lost."""

from __future__ import annotations

import logging
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from quire.core.history import operation_in_progress
from quire.core.views import OWNER
from quire.services.history.journal import JOURNAL_FILE, Journal
from quire.services.history.recorder import HistoryRecorder
from quire.vault.commits import Repository
from quire.vault.git import Git
from tests.support.git_repo import USER, git_env, log, make_repo, user_git

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def recording(
    repo: Path, state: Path, window_s: float = 0.0
) -> AsyncIterator[HistoryRecorder]:
    repository = Repository(Git(repo, git_env()))
    journal = Journal(state / JOURNAL_FILE)
    async with HistoryRecorder(
        {repo: repository},
        journal,
        window_s=window_s,
        clock=lambda: 1_700_000_000_000,
        hold_recheck_s=0.05,
    ) as recorder:
        yield recorder


def git_as_user(
    repo: Path, *args: str, check: bool = True, env: dict[str, str] | None = None
) -> str:
    """git as the user runs it, with ``env`` (a sequence editor) and no editor to wait for."""
    done = subprocess.run(
        ["git", *USER, *args],
        cwd=repo,
        capture_output=True,
        env={**git_env(), "GIT_EDITOR": "true", **(env or {})},
        check=False,
    )
    assert done.returncode == 0 or not check, done.stderr.decode()
    return done.stdout.decode()


def save(recorder: HistoryRecorder, path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    recorder.saved(path, OWNER, text.encode("utf-8"))


def rev(repo: Path, name: str) -> str:
    return user_git(repo, "rev-parse", name).strip()


def owed(state: Path) -> int:
    return (state / JOURNAL_FILE).stat().st_size


async def held_through_flush(recorder: HistoryRecorder, repo: Path) -> None:
    """Flushing returns while the commits are held, and HEAD and the branch stay the user's."""
    head, main = rev(repo, "HEAD"), rev(repo, "main")
    with anyio.fail_after(20):
        await recorder.flush()
    assert (rev(repo, "HEAD"), rev(repo, "main")) == (head, main)


def diverged(tmp_path: Path) -> Path:
    """A repository whose ``main`` and ``other`` changed ``b.md`` differently."""
    repo = make_repo(tmp_path / "ws", {"a.md": "a\n", "b.md": "b\n"}).resolve()
    user_git(repo, "switch", "-q", "-c", "other")
    (repo / "b.md").write_text("b on other\n", encoding="utf-8")
    user_git(repo, "commit", "-qam", "other's b")
    user_git(repo, "switch", "-q", "main")
    (repo / "b.md").write_text("b on main\n", encoding="utf-8")
    user_git(repo, "commit", "-qam", "main's b")
    return repo


async def test_saves_during_a_rebase_stopped_for_an_edit_are_committed_once_it_ends(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    repo = make_repo(tmp_path / "ws", {"a.md": "a\n", "b.md": "b\n"}).resolve()
    for number in (1, 2):
        (repo / "b.md").write_text(f"b{number}\n", encoding="utf-8")
        user_git(repo, "commit", "-qam", f"b{number}")
    editor = {"GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/edit/"}
    git_as_user(repo, "rebase", "-q", "-i", "HEAD~2", env=editor)
    assert (repo / ".git" / "rebase-merge").is_dir()  # stopped on b1, HEAD detached
    state = tmp_path / "state"
    with caplog.at_level(logging.INFO, logger="quire.services.history.recorder"):
        async with recording(repo, state) as recorder:
            save(recorder, repo / "new.md", "a new note mid-rebase\n")
            save(recorder, repo / "a.md", "a saved mid-rebase\n")
            await held_through_flush(recorder, repo)
            assert owed(state) > 0
            assert "A rebase is under way in" in caplog.text
            assert "git rebase --continue" in caplog.text
            # git continues only without unstaged changes: the user puts the save of a.md
            # into the commit being rebased (docs/history.md says so).
            user_git(repo, "add", "a.md")
            git_as_user(repo, "rebase", "--continue")
            with anyio.fail_after(20):
                await recorder.settled(held=True)  # made by itself once the rebase is over
            assert "The rebase in" in caplog.text and "has ended" in caplog.text
    assert log(repo) == ["owner|Edit by owner", "Test User|b2", "Test User|b1", "Test User|start"]
    assert user_git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["new.md"]
    assert user_git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert user_git(repo, "show", "HEAD:a.md") == "a saved mid-rebase\n"
    assert user_git(repo, "status", "--porcelain") == ""
    assert owed(state) == 0


async def test_a_save_during_a_rebase_stopped_on_a_conflict_lands_on_the_rebased_branch(
    tmp_path: Path,
) -> None:
    repo = diverged(tmp_path)
    git_as_user(repo, "rebase", "-q", "other", check=False)
    assert (repo / ".git" / "rebase-merge").is_dir()
    state = tmp_path / "state"
    async with recording(repo, state) as recorder:
        save(recorder, repo / "new.md", "saved mid-rebase\n")
        await held_through_flush(recorder, repo)
        assert user_git(repo, "ls-files", "-u").strip() != ""  # the user's conflict, untouched
        (repo / "b.md").write_text("b resolved\n", encoding="utf-8")
        user_git(repo, "add", "b.md")
        save(recorder, repo / "new.md", "saved again mid-rebase\n")
        git_as_user(repo, "rebase", "--continue")
        with anyio.fail_after(20):
            await recorder.flush()
    # Two saves with no window are two commits, held in order, on the rebased branch.
    assert log(repo)[:4] == [
        "owner|Edit by owner",
        "owner|Edit by owner",
        "Test User|main's b",
        "Test User|other's b",
    ]
    assert user_git(repo, "show", "HEAD:new.md") == "saved again mid-rebase\n"
    assert user_git(repo, "show", "HEAD:b.md") == "b resolved\n"
    assert user_git(repo, "status", "--porcelain") == ""


async def test_a_save_during_a_merge_with_a_conflict_lands_on_the_merge_commit(
    tmp_path: Path,
) -> None:
    repo = diverged(tmp_path)
    git_as_user(repo, "merge", "-q", "other", check=False)
    assert (repo / ".git" / "MERGE_HEAD").is_file()
    state = tmp_path / "state"
    async with recording(repo, state) as recorder:
        save(recorder, repo / "a.md", "saved mid-merge\n")
        await held_through_flush(recorder, repo)
        assert (repo / ".git" / "MERGE_HEAD").is_file()
        (repo / "b.md").write_text("b merged\n", encoding="utf-8")
        user_git(repo, "add", "b.md")
        git_as_user(repo, "commit", "-q", "--no-edit")
        with anyio.fail_after(20):
            await recorder.settled(held=True)
    assert log(repo, "-2") == ["owner|Edit by owner", "Test User|Merge branch 'other'"]
    assert len(user_git(repo, "rev-parse", "HEAD~1^@").split()) == 2  # the user's merge
    assert user_git(repo, "show", "HEAD:a.md") == "saved mid-merge\n"
    assert user_git(repo, "show", "HEAD:b.md") == "b merged\n"
    assert user_git(repo, "status", "--porcelain") == ""


async def test_a_pull_from_another_clone_while_notes_are_saved_keeps_every_commit(
    tmp_path: Path,
) -> None:
    origin = tmp_path / "origin.git"
    make_repo(tmp_path / "seed", {"a.md": "a\n", "c.md": "c\n"})
    user_git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "seed"), str(origin))
    user_git(tmp_path, "clone", "-q", str(origin), str(tmp_path / "ws"))
    user_git(tmp_path, "clone", "-q", str(origin), str(tmp_path / "laptop"))
    repo, laptop = (tmp_path / "ws").resolve(), tmp_path / "laptop"

    def push_from_laptop(number: int) -> str:
        (laptop / "c.md").write_text(f"c from the laptop {number}\n", encoding="utf-8")
        user_git(laptop, "commit", "-qam", f"laptop {number}")
        user_git(laptop, "push", "-q", "origin", "main")
        return rev(laptop, "HEAD")

    async with recording(repo, tmp_path / "state", window_s=600) as recorder:
        repository = recorder.repository_of(repo / "a.md")
        assert repository is not None
        build = repository[0]._commit_tree
        pulled: list[str] = []

        def pull_meanwhile(*args):  # type: ignore[no-untyped-def]
            # The user pulls between Quire's tree and its update-ref: a fast-forward first,
            # then (Quire's commits being local) a merge.
            if len(pulled) < 2:
                pulled.append(push_from_laptop(len(pulled)))
                git_as_user(repo, "pull", "-q", "--no-rebase", "origin", "main")
            return build(*args)

        repository[0]._commit_tree = pull_meanwhile  # type: ignore[method-assign]
        for round_ in range(2):
            save(recorder, repo / "a.md", f"a saved {round_}\n")
            save(recorder, repo / "b.md", f"b saved {round_}\n")
            with anyio.fail_after(20):
                await recorder.flush()
    messages = [line.split("|", 1)[1] for line in log(repo)]
    assert messages.count("Edit by owner") == 4
    assert messages[0] == "Edit by owner"
    for laptop_commit in pulled:
        user_git(repo, "merge-base", "--is-ancestor", laptop_commit, "HEAD")
    assert user_git(repo, "show", "HEAD:a.md") == "a saved 1\n"
    assert user_git(repo, "show", "HEAD:b.md") == "b saved 1\n"
    assert user_git(repo, "show", "HEAD:c.md") == f"c from the laptop {len(pulled) - 1}\n"
    assert user_git(repo, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("names", "operation"),
    [
        (set(), None),
        ({"MERGE_HEAD"}, "merge"),
        ({"rebase-merge"}, "rebase"),
        ({"rebase-apply"}, "rebase"),
        ({"rebase-apply", "rebase-apply/applying"}, "am"),
        ({"CHERRY_PICK_HEAD"}, "cherry-pick"),
        ({"sequencer"}, "cherry-pick"),
        ({"REVERT_HEAD"}, "revert"),
        ({"BISECT_LOG"}, "bisect"),
        ({"ORIG_HEAD", "FETCH_HEAD", "index.lock"}, None),
    ],
)
def test_each_git_operation_is_named_from_what_its_git_folder_holds(
    names: set[str], operation: str | None
) -> None:
    assert operation_in_progress(names.__contains__) == operation
