"""A server spawned on standby by ``quire mcp``: it waits, touching nothing, until the first
tool that needs a server starts it; it ends unused when the client leaves first.

Real processes: ``quire mcp`` driven by the official SDK client over stdio, and the
``quire serve --wait-for-start`` it spawns, found by its command line and state folder in /proc.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from quire.cli.mcp_standby import early_starter
from quire.cli.standby import wait_for_start
from quire.client.autostart import STANDBY_START
from quire.settings.server_file import Found, discover
from tests.support.processes import python_prints

CLIENT = types.Implementation(name="standby-test", version="1")


def test_start_on_the_pipe_starts_it_and_leaves_dev_null_in_its_place() -> None:
    read, write = os.pipe()
    try:
        os.write(write, STANDBY_START)
        assert wait_for_start(read, timeout=5)
        assert os.read(read, 10) == b""  # /dev/null now: the pipe is let go
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.parametrize("said", [b"", b"stop\n", b"star", b"start now\n"])
def test_anything_but_start_ends_it_unused(said: bytes) -> None:
    read, write = os.pipe()
    try:
        os.write(write, said)
        if said != b"star":
            os.close(write)
            write = -1
        assert not wait_for_start(read, timeout=0.5)
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


def test_a_standby_never_started_ends_after_its_wait() -> None:
    read, write = os.pipe()
    try:
        started = time.monotonic()
        assert not wait_for_start(read, timeout=0.2)
        assert time.monotonic() - started < 5
    finally:
        os.close(read)
        os.close(write)


def _state_of(pid: int) -> str | None:
    """The process's state letter (``Z``: ended, not yet reaped), None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].split()[0]
    except OSError:
        return None


def wait_until_gone(pid: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while _state_of(pid) not in (None, "Z"):
        assert time.monotonic() < deadline, f"process {pid} still runs"
        time.sleep(0.05)


def standbys(state: Path) -> list[int]:
    """The live ``quire serve --wait-for-start`` processes whose state folder is ``state`` and
    that are not (yet) its running server."""
    running = discover(state)
    server = running.info.pid if isinstance(running, Found) else None
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        mine = f"QUIRE_HOME={state}".encode() in environ
        alive = _state_of(int(entry.name)) not in (None, "Z")
        pid = int(entry.name)
        if b"--wait-for-start" in command and b"serve" in command and mine and alive:
            found.extend([pid] if pid != server else [])
    return found


PROGRAM = Path(sys.executable).with_name("quire")
"""The installed ``quire`` program (what ``quire setup`` registers with agents)."""
COMMANDS = {
    "program": [str(PROGRAM)],
    "module": [sys.executable, "-m", "quire.cli.main"],
}
"""The two ways ``quire mcp`` is run: the program starts at ``quire.cli.entry``, which spawns
the standby before the command group loads; the module spawns it from the command."""


@pytest.fixture(params=sorted(COMMANDS))
def command(request: pytest.FixtureRequest) -> list[str]:
    words: list[str] = COMMANDS[request.param]
    assert Path(words[0]).is_file(), f"{words[0]} is missing: run scripts/bootstrap"
    return words


@asynccontextmanager
async def quire_mcp(
    tmp_path: Path, command: list[str], *options: str
) -> AsyncIterator[tuple[Client, Path, Path]]:
    """``quire mcp`` in a workspace with a fresh state folder: the client, the note, the state."""
    workspace, state = tmp_path / "ws", tmp_path / "state"
    workspace.mkdir(exist_ok=True)
    note = workspace / "plan.md"
    note.write_text("# Plan\n", encoding="utf-8")
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "mcp", *options],
        env={**os.environ, "QUIRE_HOME": str(state)},
        cwd=str(workspace),
    )
    async with Client(params, mode="legacy", read_timeout_seconds=60, client_info=CLIENT) as c:
        yield c, note, state


def stop_server(state: Path) -> None:
    found = discover(state)
    if isinstance(found, Found):
        os.kill(found.info.pid, signal.SIGTERM)
        wait_until_gone(found.info.pid)


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_first_tool_call_starts_the_standby_not_a_new_process(
    tmp_path: Path, command: list[str]
) -> None:
    async with quire_mcp(tmp_path, command) as (client, note, state):
        waiting = standbys(state)
        assert len(waiting) == 1
        try:
            result = await client.call_tool("open_file", {"path": str(note)})
            assert not result.is_error, result
            found = discover(state)
            assert isinstance(found, Found)
            assert found.info.pid == waiting[0]
        finally:
            stop_server(state)


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_client_that_leaves_before_any_tool_call_leaves_nothing_behind(
    tmp_path: Path, command: list[str]
) -> None:
    async with quire_mcp(tmp_path, command) as (client, _, state):
        await client.list_tools()
        waiting = standbys(state)
        assert len(waiting) == 1
    wait_until_gone(waiting[0])
    assert not (state / "server.json").exists()
    assert not (state / "quire.db").exists()


@pytest.mark.anyio
@pytest.mark.slow
async def test_a_standby_that_died_is_replaced_by_a_new_server(tmp_path: Path) -> None:
    async with quire_mcp(tmp_path, COMMANDS["program"]) as (client, note, state):
        (waiting,) = standbys(state)
        os.kill(waiting, signal.SIGKILL)
        wait_until_gone(waiting)
        try:
            result = await client.call_tool("open_file", {"path": str(note)})
            assert not result.is_error, result
            found = discover(state)
            assert isinstance(found, Found)
            assert found.info.pid != waiting
        finally:
            stop_server(state)


@pytest.mark.anyio
@pytest.mark.slow
async def test_no_standby_is_spawned_while_a_server_runs(
    tmp_path: Path, command: list[str]
) -> None:
    async with quire_mcp(tmp_path, command) as (client, note, state):
        await client.call_tool("open_file", {"path": str(note)})
    try:
        async with quire_mcp(tmp_path, command) as (client, note, state):
            assert standbys(state) == []
            result = await client.call_tool("get_current_content", {})
            assert not result.is_error, result
    finally:
        stop_server(state)


@pytest.mark.anyio
@pytest.mark.slow
@pytest.mark.parametrize(
    "options", [["--server=http://127.0.0.1:9"], ["--server", "http://127.0.0.1:9"]]
)
async def test_no_standby_is_spawned_for_another_server(
    tmp_path: Path, command: list[str], options: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another server's tools never start a local one, whichever way the option is written.
    monkeypatch.setenv("QUIRE_TOKEN", "t" * 32)
    async with quire_mcp(tmp_path, command, *options) as (client, _, state):
        await client.list_tools()
        assert standbys(state) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--server", "@team"],
        ["--server=@team"],
        ["--allow", "/tmp", "--export-tool-schema"],
        ["--help"],
        ["-h"],
        ["--version"],
        ["-V"],
    ],
)
def test_the_entry_point_leaves_the_start_to_the_command_for_these_options(
    tmp_path: Path, args: list[str]
) -> None:
    # Nothing is spawned: with these options `quire mcp` starts no server (or never runs).
    assert early_starter(args, {"QUIRE_HOME": str(tmp_path)}, tmp_path, tmp_path) is None
    assert standbys(tmp_path) == []


def test_any_other_command_loads_nothing_more_at_the_entry_point() -> None:
    # `quire hook` runs on every agent write: its start pays for no standby machinery.
    code = (
        "import sys; sys.argv = ['quire', 'hook', '--help']; "
        "from quire.cli.entry import prepare; "
        "print(prepare(), 'quire.client.autostart' in sys.modules)"
    )
    assert python_prints(code).split() == ["None", "False"]
