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
from quire.services.agents import roster
from quire.services.agents.machine import Machine
from quire.services.agents.overview import overview
from quire.services.agents.results import Outcome
from quire.web.answers import answer
from quire.web.arguments import query_args, read_body
from quire.web.context import services_of


async def _machine(request: Request) -> Machine:
    # Finding the `quire` program looks at files, so it runs off the event loop.
    return await anyio.to_thread.run_sync(services_of(request).machine.machine)


def _outcome(outcome: Outcome) -> Response:
    return answer(AgentOutcome(ok=outcome.ok, message=outcome.message))


async def list_agents(request: Request) -> Response:
    """The agents Quire connects and the hooks: `{agents: [{id, name, detected, state, detail,
    command}], hook: {installed, chatInstalled, command, detail}}`. `state` is connected (runs
    this Quire), other (kept: another program, or a file Quire will not change), stale (its
    program is gone) or absent; `command` is what `quire connect <id> --print` shows. Asks
    each installed agent, so it may take a few seconds."""
    query_args(request, ())
    machine = await _machine(request)
    found = await anyio.to_thread.run_sync(overview, machine)
    return answer(found)


async def connect_agent(request: Request) -> Response:
    """Register this Quire's MCP server with the agent `agent_id` (claude-code, codex or
    cursor), as `quire connect <id>` does: `{ok, message}`, where ok is false when the agent
    is not connected afterwards (another registration was kept, or its command failed).
    Answers 409 AgentNotDetected when the agent is not installed here."""
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
