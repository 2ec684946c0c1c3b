"""Showing a document in the person's window: the server found (or started), asked, answered.

Owns the order of the calls ``quire open`` and the auto-open hook make and what their failures
mean; it never checks arguments, reads stdin or starts a browser (the commands do).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import anyio

from quire.client.connection import ServerLink
from quire.core.errors import PathRefused, ServerFailed
from quire.core.server_info import ServerInfo
from quire.core.views import OpenMode

ANSWER_TIMEOUT = 6.0
"""How long a running server may take to answer (seconds); after that it counts as failed."""


@dataclass(frozen=True)
class Shown:
    """A document the window opened: its path and view, the server (``started`` when this
    call started it), its workspaces, and whether a browser window was listening (None: the
    server does not say)."""

    path: str
    view: str
    server: ServerInfo
    started: bool
    workspaces: tuple[str, ...]
    browser_connected: bool | None


async def show_document(
    link: ServerLink,
    path: Path,
    mode: OpenMode | None,
    *,
    also_served: Sequence[Path] = (),
    answer_timeout: float = ANSWER_TIMEOUT,
) -> Shown:
    """Open ``path`` (absolute, already checked) in the window of the link's server.

    The server is started when none runs. A running server must serve a folder holding
    ``path``, unless it lies in one of ``also_served`` (the inbox): PathRefused saying how to
    serve it otherwise. Raises ServerUnreachable or TokenRefused when nothing was opened, the
    server's own refusal as it gave it, and ServerFailed when the server was reached but failed
    or took longer than ``answer_timeout`` (it may still open the file then).
    """
    running = await link.running()
    api = running or await link.api()
    started = running is None
    try:
        with anyio.fail_after(answer_timeout):
            workspaces = tuple(await api.workspaces())
            if not _inside(path, also_served) and not _inside(path, map(Path, workspaces)):
                raise PathRefused(not_served_message(path, api.info.url, workspaces))
            opened = await api.open(str(path), mode)
    except TimeoutError:
        raise ServerFailed(
            f"The Quire server at {api.info.url} did not answer within {answer_timeout:g} seconds."
        ) from None
    return Shown(
        path=opened.path,
        view=opened.view,
        server=api.info,
        started=started,
        workspaces=workspaces,
        browser_connected=opened.browser_connected,
    )


def window_url(info: ServerInfo) -> str:
    """The address that signs a browser in to the server and shows its window."""
    return f"{info.url.rstrip('/')}/?token={quote(info.token, safe='')}"


def not_served_message(path: Path, url: str, workspaces: Sequence[str]) -> str:
    """Why a document outside every workspace of the running server is refused, and the fix."""
    names = ", ".join(f"'{folder}'" for folder in workspaces) or "no folder"
    command = shlex.join(["quire", "serve", *workspaces, str(path.parent)])
    return (
        f"Refusing to open '{path}': the Quire server at {url} does not serve its folder (it "
        f"serves {names}). Stop that server and start it again with the folder added "
        f"(`{command}`), then open the file again."
    )


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)
