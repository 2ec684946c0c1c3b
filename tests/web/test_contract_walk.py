"""One walk through every HTTP operation: each answers, and its answer fits its model.

The ``client`` fixture checks every 200 answer against the operation's answer model
(tests/support/contract.py); this walk makes sure no operation is left out of that check, and
the models module below makes sure no model is left out of the operations.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from quire.api.operations import OPERATIONS
from quire.services.app import AppServices
from quire.settings.model import Settings
from tests.support.contract import operation_of
from tests.web.conftest import AUTH, PORT, TOKEN

pytestmark = pytest.mark.anyio

NOTE = "# Plan\n\n- [ ] write it\n- [x] read it\n\nSome text to find.\n"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The web tests' settings (approvals on) with history on as well (Quire makes the
    workspace a repository), so every route answers."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "welcome.md").write_text("# Welcome\n", encoding="utf-8")
    return Settings(
        workspaces=(workspace,),
        state_dir=tmp_path / "state",
        port=PORT,
        history=True,
        approvals_enabled=True,
    )


class Walk:
    """Sends requests and remembers which operations answered 200."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.seen: set[tuple[str, str]] = set()

    async def send(
        self, method: str, url: str, *, params: dict[str, Any] | None = None, json: Any = None
    ) -> httpx.Response:
        with anyio.fail_after(20):
            response = await self.client.request(
                method, url, headers=AUTH, params=params, json=json
            )
        assert response.status_code == 200, f"{method} {url}: {response.text}"
        operation = operation_of(method, response.request.url.path)
        assert operation is not None, f"{method} {url} is not in the operation table"
        self.seen.add((operation.method, operation.path))
        return response

    async def get(self, url: str, params: dict[str, Any] | None = None) -> httpx.Response:
        return await self.send("GET", url, params=params)

    async def post(self, url: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return await self.send("POST", url, json=body or {})


async def test_every_operation_answers_with_its_model(
    client: httpx.AsyncClient, tmp_path: Path, services: AppServices
) -> None:
    workspace = tmp_path / "workspace"
    note = workspace / "plan.md"
    note.write_text(NOTE, encoding="utf-8")
    walk = Walk(client)
    get, post = walk.get, walk.post

    await get("/health")
    await get("/api/openapi.json")
    await get("/llms.txt")
    opened = (await post("/api/documents/open", {"path": str(note), "mode": "edit"})).json()
    doc = opened["docId"]
    await get("/api/documents/current")
    await post("/api/documents/edit", {"find": "Some text", "replace": "Some words"})
    preview = (await post("/api/documents/stream-edit", {"find": "words", "replace": "w"})).json()
    await post(
        "/api/documents/stream-edit-apply",
        {"edit_id": preview["editId"], "find": "words", "replace": "w"},
    )
    await post("/api/documents/set-content", {"content": NOTE + "\nMore.\n"})
    await post("/api/documents/toggle-task", {"docId": doc, "line": 3, "checked": True})
    await get("/api/documents/render", params={"docId": doc})
    blocks = (await get("/api/documents/blocks", params={"docId": doc})).json()
    await get("/api/documents/blocks", params={"docId": doc, "since": blocks["version"]})
    await get("/api/documents/state", params={"docId": doc})
    await post("/api/documents/save", {"path": str(note)})
    note.write_text(NOTE + "\nChanged on disk.\n", encoding="utf-8")
    await post("/api/documents/resolve-conflict", {"docId": doc, "keep": "mine"})
    await post("/api/render", {"markdown": "# Hi"})
    await post("/api/export", {"path": str(note), "format": "html", "overwrite": True})
    await get("/api/export/download", params={"path": str(note), "format": "html"})
    await post("/api/export/dialog", {"path": str(note), "format": "pdf"})
    await get("/api/export/engines")

    await get("/api/window")
    await post("/api/window/view", {"docId": doc, "view": "read"})
    await post("/api/window/activate", {"docId": doc})
    await post("/api/window/present", {"path": str(note)})
    await post("/api/window/leave-present")
    await get("/api/recent")
    await get("/api/recent/documents")
    await get("/api/files")
    await get("/api/workspaces")
    await get("/api/search", params={"q": "plan"})
    await get("/api/search", params={"q": "plan", "mode": "words"})
    await get("/api/backlinks", params={"path": str(note)})
    await get("/api/titles", params={"q": "pla"})
    await post("/api/search/reindex")

    review = (await post("/api/reviews", {"content": "# Approve me"})).json()["reviewId"]
    await get("/api/reviews/active")
    await get(f"/api/reviews/{review}")
    # Decided first, so both waits answer at once with the verdict.
    await post(f"/api/reviews/{review}/decision", {"verdict": "approved"})
    await get(f"/api/reviews/{review}/wait", params={"wait_ms": 1000})
    await post(f"/api/reviews/{review}/wait", {"wait_ms": 1000})
    await get("/api/annotations", params={"path": str(note)})

    asked = {
        "harness": "claude-code",
        "session_id": "s9",
        "cwd": str(workspace),
        "tool_name": "Bash",
        "tool_input": {"command": "make"},
        "machine_label": "box",
    }
    approval = (await post("/api/approvals", asked)).json()
    await get("/api/approvals")
    await get(f"/api/approvals/{approval['approvalId']}")
    login = await walk.client.get("/", params={"token": TOKEN})
    decided = await walk.client.post(
        f"/api/approvals/{approval['approvalId']}/decision",
        headers={"Cookie": f"quire_session={login.cookies['quire_session']}"},
        json={"input_hash": approval["inputHash"], "behavior": "allow"},
    )
    walk.client.cookies.clear()
    assert decided.status_code == 200, decided.text
    walk.seen.add(("POST", "/api/approvals/{approval_id}/decision"))
    await get(f"/api/approvals/{approval['approvalId']}/wait", params={"wait_ms": 1000})
    await post("/api/approvals/done", {"session_id": "s9"})
    notice = {"session_id": "s9", "harness": "codex", "machine_label": "box", "kind": "idle"}
    await post("/api/notices", notice)
    await post("/api/notices/dismiss", {"session_id": "s9", "kind": "idle"})

    await get("/api/agents")
    await post("/api/agents/hook", {"remove": True})
    (tmp_path / "agent-home" / ".cursor").mkdir(parents=True)  # the machine's Cursor
    await post("/api/agents/cursor/connect")

    chat = workspace / "Chats" / "team.md"
    await post("/api/chats", {"path": str(chat), "title": "Team"})
    await get("/api/chats")
    await post("/api/chats/post", {"path": str(chat), "as": "builder", "body": "hello"})
    await get("/api/chats/read", params={"path": str(chat)})
    await post(
        "/api/chats/wait",
        {"path": str(chat), "as": "reviewer", "after": 0, "timeoutMs": 1000, "session": "s1"},
    )
    await get("/api/chats/session", params={"id": "s1"})
    await post("/api/chats/session/stop", {"id": "s1"})
    await post("/api/chats/leave", {"path": str(chat), "as": "reviewer"})
    await post("/api/chats/pin", {"path": str(chat), "pinned": True})
    await get("/api/chats/members", params={"path": str(chat)})
    await get("/api/chats/people", params={"workspace": str(workspace)})
    # Members are for accounts (multi mode; tests/teams/test_chats_access.py walks the 200s):
    # the owner of a single-mode server is told so, in the error model.
    members = await walk.client.post(
        "/api/chats/members",
        headers=AUTH,
        json={"path": str(chat), "action": "private"},
    )
    assert members.status_code == 400, members.text
    assert "team server" in members.json()["error"]["message"]
    walk.seen.add(("POST", "/api/chats/members"))
    gifs = (await get("/api/chats/gifs", params={"workspace": str(workspace)})).json()
    await get(
        "/api/chats/gif", params={"workspace": str(workspace), "name": gifs["gifs"][0]["name"]}
    )
    await post("/api/chats/avatar", {"workspace": str(workspace), "as": "builder", "pick": "fox"})
    await post("/api/chats/delete", {"path": str(chat)})
    await post("/api/window/close", {"docId": doc})

    made = (await post("/api/files/note", {"path": str(workspace / "New note")})).json()
    await post("/api/files/folder", {"path": str(workspace / "Folder")})
    await post("/api/files/append", {"path": made["path"], "content": "Added.\n"})
    await post("/api/files/links", {"path": made["path"], "to": str(workspace / "Folder/n.md")})
    await post("/api/files/move", {"path": made["path"], "to": str(workspace / "Folder/n.md")})
    await post("/api/files/copy", {"path": str(workspace / "Folder"), "to": str(workspace / "F2")})
    picture = await walk.client.post(
        "/api/files/upload",
        headers=AUTH,
        params={"note": str(note), "name": "p.png"},
        content=b"\x89PNG",
    )
    assert picture.status_code == 200, picture.text
    walk.seen.add(("POST", "/api/files/upload"))
    await get("/api/files/download", params={"path": str(workspace / "Folder")})
    deleted = (await post("/api/files/delete", {"path": str(workspace / "F2")})).json()
    await get("/api/trash")
    await post("/api/trash/restore", {"id": deleted["trashId"]})
    await post("/api/trash/empty")

    assert services.history is not None
    await services.history.recorder.flush()
    page = (await get("/api/history", params={"path": str(note), "limit": 5})).json()
    first = page["entries"][-1]["commit"]
    await get("/api/history/version", params={"path": str(note), "rev": first})
    await get("/api/history/diff", params={"path": str(note), "from": first})
    await get("/api/history/blame", params={"path": str(note)})
    await post("/api/history/restore", {"path": str(note), "rev": first})
    await get("/api/history/timeline", params={"agent": "agent"})
    await get("/api/account")

    # Multi mode's own operations (account, admin) are walked by tests/teams, whose clients
    # check every answer against the contract too.
    every = {(op.method, op.path) for op in OPERATIONS if not op.multi}
    assert every - walk.seen == set(), "walk these operations too"
