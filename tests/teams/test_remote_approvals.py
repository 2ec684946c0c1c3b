"""The approval hooks of a machine whose policy says ``SERVER=@alias``: a real server."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.teams.remote_world import remote_server


def test_a_notice_goes_to_the_signed_in_server_as_that_account(tmp_path: Path) -> None:
    with remote_server(tmp_path, toml="[approvals]\nenabled = true\n") as server:
        token = server.account("jo", grants=[("team", "", "write")])
        laptop = server.machine(tmp_path / "laptop")
        assert laptop.quire("login", "@t", server.url, "--token-stdin", stdin=token).returncode == 0
        (laptop.state / "approvals.conf").write_text(
            "SERVER=@t\nMACHINE_LABEL=laptop\n", encoding="utf-8"
        )
        hook = {"session_id": "s-1", "notification_type": "idle_prompt", "message": ""}
        ran = laptop.quire("approval", "notify", "--agent", "claude-code", stdin=json.dumps(hook))
        assert ran.returncode == 0, ran.stderr
        assert ran.stderr == "" and token not in ran.stdout
        with httpx.Client(base_url=server.url) as http:
            mine = http.get("/api/approvals", headers={"Authorization": f"Bearer {token}"})
            owners = http.get(
                "/api/approvals", headers={"Authorization": f"Bearer {server.owner_token}"}
            )
    assert [(n["sessionId"], n["machineLabel"]) for n in mine.json()["notices"]] == [
        ("s-1", "laptop")
    ]
    assert owners.json()["notices"] == []


def test_an_alias_that_is_not_signed_in_sends_nothing_and_says_so(tmp_path: Path) -> None:
    with remote_server(tmp_path) as server:
        laptop = server.machine(tmp_path / "laptop")
        (laptop.state).mkdir(parents=True)
        (laptop.state / "approvals.conf").write_text("SERVER=@gone\n", encoding="utf-8")
        hook = {"session_id": "s-1", "notification_type": "idle_prompt"}
        ran = laptop.quire("approval", "notify", "--agent", "claude-code", stdin=json.dumps(hook))
    assert ran.returncode == 0 and ran.stdout == ""
    assert "quire login @gone URL" in ran.stderr
