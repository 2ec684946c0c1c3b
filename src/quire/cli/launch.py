"""What ``quire open`` and the auto-open hook share: the server started for a document, the
link to it, and a browser started without taking over the caller's terminal or pipes.

Composition only: the folder choice reads the server's settings rules, the opening itself is
``quire.client.opening``'s.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import anyio

from quire.cli.browser import graphical_browser
from quire.client.autostart import START_TIMEOUT, SubprocessStarter, serve_command
from quire.client.connection import ServerLink
from quire.core.server_info import ServerInfo
from quire.settings.model import load_settings


class DocumentStarter:
    """Starts ``quire serve`` in the background for ``document``.

    A workspace configured in quire.toml that holds the document is served as configured;
    otherwise the document's folder is. With no document (text read from stdin) the server
    starts with its defaults in ``cwd``. The choice is made only when a start is needed.
    """

    def __init__(
        self,
        *,
        state: Path,
        environ: Mapping[str, str],
        home: Path,
        cwd: Path,
        document: Path | None,
        timeout: float = START_TIMEOUT,
    ) -> None:
        self._state = state
        self._environ = dict(environ)
        self._home = home
        self._cwd = cwd
        self._document = document
        self._timeout = timeout

    async def start(self) -> ServerInfo:
        """Start the server (see the class) and wait until it answers."""
        folders, cwd = await anyio.to_thread.run_sync(self._plan)
        starter = SubprocessStarter(
            state=self._state,
            cwd=cwd,
            environ=self._environ,
            timeout=self._timeout,
            command=serve_command(folders),
        )
        return await starter.start()

    def _plan(self) -> tuple[tuple[Path, ...], Path]:
        document = self._document
        if document is None:
            return (), self._cwd
        folder = document.parent
        settings = load_settings(flags={}, environ=self._environ, home=self._home, cwd=folder)
        if any(document.is_relative_to(workspace) for workspace in settings.workspaces):
            return (), folder
        return (folder,), folder


def document_link(
    *, state: Path, environ: Mapping[str, str], cwd: Path, document: Path | None
) -> ServerLink:
    """The link to the local server, starting one for ``document`` when none runs."""
    starter = DocumentStarter(
        state=state, environ=environ, home=Path.home(), cwd=cwd, document=document
    )
    return ServerLink(state=state, starter=starter)


def open_browser(url: str, environ: Mapping[str, str]) -> bool:
    """Open ``url`` in a graphical browser; False when there is none or it failed to start.

    The browser starts with its output going nowhere, so it neither writes into the caller's
    terminal nor holds an agent's pipe open after this command has ended.
    """
    browser = graphical_browser(environ)
    if browser is None:
        return False
    try:
        with quiet_output():
            return bool(browser.open(url))
    except Exception:  # a browser that fails to start is reported as "none", never a crash
        return False


@contextlib.contextmanager
def quiet_output() -> Iterator[None]:
    """Point file descriptors 0, 1 and 2 at /dev/null for the duration, then restore them.

    Child processes started meanwhile inherit /dev/null, never the caller's terminal or pipes.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    null = os.open(os.devnull, os.O_RDWR)
    saved: list[tuple[int, int]] = []
    try:
        for descriptor in (0, 1, 2):
            with contextlib.suppress(OSError):
                saved.append((descriptor, os.dup(descriptor)))
                os.dup2(null, descriptor)
        yield
    finally:
        for descriptor, copy in saved:
            os.dup2(copy, descriptor)
            os.close(copy)
        os.close(null)
