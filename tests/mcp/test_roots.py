"""Allowed folders: the server's workspaces, --allow, and the client's roots with their cache."""

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client, StdioServerParameters
from quire.core.errors import PathRefused
from quire.core.server_info import ServerInfo
from quire.mcp.roots import (
    ONLY_ALLOWED_HOW_TO_ADD,
    FolderGate,
    RootsCache,
    file_uri_path,
    root_folders,
)
from tests.mcp.harness import data_of, error_of, make_harness

pytestmark = pytest.mark.anyio


class FakeRoots:
    """A client's roots/list answer, counting how often it is asked."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders
        self.asked = 0
        self.fail = False

    async def __call__(self, context: Any) -> types.ListRootsResult | types.ErrorData:
        self.asked += 1
        if self.fail:
            return types.ErrorData(code=-32603, message="roots broke")
        return types.ListRootsResult(
            roots=[types.Root(uri=folder.as_uri()) for folder in self.folders]  # type: ignore[arg-type]
        )


class SignallingCache(RootsCache):
    """A roots cache that lets a test wait for the change notification to arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.notified = anyio.Event()

    def changed(self) -> None:
        super().changed()
        self.notified.set()


def outside_file(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    path = folder / "notes.md"
    path.write_text("from a root\n", encoding="utf-8")
    return path


async def test_a_client_root_widens_the_allowed_folders_and_is_cached(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    path = outside_file(tmp_path)
    roots = FakeRoots([path.parent])
    async with Client(h.server, mode="legacy", list_roots_callback=roots) as client:
        first = data_of(await client.call_tool("export_text", {"path": str(path)}))
        data_of(await client.call_tool("export_text", {"path": str(path)}))
    assert first["text"] == "from a root"
    assert roots.asked == 1


async def test_a_roots_change_notification_drops_the_cache(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    path = outside_file(tmp_path)
    roots = FakeRoots([])
    cache = SignallingCache()
    h.services.gate.cache = cache
    async with Client(h.server, mode="legacy", list_roots_callback=roots) as client:
        error_of(await client.call_tool("export_text", {"path": str(path)}))
        roots.folders = [path.parent]
        await client.session.send_notification(types.RootsListChangedNotification())
        with anyio.fail_after(5):
            await cache.notified.wait()
        data = data_of(await client.call_tool("export_text", {"path": str(path)}))
    assert data["text"] == "from a root"
    assert roots.asked == 2


async def test_no_roots_ignores_the_client_roots(tmp_path: Path) -> None:
    h = make_harness(tmp_path, use_roots=False)
    path = outside_file(tmp_path)
    roots = FakeRoots([path.parent])
    async with Client(h.server, mode="legacy", list_roots_callback=roots) as client:
        message = error_of(await client.call_tool("export_text", {"path": str(path)}))
    assert "not inside an allowed folder" in message
    assert roots.asked == 0


async def test_a_failed_roots_request_means_no_roots_and_is_remembered(tmp_path: Path) -> None:
    h = make_harness(tmp_path, default_workspace=False)
    path = outside_file(tmp_path)
    roots = FakeRoots([path.parent])
    roots.fail = True
    async with Client(h.server, mode="legacy", list_roots_callback=roots) as client:
        first = error_of(await client.call_tool("export_text", {"path": str(path)}))
        roots.fail = False
        second = error_of(await client.call_tool("export_text", {"path": str(path)}))
    assert "no folder is allowed yet" in first
    assert "no folder is allowed yet" in second
    assert roots.asked == 1


async def test_an_allow_folder_is_allowed_without_roots(tmp_path: Path) -> None:
    path = outside_file(tmp_path)
    h = make_harness(tmp_path, allow=[path.parent], default_workspace=False)
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("export_text", {"path": str(path)}))
    assert data["text"] == "from a root"


async def test_a_root_of_the_whole_disk_is_never_allowed(tmp_path: Path) -> None:
    h = make_harness(tmp_path, default_workspace=False)
    path = outside_file(tmp_path)
    roots = FakeRoots([Path("/")])
    async with Client(h.server, mode="legacy", list_roots_callback=roots) as client:
        message = error_of(await client.call_tool("export_text", {"path": str(path)}))
    assert "no folder is allowed yet" in message


async def test_roots_are_asked_every_time_without_list_changed() -> None:
    cache = RootsCache()
    calls: list[int] = []

    async def ask() -> list[str]:
        calls.append(1)
        return ["file:///tmp"]

    assert await cache.roots(ask, list_changed=False) == [Path("/tmp")]
    await cache.roots(ask, list_changed=False)
    assert len(calls) == 2


async def test_an_answer_in_flight_across_a_change_is_not_cached() -> None:
    cache = RootsCache()
    calls: list[int] = []

    async def ask() -> list[str]:
        calls.append(1)
        if len(calls) == 1:
            cache.changed()
            return ["file:///old"]
        return ["file:///new"]

    assert await cache.roots(ask, list_changed=True) == [Path("/old")]
    assert await cache.roots(ask, list_changed=True) == [Path("/new")]
    assert await cache.roots(ask, list_changed=True) == [Path("/new")]
    assert len(calls) == 2


async def test_a_client_that_does_not_answer_in_time_gives_no_roots() -> None:
    now = [0.0]
    cache = RootsCache(clock=lambda: now[0], timeout=0.01, failure_memory=30)
    never = anyio.Event()
    asked: list[int] = []

    async def ask() -> list[str]:
        asked.append(1)
        await never.wait()
        return []

    assert await cache.roots(ask, list_changed=True) == []
    now[0] = 29.0
    assert await cache.roots(ask, list_changed=True) == []
    assert len(asked) == 1
    now[0] = 31.0

    async def answer() -> list[str]:
        return ["file:///back"]

    assert await cache.roots(answer, list_changed=True) == [Path("/back")]


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///home/me/My%20Notes", Path("/home/me/My Notes")),
        ("file://localhost/srv", Path("/srv")),
        ("file:///caf%C3%A9", Path("/café")),
        ("file://other-host/x", None),
        ("https://example.org/x", None),
        ("file:///bad%FF", None),
        ("file:///nul%00", None),
        ("file:relative", None),
    ],
)
def test_a_root_uri_names_a_local_folder_or_nothing(uri: str, path: Path | None) -> None:
    assert file_uri_path(uri) == path
    assert root_folders([uri]) == ([] if path is None else [path])


STATELESS = "2026-07-28"


async def test_a_stateless_era_client_is_asked_for_its_roots_with_input_required(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path)
    path = outside_file(tmp_path)
    roots = FakeRoots([path.parent])
    async with Client(h.server, mode=STATELESS, list_roots_callback=roots) as client:
        first = data_of(await client.call_tool("export_text", {"path": str(path)}))
        data_of(await client.call_tool("export_text", {"path": str(path)}))
    assert first["text"] == "from a root"
    # One request per call: nothing the client said before is kept, so each call asks.
    assert roots.asked == 2


async def test_a_stateless_era_client_whose_roots_do_not_hold_the_path_is_refused(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path)
    path = outside_file(tmp_path)
    roots = FakeRoots([tmp_path / "elsewhere"])
    (tmp_path / "elsewhere").mkdir()
    async with Client(h.server, mode=STATELESS, list_roots_callback=roots) as client:
        message = error_of(await client.call_tool("export_text", {"path": str(path)}))
    assert "not inside an allowed folder" in message
    assert roots.asked == 1


async def test_a_stateless_era_client_without_roots_is_never_asked(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    path = outside_file(tmp_path)
    async with Client(h.server, mode=STATELESS) as client:
        message = error_of(await client.call_tool("export_text", {"path": str(path)}))
    assert "not inside an allowed folder" in message


async def test_no_roots_ignores_a_stateless_era_client_s_roots(tmp_path: Path) -> None:
    h = make_harness(tmp_path, use_roots=False)
    path = outside_file(tmp_path)
    roots = FakeRoots([path.parent])
    async with Client(h.server, mode=STATELESS, list_roots_callback=roots) as client:
        message = error_of(await client.call_tool("export_text", {"path": str(path)}))
    assert "not inside an allowed folder" in message
    assert roots.asked == 0


@pytest.mark.parametrize("era", ["legacy", STATELESS])
async def test_quire_mcp_over_stdio_takes_the_roots_of_a_client_of_either_era(
    tmp_path: Path, era: str
) -> None:
    path = outside_file(tmp_path)
    roots = FakeRoots([path.parent])
    workspace = tmp_path / "cwd"
    workspace.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "quire.cli.main", "mcp"],
        env={**os.environ, "QUIRE_HOME": str(tmp_path / "state")},
        cwd=workspace,
    )
    async with Client(
        params, mode=era, read_timeout_seconds=60, list_roots_callback=roots
    ) as client:
        first = data_of(await client.call_tool("export_text", {"path": str(path)}))
        second = data_of(await client.call_tool("export_text", {"path": str(path)}))
    assert first["text"] == second["text"] == "from a root"
    assert roots.asked >= 1


async def test_only_allowed_leaves_out_the_server_workspaces_and_the_working_folder(
    tmp_path: Path,
) -> None:
    workspace, extra = tmp_path / "workspace", tmp_path / "extra"
    workspace.mkdir()
    extra.mkdir()
    asked: list[str] = []

    async def ask() -> list[str]:
        asked.append("workspaces")
        return [str(workspace)]

    info = ServerInfo(url="http://127.0.0.1:9", token="t" * 64, pid=1)
    usual = FolderGate(allow=[extra], use_roots=False, default_workspace=tmp_path)
    assert (
        await usual.allowed(server=(info, ask), ask_roots=None, list_changed=False)
    ).folders == (workspace.resolve(), extra.resolve())
    only = FolderGate(allow=[extra], use_roots=False, default_workspace=tmp_path, workspaces=False)
    for server in [(info, ask), None]:
        allowed = await only.allowed(server=server, ask_roots=None, list_changed=False)
        assert allowed.folders == (extra.resolve(),)
    assert asked == ["workspaces"], "only the usual gate asked the server for its workspaces"


async def test_only_allowed_with_no_folder_refuses_every_path_and_says_how_to_add_one(
    tmp_path: Path,
) -> None:
    gate = FolderGate(
        allow=[],
        use_roots=True,
        default_workspace=tmp_path,
        workspaces=False,
        how_to_add=ONLY_ALLOWED_HOW_TO_ADD,
    )
    allowed = await gate.allowed(server=None, ask_roots=None, list_changed=False)
    assert allowed.folders == ()
    for path in (tmp_path / "notes.md", tmp_path, Path("/etc/passwd")):
        with pytest.raises(PathRefused) as caught:
            allowed.check(path)
        assert "no folder is allowed yet" in str(caught.value)
        assert "Allowed folders setting" in str(caught.value)
