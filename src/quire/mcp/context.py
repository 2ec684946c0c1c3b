"""What a tool gets to work with: the server link, the allowed folders, the clock, the memory.

Also the shape of a tool (``ToolSpec``) and of its result (``ToolOutput``). Tools reach the
disk only through ``quire.fs``, beneath the allowed folders ``ToolEnv`` names.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.session import ServerSession

from quire.client.connection import ServerLink
from quire.core.agents import clean_agent_name
from quire.core.errors import PathRefused, QuireError
from quire.core.paths import expand_path
from quire.fs.documents import find_file, read_document
from quire.fs.folders import AllowedFolders
from quire.mcp.remote_paths import server_path
from quire.mcp.roots import AskRoots, FolderGate, RootsNeeded

if TYPE_CHECKING:
    from quire.mcp.export_files import Exporter
from quire.memory.sessions import SessionStore

NOT_FROM_DISK = (
    "This reads files directly from disk, which Quire does not do for an account's call: the "
    "account's grants are checked by the server's API only. Open the document with open_file "
    "and read it with get_current_content, or search with search_vault without `vault`."
)
"""The refusal of a disk read in a remote call (``ToolEnv.remote``)."""

CALLER_REFUSED = (
    "The Quire server refused your token (HTTP 401): it expired or was revoked, or your "
    "account was disabled. Make a new API token (your account page, or `quire user token "
    "USER` on the server), put it in your MCP client's Authorization header (or sign in "
    "again with `quire login @alias URL`), then retry."
)
"""The one message of a refused caller token on ``/mcp``."""

READ_DOCUMENTS = 32
"""How many documents' last read version are remembered per client (the newest)."""


@dataclass(frozen=True)
class ToolOutput:
    """A tool's result: ``data`` is the structured content; ``text`` the text content when it
    differs from ``data`` as JSON (list_recent keeps its list there)."""

    data: dict[str, Any]
    text: str | None = None


Handler = Callable[["ToolEnv", dict[str, Any]], Awaitable["dict[str, Any] | ToolOutput"]]


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its contract (name, schemas, annotations) and the handler that runs it."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    handler: Handler
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False


@dataclass(frozen=True)
class Services:
    """The long-lived dependencies every call shares."""

    link: ServerLink
    gate: FolderGate
    sessions: SessionStore
    cwd: Path
    home: Path
    clock: Callable[[], int]
    chat_enabled: bool = True
    """Whether the chat tools are offered (``[chat] enabled`` in quire.toml)."""
    exporter: Exporter | None = None
    """The export service ``export_markdown_to_pdf`` runs in process; None: ask the server."""
    callers: bool = False
    """Whether each call acts with the bearer token of the HTTP request that carried it
    (``/mcp``), so the server applies that caller's grants, not the link's own token's."""
    read_versions: dict[str, dict[str, str]] = field(default_factory=dict)
    """The version of each document this process's clients last read, by client session, then
    document id (newest last, at most ``READ_DOCUMENTS`` per client): the ``base`` a rewrite
    without one is merged from."""


@dataclass(frozen=True)
class ToolEnv:
    """One call's view of the services, with the client session it came from."""

    services: Services
    session: ServerSession | None = None
    client: str | None = "stdio"
    """Which client connection the call came on (see ``server.client_key``); None when no
    connection tells this client from another, so nothing it reads is remembered."""
    stateless: bool = False
    """Whether the call came in the 2026-07-28 per-request envelope, where the server cannot
    send the client a request of its own: roots are asked for with ``input_required``."""
    answered_roots: tuple[str, ...] | None = None
    """The root URIs the client sent with this call, answering that ``input_required``."""
    caller: str | None = None
    """The bearer token this call came with, when it is not the link's own (an account's
    token on ``/mcp``): the call's requests send it instead."""

    @cached_property
    def link(self) -> ServerLink:
        """How to reach the server, acting for this call's client: the server attributes the
        edits, openings and reviews of the call to the client's name, and applies the grants
        of the call's own credential."""
        link = self.services.link.for_agent(self.client_name)
        return link if self.caller is None else link.for_caller(self.caller, CALLER_REFUSED)

    @property
    def remote(self) -> bool:
        """Whether the call acts for an account whose grants the server checks (an account's
        token on ``/mcp``, or ``quire mcp --server @alias``): then nothing is read from disk
        here, where no grant is checked; every path goes to the server."""
        return self.caller is not None or self.services.link.remote

    @cached_property
    def client_name(self) -> str | None:
        """The MCP client's name from its ``initialize`` (``clientInfo.name``), cleaned for a
        label (``quire.core.agents``); None when it gave none that survives the cleaning."""
        if self.session is None or self.session.client_params is None:
            return None
        # Whatever a client calls itself must never make a call fail.
        return clean_agent_name(self.session.client_params.client_info.name)

    async def folders(self) -> AllowedFolders:
        """The folders this call may touch; refused for a remote call (see ``remote``)."""
        if self.remote:
            raise PathRefused(NOT_FROM_DISK)
        try:
            api = await self.link.running()
        except QuireError:
            api = None
        ask, list_changed = self._roots_request()
        gate = self.services.gate
        if api is not None:
            try:
                return await gate.allowed(
                    server=(api.info, api.workspaces), ask_roots=ask, list_changed=list_changed
                )
            except QuireError:
                pass  # the server could not name its workspaces: as if none ran
        return await gate.allowed(server=None, ask_roots=ask, list_changed=list_changed)

    def remember_version(self, doc_id: str | None, version: str | None) -> None:
        """Note that this call's client has read ``version`` of the document ``doc_id``."""
        if self.client is None or doc_id is None or version is None:
            return
        read = self.services.read_versions.setdefault(self.client, {})
        read.pop(doc_id, None)
        read[doc_id] = version
        while len(read) > READ_DOCUMENTS:
            del read[next(iter(read))]

    def read_versions(self) -> dict[str, str]:
        """The version this call's client last read of each document, by document id."""
        if self.client is None:
            return {}
        return dict(self.services.read_versions.get(self.client, {}))

    def expand(self, raw: str, argument: str) -> Path:
        """A path argument made absolute (relative to the working directory, ``~/`` home)."""
        return expand_path(raw, cwd=self.services.cwd, home=self.services.home, argument=argument)

    async def server_path(self, raw: str, argument: str) -> Path:
        """``raw`` as a path the server takes: expanded here, or for a remote call named on the
        server (absolute there, or ``WORKSPACE/…``: see ``quire.mcp.remote_paths``)."""
        if not self.remote:
            return self.expand(raw, argument)
        named: list[tuple[str, str]] = []
        if not raw.startswith("/"):
            named = await (await self.link.api()).named_workspaces()
        return server_path(raw, argument, named)

    async def allowed_path(self, raw: str, argument: str, verb: str) -> Path:
        """``raw`` expanded, refused (PathRefused) unless it lies in an allowed folder. For a
        remote call, only named on the server, which checks it against the account's grants."""
        if self.remote:
            return await self.server_path(raw, argument)
        path = self.expand(raw, argument)
        folders = await self.folders()
        await anyio.to_thread.run_sync(partial(folders.check, path, verb=verb))
        return path

    async def document_path(self, raw: str, argument: str, verb: str) -> Path:
        """The existing document ``raw`` names, reached beneath the allowed folders (by
        descriptors: see ``quire.fs.documents``), with its links resolved. For a remote
        call, only named on the server, which resolves it and checks the account's grants."""
        if self.remote:
            return await self.server_path(raw, argument)
        path = self.expand(raw, argument)
        folders = await self.folders()
        found = await anyio.to_thread.run_sync(partial(find_file, folders, path, verb=verb))
        return found.path

    async def read(self, raw: str, argument: str) -> tuple[Path, str]:
        """Read the Markdown document ``raw`` names from disk, beneath the allowed folders:
        its resolved path and text."""
        path = self.expand(raw, argument)
        folders = await self.folders()
        found, text = await anyio.to_thread.run_sync(read_document, folders, path)
        return found.path, text

    def _roots_request(self) -> tuple[AskRoots | None, bool]:
        session = self.session
        if session is None:
            return None, False
        capabilities = session.client_capabilities
        if capabilities is None or capabilities.roots is None:
            return None, False

        if self.stateless:
            return self._roots_of_this_call, False

        async def ask() -> list[str]:
            result = await session.send_request(types.ListRootsRequest(), types.ListRootsResult)
            return [str(root.uri) for root in result.roots]

        return ask, bool(capabilities.roots.list_changed)

    async def _roots_of_this_call(self) -> list[str]:
        if self.answered_roots is None:
            raise RootsNeeded
        return list(self.answered_roots)
