"""What the ``quire approval`` hooks do: read the harness's JSON and the machine policy, send
the request to the server, wait for the person's decision, and give the line to print.

Fail-open by design: every function returns None (print nothing) for anything but a decision
the person made for exactly this tool call; the caller turns any exception into nothing too.
It never starts a server: a hook that found none lets the terminal answer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import anyio

from quire.api.approvals import ApprovalOutcome, DecisionRecord
from quire.client.approvals import ApprovalsApi
from quire.client.connection import ServerLink
from quire.client.remote import server_link
from quire.client.servers import check_alias, saved_server
from quire.core.approvals.binding import input_hash
from quire.core.approvals.decisions import Allow, Decision, Deny, decision_json
from quire.core.approvals.hook_input import (
    Harness,
    PermissionAsk,
    permission_ask,
    read_hook_json,
)
from quire.core.approvals.policy import (
    MAX_POLICY_BYTES,
    POLICY_FILE,
    Policy,
    parse_policy,
    route,
)
from quire.core.errors import ServerInterrupted, ServerUnreachable

TTL_S: Final = (60, 3600)
QUICK_S: Final = 5.0
"""The limit of ``done`` and ``notify``: one request each."""
FIRST_BACKOFF: Final = 0.1
MAX_BACKOFF: Final = 2.0
_LABEL = re.compile(r"[^A-Za-z0-9._-]+")

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Machine:
    """Where the hook runs: the state folder (policy and server.json) and the host name."""

    state: Path
    hostname: str


def policy_path(state: Path) -> Path:
    """The machine policy file."""
    return state / POLICY_FILE


def read_policy(state: Path) -> Policy | None:
    """The machine policy, or None when there is none or it has a problem (send nothing)."""
    try:
        raw = policy_path(state).read_bytes()
    except OSError:
        return None
    if len(raw) > MAX_POLICY_BYTES:
        return None
    try:
        parsed = parse_policy(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    return None if parsed.problems else parsed.policy


def machine_label(policy: Policy, hostname: str) -> str:
    """The label cards show: the policy's, else the host name made a label."""
    if policy.machine_label:
        return policy.machine_label
    label = _LABEL.sub("-", hostname.split(".")[0]).strip("-._")[:63]
    return label or "machine"


async def request_decision(
    raw: bytes,
    harness: Harness,
    machine: Machine,
    *,
    timeout_s: float | None = None,
    clock: Clock = time.monotonic,
    sleep: Sleep = anyio.sleep,
) -> str | None:
    """The PermissionRequest hook: the decision JSON to print, or None (print nothing)."""
    ask = permission_ask(read_hook_json(raw), harness)
    policy = read_policy(machine.state)
    if policy is None:
        return None
    if route(policy, ask) != "send":
        return None
    link = policy_link(policy, machine)
    try:
        return await _ask_and_wait(link, ask, policy, machine, timeout_s, clock, sleep)
    finally:
        await link.aclose()


async def _ask_and_wait(
    link: ServerLink,
    ask: PermissionAsk,
    policy: Policy,
    machine: Machine,
    timeout_s: float | None,
    clock: Clock,
    sleep: Sleep,
) -> str | None:
    api = await link.running()
    if api is None:
        return None
    wait_s = float(policy.max_wait_s) if timeout_s is None else min(policy.max_wait_s, timeout_s)
    ttl_s = max(TTL_S[0], min(TTL_S[1], round(wait_s)))
    expected = input_hash(ask.tool_name, ask.tool_input)
    requested = await ApprovalsApi(api).request(
        ask, machine_label=machine_label(policy, machine.hostname), ttl_ms=ttl_s * 1000
    )
    if requested.input_hash != expected:
        return None
    deadline = clock() + wait_s
    backoff = FIRST_BACKOFF
    current: ApprovalsApi | None = ApprovalsApi(api)
    while (remaining := deadline - clock()) > 0:
        try:
            if current is None:
                found = await link.running()
                if found is None:
                    raise ServerUnreachable("No Quire server runs right now (restarting?).")
                current = ApprovalsApi(found)
            outcome = await current.wait(requested.approval_id, _wait_ms(remaining))
        except (ServerUnreachable, ServerInterrupted):
            # A server that restarts keeps the request: wait it out, then ask again.
            current = None
            await sleep(min(backoff, max(remaining, 0.0)))
            backoff = min(backoff * 2, MAX_BACKOFF)
            continue
        if outcome.status != "pending":
            return _printed(outcome, expected)
    return None


def _wait_ms(remaining_s: float) -> int:
    return max(1_000, min(3_600_000, round(remaining_s * 1000)))


def _printed(outcome: ApprovalOutcome, expected: str) -> str | None:
    """The line to print for an ended request: only a decision bound to this very call."""
    if outcome.status != "decided" or outcome.decision is None:
        return None
    if outcome.input_hash != expected:
        return None
    return decision_json(core_decision(outcome.decision))


def core_decision(record: DecisionRecord) -> Decision:
    """The API's decision as the pure rule's value."""
    if record.behavior == "deny":
        return Deny(record.message or "The person denied this in Quire.")
    return Allow(
        updated_input=record.updated_input,
        updated_permissions=tuple(record.updated_permissions or ()),
    )


async def report_done(raw: bytes, harness: Harness, machine: Machine) -> None:
    """The PostToolUse / Stop hook: close the session's cards answered in the terminal."""
    data = read_hook_json(raw)
    session_id = data.get("session_id")
    policy = read_policy(machine.state)
    if not isinstance(session_id, str) or policy is None:
        return
    tool_name, tool_input = data.get("tool_name"), data.get("tool_input")
    if not isinstance(tool_name, str) or not isinstance(tool_input, dict):
        tool_name, tool_input = None, None
    await _quick(
        policy_link(policy, machine), lambda api: api.done(session_id, tool_name, tool_input)
    )


async def report_notice(raw: bytes, harness: Harness, machine: Machine) -> None:
    """The Notification hook: raise a notice (waiting in its terminal, idle, other)."""
    data = read_hook_json(raw)
    session_id = data.get("session_id")
    policy = read_policy(machine.state)
    if not isinstance(session_id, str) or policy is None:
        return
    kind = {"permission_prompt": "terminal", "idle_prompt": "idle"}.get(
        str(data.get("notification_type")), "other"
    )
    message = data.get("message")
    text = message if isinstance(message, str) and kind == "other" else ""
    label = machine_label(policy, machine.hostname)
    await _quick(
        policy_link(policy, machine),
        lambda api: api.notify(
            session_id, harness=harness, machine_label=label, kind=kind, message=text
        ),
    )


def policy_link(policy: Policy, machine: Machine) -> ServerLink:
    """The server the policy's SERVER names: ``local`` (this machine's server.json; never
    started), or ``@alias``, a server signed in to with ``quire login`` (its account's token:
    the person answers in that server's window). InvalidArgument when the alias is not saved.
    """
    if policy.server == "local":
        return ServerLink(state=machine.state)
    return server_link(machine.state, saved_server(machine.state, check_alias(policy.server)))


async def _quick(link: ServerLink, call: Callable[[ApprovalsApi], Awaitable[Any]]) -> None:
    try:
        with anyio.move_on_after(QUICK_S):
            api = await link.running()
            if api is not None:
                await call(ApprovalsApi(api))
    finally:
        await link.aclose()
