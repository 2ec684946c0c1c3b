"""``quire chat keepalive`` for an agent that chats on a team server: a real ``quire serve
--multi``, and on the agent's machine ``quire login``, ``quire chat wait @t/…`` and the Stop
hook run as the harness runs them (the payload on stdin, a Claude Code transcript on disk)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import httpx

from quire.core.chat import STOPS_TO_RELEASE
from tests.teams.remote_world import Machine, RemoteServer, remote_server

ROOM = "@t/team/Chats/room.md"
TYPED_WAIT = f"quire chat wait {ROOM} --as bot"
"""The wait as the agent typed it in its transcript (through a `quire` on its PATH)."""


def recorded_wait(session_flags: tuple[str, ...] = ()) -> str:
    """The wait as the machine ran it, which the server records for the session."""
    words = [sys.executable, "-m", "quire.cli.main", "chat", "wait", ROOM, "--as", "bot"]
    return shlex.join([*words, "--timeout", "1", *session_flags])


def block(command: str) -> str:
    return json.dumps({"decision": "block", "reason": command}) + "\n"


def claude_transcript(path: Path, *commands: str) -> Path:
    """A Claude Code transcript (JSON Lines) in which the agent ran ``commands`` with Bash."""
    lines = []
    for number, command in enumerate(commands):
        tool = {
            "type": "tool_use",
            "id": f"t{number}",
            "name": "Bash",
            "input": {"command": command},
        }
        result = {"type": "tool_result", "tool_use_id": f"t{number}", "content": "(exit 2)"}
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [tool]}})
        lines.append({"type": "user", "message": {"role": "user", "content": [result]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def stop(
    laptop: Machine, session: str, transcript: Path, *, active: bool = False
) -> subprocess.CompletedProcess[str]:
    """The Stop hook, as Claude Code runs it when the session ``session`` ends its turn."""
    payload = {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(laptop.home),
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    }
    return laptop.quire("chat", "keepalive", stdin=json.dumps(payload))


def signed_in(server: RemoteServer, tmp_path: Path, username: str) -> tuple[Machine, str]:
    """A laptop signed in to the server as @t with a new account's token, the room made."""
    token = server.account(username, grants=[("team", "", "write")])
    laptop = server.machine(tmp_path / "laptop")
    login = laptop.quire("login", "@t", server.url, "--token-stdin", stdin=token)
    assert login.returncode == 0, login.stderr
    made = laptop.quire("chat", "new", ROOM, "Room")
    assert made.returncode == 0, made.stderr
    return laptop, token


def agent_waits(laptop: Machine, session: str) -> None:
    """The agent's wait on the room times out (exit 2), recorded for its session."""
    waited = laptop.quire(
        "chat", "wait", ROOM, "--as", "bot", "--timeout", "1",
        env={"CLAUDE_CODE_SESSION_ID": session},
    )  # fmt: skip
    assert waited.returncode == 2, waited.stderr


def test_the_hook_follows_the_agent_s_session_on_the_team_server(tmp_path: Path) -> None:
    with remote_server(tmp_path, toml="[approvals]\nenabled = true\n") as server:
        laptop, token = signed_in(server, tmp_path, "jo")
        (laptop.state / "approvals.conf").write_text("MACHINE_LABEL=laptop\n", encoding="utf-8")
        transcript = claude_transcript(tmp_path / "s-1.jsonl", TYPED_WAIT)

        agent_waits(laptop, "s-1")
        waiting = stop(laptop, "s-1", transcript)
        left = laptop.quire(
            "chat", "leave", ROOM, "--as", "bot", env={"CLAUDE_CODE_SESSION_ID": "s-1"}
        )
        after_leave = stop(laptop, "s-1", transcript)

        agent_waits(laptop, "s-2")
        other = claude_transcript(tmp_path / "s-2.jsonl", TYPED_WAIT)
        stops = [stop(laptop, "s-2", other, active=True) for _ in range(STOPS_TO_RELEASE)]
        with httpx.Client(base_url=server.url) as http:
            notices = http.get("/api/approvals", headers={"Authorization": f"Bearer {token}"})
        chat_text = (server.workspace / "Chats" / "room.md").read_text(encoding="utf-8")

    # The team server's record, not the transcript: the wait exactly as it ran, then its leave.
    assert (waiting.returncode, waiting.stdout, waiting.stderr) == (0, block(recorded_wait()), "")
    assert left.returncode == 0, left.stderr
    assert (after_leave.returncode, after_leave.stdout, after_leave.stderr) == (0, "", "")
    # The third stop within two minutes lets it go, counted by the team server (which raises
    # its "stopped" notice for the account); nothing was counted on the laptop.
    assert [(ran.returncode, ran.stdout) for ran in stops] == [
        (0, block(recorded_wait())),
        (0, block(recorded_wait())),
        (0, ""),
    ]
    assert [
        (notice["sessionId"], notice["kind"], notice["machineLabel"])
        for notice in notices.json()["notices"]
    ] == [("s-2", "stopped", "laptop")]
    assert "bot (Claude Code on laptop) stopped and no longer listens" in chat_text
    assert not (laptop.state / "keepalive").exists()
    for ran in [waiting, after_leave, *stops]:
        assert token not in ran.stdout + ran.stderr


def test_a_revoked_token_or_a_stopped_server_leaves_it_to_the_transcript(
    tmp_path: Path,
) -> None:
    with remote_server(tmp_path) as server:
        laptop, token = signed_in(server, tmp_path, "kim")
        agent_waits(laptop, "s-3")
        transcript = claude_transcript(tmp_path / "s-3.jsonl", TYPED_WAIT)
        (listed,) = json.loads(server.user("tokens", "kim", "--json"))
        server.user("revoke-token", "kim", listed["id"])
        refused = [stop(laptop, "s-3", transcript, active=True) for _ in range(STOPS_TO_RELEASE)]
    down = stop(laptop, "s-4", transcript)

    # The transcript's wait, counted on the laptop: the third stop lets the agent go.
    assert [(ran.returncode, ran.stdout) for ran in refused] == [
        (0, block(TYPED_WAIT)),
        (0, block(TYPED_WAIT)),
        (0, ""),
    ]
    assert any((laptop.state / "keepalive").iterdir())
    for ran in refused:
        assert "refused the token saved for it" in ran.stderr
        assert f"quire login @t {server.url}" in ran.stderr
        assert "Decided from the session transcript instead." in ran.stderr
    assert (down.returncode, down.stdout) == (0, block(TYPED_WAIT))
    assert "does not answer" in down.stderr and server.url in down.stderr
    for ran in [*refused, down]:
        assert token not in ran.stdout + ran.stderr


def test_an_alias_that_was_signed_out_is_reported_and_the_transcript_decides(
    tmp_path: Path,
) -> None:
    with remote_server(tmp_path) as server:
        laptop, _ = signed_in(server, tmp_path, "lee")
        agent_waits(laptop, "s-5")
        assert laptop.quire("logout", "@t").returncode == 0
        ran = stop(laptop, "s-5", claude_transcript(tmp_path / "s-5.jsonl", TYPED_WAIT))
    assert (ran.returncode, ran.stdout) == (0, block(TYPED_WAIT))
    assert "No server is saved as @t" in ran.stderr and "quire login @t URL" in ran.stderr
