"""``quire connect``: register Quire's MCP server with Claude Code, Codex or Cursor, install
the auto-open (and chat keep-alive) hooks, and list what is connected.

The composition root of ``services.agents``: reads the environment, calls the roster, prints.
"""

from __future__ import annotations

import click

from quire.api.agents import AgentStatus
from quire.cli.machine import machine_facts
from quire.cli.output import echo_json, fail, reports_errors
from quire.services.agents import hooks, roster
from quire.services.agents.machine import Machine
from quire.services.agents.overview import overview
from quire.services.agents.registration import servers_json
from quire.services.agents.results import AgentId, Outcome

_PRINT_HELP = "Print the command (or JSON) that registers Quire by hand; change nothing."


def this_machine() -> Machine:
    """This process's machine: its environment, home folder and ``quire`` program."""
    return machine_facts().machine()


def _finish(outcome: Outcome) -> None:
    if not outcome.ok:
        fail(outcome.message)
    click.echo(outcome.message)


def _label(status: AgentStatus) -> str:
    return status.state if status.detected else "not installed"


@click.group("connect", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead.")
@click.option(
    "--print",
    "print_only",
    is_flag=True,
    help="Print the `mcpServers` JSON block that adds Quire to any MCP client's settings; "
    "change nothing.",
)
@click.pass_context
@reports_errors
def connect_command(context: click.Context, as_json: bool, print_only: bool) -> None:
    """Connect coding agents to Quire: register its MCP server with Claude Code, Codex or
    Cursor, and install the hook that opens the Markdown they write.

    Without a subcommand, list the agents found on this machine and whether each runs this
    Quire (connected), another program Quire keeps (other), a program that is gone (stale), or
    nothing yet (absent). With `--print`, print the settings block for an agent that has no
    command to register servers (Claude Desktop, Windsurf, VS Code and most others read it).
    """
    if context.invoked_subcommand is not None:
        if print_only:
            raise click.UsageError(
                f"--print goes after the agent: `quire connect {context.invoked_subcommand} "
                "--print`."
            )
        return
    machine = this_machine()
    if print_only:
        click.echo(servers_json(machine))
        return
    found = overview(machine)
    if as_json:
        echo_json(found.dump())
        return
    click.echo(f"Quire: {machine.quire}\n")
    for status in found.agents:
        click.echo(f"{status.name} ({status.id}): {_label(status)}\n  {status.detail}")
    hook = found.hook
    click.echo(f"\nAuto-open hook: {'installed' if hook.installed else 'not installed'}")
    click.echo(f"  {hook.detail}")
    chat = "installed" if hook.chat_installed else "not installed (`quire connect hook --chat`)"
    click.echo(f"Chat keep-alive hook: {chat}")
    click.echo(
        "\nNext: `quire connect <agent>` registers Quire with an agent; `--print` shows the "
        "command instead, and `quire connect --print` the JSON block for any other MCP client."
    )


def _agent_command(agent_id: AgentId, summary: str) -> click.Command:
    @click.command(agent_id, help=summary)
    @click.option("--print", "print_only", is_flag=True, help=_PRINT_HELP)
    @reports_errors
    def command(print_only: bool) -> None:
        machine = this_machine()
        if print_only:
            click.echo(roster.AGENTS[agent_id].print_command(machine))
            return
        _finish(roster.connect(agent_id, machine))

    return command


connect_command.add_command(
    _agent_command(
        "claude-code",
        "Register Quire's MCP server with Claude Code at user scope (`claude mcp add --scope "
        "user quire -- QUIRE mcp`). An existing `quire` server that runs this Quire is left "
        "alone, one whose program is gone is replaced, and one running another program is "
        "kept and named.",
    )
)
connect_command.add_command(
    _agent_command(
        "codex",
        "Register Quire's MCP server with Codex (`codex mcp add quire -- QUIRE mcp`), with "
        "the same rules as claude-code.",
    )
)
connect_command.add_command(
    _agent_command(
        "cursor",
        "Merge Quire's MCP server into ~/.cursor/mcp.json (only its `quire` key; other "
        "servers are kept). A file that is not valid JSON, or has the wrong shape, is left "
        "untouched with the reason.",
    )
)


@connect_command.command("hook")
@click.option("--remove", is_flag=True, help="Remove Quire's hook entries instead.")
@click.option(
    "--chat",
    is_flag=True,
    help="Also the chat keep-alive Stop hook, for Claude Code and Codex (~/.codex/hooks.json).",
)
@click.option(
    "--approvals",
    is_flag=True,
    help="Also the agent approval hooks (PermissionRequest, PostToolUse, Stop, Notification), "
    "for Claude Code and Codex.",
)
@click.option("--print", "print_only", is_flag=True, help="Print the JSON to merge by hand.")
@reports_errors
def hook_command(remove: bool, chat: bool, approvals: bool, print_only: bool) -> None:
    """Install the auto-open hook in ~/.claude/settings.json: when Claude Code writes or edits
    a Markdown file, it opens in Quire.

    Idempotent; an entry running a Quire that no longer exists is repaired, and a `hooks`
    value of the wrong shape is left untouched with the reason.
    """
    if print_only and remove:
        raise click.UsageError("--print shows what would be installed; leave out --remove.")
    machine = this_machine()
    if print_only:
        click.echo(hooks.print_json(machine, chat=chat, approvals=approvals))
        return
    _finish(roster.change_hooks(machine, chat=chat, remove=remove, approvals=approvals))
