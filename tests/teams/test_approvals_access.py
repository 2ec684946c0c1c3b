"""Agent approvals and the agents page in multi mode: an approval belongs to the account whose
token asked; only that account's browser login decides it, and nobody else sees it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.team import TeamWorld, team_world

pytestmark = pytest.mark.anyio

ASKED: dict[str, Any] = {
    "harness": "claude-code",
    "session_id": "s1",
    "cwd": "/work",
    "tool_name": "Bash",
    "tool_input": {"command": "git push"},
    "machine_label": "box",
}
WRITE = [("team", "", "write")]


async def _asked(world: TeamWorld, username: str) -> dict[str, Any]:
    answer = await world.members[username].api.post("/api/approvals", json=ASKED)
    assert answer.status_code == 200, answer.text
    approval: dict[str, Any] = answer.json()
    return approval


async def test_an_approval_is_seen_and_decided_by_its_own_account_only(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        await world.account("alice", grants=WRITE)
        bob = await world.account("bob", grants=WRITE)
        approval = await _asked(world, "alice")
        ident = approval["approvalId"]
        decision = {"input_hash": approval["inputHash"], "behavior": "allow"}

        bob_browser = await world.browser("bob")
        listed = await bob_browser.get("/api/approvals")
        assert listed.status_code == 200
        assert ident not in listed.text
        for client in (bob.api, bob_browser):
            assert (await client.get(f"/api/approvals/{ident}")).status_code == 404
            waited = await client.get(f"/api/approvals/{ident}/wait", params={"wait_ms": 1000})
            assert waited.status_code == 404
        decided = await bob_browser.post(f"/api/approvals/{ident}/decision", json=decision)
        assert decided.status_code == 404
        assert "git push" not in decided.text
        owner_list = await world.owner.get("/api/approvals")
        assert ident not in owner_list.text

        # Alice's token asked; her token cannot decide, her browser login can.
        token = await world.members["alice"].api.post(
            f"/api/approvals/{ident}/decision", json=decision
        )
        assert token.status_code == 403
        alice_browser = await world.browser("alice")
        assert ident in (await alice_browser.get("/api/approvals")).text
        done = await alice_browser.post(f"/api/approvals/{ident}/decision", json=decision)
        assert done.status_code == 200, done.text
        assert done.json()["status"] == "decided"


async def test_the_agents_page_is_for_the_owner_or_a_superadmin(tmp_path: Path) -> None:
    async with team_world(tmp_path) as world:
        alice = await world.account("alice", grants=WRITE)
        admin = await world.account("ada", role="admin", grants=WRITE)
        root = await world.account("sam", role="superadmin")
        for client in (alice.api, admin.api):
            listed = await client.get("/api/agents")
            assert listed.status_code == 403
            assert "owner" in listed.json()["error"]["message"]
            hook = await client.post("/api/agents/hook", json={"chat": True})
            assert hook.status_code == 403
            connect = await client.post("/api/agents/claude-code/connect", json={})
            assert connect.status_code == 403
        assert (await root.api.get("/api/agents")).status_code == 200
        assert (await world.owner.get("/api/agents")).status_code == 200
