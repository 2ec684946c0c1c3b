"""The recorder over the real services and a real repository: bursts per (author, note),
their order when authors take turns, a burst's window running out, chat posts grouped, and
the journal after a close."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from quire.core.history import commit_author
from quire.core.views import OWNER
from quire.services.app import AppServices, open_services
from quire.services.history.authors import acting
from quire.services.history.journal import JOURNAL_FILE, Journal
from quire.services.history.recorder import HistoryRecorder
from quire.settings.model import Settings
from quire.vault.commits import Repository
from quire.vault.git import Git
from tests.support.git_repo import git_env, log, make_repo, user_git
from tests.support.machines import machine_under

pytestmark = pytest.mark.anyio


def settings_of(tmp_path: Path, window: float = 600.0) -> Settings:
    workspace = make_repo(tmp_path / "ws", {"plan.md": "# Plan\n"}).resolve()
    return Settings(workspaces=(workspace,), state_dir=tmp_path / "state", history_window_s=window)


async def save_as(services: AppServices, agent: str, path: Path, text: str) -> None:
    token = acting.set(commit_author(OWNER, agent))
    try:
        live = await services.documents.open(path)
        await services.documents.set_content(live.doc_id, text, author=agent, save=True)
    finally:
        acting.reset(token)


async def flushed(services: AppServices) -> None:
    assert services.history is not None
    with anyio.fail_after(20):
        await services.history.recorder.flush()


async def test_authors_taking_turns_on_one_note_make_a_commit_per_turn_in_order(
    tmp_path: Path,
) -> None:
    settings = settings_of(tmp_path)
    plan = settings.workspaces[0] / "plan.md"
    async with open_services(
        settings, token="t" * 64, clock=lambda: 1_700_000_000_000, machine=machine_under(tmp_path)
    ) as services:
        await save_as(services, "a", plan, "a1\n")
        await save_as(services, "a", plan, "a2\n")
        await save_as(services, "b", plan, "b1\n")
        await save_as(services, "a", plan, "a3\n")
        await save_as(services, "a", plan, "a4\n")
        await flushed(services)
        repo = settings.workspaces[0]
        assert log(repo) == [
            "a (via owner)|Edit by a",
            "b (via owner)|Edit by b",
            "a (via owner)|Edit by a",
            "Test User|start",
        ]
        texts = [user_git(repo, "show", f"HEAD~{n}:plan.md") for n in (2, 1, 0)]
        assert texts == ["a2\n", "b1\n", "a4\n"]


async def test_a_thousand_chat_posts_by_two_people_make_two_commits(tmp_path: Path) -> None:
    settings = settings_of(tmp_path)
    chat = settings.workspaces[0] / "team.md"
    async with open_services(
        settings, token="t" * 64, clock=lambda: 1_700_000_000_000, machine=machine_under(tmp_path)
    ) as services:
        assert services.chats is not None
        await services.chats.create(OWNER, chat, "Team")
        await flushed(services)
        for number in range(500):
            await services.chats.post(OWNER, chat, "ann", f"hello {number}")
        for number in range(500):
            await services.chats.post(OWNER, chat, "bob", f"hi {number}")
        await flushed(services)
        repo = settings.workspaces[0]
        # Outside a request the poster's name is the author (as an agent working for the owner).
        assert log(repo)[:2] == ["bob (via owner)|Chat post", "ann (via owner)|Chat post"]
        messages = [line.split("|", 1)[1] for line in log(repo)]
        assert messages.count("Chat post") == 2
        assert user_git(repo, "show", "HEAD:team.md") == chat.read_text(encoding="utf-8")


async def test_closing_makes_the_pending_commits_and_empties_the_journal(tmp_path: Path) -> None:
    settings = settings_of(tmp_path)
    plan = settings.workspaces[0] / "plan.md"
    async with open_services(
        settings, token="t" * 64, clock=lambda: 1_700_000_000_000, machine=machine_under(tmp_path)
    ) as services:
        await save_as(services, "a", plan, "pending\n")
        journal = settings.state_dir / "history-pending.jsonl"
        assert journal.stat().st_size > 0
        assert log(settings.workspaces[0]) == ["Test User|start"]
    assert log(settings.workspaces[0]) == ["a (via owner)|Edit by a", "Test User|start"]
    assert journal.stat().st_size == 0


async def test_a_burst_closes_when_its_window_runs_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "ws", {"plan.md": "# Plan\n"}).resolve()
    plan = repo / "plan.md"
    now = [1000.0]  # the recorder's clock, moved by hand: no waiting
    recorder = HistoryRecorder(
        {repo: Repository(Git(repo, git_env()))},
        Journal(tmp_path / "state" / JOURNAL_FILE),
        window_s=3.0,
        clock=lambda: 1_700_000_000_000,
        monotonic=lambda: now[0],
    )
    async with recorder:
        for at, text in ((0.0, "1\n"), (2.9, "2\n"), (3.1, "3\n"), (5.0, "4\n"), (6.2, "5\n")):
            now[0] = 1000.0 + at
            plan.write_text(text, encoding="utf-8")
            recorder.saved(plan, OWNER, text.encode("utf-8"))
        with anyio.fail_after(20):
            await recorder.flush()
    # 0 and 2.9 s share the first window; 3.1 s opens a second (to 6.1 s) that 5 s joins; 6.2 s
    # is past it.
    assert log(repo) == ["owner|Edit by owner"] * 3 + ["Test User|start"]
    texts = [user_git(repo, "show", f"HEAD~{n}:plan.md") for n in (2, 1, 0)]
    assert texts == ["2\n", "4\n", "5\n"]


async def test_history_on_for_a_plain_folder_runs_git_init_and_the_first_save_is_a_commit(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "notes"
    workspace.mkdir()
    (workspace / "plan.md").write_text("# Plan\n", encoding="utf-8")
    settings = Settings(
        workspaces=(workspace.resolve(),), state_dir=tmp_path / "state", history=True
    )
    assert not (workspace / ".git").exists()
    async with open_services(
        settings, token="t" * 64, clock=lambda: 1_700_000_000_000, machine=machine_under(tmp_path)
    ) as services:
        assert (workspace / ".git").is_dir()
        assert user_git(workspace, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
        await save_as(services, "a", workspace.resolve() / "plan.md", "# Plan\n\nfirst save\n")
        await flushed(services)
    assert log(workspace) == ["a (via owner)|Edit by a"]
    assert user_git(workspace, "show", "HEAD:plan.md") == "# Plan\n\nfirst save\n"
