"""``quire user …``: accounts for multi mode, managed on the database directly.

Opens the database the settings name (``--db``, QUIRE_DB, quire.toml, else SQLite in the state
folder), whether a server runs on it or not. Passwords come from a hidden prompt or the first
line of stdin (``--password-stdin``), never from an argument, and are never printed; a new API
token is printed once.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import click

from quire.cli.output import echo_json, reports_errors, to_jsonable
from quire.core.errors import InvalidArgument
from quire.core.teams.accounts import ROLES, check_role
from quire.core.teams.credentials import token_expiry
from quire.core.teams.grants import ACCESS
from quire.db.engine import Database, open_database
from quire.services.users.accounts import Accounts
from quire.services.users.grants import Grants
from quire.services.users.identity import AccountInfo, GrantInfo, TokenInfo
from quire.services.users.passwords import Passwords
from quire.services.users.sessions import BrowserSessions
from quire.services.users.tokens import Tokens
from quire.settings.model import load_settings

T = TypeVar("T")


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Where:
    """The state folder and database URL options every subcommand takes."""

    state_dir: str | None
    db_url: str | None


def _where(command: Callable[..., None]) -> Callable[..., None]:
    command = click.option(
        "--db",
        "db_url",
        metavar="URL",
        help="Database URL (default: the one the server uses, SQLite in the state folder).",
    )(command)
    return click.option(
        "--state-dir",
        metavar="DIR",
        help="The state folder whose database holds the accounts (default $QUIRE_HOME or "
        "~/.quire).",
    )(command)


def _run(where: Where, work: Callable[[Database], Awaitable[T]]) -> T:
    flags: dict[str, object | None] = {"state_dir": where.state_dir, "db_url": where.db_url}
    settings = load_settings(flags=flags, environ=os.environ, home=Path.home(), cwd=Path.cwd())
    try:
        url = settings.database_url
        url.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(
            "The database's location is not UTF-8 text, so it cannot be opened. Pass "
            "--state-dir with a folder whose path is UTF-8, or --db with another URL.",
            argument="state_dir",
        ) from None

    async def main() -> T:
        db = await open_database(url)
        try:
            return await work(db)
        finally:
            await db.close()

    return asyncio.run(main())


def _read_password(from_stdin: bool, *, confirm: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline()
        password = line[:-1] if line.endswith("\n") else line
        return password[:-1] if password.endswith("\r") else password
    if not sys.stdin.isatty():
        raise InvalidArgument(
            "No terminal to ask for the password on: pipe it in with --password-stdin.",
            argument="password",
        )
    return str(click.prompt("Password", hide_input=True, confirmation_prompt=confirm))


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


@click.group("user")
def user_group() -> None:
    """Accounts for multi mode: add, list, passwords, API tokens and grants.

    These commands work on the database itself, so they work whether a server is running or
    not. A server uses the accounts when it runs in multi mode (`quire serve --multi`); see
    docs/teams.md.

    Exit codes: 0 done; 1 refused (no such account, a rule broken, the database cannot be
    opened), with the reason on stderr; 2 a usage error (a missing or unknown argument).
    """


@user_group.command("add")
@click.argument("username")
@click.option(
    "--role",
    type=click.Choice(ROLES),
    default="collaborator",
    show_default=True,
    help="superadmin manages accounts; no role gives access to notes without a grant.",
)
@click.option(
    "--password-stdin", is_flag=True, help="Read the password from the first line of stdin."
)
@click.option(
    "--no-password",
    is_flag=True,
    help="Add the account without a password (it cannot sign in until `quire user passwd`).",
)
@_where
@reports_errors
def add_command(
    username: str,
    role: str,
    password_stdin: bool,
    no_password: bool,
    state_dir: str | None,
    db_url: str | None,
) -> None:
    """Add the account USERNAME (a-z, 0-9, '.', '_', '-'; at most 32), asking for its
    password (at least 12 characters)."""
    password = None if no_password else _read_password(password_stdin, confirm=True)
    added = _run(
        Where(state_dir, db_url),
        lambda db: Accounts(db, Passwords(), clock=_now_ms).add(
            username, role=check_role(role), password=password
        ),
    )
    click.echo(f"Added {added.role} {added.username!r}.")


@user_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the accounts and grants as JSON.")
@_where
@reports_errors
def list_command(as_json: bool, state_dir: str | None, db_url: str | None) -> None:
    """List the accounts, each with its role, state and grants."""

    async def work(db: Database) -> list[tuple[AccountInfo, list[GrantInfo]]]:
        grants = Grants(db, clock=_now_ms)
        accounts = await Accounts(db, Passwords(), clock=_now_ms).list()
        return [(account, await grants.grants_of(account.username)) for account in accounts]

    found = _run(Where(state_dir, db_url), work)
    if as_json:
        echo_json([{**_account_dict(account), "grants": grants} for account, grants in found])
        return
    if not found:
        click.echo("No accounts yet: add one with `quire user add NAME --role superadmin`.")
    for account, grants in found:
        state = "disabled" if account.disabled else "enabled"
        password = "" if account.has_password else ", no password"
        click.echo(f"{account.username}  {account.role}, {state}{password}")
        for grant in grants:
            where = f"{grant.workspace}/{grant.prefix}" if grant.prefix else grant.workspace
            via = f" (group {grant.group})" if grant.group else ""
            click.echo(f"    {grant.access:5}  {where}{via}")


def _account_dict(account: AccountInfo) -> dict[str, object]:
    return {
        "username": account.username,
        "role": account.role,
        "disabled": account.disabled,
        "has_password": account.has_password,
        "created_at_ms": account.created_at_ms,
    }


@user_group.command("passwd")
@click.argument("username")
@click.option(
    "--password-stdin", is_flag=True, help="Read the password from the first line of stdin."
)
@_where
@reports_errors
def passwd_command(
    username: str, password_stdin: bool, state_dir: str | None, db_url: str | None
) -> None:
    """Set USERNAME's password; it is signed out of every browser (its API tokens stay)."""
    password = _read_password(password_stdin, confirm=True)
    _run(
        Where(state_dir, db_url),
        lambda db: Accounts(db, Passwords(), clock=_now_ms).set_password(username, password),
    )
    click.echo(f"Set the password of {username!r}; its browser sessions were ended.")


@user_group.command("disable")
@click.argument("username")
@_where
@reports_errors
def disable_command(username: str, state_dir: str | None, db_url: str | None) -> None:
    """Disable USERNAME: its sessions end and its tokens are refused (kept for `enable`)."""
    _run(
        Where(state_dir, db_url),
        lambda db: Accounts(db, Passwords(), clock=_now_ms).set_disabled(username, True),
    )
    click.echo(f"Disabled {username!r}.")


@user_group.command("enable")
@click.argument("username")
@_where
@reports_errors
def enable_command(username: str, state_dir: str | None, db_url: str | None) -> None:
    """Enable USERNAME again after `disable`."""
    _run(
        Where(state_dir, db_url),
        lambda db: Accounts(db, Passwords(), clock=_now_ms).set_disabled(username, False),
    )
    click.echo(f"Enabled {username!r}.")


@user_group.command("delete")
@click.argument("username")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@_where
@reports_errors
def delete_command(username: str, yes: bool, state_dir: str | None, db_url: str | None) -> None:
    """Delete USERNAME with its tokens, sessions, group memberships and grants, and its
    window, recents, reviews, approvals, chat read positions and notices."""
    if not yes:
        if not sys.stdin.isatty():
            raise InvalidArgument(
                f"Nothing was deleted: pass --yes to delete {username!r} without a terminal "
                "to confirm on.",
                argument="yes",
            )
        if not click.confirm(f"Delete the account {username!r}?", default=False):
            raise InvalidArgument("Nothing was deleted.", argument="yes")
    _run(
        Where(state_dir, db_url),
        lambda db: Accounts(db, Passwords(), clock=_now_ms).delete(username),
    )
    click.echo(f"Deleted {username!r}.")


@user_group.command("sign-out")
@click.argument("username")
@_where
@reports_errors
def sign_out_command(username: str, state_dir: str | None, db_url: str | None) -> None:
    """End every browser session of USERNAME."""
    ended = _run(
        Where(state_dir, db_url),
        lambda db: BrowserSessions(db, clock=_now_ms).sign_out_everywhere(username),
    )
    click.echo(f"Ended {ended} browser session{'s' if ended != 1 else ''} of {username!r}.")


@user_group.command("grant")
@click.argument("username")
@click.argument("workspace")
@click.argument("prefix", required=False, default="")
@click.option(
    "--access",
    type=click.Choice(ACCESS),
    required=True,
    help="read, or write (which includes read).",
)
@_where
@reports_errors
def grant_command(
    username: str,
    workspace: str,
    prefix: str,
    access: str,
    state_dir: str | None,
    db_url: str | None,
) -> None:
    """Give USERNAME access to WORKSPACE (the served folder's name), or only to PREFIX inside
    it (a folder or file path; whole path segments: `notes` covers `notes/a.md`, never
    `notes-old/`). Granting again on the same prefix replaces the access."""
    given = _run(
        Where(state_dir, db_url),
        lambda db: Grants(db, clock=_now_ms).grant(username, workspace, prefix, access=access),
    )
    where = f"{given.workspace}/{given.prefix}" if given.prefix else f"all of {given.workspace}"
    click.echo(f"{username!r} may now {given.access} {where}.")


@user_group.command("revoke")
@click.argument("username")
@click.argument("workspace")
@click.argument("prefix", required=False, default="")
@_where
@reports_errors
def revoke_command(
    username: str, workspace: str, prefix: str, state_dir: str | None, db_url: str | None
) -> None:
    """Remove USERNAME's grant on exactly WORKSPACE [PREFIX] (grants on other prefixes, and
    its groups' grants, stay)."""
    _run(
        Where(state_dir, db_url),
        lambda db: Grants(db, clock=_now_ms).revoke(username, workspace, prefix),
    )
    click.echo(f"Revoked {username!r}'s grant on {workspace}{'/' + prefix if prefix else ''}.")


@user_group.command("token")
@click.argument("username")
@click.option("--name", default="token", show_default=True, help="What the token is for.")
@click.option("--expires", metavar="WHEN", help="A duration (12h, 30d, 8w) or a date (2027-01-31).")
@click.option("--json", "as_json", is_flag=True, help="Print the token and its details as JSON.")
@_where
@reports_errors
def token_command(
    username: str,
    name: str,
    expires: str | None,
    as_json: bool,
    state_dir: str | None,
    db_url: str | None,
) -> None:
    """Make an API token for USERNAME and print it once: it is stored only as a SHA-256
    digest, so it cannot be shown again."""
    now = _now_ms()
    expires_at = None if expires is None else token_expiry(expires, now_ms=now)
    issued = _run(
        Where(state_dir, db_url),
        lambda db: Tokens(db, clock=_now_ms).issue(username, name=name, expires_at_ms=expires_at),
    )
    if as_json:
        echo_json({"token": issued.token, **_token_dict(issued.info)})
        return
    click.echo(issued.token)
    click.echo(
        f"Token {issued.info.id} ({issued.info.name}) for {username!r}, expires "
        f"{_when(issued.info.expires_at_ms) if expires_at else 'never'}. It is shown only now.",
        err=True,
    )


@user_group.command("tokens")
@click.argument("username")
@click.option("--json", "as_json", is_flag=True, help="Print the tokens as JSON.")
@_where
@reports_errors
def tokens_command(username: str, as_json: bool, state_dir: str | None, db_url: str | None) -> None:
    """List USERNAME's API tokens (never the tokens themselves) with their last use."""
    found = _run(Where(state_dir, db_url), lambda db: Tokens(db, clock=_now_ms).list(username))
    if as_json:
        echo_json([_token_dict(token) for token in found])
        return
    if not found:
        click.echo(f"{username!r} has no API tokens.")
    for token in found:
        state = "revoked" if token.revoked_at_ms is not None else "live"
        click.echo(
            f"{token.id}  {token.name}  {state}  created {_when(token.created_at_ms)}  "
            f"expires {_when(token.expires_at_ms)}  last used {_when(token.last_used_at_ms)}"
        )


@user_group.command("revoke-token")
@click.argument("username")
@click.argument("token_id", metavar="TOKEN_ID")
@_where
@reports_errors
def revoke_token_command(
    username: str, token_id: str, state_dir: str | None, db_url: str | None
) -> None:
    """Revoke USERNAME's token TOKEN_ID (as `quire user tokens` lists it)."""
    _run(Where(state_dir, db_url), lambda db: Tokens(db, clock=_now_ms).revoke(username, token_id))
    click.echo(f"Revoked token {token_id} of {username!r}.")


def _token_dict(token: TokenInfo) -> dict[str, object]:
    found: dict[str, object] = to_jsonable(token)
    return found
