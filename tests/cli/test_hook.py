"""`quire hook post-tool-use` as Claude Code runs it: a subprocess fed a PostToolUse payload on
stdin, which prints nothing and exits 0 whatever happens, and opens what the agent wrote."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from quire.client.opening import window_url
from quire.core.views import OWNER
from tests.support.quire_cli import LocalServer, Shell, app_server, local_server, make_shell, paths

pytestmark = pytest.mark.anyio

USAGE = (
    "Usage: quire hook post-tool-use\nTry 'quire hook post-tool-use --help' for help.\n\nError: "
)
SILENT_OK = (0, "", "")


@pytest.fixture
async def shell(tmp_path: Path, anyio_backend: str) -> AsyncIterator[Shell]:
    opened = make_shell(tmp_path)
    try:
        yield opened
    finally:
        await opened.stop_started_server()


@pytest.fixture
async def server(shell: Shell) -> AsyncIterator[LocalServer]:
    async with local_server(shell, shell.cwd) as running:
        yield running


def write(shell: Shell, name: str = "plan.md", text: str = "# Plan\n") -> Path:
    path = shell.cwd / name
    path.write_text(text, encoding="utf-8")
    return path.resolve()


def payload(path: Path | str, **fields: Any) -> bytes:
    body: dict[str, Any] = {
        "session_id": "abc",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": "/",
        "permission_mode": "acceptEdits",
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(path), "content": "# Plan\n"},
        "tool_response": {"type": "create", "filePath": str(path), "success": True},
        "tool_use_id": "toolu_01",
    }
    body.update(fields)
    return json.dumps(body).encode()


def output(result: subprocess.CompletedProcess[bytes]) -> tuple[int, str, str]:
    return result.returncode, result.stdout.decode(), result.stderr.decode()


async def hook(shell: Shell, stdin: bytes, *extra: str | bytes) -> tuple[int, str, str]:
    return output(await shell.run("hook", "post-tool-use", *extra, stdin=stdin))


async def test_help_is_printed_and_wins_over_an_argument(shell: Shell) -> None:
    code, out, err = await hook(shell, b"", "notes.md", "--help")
    assert (code, err) == (0, "")
    assert out.startswith("Usage: quire hook post-tool-use\n\n  Claude Code's PostToolUse hook")


@pytest.mark.parametrize(
    ("extra", "shown"),
    [(["notes.md"], "notes.md"), ([b"\xffx.md", "y"], "\\xffx.md")],
)
async def test_an_argument_is_a_usage_error_naming_it(
    shell: Shell, extra: list[str | bytes], shown: str
) -> None:
    message = (
        f"Unexpected argument '{shown}': this hook takes no arguments, the agent sends its "
        "payload on stdin."
    )
    assert await hook(shell, b"{}", *extra) == (1, "", f"{USAGE}{message}\n")


async def test_a_written_markdown_file_opens_in_read_view(
    shell: Shell, server: LocalServer
) -> None:
    path = write(shell)
    async with server.services.bus.subscribe(OWNER):
        await server.services.windows.open(OWNER, path, "edit")
        assert await hook(shell, payload(path)) == SILENT_OK
    active = await server.active()
    assert active is not None and (active.path, active.view) == (path, "read")
    assert shell.opened_in_browser() == []


async def test_a_file_edited_in_several_places_opens_too(shell: Shell, server: LocalServer) -> None:
    path = write(shell)
    async with server.services.bus.subscribe(OWNER):
        assert await hook(shell, payload(path, tool_name="MultiEdit")) == SILENT_OK
    assert paths(await server.tabs()) == [path]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"hook_event_name": "PreToolUse"}, "the tool has not run yet"),
        ({"tool_name": "Read"}, "reading writes nothing"),
        ({"tool_response": {"success": False}}, "the tool failed"),
        ({"tool_input": {"file_path": "notes.txt"}}, "not Markdown"),
    ],
)  # fmt: skip
async def test_a_payload_that_wrote_no_markdown_document_opens_nothing(
    shell: Shell, server: LocalServer, change: dict[str, Any], why: str
) -> None:
    path = write(shell)
    write(shell, "notes.txt")
    change = {**change, "cwd": str(shell.cwd)}
    assert await hook(shell, payload(path, **change)) == SILENT_OK, why
    assert await server.tabs() == (), why


@pytest.mark.parametrize("stdin", [b"", b"not json at all"], ids=["empty", "text"])
async def test_input_that_is_no_payload_opens_nothing(
    shell: Shell, server: LocalServer, stdin: bytes
) -> None:
    assert await hook(shell, stdin) == SILENT_OK
    assert await server.tabs() == ()


async def test_a_payload_over_64_mib_opens_nothing(shell: Shell, server: LocalServer) -> None:
    path = write(shell)
    padded = payload(path, padding="x" * (64 * 1024 * 1024))
    assert await hook(shell, padded) == SILENT_OK
    assert await server.tabs() == ()


async def test_without_a_browser_window_a_browser_opens_silently(
    shell: Shell, server: LocalServer
) -> None:
    path = write(shell)
    shell.with_browser()
    assert await hook(shell, payload(path)) == SILENT_OK
    assert shell.opened_in_browser() == [window_url(server.info)]
    assert paths(await server.tabs()) == [path]


async def test_a_file_outside_the_served_folders_opens_nothing(
    shell: Shell, server: LocalServer, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("# Far\n", encoding="utf-8")
    assert await hook(shell, payload(elsewhere)) == SILENT_OK
    assert await server.tabs() == ()


async def test_a_stale_token_is_passed_over_silently(shell: Shell) -> None:
    path = write(shell)
    async with local_server(shell, shell.cwd, server_file_token="0" * 64) as server:
        assert await hook(shell, payload(path)) == SILENT_OK
        assert await server.tabs() == ()


def broken_server(*, hang: bool) -> Starlette:
    """A server that never answers (``hang``) or answers every request with HTTP 500."""

    async def anything(request: Request) -> Response:
        if hang:
            await anyio.sleep_forever()
        return Response("boom", status_code=500)

    return Starlette(routes=[Route("/{path:path}", anything, methods=["GET", "POST"])])


@pytest.mark.parametrize("hang", [False, True], ids=["failing", "hanging"])
async def test_a_server_that_fails_or_hangs_is_given_up_on_silently(
    shell: Shell, hang: bool
) -> None:
    path = write(shell)
    async with app_server(shell, broken_server(hang=hang)):
        assert await hook(shell, payload(path)) == SILENT_OK


async def test_with_no_server_one_starts_and_opens_the_file(shell: Shell) -> None:
    path = write(shell)
    assert await hook(shell, payload(path)) == SILENT_OK
    info = shell.started_server()
    assert info is not None, (shell.state / "serve.log").read_text(encoding="utf-8")
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {info.token}"}) as client:
        window = (await client.get(f"{info.url}/api/window")).json()
    assert [(tab["path"], tab["view"]) for tab in window["tabs"]] == [(str(path), "read")]
