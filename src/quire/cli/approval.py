"""``quire approval …``: the hooks of agent approvals, the policy check and the settings block.

``request`` is the PermissionRequest hook, ``done`` the PostToolUse and Stop hook, ``notify``
the Notification hook. They fail open: whatever goes wrong, stdout stays empty and the exit
code is 0, so the agent's terminal prompt answers as if no hook existed (a one-line reason goes
to stderr). Only ``check`` and ``hook-config`` report problems.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import cast

import anyio
import click

from quire.cli.connect import this_machine
from quire.client.approval_hook import (
    Machine,
    policy_path,
    report_done,
    report_notice,
    request_decision,
)
from quire.client.servers import check_alias, saved_server
from quire.core.approvals.hook_input import (
    HARNESSES,
    MAX_HOOK_INPUT,
    Harness,
    PermissionAsk,
)
from quire.core.approvals.policy import Policy, parse_policy, route
from quire.core.errors import QuireError
from quire.core.state import state_folder
from quire.services.agents.approval_hooks import hook_config

_AGENT = click.option(
    "--agent",
    "agent",
    type=click.Choice(HARNESSES),
    required=True,
    help="The harness running the hook.",
)
_ROUTES = {
    "send": "sent to the server, as a card the person answers",
    "tool_not_listed": "kept on the machine: the tool is not in TOOLS",
    "never_remote": "kept on the machine: a NEVER_REMOTE entry matches",
    "questions_off": "kept on the machine: QUESTIONS is no",
}


@click.group("approval")
def approval_group() -> None:
    """Agent approvals: answer an agent's permission prompts and questions from the browser.

    The hooks read `~/.quire/approvals.conf` (the machine policy); without it they send
    nothing. The server needs `[approvals] enabled = true` in its quire.toml.
    """


def _machine() -> Machine:
    return Machine(state=state_folder(os.environ, Path.home()), hostname=socket.gethostname())


def _stdin() -> bytes:
    stream = sys.stdin.buffer if sys.stdin is not None else None
    return b"" if stream is None else stream.read(MAX_HOOK_INPUT + 1)


def _fail_open(run: Callable[[], Awaitable[str | None]]) -> None:
    """Run a hook; print its line when it has one, and nothing at all on any failure."""
    try:
        line = anyio.run(run)
    except Exception as error:  # fail open: the terminal answers
        click.echo(f"quire approval: {error} The agent's terminal answers.", err=True)
        return
    if line is not None:
        sys.stdout.write(line)
        sys.stdout.flush()


@approval_group.command("request")
@_AGENT
@click.option(
    "--timeout",
    "timeout",
    type=click.FloatRange(min=1),
    default=None,
    help="Wait at most this many seconds (the policy's MAX_WAIT when shorter).",
)
def request_command(agent: str, timeout: float | None) -> None:
    """The PermissionRequest hook: send the agent's request to the person and print their
    decision as the harness expects it, or nothing.

    Reads one JSON object on stdin (at most 1 MiB; a key twice or in two cases, trailing data
    or bad UTF-8 are refused) and applies the machine policy; waits server-side until the
    person decides, the request expires or the wait ends. Prints nothing, exit 0, on anything
    else: no policy, a bad policy, the policy keeping it local, no server, a refused token,
    an expired or full queue, malformed input.
    """
    harness = cast("Harness", agent)
    _fail_open(lambda: request_decision(_stdin(), harness, _machine(), timeout_s=timeout))


@approval_group.command("done")
@_AGENT
def done_command(agent: str) -> None:
    """The PostToolUse and Stop hook: close the session's cards that were answered in the
    terminal, and its notices (the agent carried on). One request, 5 s at most; prints
    nothing, exit 0."""
    harness = cast("Harness", agent)

    async def run() -> None:
        await report_done(_stdin(), harness, _machine())

    _fail_open(run)


@approval_group.command("notify")
@_AGENT
def notify_command(agent: str) -> None:
    """The Notification hook: raise a notice (waiting in its terminal, idle, other) in the
    approvals list. One request, 5 s at most; prints nothing, exit 0."""
    harness = cast("Harness", agent)

    async def run() -> None:
        await report_notice(_stdin(), harness, _machine())

    _fail_open(run)


@approval_group.command("check")
@click.option("--tool", default="Bash", show_default=True, help="The sample request's tool.")
@click.option(
    "--input",
    "tool_input",
    default='{"command": "ls -la"}',
    show_default=True,
    help="The sample request's tool input, as JSON.",
)
def check_command(tool: str, tool_input: str) -> None:
    """Check the machine policy: name every bad line on stderr (exit 1), then print what it
    decides for a sample request."""
    path = policy_path(_machine().state)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        click.echo(
            f"quire: cannot read the policy {path} ({error}); the hooks send nothing until it "
            "exists. Write it as KEY=value lines (SERVER, MACHINE_LABEL, TOOLS, NEVER_REMOTE, "
            "MAX_WAIT, QUESTIONS).",
            err=True,
        )
        sys.exit(1)
    parsed = parse_policy(text)
    for problem in parsed.problems:
        click.echo(f"{path}: {problem}", err=True)
    _describe(path, parsed.policy, tool, tool_input)
    if parsed.problems:
        click.echo("While the policy has a problem, the hooks send nothing.", err=True)
        sys.exit(1)


def _describe(path: Path, policy: Policy, tool: str, raw_input: str) -> None:
    try:
        sample = json.loads(raw_input)
    except json.JSONDecodeError as error:
        raise click.BadParameter(f"not JSON: {error.msg}", param_hint="--input") from None
    if not isinstance(sample, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--input")
    label = policy.machine_label or f"(this host: {socket.gethostname()})"
    click.echo(f"Policy: {path}")
    click.echo(f"SERVER={policy.server}  MACHINE_LABEL={label}  MAX_WAIT={policy.max_wait_s}")
    click.echo(f"TOOLS={','.join(sorted(policy.tools))}  QUESTIONS={policy.questions}")
    ask = PermissionAsk("claude-code", "sample", "/", tool, sample, ())
    click.echo(f"A {tool} request {json.dumps(sample)}: {_ROUTES[route(policy, ask)]}.")
    if policy.server != "local":
        click.echo(_remote_server(policy.server, path.parent))


def _remote_server(alias: str, state: Path) -> str:
    """Where SERVER=@alias sends the cards: the server `quire login` saved, or why nowhere."""
    try:
        saved = saved_server(state, check_alias(alias))
    except QuireError as error:
        return f"SERVER={alias}: {error} Until then the hooks send nothing."
    return (
        f"SERVER={alias}: the hooks send to {saved.url}, as the account `quire login {alias}` "
        "signed in; the person answers in that server's window."
    )


@approval_group.command("hook-config")
@click.argument("agent", type=click.Choice(HARNESSES))
def hook_config_command(agent: str) -> None:
    """Print the settings block of the approval hooks for AGENT, to merge into its settings
    (or pass to `claude --settings FILE`); Claude Code's carries the allow list for the chat
    commands an agent runs. `quire connect hook --approvals` merges the hooks for you."""
    click.echo(hook_config(this_machine(), cast("Harness", agent)))
