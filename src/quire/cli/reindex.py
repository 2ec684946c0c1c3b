"""``quire reindex``: rebuild the search index from the workspaces' files.

With no server holding the state folder it rebuilds the index file itself, drawing a progress
bar (files, files/s, ETA) when stderr is a terminal and staying quiet otherwise; while a server
runs it asks that server to rebuild (the server owns the file then).
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import click

from quire.cli.output import reports_errors
from quire.client.api import QuireApi
from quire.core.errors import ServerAlreadyRunning, StorageFailed
from quire.search.index import SearchIndex
from quire.services.search import INDEX_FILE
from quire.services.search.indexer import Indexer
from quire.settings.model import load_settings
from quire.settings.server_file import claim_state_folder, read_server_file, server_file
from quire.vault.workspaces import Workspaces

_BAR = 30


class ProgressBar:
    """Draws ``done/total`` with files/s and an ETA on ``stream``, at most ten times a second."""

    def __init__(self, stream: TextIO, clock: Callable[[], float]) -> None:
        self._stream = stream
        self._clock = clock
        self._start = clock()
        self._drawn = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = self._clock()
        if now - self._drawn < 0.1 and done < total:
            return
        self._drawn = now
        elapsed = max(now - self._start, 1e-6)
        rate = done / elapsed
        filled = _BAR if total == 0 else _BAR * done // total
        eta = "" if rate <= 0 or done >= total else f"  ETA {(total - done) / rate:,.0f}s"
        self._stream.write(
            f"\r[{'#' * filled}{'.' * (_BAR - filled)}] {done:,}/{total:,} files  "
            f"{rate:,.0f} files/s{eta}   "
        )
        self._stream.flush()

    def finish(self) -> None:
        """End the bar's line."""
        self._stream.write("\n")
        self._stream.flush()


@click.command("reindex")
@click.argument("dirs", nargs=-1, metavar="[DIR]...")
@click.option(
    "--state-dir",
    metavar="DIR",
    help="The state folder whose search index to rebuild (default $QUIRE_HOME or ~/.quire).",
)
@reports_errors
def reindex_command(dirs: tuple[str, ...], state_dir: str | None) -> None:
    """Rebuild the search index of the workspaces DIR... (default: the workspaces in quire.toml,
    else the current folder) from their files.

    The index (search.sqlite3 in the state folder) is derived from the files and never the
    truth, so rebuilding loses nothing. While a server runs on the state folder, the server
    rebuilds its own index and this waits for it. On a terminal a progress bar shows files,
    files/s and the time left; otherwise it prints only the summary.
    """
    flags: dict[str, object | None] = {"workspaces": dirs or None, "state_dir": state_dir}
    settings = load_settings(flags=flags, environ=os.environ, home=Path.home(), cwd=Path.cwd())
    try:
        claim = claim_state_folder(settings.state_dir)
    except ServerAlreadyRunning:
        info = read_server_file(settings.state_dir)
        if info is None:
            raise
        api = QuireApi(info, server_file=server_file(settings.state_dir))
        result = asyncio.run(_remote(api))
        click.echo(f"The server at {info.url} rebuilt its index: {_summary(*result)}")
        return
    with claim:
        bar = ProgressBar(sys.stderr, time.monotonic) if sys.stderr.isatty() else None
        index = _open_index(settings.state_dir / INDEX_FILE)
        try:
            indexer = Indexer(index, Workspaces(settings.workspaces))
            indexed = indexer.build(bar, fresh=True)
            if bar is not None:
                bar.finish()
            unreadable = len([k for k in index.known().values() if k.unreadable])
        finally:
            index.close()
    click.echo(f"Rebuilt the search index: {_summary(indexed, unreadable)}")


def _open_index(path: Path) -> SearchIndex:
    try:
        return SearchIndex(path)
    except sqlite3.Error as err:
        raise StorageFailed(
            f"Cannot open the search index '{path}': {err}. Check that the state folder is a "
            "writable folder, or pass --state-dir to use another one."
        ) from None


async def _remote(api: QuireApi) -> tuple[int, int]:
    try:
        answer = await api.reindex()
    finally:
        await api.aclose()
    return answer.indexed, answer.unreadable


def _summary(indexed: int, unreadable: int) -> str:
    text = f"{indexed:,} files"
    if unreadable:
        text += f" ({unreadable:,} could not be read; a search's note names them)"
    return text + "."
