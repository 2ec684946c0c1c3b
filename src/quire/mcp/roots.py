"""The allowed folders of the MCP process: the server's workspaces, ``--allow`` and MCP roots.

Asks the client for its roots lazily (5 s bound), caches them only when the client promises
to announce changes, drops them on ``notifications/roots/list_changed`` (a generation counter
keeps an answer in flight across a change out of the cache), and remembers a failure for 30 s
as "no roots", never as "everything". Path judgement itself is ``quire.fs.folders``'.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

import anyio

from quire.core.errors import QuireError
from quire.core.server_info import ServerInfo
from quire.fs.folders import AllowedFolders, resolve_folder

logger = logging.getLogger(__name__)

ROOTS_TIMEOUT = 5.0
"""How long the client may take to answer roots/list (seconds)."""

FAILURE_MEMORY = 30.0
"""How long a failed roots/list is remembered as "no roots" (seconds)."""

ONLY_ALLOWED_HOW_TO_ADD = (
    "Add one: pass `--allow DIR` to `quire mcp` (in Quire's MCP bundle, add a folder to the "
    "extension's Allowed folders setting and save), or use a client that shares its workspace "
    "folders as MCP roots."
)
"""The advice of a refusal under ``--only-allowed``, where workspaces do not count."""

HOW_TO_ADD = (
    "Add one: start `quire serve` in the folder that holds the documents (its workspaces are "
    "allowed), pass `--allow DIR` to `quire mcp` in the MCP client's configuration, or use a "
    "client that shares its workspace folders as MCP roots."
)

AskRoots = Callable[[], Awaitable[list[str]]]
"""Sends roots/list to the client and returns the root URIs it answered."""


class RootsNeeded(Exception):
    """The call needs the client's roots, and its protocol era (2026-07-28, one request per
    call) lets the server ask only by answering ``input_required``: the client sends the call
    again with its roots, and the tool runs from the start."""


class RootsCache:
    """What one client said its roots are, with the caching rules above."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        timeout: float = ROOTS_TIMEOUT,
        failure_memory: float = FAILURE_MEMORY,
    ) -> None:
        self._clock = clock
        self._timeout = timeout
        self._failure_memory = failure_memory
        self._generation = 0
        self._cached: list[Path] | None = None
        self._failed_until: float | None = None

    @property
    def generation(self) -> int:
        """How many change notifications have arrived."""
        return self._generation

    def changed(self) -> None:
        """The client announced new roots: forget the cached ones and any failure."""
        self._generation += 1
        self._cached = None
        self._failed_until = None

    async def roots(self, ask: AskRoots, *, list_changed: bool) -> list[Path]:
        """The client's root folders, asking it when nothing usable is remembered."""
        if self._cached is not None:
            return self._cached
        now = self._clock()
        if self._failed_until is not None and now < self._failed_until:
            return []
        generation = self._generation
        try:
            with anyio.fail_after(self._timeout):
                uris = await ask()
        except RootsNeeded:
            raise
        except Exception as exc:  # any failure means no roots, never every folder
            logger.warning("the MCP client's roots/list failed, so no roots are used: %s", exc)
            self._failed_until = now + self._failure_memory
            return []
        folders = root_folders(uris)
        if list_changed and generation == self._generation:
            self._cached = folders
        return folders


def root_folders(uris: Sequence[str]) -> list[Path]:
    """The folders ``file://`` root URIs name; other schemes and undecodable URIs are skipped."""
    folders: list[Path] = []
    for uri in uris:
        path = file_uri_path(uri)
        if path is None:
            logger.warning("ignoring MCP root %r: only file:// URIs of folders are used", uri)
            continue
        folders.append(path)
    return folders


def file_uri_path(uri: str) -> Path | None:
    """The absolute path a ``file://`` URI names (percent-decoded, UTF-8), or None."""
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
        return None
    try:
        decoded = unquote_to_bytes(parts.path).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not decoded.startswith("/") or "\0" in decoded:
        return None
    return Path(decoded)


class FolderGate:
    """Builds the allowed folders of one call: server workspaces, ``allow``, and roots."""

    def __init__(
        self,
        *,
        allow: Sequence[Path],
        use_roots: bool,
        default_workspace: Path | None,
        roots: RootsCache | None = None,
        workspaces: bool = True,
        how_to_add: str = HOW_TO_ADD,
    ) -> None:
        self._allow = list(allow)
        self._with_workspaces = workspaces
        self._how_to_add = how_to_add
        self._use_roots = use_roots
        self._default_workspace = default_workspace
        self.cache = roots or RootsCache()
        self._workspaces: dict[ServerInfo, list[Path]] = {}

    @property
    def allow(self) -> list[Path]:
        """The folders allowed explicitly (``--allow``), as given."""
        return list(self._allow)

    async def allowed(
        self,
        *,
        server: tuple[ServerInfo, Callable[[], Awaitable[list[str]]]] | None,
        ask_roots: AskRoots | None,
        list_changed: bool,
    ) -> AllowedFolders:
        """The allowed folders now.

        ``server`` is the running server and how to ask it for its workspaces (None: no
        server runs, and the default workspace, the working directory, stands in for them).
        ``ask_roots`` is None when the client offers no roots capability.
        """
        folders: list[Path] = []
        if self._with_workspaces and server is not None:
            folders = await self._server_folders(*server)
        if not folders and self._with_workspaces and self._default_workspace is not None:
            # No server, or one that could not name its workspaces: the folder a started
            # server would serve stands in for them.
            folders.append(self._default_workspace)
        folders.extend(self._allow)
        if self._use_roots and ask_roots is not None:
            folders.extend(await self.cache.roots(ask_roots, list_changed=list_changed))
        return AllowedFolders(_usable(folders), how_to_add=self._how_to_add)

    async def _server_folders(
        self, info: ServerInfo, ask: Callable[[], Awaitable[list[str]]]
    ) -> list[Path]:
        known = self._workspaces.get(info)
        if known is None:
            known = [Path(item) for item in await ask() if item.startswith("/")]
            if known:
                self._workspaces[info] = known
        return list(known)


def _usable(folders: list[Path]) -> list[Path]:
    usable: list[Path] = []
    for folder in folders:
        try:
            resolve_folder(folder)
        except QuireError as exc:
            logger.warning("not allowing %s: %s", folder, exc)
            continue
        usable.append(folder)
    return usable
