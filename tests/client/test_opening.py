"""Showing a document: the served-folder rule, the inbox, the server started, slow answers."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from quire.api.documents import OpenedDocument
from quire.client.connection import ServerLink
from quire.client.opening import not_served_message, show_document, window_url
from quire.client.refused_token import token_refused_message
from quire.core.errors import PathRefused, ServerFailed, TokenRefused
from quire.core.server_info import ServerInfo, dumps

pytestmark = pytest.mark.anyio

INFO = ServerInfo(url="http://127.0.0.1:4747", token="t0k", pid=42)
Handler = Callable[[httpx.Request], Coroutine[Any, Any, httpx.Response]]


def server(
    workspaces: list[str], *, connected: bool | None = True, seen: list[str] | None = None
) -> Handler:
    async def handle(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(f"{request.method} {request.url.path}")
        if request.url.path == "/api/workspaces":
            items = [{"path": folder, "name": Path(folder).name} for folder in workspaces]
            return httpx.Response(200, json={"workspaces": items})
        body = json.loads(request.content)
        answer = {"opened": True, "path": body["path"], "docId": "d" * 24, "view": "read"}
        if connected is not None:
            answer["browserConnected"] = connected
        return httpx.Response(200, json=answer)

    return handle


def link_to(handler: Handler, tmp_path: Path) -> ServerLink:
    return ServerLink(state=tmp_path, fixed=INFO, transport=httpx.MockTransport(handler))


@pytest.mark.parametrize("connected", [True, False, None])
async def test_a_document_in_a_workspace_is_opened_and_the_browser_state_passed_on(
    tmp_path: Path, connected: bool | None
) -> None:
    seen: list[str] = []
    link = link_to(server(["/w"], connected=connected, seen=seen), tmp_path)
    shown = await show_document(link, Path("/w/notes/plan.md"), "edit")
    await link.aclose()
    assert seen == ["GET /api/workspaces", "POST /api/documents/open"]
    assert (shown.path, shown.view, shown.server, shown.started) == (
        "/w/notes/plan.md",
        "read",
        INFO,
        False,
    )
    assert shown.workspaces == ("/w",)
    assert shown.browser_connected is connected


@pytest.mark.parametrize("path", ["/other/plan.md", "/w-old/plan.md", "/plan.md"])
async def test_a_document_outside_every_workspace_is_refused_before_opening(
    tmp_path: Path, path: str
) -> None:
    seen: list[str] = []
    link = link_to(server(["/w", "/notes"], seen=seen), tmp_path)
    with pytest.raises(PathRefused) as caught:
        await show_document(link, Path(path), None)
    await link.aclose()
    assert seen == ["GET /api/workspaces"]
    folder = str(Path(path).parent)
    assert str(caught.value) == (
        f"Refusing to open '{path}': the Quire server at {INFO.url} does not serve its folder "
        f"(it serves '/w', '/notes'). Stop that server and start it again with the folder added "
        f"(`quire serve /w /notes {folder}`), then open the file again."
    )


async def test_a_document_in_the_inbox_is_opened_outside_the_workspaces(tmp_path: Path) -> None:
    link = link_to(server(["/w"]), tmp_path)
    shown = await show_document(
        link, Path("/state/inbox/stdin-1.md"), None, also_served=(Path("/state/inbox"),)
    )
    await link.aclose()
    assert shown.path == "/state/inbox/stdin-1.md"


async def test_a_server_that_answers_too_slowly_counts_as_failed(tmp_path: Path) -> None:
    async def slow(request: httpx.Request) -> httpx.Response:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    link = link_to(slow, tmp_path)
    with pytest.raises(ServerFailed) as caught:
        await show_document(link, Path("/w/plan.md"), None, answer_timeout=0.05)
    await link.aclose()
    assert str(caught.value) == (
        f"The Quire server at {INFO.url} did not answer within 0.05 seconds."
    )


async def test_a_refused_token_gets_the_one_message(tmp_path: Path) -> None:
    async def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"type": "Unauthorized", "message": "no"}})

    link = link_to(refuse, tmp_path)
    with pytest.raises(TokenRefused) as caught:
        await show_document(link, Path("/w/plan.md"), None)
    await link.aclose()
    assert str(caught.value) == token_refused_message(INFO.url, tmp_path / "server.json")


class RecordingStarter:
    """Starts "a server" by publishing this process as it in server.json."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.starts = 0

    async def start(self) -> ServerInfo:
        self.starts += 1
        info = ServerInfo(url=INFO.url, token=INFO.token, pid=os.getpid())
        (self.state / "server.json").write_text(dumps(info), encoding="utf-8")
        return info


async def test_a_server_started_for_the_call_is_reported_as_started(tmp_path: Path) -> None:
    starter = RecordingStarter(tmp_path)
    link = ServerLink(
        state=tmp_path, starter=starter, transport=httpx.MockTransport(server(["/w"]))
    )
    shown = await show_document(link, Path("/w/plan.md"), "read")
    again = await show_document(link, Path("/w/plan.md"), "read")
    await link.aclose()
    assert starter.starts == 1
    assert shown.started and not again.started


def test_the_window_address_signs_the_browser_in() -> None:
    info = ServerInfo(url="http://127.0.0.1:4747/", token="a b&c", pid=1)
    assert window_url(info) == "http://127.0.0.1:4747/?token=a%20b%26c"


def test_the_refusal_quotes_folders_for_a_shell() -> None:
    message = not_served_message(Path("/my docs/plan.md"), "http://h:1", ["/w s"])
    assert "(`quire serve '/w s' '/my docs'`)" in message


def test_an_open_answer_without_the_browser_field_leaves_it_unknown() -> None:
    answer = {"opened": True, "path": "/w/a.md", "docId": "d", "view": "read"}
    assert OpenedDocument.parse(answer).browser_connected is None
    assert OpenedDocument.parse({**answer, "browserConnected": False}).browser_connected is False
