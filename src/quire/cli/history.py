"""``quire history|show|restore``: a note's commits, a version, and restoring one, from a shell.

Each command turns its path into an absolute one inside a workspace of the running server (as
the file commands do), makes one call to the server's history routes and prints the answer as
terminal-safe text or ``--json`` (``show`` prints the version's bytes as they are). The server
must be running; nothing is started.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import click

from quire.api.history import HistoryEntry
from quire.cli.chat_output import json_text, safe
from quire.cli.files import AS_JSON, EXIT_CODES, run_on_server, workspace_path
from quire.client.history import HistoryApi
from quire.core.history import split_version

T = TypeVar("T")


def _run(work: Callable[[HistoryApi, list[Path]], Awaitable[T]]) -> T:
    return run_on_server(HistoryApi, work)


def _line(entry: HistoryEntry) -> str:
    when = datetime.fromtimestamp(entry.time_ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M")
    return f"{entry.short}  {when}  {entry.author}  {entry.message}"


@click.command("history", epilog=EXIT_CODES)
@click.argument("path", metavar="PATH")
@click.option("--limit", type=click.IntRange(1, 200), default=20, show_default=True,
              help="How many commits to list.")  # fmt: skip
@click.option("--cursor", metavar="C", help="The next page's cursor a previous call printed.")
@AS_JSON
def history_command(path: str, limit: int, cursor: str | None, as_json: bool) -> None:
    """List the commits of the note PATH, newest first (renames followed): id, time (UTC),
    author (an agent as `agent (via account)`) and message."""

    async def work(history: HistoryApi, workspaces: list[Path]) -> None:
        target = str(workspace_path(path, workspaces, argument="PATH"))
        page = await history.history(target, limit=limit, cursor=cursor)
        if as_json:
            click.echo(json_text(page))
            return
        lines = [_line(entry) for entry in page.entries] or [f"No history of {target} yet."]
        if page.next_cursor is not None:
            lines.append(f"More: quire history {path} --cursor {page.next_cursor}")
        click.echo(safe("\n".join(lines)))

    _run(work)


@click.command("show", epilog=EXIT_CODES)
@click.argument("version", metavar="PATH@REV")
@AS_JSON
def show_command(version: str, as_json: bool) -> None:
    """Print the note PATH as it was at the commit REV (an id from `quire history`, HEAD or
    HEAD~N), byte for byte."""

    async def work(history: HistoryApi, workspaces: list[Path]) -> None:
        raw, rev = split_version(version)
        found = await history.version(str(workspace_path(raw, workspaces, argument="PATH")), rev)
        if as_json:
            click.echo(json_text(found))
            return
        sys.stdout.buffer.write(found.content.encode("utf-8"))
        sys.stdout.buffer.flush()

    _run(work)


@click.command("restore", epilog=EXIT_CODES)
@click.argument("version", metavar="PATH@REV")
@AS_JSON
def restore_command(version: str, as_json: bool) -> None:
    """Make the note PATH hold its text at the commit REV again. An open document changes as
    any edit does (its editors merge it); the restore is a commit of its own."""

    async def work(history: HistoryApi, workspaces: list[Path]) -> None:
        raw, rev = split_version(version)
        target = str(workspace_path(raw, workspaces, argument="PATH"))
        done = await history.restore(target, rev)
        made = f" as {done.commit[:7]}" if done.commit else " (it held that text already)"
        click.echo(
            json_text(done) if as_json else safe(f"Restored {done.path} to {done.rev[:7]}{made}.")
        )

    _run(work)
