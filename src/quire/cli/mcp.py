"""``quire mcp``: Quire's MCP server over stdio, for any MCP client (Claude Code, Codex, …).

The composition root of the stdio server: reads the environment, finds (or later starts) the
local server, configures logging to stderr (stdout carries only protocol messages) and runs.
Its own imports are few: when no server runs, one is spawned on standby before the MCP
server's modules load (``quire.cli.mcp_services``), so both load at once.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import anyio
import click

from quire import __version__
from quire.cli.arguments import printable
from quire.cli.mcp_standby import prepared_starter
from quire.client.autostart import SubprocessStarter

TERMINAL_HINT = (
    "quire mcp: waiting for JSON-RPC messages on stdin. This is an MCP server: an MCP client "
    "(Claude Code, Codex, Cursor, …) starts it. Press Ctrl+D to stop."
)


@click.command(
    "mcp",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.version_option(
    __version__, "-V", "--version", prog_name="quire mcp", message="%(prog)s %(version)s"
)
@click.option(
    "--export-tool-schema",
    is_flag=True,
    help="Print every tool (sorted by name) with its input schema as JSON, then exit.",
)
@click.option(
    "--allow",
    "allow",
    multiple=True,
    metavar="DIR",
    help="Also allow the tools to use DIR (repeatable).",
)
@click.option("--no-roots", is_flag=True, help="Do not widen the allowed folders to MCP roots.")
@click.option(
    "--only-allowed",
    is_flag=True,
    help="Allow only the --allow folders (and roots): not the server's workspaces nor the "
    "working directory. With neither, every path is refused.",
)
@click.option(
    "--server",
    "server",
    metavar="URL|@alias",
    help="Use this Quire server instead of the local one: @alias (signed in with `quire "
    "login`; the account's grants apply) or a URL (token in $QUIRE_TOKEN).",
)
@click.pass_context
def mcp_command(
    ctx: click.Context,
    export_tool_schema: bool,
    allow: tuple[str, ...],
    no_roots: bool,
    only_allowed: bool,
    server: str | None,
) -> None:
    """Serve Quire's document tools, resources and prompts over MCP (stdio).

    An MCP client starts this command; it finds the local server through the state folder's
    server.json and starts `quire serve` in the background when a tool needs it. The tools
    may touch only allowed folders: the server's workspaces (the working directory when no
    server runs), each --allow DIR, and the client's roots unless --no-roots. Logs go to
    stderr; stdout carries only protocol messages. Unknown arguments are ignored.

    With --server @alias the tools act for the account `quire login @alias` saved: every path
    goes to that server, which applies the account's grants; nothing is started, and the tools
    that only read this machine's disk (diff_documents, edit_canvas, the conversation memory)
    are not offered.
    """
    if export_tool_schema:
        from quire.mcp.catalog import schema_export

        click.echo(json.dumps(schema_export(), indent=2, ensure_ascii=False))
        return
    # Before the MCP server's own modules load (most of this command's start): a server
    # process, on standby, loads its modules meanwhile, so a first tool call waits less.
    # The program's entry point has spawned it already when it could tell from the arguments.
    early = ctx.find_object(SubprocessStarter)
    starter = (
        early
        if early is not None and server is None
        else prepared_starter(server, os.environ, Path.cwd(), Path.home())
    )
    from quire.cli.mcp_services import local_services, run_stdio

    for extra in ctx.args:
        click.echo(f"quire mcp: ignoring unknown argument {printable(extra)!r}", err=True)
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="quire mcp: %(levelname)s %(message)s"
    )
    services = local_services(
        environ=os.environ,
        cwd=Path.cwd(),
        home=Path.home(),
        allow=allow,
        use_roots=not no_roots,
        server=server,
        only_allowed=only_allowed,
        starter=starter,
    )
    if sys.stdin.isatty():
        click.echo(TERMINAL_HINT, err=True)
    anyio.run(run_stdio, services)
