"""``quire mcp``: Quire's MCP server over stdio, for any MCP client (Claude Code, Codex, …).

The composition root of the stdio server: reads the environment, finds (or later starts) the
local server, configures logging to stderr (stdout carries only protocol messages) and runs.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import anyio
import click

from quire import __version__
from quire.cli.export import StandaloneExport
from quire.cli.startup import startup_done
from quire.client.autostart import SubprocessStarter
from quire.client.connection import ServerLink
from quire.client.remote import server_link as remote_link
from quire.client.servers import check_alias, saved_server
from quire.core.errors import QuireError
from quire.core.paths import expand_path
from quire.core.server_info import ServerInfo
from quire.core.state import sessions_folder, state_folder
from quire.mcp.catalog import schema_export
from quire.mcp.context import Services
from quire.mcp.roots import HOW_TO_ADD, ONLY_ALLOWED_HOW_TO_ADD, FolderGate
from quire.mcp.server import build_server
from quire.mcp.stdio import serve_stdio
from quire.memory.sessions import SessionStore
from quire.settings.model import chat_enabled
from quire.settings.server_file import Found, discover

TOKEN_ENV = "QUIRE_TOKEN"
TERMINAL_HINT = (
    "quire mcp: waiting for JSON-RPC messages on stdin. This is an MCP server: an MCP client "
    "(Claude Code, Codex, Cursor, …) starts it. Press Ctrl+D to stop."
)


def _printable(argument: str) -> str:
    """An argument as stderr can show it, also when it is not valid UTF-8."""
    return os.fsencode(argument).decode("utf-8", "backslashreplace")


def _clock_ms() -> int:
    return time.time_ns() // 1_000_000


def fixed_server(url: str, environ: Mapping[str, str], state: Path) -> ServerInfo:
    """The server ``--server URL`` names, with the token of ``$QUIRE_TOKEN`` or server.json."""
    if not url.startswith(("http://", "https://")):
        raise click.UsageError(
            f"--server {url}: pass an http:// or https:// URL, or @alias for a server signed "
            "in to with `quire login`."
        )
    token = environ.get(TOKEN_ENV, "").strip()
    if not token:
        try:
            found = discover(state)
        except QuireError:
            found = None
        if isinstance(found, Found) and found.info.url.rstrip("/") == url.rstrip("/"):
            token = found.info.token
    if not token:
        raise click.UsageError(
            f"--server {url}: no token. Set {TOKEN_ENV} to the token that server printed, or "
            "sign in with `quire login @alias URL` and pass --server @alias."
        )
    return ServerInfo(url=url.rstrip("/"), token=token, pid=0)


def server_link(
    server: str | None, environ: Mapping[str, str], state: Path, cwd: Path
) -> ServerLink:
    """The link ``--server`` asks for: a signed-in ``@alias`` (remote: nothing is started and
    no disk is read in its stead), a fixed URL, or the local server (started when needed)."""
    if server is not None and server.startswith("@"):
        try:
            return remote_link(state, saved_server(state, check_alias(server, "--server")))
        except QuireError as error:
            raise click.UsageError(f"--server {server}: {error}") from None
    fixed = fixed_server(server, environ, state) if server else None
    starter = None if fixed else SubprocessStarter(state=state, cwd=cwd, environ=environ)
    return ServerLink(state=state, starter=starter, fixed=fixed)


def local_services(
    *,
    environ: Mapping[str, str],
    cwd: Path,
    home: Path,
    allow: tuple[str, ...],
    use_roots: bool,
    server: str | None,
    only_allowed: bool = False,
) -> Services:
    """The services of a stdio ``quire mcp`` run from ``cwd``."""
    state = state_folder(environ, home)
    link = server_link(server, environ, state, cwd)
    folders: list[Path] = []
    for item in allow:
        try:
            folders.append(expand_path(item, cwd=cwd, home=home, argument="--allow"))
        except QuireError as exc:
            click.echo(f"quire mcp: ignoring --allow {_printable(item)!r}: {exc}", err=True)
    gate = FolderGate(
        allow=folders,
        use_roots=use_roots,
        default_workspace=cwd,
        workspaces=not only_allowed,
        how_to_add=ONLY_ALLOWED_HOW_TO_ADD if only_allowed else HOW_TO_ADD,
    )
    sessions = SessionStore(sessions_folder(state), clock=_clock_ms, cwd=cwd, home=home)
    return Services(
        exporter=StandaloneExport(environ=environ, home=home, cwd=cwd),
        link=link,
        gate=gate,
        sessions=sessions,
        cwd=cwd,
        home=home,
        clock=_clock_ms,
        chat_enabled=chat_enabled(state),
    )


async def run_stdio(services: Services) -> None:
    """Serve MCP over this process's stdin and stdout until the client closes them."""
    try:
        server = build_server(services)
        startup_done()
        await serve_stdio(server)
    finally:
        if isinstance(services.exporter, StandaloneExport):
            await services.exporter.aclose()
        await services.link.aclose()


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
    for extra in ctx.args:
        click.echo(f"quire mcp: ignoring unknown argument {_printable(extra)!r}", err=True)
    if export_tool_schema:
        click.echo(json.dumps(schema_export(), indent=2, ensure_ascii=False))
        return
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
    )
    if sys.stdin.isatty():
        click.echo(TERMINAL_HINT, err=True)
    anyio.run(run_stdio, services)
