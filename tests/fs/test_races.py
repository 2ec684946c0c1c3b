"""Confinement under a racing swap: a folder of the workspace and a link out trade places with
``renameat2(RENAME_EXCHANGE)`` in a tight loop while every surface reads, writes and deletes.

A call may fail (the folder it wanted was a link out at that instant), but none may read the
outside file, write into the outside folder or delete from it. The file layer is driven
directly (10,000+ calls), then a real ``quire serve`` over HTTP and a real ``quire mcp`` over
stdio with the SDK's client. Linux only: RENAME_EXCHANGE is a Linux call.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import mcp_types as types
import pytest

from bench.server import quire_serve
from mcp import Client, StdioServerParameters
from quire.core.errors import QuireError
from quire.fs.documents import ANY_FILE, delete_file, find_file, read_document, write_file
from quire.fs.folders import AllowedFolders
from tests.mcp.test_end_to_end import PYTHON, environment

SECRET = "SECRET outside the workspace\n"
INSIDE = "inside the workspace\n"
CHAT = "---\nquire: chat\n---\n# Chat\n"
CANVAS = '{"nodes": [], "edges": []}'
AT_FDCWD = -100
RENAME_EXCHANGE = 2
FS_CALLS = 10_000
BOUND_S = 20.0
NAMES = ("doc.md", "chat.md", "board.canvas")


def _renameat2() -> Callable[[bytes, bytes], None] | None:
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    call = getattr(libc, "renameat2", None)
    if call is None:
        return None

    def exchange(a: bytes, b: bytes) -> None:
        if call(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))

    return exchange


EXCHANGE = _renameat2()
pytestmark = pytest.mark.skipif(
    EXCHANGE is None, reason="needs Linux with renameat2 (RENAME_EXCHANGE) in its C library"
)


@dataclass
class Tree:
    """ws/dirA (a real folder) and ws/swap (a link to out/d) that trade places all the time."""

    root: Path
    workspace: Path
    outside: Path
    swaps: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def outside_state(self) -> dict[str, str]:
        """Every file in the outside folder and a digest of its bytes."""
        return {
            entry.name: hashlib.sha256(entry.read_bytes()).hexdigest()
            for entry in sorted(self.outside.iterdir())
        }

    @contextmanager
    def racing(self) -> Iterator[None]:
        assert EXCHANGE is not None
        a = os.fsencode(self.workspace / "dirA")
        b = os.fsencode(self.workspace / "swap")

        def loop() -> None:
            while not self.stop.is_set():
                EXCHANGE(a, b)
                self.swaps += 1

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        try:
            yield
        finally:
            self.stop.set()
            thread.join()
            self.stop.clear()
            # Leave dirA the real folder again.
            if (self.workspace / "dirA").is_symlink():
                EXCHANGE(a, b)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    workspace = tmp_path / "ws"
    inside = workspace / "dirA"
    outside = tmp_path / "out" / "d"
    inside.mkdir(parents=True)
    outside.mkdir(parents=True)
    for folder, text in ((inside, INSIDE), (outside, SECRET)):
        (folder / "doc.md").write_text(text, encoding="utf-8")
        (folder / "chat.md").write_text(CHAT + text, encoding="utf-8")
        (folder / "board.canvas").write_text(CANVAS, encoding="utf-8")
        (folder / "victim.md").write_text(text, encoding="utf-8")
    (workspace / "swap").symlink_to(outside)
    return Tree(tmp_path, workspace.resolve(), outside.resolve())


def test_the_file_layer_never_escapes_while_a_folder_is_swapped_for_a_link(tree: Tree) -> None:
    folders = AllowedFolders([tree.workspace])
    before = tree.outside_state()
    target = tree.workspace / "dirA"
    calls = escapes = refused = 0
    deadline = time.monotonic() + BOUND_S
    with tree.racing():
        while calls < FS_CALLS and time.monotonic() < deadline:
            kind = calls % 4
            calls += 1
            try:
                if kind == 0:
                    _found, text = read_document(folders, target / "doc.md")
                    escapes += "SECRET" in text
                elif kind == 1:
                    write_file(folders, target / "doc.md", INSIDE)
                elif kind == 2:
                    found = find_file(folders, target / "chat.md")
                    escapes += not found.path.is_relative_to(tree.workspace)
                else:
                    write_file(folders, target / "board.canvas", CANVAS, kind=ANY_FILE)
                    delete_file(folders, target / "victim.md")
                    write_file(folders, target / "victim.md", INSIDE)
            except (QuireError, OSError):
                refused += 1
    assert tree.swaps > 100, "the racer did not run"
    assert calls >= 1000
    assert escapes == 0
    assert tree.outside_state() == before
    assert refused < calls, "every call was refused: the race proved nothing"


@pytest.mark.slow
@pytest.mark.anyio
async def test_http_and_mcp_never_escape_while_a_folder_is_swapped_for_a_link(
    tree: Tree,
) -> None:
    before = tree.outside_state()
    state = tree.root / "state"
    target = tree.workspace / "dirA"
    calls = escapes = 0
    async with quire_serve(tree.workspace, state, tree.root / "server.log") as server:
        async with httpx.AsyncClient(base_url=server.url, headers=server.auth) as http:
            params = StdioServerParameters(
                command=PYTHON,
                args=["-m", "quire.cli.main", "mcp"],
                env=environment(state),
                cwd=tree.workspace,
            )
            async with Client(params, mode="legacy", read_timeout_seconds=60) as mcp:
                with tree.racing():
                    deadline = time.monotonic() + BOUND_S
                    while time.monotonic() < deadline:
                        for call in _surface_calls(http, mcp, target):
                            calls += 1
                            escapes += await call()
        log = (tree.root / "server.log").read_text(encoding="utf-8", errors="replace")
    assert calls >= 200
    assert escapes == 0
    assert tree.outside_state() == before
    assert not _inside_files_holding("SECRET", tree.workspace)
    assert "Traceback" not in log


def _surface_calls(
    http: httpx.AsyncClient, mcp: Client, target: Path
) -> list[Callable[[], Awaitable[int]]]:
    """One round over the surfaces; each call answers 1 when it saw or touched the outside."""
    doc, chat, canvas = (str(target / name) for name in NAMES)

    async def open_and_read() -> int:
        answer = await http.post("/api/documents/open", json={"path": doc})
        if answer.status_code != 200:
            return 0
        current = await http.get("/api/documents/current")
        return int("SECRET" in current.text)

    async def post() -> int:
        await http.post("/api/chats/post", json={"path": chat, "as": "racer", "body": "hello"})
        return 0

    async def read_chat() -> int:
        answer = await http.get("/api/chats/read", params={"path": chat, "as": "racer"})
        return int("SECRET" in answer.text)

    async def save() -> int:
        await http.post("/api/documents/save", json={})
        return 0

    async def export_text() -> int:
        result = await mcp.call_tool("export_text", {"path": doc})
        return int(any("SECRET" in _text(part) for part in result.content))

    async def diff() -> int:
        result = await mcp.call_tool("diff_documents", {"path_a": doc, "path_b": doc})
        return int(any("SECRET" in _text(part) for part in result.content))

    async def export() -> int:
        await http.post("/api/export", json={"path": doc, "format": "html", "overwrite": True})
        return 0

    async def edit_canvas() -> int:
        op = {"type": "add_node", "node": {"type": "text", "text": "x", "x": 0, "y": 0}}
        await mcp.call_tool("edit_canvas", {"path": canvas, "ops": [op], "save": True})
        return 0

    return [open_and_read, post, read_chat, save, export, export_text, diff, edit_canvas]


def _inside_files_holding(word: str, workspace: Path) -> list[Path]:
    """The regular files of the workspace (links not followed) whose bytes hold ``word``."""
    found = []
    for folder, _folders, files in os.walk(workspace):
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink() and word.encode() in path.read_bytes():
                found.append(path)
    return found


def _text(part: object) -> str:
    return part.text if isinstance(part, types.TextContent) else ""
