"""Starting and linking to a server: auto-start and the server link (discovery is settings')."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import anyio
import pytest

from quire.client.autostart import LOG_FILE_NAME, SubprocessStarter
from quire.client.connection import ServerLink
from quire.core.errors import ServerUnreachable
from quire.core.server_info import ServerInfo, dumps
from quire.settings.server_file import is_process_alive

pytestmark = pytest.mark.anyio


def write_server_file(state: Path, info: ServerInfo) -> None:
    state.mkdir(parents=True, exist_ok=True)
    (state / "server.json").write_text(dumps(info), encoding="utf-8")


class CountingStarter:
    """Starts a pretend server once the test lets it, counting the starts."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.starts = 0
        self.called = anyio.Event()
        self.release = anyio.Event()

    async def start(self) -> ServerInfo:
        self.starts += 1
        self.called.set()
        await self.release.wait()
        info = ServerInfo(url="http://127.0.0.1:9", token="t", pid=os.getpid())
        write_server_file(self.state, info)
        return info


async def test_calls_that_need_a_server_at_once_start_only_one(tmp_path: Path) -> None:
    starter = CountingStarter(tmp_path)
    link = ServerLink(state=tmp_path, starter=starter)
    found: list[ServerInfo] = []
    async with anyio.create_task_group() as group:
        for _ in range(3):

            async def need() -> None:
                found.append((await link.api()).info)

            group.start_soon(need)
        with anyio.fail_after(5):
            await starter.called.wait()
        starter.release.set()
    await link.aclose()
    assert starter.starts == 1
    assert len(found) == 3 and len(set(found)) == 1
    assert link.started == found[0]


async def test_a_link_acting_for_an_agent_shares_the_server_it_started(tmp_path: Path) -> None:
    starter = CountingStarter(tmp_path)
    starter.release.set()
    link = ServerLink(state=tmp_path, starter=starter)
    agent = link.for_agent("test-agent")
    started = await agent.api()
    again = await link.for_agent("other").api()
    plain = await link.running()
    await link.aclose()
    assert starter.starts == 1
    assert link.started == agent.started == started.info
    assert (agent.agent, link.agent) == ("test-agent", None)
    assert plain is not None and plain.info == again.info == started.info
    assert (agent.state, agent.server_file) == (link.state, link.server_file)


async def test_a_link_without_a_starter_explains_how_to_start_one(tmp_path: Path) -> None:
    link = ServerLink(state=tmp_path)
    assert await link.running() is None
    with pytest.raises(ServerUnreachable, match="quire serve"):
        await link.api()


async def test_a_fixed_server_is_used_without_reading_server_json(tmp_path: Path) -> None:
    info = ServerInfo(url="http://127.0.0.1:9", token="t", pid=1)
    link = ServerLink(state=tmp_path / "nowhere", fixed=info)
    api = await link.running()
    assert api is not None and api.info == info
    await link.aclose()


def fake_server(state: Path) -> list[str]:
    """A stand-in for `quire serve`: writes server.json with its own pid, then waits."""
    script = (
        "import json, os, pathlib, signal; "
        f"p = pathlib.Path({str(state)!r}) / 'server.json'; "
        "p.write_text(json.dumps({'url': 'http://127.0.0.1:9', 'token': 't', "
        "'pid': os.getpid()})); signal.pause()"
    )
    return [sys.executable, "-c", script]


async def always(info: ServerInfo, server_file: Path) -> bool:
    return True


async def test_the_starter_waits_for_server_json_and_health(tmp_path: Path) -> None:
    state = tmp_path / "state"
    starter = SubprocessStarter(
        state=state, cwd=tmp_path, environ=os.environ, probe=always, command=fake_server(state)
    )
    info = await starter.start()
    try:
        assert json.loads((state / "server.json").read_text())["pid"] == info.pid
        assert is_process_alive(info.pid)
        assert (state / LOG_FILE_NAME).stat().st_mode & 0o777 == 0o600
    finally:
        os.kill(info.pid, signal.SIGTERM)


async def test_a_server_that_stops_at_once_is_reported_with_its_log(tmp_path: Path) -> None:
    state = tmp_path / "state"
    command = [
        sys.executable,
        "-c",
        "import sys; print('port taken', file=sys.stderr); sys.exit(3)",
    ]
    starter = SubprocessStarter(
        state=state, cwd=tmp_path, environ=os.environ, probe=always, command=command
    )
    with pytest.raises(ServerUnreachable) as caught:
        await starter.start()
    assert "exit status 3" in str(caught.value)
    assert "port taken" in str(caught.value)


async def test_a_server_that_never_answers_is_given_up_on_in_time(tmp_path: Path) -> None:
    state = tmp_path / "state"

    async def never(info: ServerInfo, server_file: Path) -> bool:
        return False

    starter = SubprocessStarter(
        state=state,
        cwd=tmp_path,
        environ=os.environ,
        probe=never,
        timeout=0.5,
        command=fake_server(state),
    )
    with pytest.raises(ServerUnreachable, match=r"did not answer within 0\.5 seconds"):
        await starter.start()
    pid = json.loads((state / "server.json").read_text())["pid"]
    os.kill(pid, signal.SIGTERM)


async def test_a_command_that_cannot_run_says_to_start_the_server_by_hand(tmp_path: Path) -> None:
    starter = SubprocessStarter(
        state=tmp_path / "state",
        cwd=tmp_path,
        environ=os.environ,
        probe=always,
        command=[str(tmp_path / "no-such-program")],
    )
    with pytest.raises(ServerUnreachable, match="Start it yourself with `quire serve`"):
        await starter.start()
