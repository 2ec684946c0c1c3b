"""``quire chat keepalive``: the Stop hook that sends a chat agent back to its wait.

Reads the harness's Stop payload, asks the server the session chats on (this machine's, or
the ``@alias`` its last chat command named) what the session last did in a chat (the
transcript is the fallback when that server does not know it or cannot be asked) and answers
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
from typing import assert_never

import anyio
import click

from quire.cli.chat_output import safe
from quire.client.approval_hook import machine_label, read_policy
from quire.client.chats import ChatApi
from quire.client.connection import ServerLink
from quire.client.remote import alias_link
from quire.client.session_server import (
    Linker,
    LocalServer,
    SignedInServer,
    UnlinkedServer,
    session_server,
)
from quire.client.stop_log import record_stop
from quire.client.transcript import ChatCommand, last_chat_command
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


Report = Callable[[str], None]
"""Where the hook says what went wrong with a server it asked (stderr); never stdout."""

FALLBACK = "Decided from the session transcript instead."
COUNTED_HERE = "Counted this stop on this machine instead."


@dataclass(frozen=True)
class _Machine:
    """Where the hook runs: the state folder, its clock and host name, where it reports."""

    state: Path
    clock: Callable[[], int]
    hostname: str
    report: Report


@dataclass(frozen=True)
class _Server:
    """The server asked: its link, its name in messages, and the (event loop) time the hook
    stops waiting for it, SERVER_SECONDS after it began."""

    link: ServerLink
    name: str
    deadline: float


def _server(link: ServerLink, name: str) -> _Server:
    return _Server(link, name, anyio.current_time() + SERVER_SECONDS)


def _ignore(_: str) -> None:
    return None


async def keepalive_answer(
    data: bytes,
    *,
    environ: Mapping[str, str],
    link: ServerLink,
    clock: Callable[[], int],
    hostname: str = "",
    report: Report = _ignore,
    linker: Linker = alias_link,
) -> str | None:
    """What the hook prints for the Stop payload ``data`` (None: nothing, let it stop).

    It blocks with the session's last wait command when that wait was not followed by a
    leave or a gone chat. The server asked is the one the transcript's last ``quire chat
    wait``/``leave`` names: ``@alias/…`` (signed in with ``quire login``, linked by
    ``linker``), else the local one (``link``). That server's record of the session wins;
    without one (the server does not know the session, is down, refuses the token or the alias
    is not saved; each told to ``report``), the transcript decides. Each block counts as a
    stop (on that server for a session it knows, else in the state folder), and the third
    within two minutes lets the agent stop (the server then raises its "stopped" notice,
    naming the harness and this machine: the approvals policy's MACHINE_LABEL, else
    ``hostname``). When no count can be kept (no session id, or a state folder that cannot be
    written), ``stop_hook_active`` (the agent is already continuing because of a Stop hook)
    lets it stop, so nothing can loop unbounded.
    """
    if environ.get(KEEPALIVE_ENV, "").strip() == "0":
        return None
    payload = read_payload(data)
    if payload is None:
        return None
    found = None
    if payload.transcript is not None:
        found = await anyio.to_thread.run_sync(last_chat_command, payload.transcript)
    server = await anyio.to_thread.run_sync(session_server, link.state, found, linker)
    machine = _Machine(link.state, clock, hostname, report)
    match server:
        case LocalServer():
            local = _server(link, "The local Quire server")
            return await _decide(payload, found, local, machine)
        case SignedInServer(alias=alias, link=remote):
            url = remote.fixed.url if remote.fixed is not None else ""
            try:
                signed_in = _server(remote, f"@{alias} ({url})")
                return await _decide(payload, found, signed_in, machine)
            finally:
                await remote.aclose()
        case UnlinkedServer(reason=reason):
            report(f"{reason} {FALLBACK}")
            return await _decide(payload, found, None, machine)
        case _:
            assert_never(server)


async def _decide(
    payload: StopPayload,
    found: ChatCommand | None,
    server: _Server | None,
    machine: _Machine,
) -> str | None:
    """The answer, from ``server``'s record when it knows the session, else from the
    transcript's last chat command ``found``."""
    chats, known, command = None, False, None
    if server is not None:
        chats, known, command = await _ask(server, payload.session_id, machine.report)
    if not known:
        command = found.command if found is not None and found.kind == "wait" else None
    if command is None:
        return None
    counter = (chats, server) if known and chats is not None and server is not None else None
    stops = await _count_stop(payload, counter, machine)
    if stops is None:
        return None if payload.stop_hook_active else block(command)
    return None if stops >= STOPS_TO_RELEASE else block(command)


async def _ask(
    server: _Server, session_id: str | None, report: Report
) -> tuple[ChatApi | None, bool, str | None]:
    """The server's chat API, whether it knows the session, and the wait to send it back to;
    given up at the server's deadline."""
    with anyio.move_on_at(server.deadline):
        chats = await _chats(server.link, report)
        if chats is None or session_id is None:
            return chats, False, None
        known, command = await _recorded_wait(chats, session_id, report)
        return chats, known, command
    report(f"{server.name} did not answer within {SERVER_SECONDS:g} s. {FALLBACK}")
    return None, False, None


async def _count_stop(
    payload: StopPayload, counter: tuple[ChatApi, _Server] | None, machine: _Machine
) -> int | None:
    """Record this stop where it can be counted (``counter``, the server that knows the
    session, until its deadline; else the state folder); the stops within two minutes, or
    None."""
    session_id = payload.session_id
    if session_id is None:
        return None
    if counter is not None:
        chats, server = counter
        label = await anyio.to_thread.run_sync(_machine_label, machine.state, machine.hostname)
        with anyio.move_on_at(server.deadline) as scope:
            try:
                return await chats.record_stop(
                    session_id, harness=payload.harness, machine_label=label
                )
            except QuireError as error:
                machine.report(f"{error} {COUNTED_HERE}")
        if scope.cancelled_caught:
            machine.report(
                f"{server.name} did not answer within {SERVER_SECONDS:g} s. {COUNTED_HERE}"
            )
    return await anyio.to_thread.run_sync(record_stop, machine.state, session_id, machine.clock())


def _machine_label(state: Path, hostname: str) -> str | None:
    """The label the approvals cards show for this machine, or None when nothing names it."""
    policy = read_policy(state) or Policy()
    if not policy.machine_label and not hostname:
        return None
    return machine_label(policy, hostname)


async def _chats(link: ServerLink, report: Report) -> ChatApi | None:
    try:
        api = await link.running()
    except QuireError as error:
        report(f"{error} {FALLBACK}")
        return None
    return None if api is None else ChatApi(api)


async def _recorded_wait(
    chats: ChatApi, session_id: str, report: Report
) -> tuple[bool, str | None]:
    """Whether the server knows the session, and the wait to send it back to (None: none)."""
    try:
        record = await chats.session(session_id)
    except QuireError as error:
        report(f"{error} {FALLBACK}")
        return False, None
    if not record.found:
        return False, None
    if record.left or record.wait_command is None:
        return True, None
    return True, record.wait_command


def _to_stderr(text: str) -> None:
    # Messages can quote the transcript (an address): shown terminal-safe.
    click.echo(f"quire chat keepalive: {safe(text)}", err=True)


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

    It asks the server the chat is on: the one signed in to with `quire login @alias` when
    the transcript's last `quire chat wait` or `leave` named @alias/workspace/path.md, else
    the local one. A server that is down, refuses the token or is not signed in is reported
    on stderr, and the transcript decides.
    """
    data = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    environ = dict(os.environ)
    link = ServerLink(state=state_folder(environ, Path.home()))

    async def main() -> str | None:
        try:
            return await keepalive_answer(
                data,
                environ=environ,
                link=link,
                clock=_now_ms,
                hostname=socket.gethostname(),
                report=_to_stderr,
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
