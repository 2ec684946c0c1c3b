"""History of a real ``quire serve`` over a real git repository: people typing over the
WebSocket and agents saving through the API at once make one commit per (author, burst), and
a kill -9 in the middle of a burst loses no commit that was due (the next start makes it)."""

from __future__ import annotations

import signal
from pathlib import Path

import anyio
import httpx
import pytest

from bench.server import RunningServer, quire_serve
from bench.yjs_client import yjs_browser
from tests.support.git_repo import log, make_repo, user_git

pytestmark = pytest.mark.anyio

AGENTS = ("agent-1", "agent-2")
SAVES = 5


def world(tmp_path: Path) -> tuple[Path, Path]:
    notes = {"person.md": "# Person\n", **{f"{name}.md": f"# {name}\n" for name in AGENTS}}
    workspace = make_repo(tmp_path / "workspace", notes).resolve()
    state = tmp_path / "state"
    state.mkdir()
    # A long window: every save of one author on one note joins one burst until the stop.
    (state / "quire.toml").write_text("[history]\nwindow = 600\n", encoding="utf-8")
    return workspace, state


async def agents_save(server: RunningServer, workspace: Path) -> dict[str, str]:
    """Each agent appends to its own note SAVES times, all at once; the texts they end with."""
    final: dict[str, str] = {}
    async with httpx.AsyncClient(base_url=server.url, headers=server.auth, timeout=60) as client:

        async def agent(name: str) -> None:
            path = workspace / f"{name}.md"
            headers = {"X-Quire-Agent": name}
            for number in range(SAVES):
                body = {"path": str(path), "content": f"save {number}\n"}
                done = await client.post("/api/files/append", json=body, headers=headers)
                assert done.status_code == 200, done.text
            final[name] = path.read_text(encoding="utf-8")

        async with anyio.create_task_group() as group:
            for name in AGENTS:
                group.start_soon(agent, name)
    return final


async def test_people_and_agents_at_once_make_one_commit_per_author_and_burst(
    tmp_path: Path,
) -> None:
    workspace, state = world(tmp_path)
    person = workspace / "person.md"
    async with (
        quire_serve(workspace, state, tmp_path / "server.log") as server,
        httpx.AsyncClient(base_url=server.url, timeout=60) as browser,
    ):  # fmt: skip
        signed_in = await browser.get("/", params={"token": server.token})
        assert signed_in.status_code in (200, 303), signed_in.text
        origin = {"Origin": server.url}
        opened = await browser.post(
            "/api/documents/open", json={"path": str(person)}, headers=origin
        )
        assert opened.status_code == 200, opened.text
        async with (
            yjs_browser(server.url, opened.json()["docId"], server.token) as typing,
            anyio.create_task_group() as group,
        ):
            group.start_soon(agents_save, server, workspace)
            for round_ in range(3):
                typing.insert(len(typing.text), f"typed {round_}\n")
                wanted = "# Person\n" + "".join(f"typed {n}\n" for n in range(round_ + 1))
                with anyio.fail_after(20):
                    # Until the server has the keystrokes (each read is one round trip).
                    while (await browser.get("/api/documents/current", headers=origin)).json()[
                        "content"
                    ] != wanted:
                        pass
                saved = await browser.post(
                    "/api/documents/save", json={"path": str(person)}, headers=origin
                )
                assert saved.status_code == 200, saved.text
        final = await agents_texts(workspace)
    # The server stopped (SIGTERM): its pending commits were made on the way out.
    assert sorted(log(workspace)[:3]) == sorted(
        ["owner|Edit by owner", *(f"{name} (via owner)|Edit by {name}" for name in AGENTS)]
    )
    assert log(workspace)[3:] == ["Test User|start"]
    assert user_git(workspace, "show", "HEAD:person.md") == person.read_text(encoding="utf-8")
    for name, text in final.items():
        assert user_git(workspace, "show", f"HEAD:{name}.md") == text
    assert user_git(workspace, "status", "--porcelain") == ""


async def commit_messages(client: httpx.AsyncClient, note: Path) -> list[str]:
    """The messages of ``note``'s commits as GET /api/history lists them, newest first."""
    answer = await client.get("/api/history", params={"path": str(note)})
    assert answer.status_code == 200, answer.text
    return [entry["message"] for entry in answer.json()["entries"]]


async def agents_texts(workspace: Path) -> dict[str, str]:
    return {name: (workspace / f"{name}.md").read_text(encoding="utf-8") for name in AGENTS}


async def test_a_kill_9_during_a_burst_loses_no_commit_the_next_start_makes_them(
    tmp_path: Path,
) -> None:
    workspace, state = world(tmp_path)
    async with quire_serve(workspace, state, tmp_path / "server.log") as server:
        final = await agents_save(server, workspace)
        server.process.send_signal(signal.SIGKILL)
        with anyio.fail_after(20):
            await server.process.wait()
    assert log(workspace) == ["Test User|start"]  # nothing was committed before the kill
    assert (state / "history-pending.jsonl").stat().st_size > 0
    async with (
        quire_serve(workspace, state, tmp_path / "server2.log") as again,
        httpx.AsyncClient(base_url=again.url, headers=again.auth, timeout=60) as client,
    ):
        # The owed commits show in history while this server runs (its start made them, not
        # its stop); its window of 600 s would hold any new save's commit until the stop.
        for name in AGENTS:
            with anyio.fail_after(20):
                while await commit_messages(client, workspace / f"{name}.md") != [
                    f"Edit by {name}",
                    "start",
                ]:
                    pass  # each read is one round trip to the server
        assert sorted(log(workspace)[:2]) == sorted(
            f"{name} (via owner)|Edit by {name}" for name in AGENTS
        )
    for name, text in final.items():
        assert user_git(workspace, "show", f"HEAD:{name}.md") == text
    assert (state / "history-pending.jsonl").stat().st_size == 0
