"""The link to a server: the running one server.json names, a fixed one, or one started now.

Owns the choice of server and the API client kept for it; calls that need a server get one
(starting it when allowed), calls with a disk fallback ask only for a running one. A link can
act for a named agent: its requests then say so, and the server attributes them to it.
"""

from __future__ import annotations

import copy
import ssl
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx

from quire.client.api import QuireApi
from quire.client.autostart import NoStarter, Starter
from quire.core.errors import ServerUnreachable
from quire.core.server_info import ServerInfo
from quire.settings.server_file import Found, discover, is_process_alive, server_file


@dataclass(eq=False)
class _Shared:
    """What a link and the views made by ``for_agent`` share."""

    apis: dict[ServerInfo, QuireApi] = field(default_factory=dict)
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    started: ServerInfo | None = None
    seen: tuple[tuple[int, int, int], ServerInfo] | None = None


class ServerLink:
    """How tools reach a server.

    With ``fixed`` (``--server URL``, or the app itself when ``/mcp`` runs in process) that
    server is always the one, and nothing is started. Otherwise ``state``'s server.json is
    checked on each call, so a server that restarted is found again, and ``starter`` starts one
    when none runs. The file is read again only when it changed (its inode, size or mtime) or
    its server's process is gone: every tool call pays a stat, not a read in a thread.
    """

    _agent: str | None = None
    _caller: tuple[str, str | None] | None = None

    def __init__(
        self,
        *,
        state: Path,
        starter: Starter | None = None,
        fixed: ServerInfo | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        refused: str | None = None,
        verify: ssl.SSLContext | bool = True,
        remote: bool = False,
    ) -> None:
        self._state = state
        self._starter = starter or NoStarter(
            f"No Quire server is running (no live server in {server_file(state)}). Ask the "
            "person to start one with `quire serve` in the folder that holds their documents, "
            "then retry."
        )
        self._fixed = fixed
        self._transport = transport
        self._refused = refused
        self._verify = verify
        self._remote = remote
        self._shared = _Shared()

    def for_agent(self, agent: str | None) -> ServerLink:
        """This link (same server, connections and started server) with every request saying
        it acts for the agent ``agent`` (None: none named); see ``QuireApi.as_agent``."""
        view = copy.copy(self)
        view._agent = agent
        return view

    def for_caller(self, token: str | None, refused: str | None = None) -> ServerLink:
        """This link with every request sending ``token`` (the caller's own credential, so the
        server applies the caller's grants) and ``refused`` as the message of a 401; None:
        the link's own token."""
        view = copy.copy(self)
        view._caller = None if token is None else (token, refused)
        return view

    @property
    def fixed(self) -> ServerInfo | None:
        """The fixed server (and its own token), when the link has one."""
        return self._fixed

    @property
    def remote(self) -> bool:
        """Whether the server is another machine's, or acts for an account (``--server
        @alias``): its workspaces are not this process's to read from disk."""
        return self._remote

    @property
    def agent(self) -> str | None:
        """The agent this link's requests act for, if one was named."""
        return self._agent

    @property
    def started(self) -> ServerInfo | None:
        """The server this link started, if it started one."""
        return self._shared.started

    @property
    def state(self) -> Path:
        """The state folder whose server.json this link reads."""
        return self._state

    @property
    def server_file(self) -> Path:
        """The server file this link reads."""
        return server_file(self._state)

    async def api(self) -> QuireApi:
        """The API of the running server, starting one first when none runs."""
        found = await self.running()
        if found is not None:
            return found
        async with self._shared.lock:
            # Another call may have started it while this one waited for the lock.
            found = await self.running()
            if found is not None:
                return found
            info = await self._starter.start()
            self._shared.started = info
            return self._api_for(info)

    async def running(self) -> QuireApi | None:
        """The API of the running server, or None when none runs (nothing is started)."""
        if self._fixed is not None:
            return self._api_for(self._fixed)
        shared = self._shared
        stamp = _stamp(self.server_file)
        if (
            shared.seen is not None
            and stamp == shared.seen[0]
            and is_process_alive(shared.seen[1].pid)
        ):
            return self._api_for(shared.seen[1])
        discovered = await anyio.to_thread.run_sync(discover, self._state)
        if isinstance(discovered, Found):
            shared.seen = None if stamp is None else (stamp, discovered.info)
            return self._api_for(discovered.info)
        shared.seen = None
        return None

    async def require_running(self, advice: str) -> QuireApi:
        """The running server's API; ServerUnreachable ending with ``advice`` when none runs."""
        found = await self.running()
        if found is None:
            raise ServerUnreachable(f"No Quire server is running. {advice}")
        return found

    async def probe(self, info: ServerInfo) -> bool:
        """Whether the server ``info`` names answers its health check."""
        return await self._api_for(info).health()

    async def aclose(self) -> None:
        """Close every API client this link opened."""
        for api in self._shared.apis.values():
            await api.aclose()
        self._shared.apis.clear()

    def _api_for(self, info: ServerInfo) -> QuireApi:
        api = self._shared.apis.get(info)
        if api is None:
            api = QuireApi(
                info,
                server_file=self.server_file,
                transport=self._transport,
                reload=None if self._remote else self._reload,
                refused=self._refused,
                verify=self._verify,
            )
            self._shared.apis[info] = api
        if self._caller is not None:
            api = api.as_caller(*self._caller)
        return api if self._agent is None else api.as_agent(self._agent)

    async def _reload(self) -> ServerInfo | None:
        if self._fixed is not None:
            return None
        discovered = await anyio.to_thread.run_sync(discover, self._state)
        return discovered.info if isinstance(discovered, Found) else None


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """Identity of the file at ``path`` as it is now (inode, size, mtime), or None."""
    try:
        status = path.lstat()
    except OSError:
        return None
    return (status.st_ino, status.st_size, status.st_mtime_ns)
