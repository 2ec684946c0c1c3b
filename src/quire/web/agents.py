"""HTTP routes of the Connect page (Settings → Agents): which agents are installed and what
they run, connecting one, and installing or removing Quire's hooks.

Thin: parse the request, call ``services.agents`` off the event loop (it runs the agents'
commands and writes their settings files), answer the ``api.agents`` models. The machine (home
folder, PATH, ``quire`` program) is the one the services were given; nothing here reads the
process's environment.
"""

from __future__ import annotations

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.agents import AgentOutcome, ConnectBody, HookBody
from quire.core.errors import AccessDenied
from quire.services.agents import roster
from quire.services.agents.machine import Machine
from quire.services.agents.overview import overview
from quire.services.agents.results import Outcome
from quire.services.users.access import current_access
from quire.web.answers import answer
from quire.web.arguments import query_args, read_body
from quire.web.context import services_of

MACHINE_ONLY = (
    "Access denied: the agents page connects agents on the server's own machine, so on a team "
    "server only its owner (the server's token) or a superadmin may use it. Connect agents "
    "on your own machine with `quire connect`."
)


def _require_machine_owner() -> None:
    """Refuse an account that is neither the server's owner nor a superadmin (multi mode)."""
    identity = current_access().identity
    if identity is not None and identity.role != "superadmin":
        raise AccessDenied(MACHINE_ONLY)


async def _machine(request: Request) -> Machine:
    _require_machine_owner()
    # Finding the `quire` program looks at files, so it runs off the event loop.
    return await anyio.to_thread.run_sync(services_of(request).machine.machine)


def _outcome(outcome: Outcome) -> Response:
    return answer(AgentOutcome(ok=outcome.ok, message=outcome.message))


async def list_agents(request: Request) -> Response:
    """The agents Quire connects and the hooks: `{agents: [{id, name, detected, state, detail,
    command}], hook: {installed, chatInstalled, command, detail}}`. `state` is connected (runs
    this Quire), other (kept: another program, or a file Quire will not change), stale (its
    program is gone) or absent; `command` is what `quire connect <id> --print` shows. Asks
    each installed agent, so it may take a few seconds. On a team server: the owner's token or
    a superadmin only (403 for other accounts)."""
    query_args(request, ())
    machine = await _machine(request)
    found = await anyio.to_thread.run_sync(overview, machine)
    return answer(found)


async def connect_agent(request: Request) -> Response:
    """Register this Quire's MCP server with the agent `agent_id` (claude-code, codex or
    cursor), as `quire connect <id>` does: `{ok, message}`, where ok is false when the agent
    is not connected afterwards (another registration was kept, or its command failed).
    Answers 409 AgentNotDetected when the agent is not installed here."""
    _require_machine_owner()
    agent_id = request.path_params["agent_id"]
    await read_body(request, ConnectBody)
    chosen = roster.agent(agent_id)
    machine = await _machine(request)
    outcome = await anyio.to_thread.run_sync(roster.connect, chosen.id, machine)
    return _outcome(outcome)


async def change_hooks(request: Request) -> Response:
    """Install the auto-open hook in ~/.claude/settings.json (with `chat`, the keep-alive Stop
    hooks too), or with `remove` take Quire's entries out, as `quire connect hook` does:
    `{ok, message}`."""
    _require_machine_owner()
    body = await read_body(request, HookBody)
    machine = await _machine(request)
    outcome = await anyio.to_thread.run_sync(
        lambda: roster.change_hooks(machine, chat=body.chat, remove=body.remove)
    )
    return _outcome(outcome)


routes: list[BaseRoute] = [
    Route("/api/agents", list_agents, methods=["GET"]),
    Route("/api/agents/hook", change_hooks, methods=["POST"]),
    Route("/api/agents/{agent_id}/connect", connect_agent, methods=["POST"]),
]
