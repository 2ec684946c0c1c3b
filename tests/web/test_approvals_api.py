"""The approvals routes through the real auth: the owner's browser login decides, the owner's
API token gets 403 (even with a cookie beside it), a decision for another input hash is
refused, and every route is 404 while approvals are off."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from quire.services.agents.machine import MachineFacts
from quire.services.app import open_services
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.web.conftest import AUTH, BASE_URL, TOKEN

pytestmark = pytest.mark.anyio

ASKED: dict[str, Any] = {
    "harness": "claude-code",
    "session_id": "s1",
    "cwd": "/work",
    "tool_name": "Bash",
    "tool_input": {"command": "git push"},
    "machine_label": "box",
}


async def login(client: httpx.AsyncClient) -> dict[str, str]:
    response = await client.get("/", params={"token": TOKEN})
    assert response.status_code == 303
    cookie = response.cookies["quire_session"]
    client.cookies.clear()
    return {"Cookie": f"quire_session={cookie}"}


async def ask(client: httpx.AsyncClient, **changes: Any) -> dict[str, Any]:
    response = await client.post("/api/approvals", headers=AUTH, json={**ASKED, **changes})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def decide(
    client: httpx.AsyncClient, approval: dict[str, Any], headers: dict[str, str], **body: Any
) -> httpx.Response:
    return await client.post(
        f"/api/approvals/{approval['approvalId']}/decision",
        headers=headers,
        json={"input_hash": approval["inputHash"], "behavior": "allow", **body},
    )


async def test_the_owners_cookie_decides_and_the_waiting_hook_gets_it_at_once(
    client: httpx.AsyncClient,
) -> None:
    approval = await ask(client)
    cookie = await login(client)
    url = f"/api/approvals/{approval['approvalId']}/wait"
    waited: list[dict[str, Any]] = []

    async def waiter() -> None:
        response = await client.get(url, headers=AUTH, params={"wait_ms": 600_000})
        waited.append(response.json())

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await anyio.wait_all_tasks_blocked()
            decided = await decide(client, approval, cookie, behavior="deny", message="Not now")
            assert decided.status_code == 200, decided.text
    assert waited == [
        {
            "approvalId": approval["approvalId"],
            "status": "decided",
            "inputHash": approval["inputHash"],
            "decision": {"behavior": "deny", "message": "Not now"},
        }
    ]


@pytest.mark.parametrize("with_cookie", [False, True])
async def test_the_owners_api_token_cannot_decide(
    client: httpx.AsyncClient, with_cookie: bool
) -> None:
    approval = await ask(client)
    headers = dict(AUTH)
    if with_cookie:
        headers.update(await login(client))
    response = await decide(client, approval, headers)
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "BrowserLoginNeeded"
    assert "browser login" in response.json()["error"]["message"]
    record = await client.get(f"/api/approvals/{approval['approvalId']}", headers=AUTH)
    assert record.json()["status"] == "pending"


async def test_no_login_gets_401(client: httpx.AsyncClient) -> None:
    approval = await ask(client)
    assert (await decide(client, approval, {})).status_code == 401
    assert (await decide(client, approval, {"Cookie": "quire_session=forged"})).status_code == 401


@pytest.mark.parametrize(
    "body",
    [
        {"input_hash": "0" * 64},
        {"input_hash": ""},
        {"input_hash": "x"},
    ],
)
async def test_a_decision_for_a_changed_input_hash_is_refused(
    client: httpx.AsyncClient, body: dict[str, Any]
) -> None:
    approval = await ask(client)
    response = await decide(client, approval, await login(client), **body)
    assert response.status_code == 409
    assert response.json()["error"]["type"] == "ApprovalRefused"


@pytest.mark.parametrize(
    "changes",
    [
        {"harness": "cursor"},
        {"tool_input": "ls"},
        {"ttl_ms": "600000"},
        {"ttl_ms": 10},
        {"unknown": 1},
        {"machine_label": "a b"},
        {"session_id": ""},
    ],
)
async def test_bad_requests_are_400(client: httpx.AsyncClient, changes: dict[str, Any]) -> None:
    response = await client.post("/api/approvals", headers=AUTH, json={**ASKED, **changes})
    assert response.status_code == 400, response.text


async def test_a_tool_input_over_64_kb_is_413(client: httpx.AsyncClient) -> None:
    big = {**ASKED, "tool_input": {"command": "x" * 70_000}}
    response = await client.post("/api/approvals", headers=AUTH, json=big)
    assert response.status_code == 413


async def test_the_list_shows_the_card_with_escapes_and_notices(client: httpx.AsyncClient) -> None:
    await ask(client, tool_input={"command": "echo \u202eabc"})
    notice = {"session_id": "s2", "harness": "claude-code", "machine_label": "box"}
    raised = await client.post("/api/notices", headers=AUTH, json={**notice, "kind": "idle"})
    assert raised.json() == {"raised": True}
    listed = (await client.get("/api/approvals", headers=AUTH)).json()
    assert listed["waiting"] == 1
    assert listed["approvals"][0]["card"]["text"] == "echo \\u{202E}abc"
    assert [n["kind"] for n in listed["notices"]] == ["idle"]


async def test_every_route_is_404_while_approvals_are_off(
    settings: Settings, machine: MachineFacts, anyio_backend: str
) -> None:
    off = settings.model_copy(update={"approvals_enabled": False})
    async with open_services(off, token=TOKEN, clock=lambda: 1, machine=machine) as services:
        app: Starlette = create_app(services)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
            for method, url in (
                ("POST", "/api/approvals"),
                ("GET", "/api/approvals"),
                ("GET", "/api/approvals/0123456789abcdef"),
                ("POST", "/api/notices"),
            ):
                response = await client.request(method, url, headers=AUTH, json=ASKED)
                assert response.status_code == 404
                assert "turned off" in response.json()["error"]["message"]


async def test_an_agent_in_a_chat_gets_one_neutral_line_there_never_the_command(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    chat = settings.workspaces[0] / "Chats" / "build.md"
    made = await client.post("/api/chats", headers=AUTH, json={"path": str(chat), "title": "B"})
    assert made.status_code == 200, made.text
    waited = await client.post(
        "/api/chats/wait",
        headers=AUTH,
        json={"path": str(chat), "as": "Builder", "after": 0, "timeoutMs": 1000, "session": "s1"},
    )
    assert waited.status_code == 200, waited.text
    approval = await ask(client, tool_input={"command": "deploy --secret-token=abc"})
    notice = {"session_id": "s1", "harness": "claude-code", "machine_label": "box"}
    await client.post("/api/notices", headers=AUTH, json={**notice, "kind": "idle"})
    record = (await client.get(f"/api/approvals/{approval['approvalId']}", headers=AUTH)).json()
    assert (record["agentName"], record["chatPath"]) == ("Builder", str(chat.resolve()))
    text = chat.read_text(encoding="utf-8")
    assert "Builder (Claude Code on box) is waiting for approval" in text
    assert "secret-token" not in text
    assert "deploy" not in text
    assert text.count("Builder (Claude Code on box)") == 1  # one line per 5 minutes


async def test_an_agent_that_left_its_chat_gets_no_card_and_no_line_there(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    chat = settings.workspaces[0] / "Chats" / "build.md"
    made = await client.post("/api/chats", headers=AUTH, json={"path": str(chat), "title": "B"})
    assert made.status_code == 200, made.text
    where = {"path": str(chat), "as": "Builder", "session": "s1"}
    waited = await client.post(
        "/api/chats/wait", headers=AUTH, json={**where, "after": 0, "timeoutMs": 1000}
    )
    assert waited.status_code == 200, waited.text
    left = await client.post("/api/chats/leave", headers=AUTH, json=where)
    assert left.status_code == 200, left.text
    before = chat.read_text(encoding="utf-8")
    approval = await ask(client)
    notice = {"session_id": "s1", "harness": "claude-code", "machine_label": "box"}
    await client.post("/api/notices", headers=AUTH, json={**notice, "kind": "idle"})
    record = (await client.get(f"/api/approvals/{approval['approvalId']}", headers=AUTH)).json()
    listed = (await client.get("/api/approvals", headers=AUTH)).json()
    assert (record["agentName"], record.get("chatPath")) == ("Builder", None)
    assert [card.get("chatPath") for card in listed["approvals"]] == [None]
    assert chat.read_text(encoding="utf-8") == before
