"""The Connect page's API through the app: list the agents and hooks, connect one, change
the hooks; the services are given a temporary machine (home folder and PATH) whose agent
commands are recording shims."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from quire.services.agents.machine import MachineFacts
from tests.support.agent_shims import FakeAgent, install_fake, make_program
from tests.support.machines import temporary_machine
from tests.web.conftest import AUTH

pytestmark = pytest.mark.anyio

QUIRE = Path(sys.executable).parent / "quire"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "agent-home"
    folder.mkdir()
    return folder


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "agent-bin"
    folder.mkdir()
    return folder


@pytest.fixture
def machine(home: Path, bin_dir: Path) -> MachineFacts:
    return temporary_machine(home, bin_dir)


@pytest.fixture
def claude(bin_dir: Path) -> FakeAgent:
    return install_fake(bin_dir, "claude")


async def test_the_agents_list_has_every_agent_and_the_hook(
    client: httpx.AsyncClient, home: Path, claude: FakeAgent
) -> None:
    claude.seed(str(QUIRE), ["mcp"])
    (home / ".cursor").mkdir()
    response = await client.get("/api/agents", headers=AUTH)
    assert response.status_code == 200
    data = response.json()
    assert data["agents"] == [
        {
            "id": "claude-code",
            "name": "Claude Code",
            "detected": True,
            "state": "connected",
            "detail": f"Claude Code runs this Quire's MCP server: `{QUIRE} mcp`.",
            "command": f"claude mcp add --scope user quire -- {QUIRE} mcp",
        },
        {
            "id": "codex",
            "name": "Codex",
            "detected": False,
            "state": "absent",
            "detail": "Codex was not found: the `codex` command is not on PATH. Install Codex, "
            "then try again.",
            "command": f"codex mcp add quire -- {QUIRE} mcp",
        },
        {
            "id": "cursor",
            "name": "Cursor",
            "detected": True,
            "state": "absent",
            "detail": "Cursor has no `quire` server yet: run `quire connect cursor`.",
            "command": json.dumps(
                {"mcpServers": {"quire": {"command": str(QUIRE), "args": ["mcp"]}}}, indent=2
            ),
        },
    ]
    assert data["hook"]["installed"] is False
    assert data["hook"]["chatInstalled"] is False
    assert json.loads(data["hook"]["command"])["hooks"]["PostToolUse"][0]["matcher"] == (
        "Edit|Write"
    )
    assert claude.calls() == [["mcp", "get", "quire"]]


async def test_connecting_a_detected_agent_registers_quire(
    client: httpx.AsyncClient, home: Path, claude: FakeAgent
) -> None:
    response = await client.post("/api/agents/claude-code/connect", headers=AUTH)
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True
    assert body["message"].startswith(
        f"Registered Quire's MCP server with Claude Code: `{QUIRE} mcp`."
    )
    assert claude.servers() == {"quire": {"command": str(QUIRE), "args": ["mcp"]}}
    listed = (await client.get("/api/agents", headers=AUTH)).json()
    assert listed["agents"][0]["state"] == "connected"


async def test_a_kept_registration_answers_ok_false(
    client: httpx.AsyncClient, home: Path, claude: FakeAgent, tmp_path: Path
) -> None:
    other = make_program(tmp_path / "elsewhere" / "quire")
    claude.seed(str(other), ["mcp"])
    response = await client.post("/api/agents/claude-code/connect", headers=AUTH)
    assert response.status_code == 200
    assert response.json() == {
        "ok": False,
        "message": f"Claude Code's `quire` server runs `{other} mcp`, another program. Quire "
        "keeps it; to use this Quire instead, run `claude mcp remove --scope user quire`, then "
        "connect again.",
    }


async def test_an_agent_that_is_not_installed_answers_409(
    client: httpx.AsyncClient, home: Path, bin_dir: Path
) -> None:
    response = await client.post("/api/agents/cursor/connect", headers=AUTH)
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["type"] == "AgentNotDetected"
    assert error["message"].startswith("Cursor was not found")
    assert not (home / ".cursor").exists()


@pytest.mark.parametrize("agent_id", ["vscode", "Claude-Code", "%00", "hook"])
async def test_an_unknown_agent_answers_400(
    client: httpx.AsyncClient, home: Path, bin_dir: Path, agent_id: str
) -> None:
    response = await client.post(f"/api/agents/{agent_id}/connect", headers=AUTH)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["type"], error["argument"]) == ("InvalidArgument", "id")
    assert "it connects claude-code, codex, cursor" in error["message"]


async def test_connect_takes_no_arguments(
    client: httpx.AsyncClient, home: Path, claude: FakeAgent
) -> None:
    response = await client.post(
        "/api/agents/claude-code/connect", headers=AUTH, json={"scope": "project"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["argument"] == "scope"
    assert claude.calls() == []


async def test_the_hook_is_installed_and_removed(
    client: httpx.AsyncClient, home: Path, bin_dir: Path
) -> None:
    response = await client.post("/api/agents/hook", headers=AUTH, json={})
    assert response.status_code == 200
    assert response.json()["ok"] is True
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    command = settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    assert command == f"{QUIRE} hook post-tool-use"
    listed: Any = (await client.get("/api/agents", headers=AUTH)).json()
    assert listed["hook"]["installed"] is True
    chat = await client.post("/api/agents/hook", headers=AUTH, json={"chat": True})
    assert chat.json()["ok"] is True
    listed = (await client.get("/api/agents", headers=AUTH)).json()
    assert listed["hook"]["chatInstalled"] is True
    removed = await client.post(
        "/api/agents/hook", headers=AUTH, json={"chat": True, "remove": True}
    )
    assert removed.json()["ok"] is True
    assert json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8")) == {}


async def test_a_malformed_settings_file_answers_ok_false_and_is_kept(
    client: httpx.AsyncClient, home: Path, bin_dir: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": []}', encoding="utf-8")
    response = await client.post("/api/agents/hook", headers=AUTH)
    assert response.json() == {
        "ok": False,
        "message": "~/.claude/settings.json cannot be changed: its `hooks` is a list, not an "
        "object. Quire leaves it untouched; fix it by hand, then run `quire connect hook` "
        "again.",
    }
    assert settings.read_text(encoding="utf-8") == '{"hooks": []}'
    listed = (await client.get("/api/agents", headers=AUTH)).json()
    assert listed["hook"]["installed"] is False
    assert listed["hook"]["detail"] == response.json()["message"]


@pytest.mark.parametrize(
    ("body", "argument"),
    [({"chat": "yes"}, "chat"), ({"remove": 1}, "remove"), ({"force": True}, "force")],
)
async def test_the_hook_body_is_checked(
    client: httpx.AsyncClient, home: Path, bin_dir: Path, body: dict[str, Any], argument: str
) -> None:
    response = await client.post("/api/agents/hook", headers=AUTH, json=body)
    assert response.status_code == 400
    assert response.json()["error"]["argument"] == argument
    assert not (home / ".claude").exists()


async def test_the_agents_api_needs_the_token(
    client: httpx.AsyncClient, home: Path, bin_dir: Path
) -> None:
    assert (await client.get("/api/agents")).status_code == 401
    assert (await client.post("/api/agents/hook")).status_code == 401
    assert (await client.post("/api/agents/cursor/connect")).status_code == 401
    assert not (home / ".claude").exists()


async def test_a_query_string_is_refused(
    client: httpx.AsyncClient, home: Path, bin_dir: Path
) -> None:
    response = await client.get("/api/agents?refresh=1", headers=AUTH)
    assert response.status_code == 400


async def test_the_routes_use_the_machine_the_services_were_given(
    client: httpx.AsyncClient,
    home: Path,
    claude: FakeAgent,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    elsewhere = tmp_path / "process-home"
    elsewhere.mkdir()
    monkeypatch.setenv("HOME", str(elsewhere))
    monkeypatch.setenv("PATH", str(tmp_path / "process-bin"))
    listed = (await client.get("/api/agents", headers=AUTH)).json()
    assert [agent["detected"] for agent in listed["agents"]] == [True, False, False]
    response = await client.post("/api/agents/hook", headers=AUTH, json={})
    assert response.json()["ok"] is True
    assert (home / ".claude" / "settings.json").is_file()
    assert list(elsewhere.iterdir()) == []
