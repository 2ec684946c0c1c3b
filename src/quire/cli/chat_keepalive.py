"""``quire chat keepalive``: the Stop hook that sends a chat agent back to its wait.

Reads the harness's Stop payload, asks the server what the session last did in a chat (the
transcript is the fallback when the server does not know it or is not running) and answers
``{"decision":"block","reason":"<the wait command>"}`` or nothing. It always exits 0: a hook
that fails must never keep an agent from stopping.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio
import click

from quire.client.approval_hook import machine_label, read_policy
from quire.client.chats import ChatApi
from quire.client.connection import ServerLink
from quire.client.stop_log import record_stop
from quire.client.transcript import last_chat_command
from quire.core.approvals.policy import Policy
from quire.core.chat import STOPS_TO_RELEASE
from quire.core.errors import QuireError
from quire.core.state import state_folder

KEEPALIVE_ENV = "QUIRE_KEEPALIVE"
"""Set to 0 to turn the hook off for one session."""

MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
"""The most of a Stop payload read from stdin; a longer one is ignored."""

SERVER_SECONDS = 10.0
"""How long the hook gives the server in all before it decides from the transcript."""


@dataclass(frozen=True)
class StopPayload:
    """What the hook uses of the harness's Stop payload."""

    session_id: str | None
    transcript: Path | None
    stop_hook_active: bool
    harness: str
    """``codex`` when the payload carries Codex's ``turn_id``, else ``claude-code``."""


def read_payload(data: bytes) -> StopPayload | None:
    """The Stop payload in ``data``, or None when it is too long or not a JSON object."""
    if len(data) > MAX_PAYLOAD_BYTES:
        return None
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    session = value.get("session_id")
    transcript = value.get("transcript_path")
    path = None
    if isinstance(transcript, str) and transcript.strip() and "\0" not in transcript:
        path = Path(transcript)
        base = value.get("cwd")
        if not path.is_absolute() and isinstance(base, str) and Path(base).is_absolute():
            path = Path(base) / path
    return StopPayload(
        session_id=session.strip() if isinstance(session, str) and session.strip() else None,
        transcript=path if path is not None and path.is_absolute() else None,
        stop_hook_active=value.get("stop_hook_active") is True,
        harness="codex" if "turn_id" in value else "claude-code",
    )


def block(command: str) -> str:
    """The answer that keeps the agent going with ``command``."""
    return json.dumps({"decision": "block", "reason": command}, ensure_ascii=False)


async def keepalive_answer(
    data: bytes,
    *,
    environ: Mapping[str, str],
    link: ServerLink,
    clock: Callable[[], int],
    hostname: str = "",
) -> str | None:
    """What the hook prints for the Stop payload ``data`` (None: nothing, let it stop).

    It blocks with the session's last wait command when that wait was not followed by a
    leave or a gone chat. The server's record of the session is asked first; without one,
    the transcript's last ``quire chat wait``/``leave`` decides. Each block counts as a stop
    (on the server for a session it knows, else in the state folder), and the third within
    two minutes lets the agent stop (the server then raises its "stopped" notice, naming the
    harness and this machine: the approvals policy's MACHINE_LABEL, else ``hostname``). When
    no count can be kept (no session id, or a state
    folder that cannot be written), ``stop_hook_active`` (the agent is already continuing
    because of a Stop hook) lets it stop, so nothing can loop unbounded.
    """
    if environ.get(KEEPALIVE_ENV, "").strip() == "0":
        return None
    payload = read_payload(data)
    if payload is None:
        return None
    chats = None
    command: str | None = None
    known = False
    with anyio.move_on_after(SERVER_SECONDS):
        chats = await _chats(link)
        if chats is not None and payload.session_id is not None:
            known, command = await _recorded_wait(chats, payload.session_id)
    if not known and payload.transcript is not None:
        found = await anyio.to_thread.run_sync(last_chat_command, payload.transcript)
        command = found.command if found is not None and found.kind == "wait" else None
    if command is None:
        return None
    stops = await _count_stop(payload, chats if known else None, link.state, clock, hostname)
    if stops is None:
        return None if payload.stop_hook_active else block(command)
    return None if stops >= STOPS_TO_RELEASE else block(command)


async def _count_stop(
    payload: StopPayload,
    chats: ChatApi | None,
    state: Path,
    clock: Callable[[], int],
    hostname: str,
) -> int | None:
    """Record this stop where it can be counted; the stops within two minutes, or None."""
    session_id = payload.session_id
    if session_id is None:
        return None
    if chats is not None:
        label = await anyio.to_thread.run_sync(_machine_label, state, hostname)
        with anyio.move_on_after(SERVER_SECONDS):
            try:
                return await chats.record_stop(
                    session_id, harness=payload.harness, machine_label=label
                )
            except QuireError:
                pass
    return await anyio.to_thread.run_sync(record_stop, state, session_id, clock())


def _machine_label(state: Path, hostname: str) -> str | None:
    """The label the approvals cards show for this machine, or None when nothing names it."""
    policy = read_policy(state) or Policy()
    if not policy.machine_label and not hostname:
        return None
    return machine_label(policy, hostname)


async def _chats(link: ServerLink) -> ChatApi | None:
    try:
        api = await link.running()
    except QuireError:
        return None
    return None if api is None else ChatApi(api)


async def _recorded_wait(chats: ChatApi, session_id: str) -> tuple[bool, str | None]:
    """Whether the server knows the session, and the wait to send it back to (None: none)."""
    try:
        record = await chats.session(session_id)
    except QuireError:
        return False, None
    if not record.found:
        return False, None
    if record.left or record.wait_command is None:
        return True, None
    return True, record.wait_command


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@click.command("keepalive")
def keepalive_command() -> None:
    """Stop hook for Claude Code and Codex: keep a chat agent waiting instead of stopping.

    Reads the hook's JSON payload on stdin. When the session's last chat command was
    `quire chat wait` and it has not left, prints {"decision":"block","reason":"<that wait
    command>"} so the agent runs the wait again; otherwise prints nothing. Three stops within
    two minutes let the agent stop; QUIRE_KEEPALIVE=0 turns the hook off. Always exits 0.
    Install it as the command of a Stop hook: `quire chat keepalive`.
    """
    data = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    environ = dict(os.environ)
    link = ServerLink(state=state_folder(environ, Path.home()))

    async def main() -> str | None:
        try:
            return await keepalive_answer(
                data, environ=environ, link=link, clock=_now_ms, hostname=socket.gethostname()
            )
        finally:
            await link.aclose()

    try:
        answer = anyio.run(main)
    except Exception as error:  # the hook must never stop an agent from stopping by failing
        click.echo(f"quire chat keepalive: {type(error).__name__}: {error}", err=True)
        answer = None
    if answer is not None:
        click.echo(answer)
