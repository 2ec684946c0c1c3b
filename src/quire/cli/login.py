"""``quire login``, ``quire logout`` and ``quire whoami``: signing this machine in to servers.

The composition root of ``servers.toml``: reads the token from a hidden prompt or stdin (never
an argument), checks it against the server before anything is saved, and never prints it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import click

from quire.api.account import AccountView
from quire.cli.output import echo_json, reports_errors
from quire.client.api import QuireApi
from quire.client.connection import ServerLink
from quire.client.remote import server_link, verify_for
from quire.client.servers import (
    SavedServer,
    check_alias,
    check_url,
    forget_server,
    read_servers,
    save_server,
    saved_server,
    servers_file,
)
from quire.core.errors import InvalidArgument, QuireError, ServerUnreachable, TokenRefused
from quire.core.paths import expand_path
from quire.core.state import state_folder
from quire.settings.server_file import server_file

AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")


def _state() -> Path:
    return state_folder(os.environ, Path.home())


def _read_token(from_stdin: bool) -> str:
    if from_stdin:
        token = sys.stdin.readline().strip()
    elif not sys.stdin.isatty():
        raise InvalidArgument(
            "No terminal to ask for the token on: pipe it in with --token-stdin.",
            argument="token",
        )
    else:
        token = str(click.prompt("API token", hide_input=True)).strip()
    if not token:
        raise InvalidArgument(
            "No token was given. Make one on your account page (or with `quire user token "
            "USER` on the server) and pass it on the prompt or with --token-stdin.",
            argument="token",
        )
    return token


def _certificate_file(raw: str) -> str:
    """``--ca-cert``'s file as an absolute path; InvalidArgument when it is no readable file."""
    try:
        path = expand_path(raw, cwd=Path.cwd(), home=Path.home(), argument="--ca-cert")
        readable = path.is_file() and os.access(path, os.R_OK)
    except (OSError, ValueError, QuireError):
        readable = False
    if not readable:
        raise InvalidArgument(
            f"--ca-cert {os.fsencode(raw)[:200].decode('utf-8', 'backslashreplace')!r} is not "
            "a readable file. Pass the server's certificate (or its CA's) as a PEM file.",
            argument="--ca-cert",
        )
    return str(path)


async def _check(link: ServerLink, alias: str, url: str) -> AccountView:
    try:
        api = await link.api()
        return await api.account()
    except TokenRefused:
        raise TokenRefused(
            f"The Quire server at {url} refused this token (HTTP 401): it is unknown, expired "
            "or revoked, or its account is disabled. Nothing was saved. Make a new token on "
            f"your account page (or with `quire user token USER` on the server) and run "
            f"`quire login @{alias} {url}` again."
        ) from None
    finally:
        await link.aclose()


def _describe(signed: AccountView, where: str) -> str:
    if signed.role is None:
        return f"You are the owner of {where}: its own token, which reaches everything it serves."
    role = f" (role {signed.role})" if signed.role else ""
    return f"You are {signed.username}{role} on {where}."


@click.command("login")
@click.argument("alias", metavar="@ALIAS")
@click.argument("url", metavar="URL")
@click.option("--token-stdin", is_flag=True, help="Read the API token from stdin (one line).")
@click.option(
    "--ca-cert",
    metavar="FILE",
    help="Trust this CA certificate (PEM) for the server's HTTPS, e.g. a self-signed one.",
)
@reports_errors
def login_command(alias: str, url: str, token_stdin: bool, ca_cert: str | None) -> None:
    """Sign this machine in to the Quire server at URL as @ALIAS, with an API token.

    The token comes from a hidden prompt or, with --token-stdin, from stdin; never from an
    argument. It is checked against the server first: a refused token is not saved. Saved
    in servers.toml in the state folder ($QUIRE_HOME or ~/.quire), readable only by you.
    Then `quire mcp --server @ALIAS` and `quire chat … @ALIAS/workspace/path.md` use it.
    """
    name = check_alias(alias)
    base = check_url(url)
    trusted = None if ca_cert is None else _certificate_file(ca_cert)
    token = _read_token(token_stdin)
    state = _state()
    server = SavedServer(name, base, token, trusted)
    link = server_link(state, server)
    signed = anyio.run(_check, link, name, base)
    save_server(state, server)
    click.echo(f"Signed in to @{name} ({base}). {_describe(signed, f'@{name}')}")
    click.echo(f"Saved in {servers_file(state)}.")


@click.command("logout")
@click.argument("alias", metavar="@ALIAS")
@reports_errors
def logout_command(alias: str) -> None:
    """Forget the server saved as @ALIAS and its token (the token stays valid on the server:
    revoke it there to end it)."""
    name = check_alias(alias)
    state = _state()
    if forget_server(state, name):
        click.echo(f"Signed out of @{name}: removed from {servers_file(state)}.")
    else:
        click.echo(f"No server is saved as @{name}; nothing to do.")


async def _whoami_remote(state: Path, server: SavedServer) -> AccountView:
    link = server_link(state, server)
    try:
        return await (await link.api()).account()
    finally:
        await link.aclose()


async def _whoami_local(state: Path) -> tuple[str, AccountView]:
    link = ServerLink(state=state)
    try:
        api: QuireApi = await link.require_running(_no_local_server(state))
        return api.info.url, await api.account()
    finally:
        await link.aclose()


def _no_local_server(state: Path) -> str:
    saved = ", ".join(f"@{alias}" for alias in sorted(read_servers(state))) or "none"
    return (
        f"There is no live server in {server_file(state)}. Start one with `quire serve`, or "
        f"ask a signed-in server with `quire whoami @alias` (signed in: {saved})."
    )


@click.command("whoami")
@click.argument("alias", metavar="[@ALIAS]", required=False)
@AS_JSON
@reports_errors
def whoami_command(alias: str | None, as_json: bool) -> None:
    """Which account this machine uses on @ALIAS (asked of that server), or, without one, on
    the local server (its own token: the owner)."""
    state = _state()
    if alias is None:
        url, signed = anyio.run(_whoami_local, state)
        where = f"the local server at {url}"
        server = None
    else:
        saved = saved_server(state, check_alias(alias))
        verify_for(saved)
        try:
            signed = anyio.run(_whoami_remote, state, saved)
        except ServerUnreachable as error:
            raise ServerUnreachable(f"@{saved.alias}: {error}") from None
        url, where, server = saved.url, f"@{saved.alias} ({saved.url})", saved.alias
    if as_json:
        echo_json({"server": server, "url": url, **signed.model_dump(mode="json")})
        return
    click.echo(_describe(signed, where))
