"""The stdio MCP server's services: the link to a server, the folder gate, the sessions, and
the run over this process's stdin and stdout (``quire mcp`` composes them)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import click

from quire.cli.arguments import printable
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
from quire.mcp.context import Services
from quire.mcp.roots import HOW_TO_ADD, ONLY_ALLOWED_HOW_TO_ADD, FolderGate
from quire.mcp.server import build_server
from quire.mcp.stdio import serve_stdio
from quire.memory.sessions import SessionStore
from quire.settings.model import chat_enabled
from quire.settings.server_file import Found, discover

TOKEN_ENV = "QUIRE_TOKEN"


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
    server: str | None,
    environ: Mapping[str, str],
    state: Path,
    cwd: Path,
    starter: SubprocessStarter | None = None,
) -> ServerLink:
    """The link ``--server`` asks for: a signed-in ``@alias`` (remote: nothing is started and
    no disk is read in its stead), a fixed URL, or the local server (started when needed, by
    ``starter`` when one was made already)."""
    if server is not None and server.startswith("@"):
        try:
            return remote_link(state, saved_server(state, check_alias(server, "--server")))
        except QuireError as error:
            raise click.UsageError(f"--server {server}: {error}") from None
    fixed = fixed_server(server, environ, state) if server else None
    if fixed is not None:
        return ServerLink(state=state, fixed=fixed)
    starter = starter or SubprocessStarter(state=state, cwd=cwd, environ=environ)
    return ServerLink(state=state, starter=starter)


def local_services(
    *,
    environ: Mapping[str, str],
    cwd: Path,
    home: Path,
    allow: tuple[str, ...],
    use_roots: bool,
    server: str | None,
    only_allowed: bool = False,
    starter: SubprocessStarter | None = None,
) -> Services:
    """The services of a stdio ``quire mcp`` run from ``cwd`` (``starter``: the local server's,
    when ``prepared_starter`` made one)."""
    state = state_folder(environ, home)
    link = server_link(server, environ, state, cwd, starter)
    folders: list[Path] = []
    for item in allow:
        try:
            folders.append(expand_path(item, cwd=cwd, home=home, argument="--allow"))
        except QuireError as exc:
            click.echo(f"quire mcp: ignoring --allow {printable(item)!r}: {exc}", err=True)
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
