"""The warm pages exports draw in: a few loaded pages of the one browser, reused.

Owns which page an export gets (an idle warm one of the running browser, else a new one), how
many exports draw at once (``size``, each on its own page; more wait their turn), dropping a
page whose export failed or whose browser has closed, and getting a page ready while the
document is still being read (``prepare``). The browser's own lifetime (one process, closed
when idle) is ``browser.Browser``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from quire.core.errors import ExportFailed
from quire.export.browser import Browser
from quire.export.cdp import Connection
from quire.export.tab import Tab, open_tab

PAGES = 2
"""How many exports draw at once (the machine's cores are the limit, not memory)."""


class Pages:
    """Up to ``size`` warm pages of ``browser``."""

    def __init__(self, browser: Browser, *, size: int = PAGES) -> None:
        self.browser = browser
        self.size = size
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None
        self._idle: list[Tab] = []
        self._preparing: asyncio.Task[None] | None = None
        self.opened = 0
        """How many pages were loaded (a warm export loads none)."""

    def prepare(self) -> None:
        """Start the browser and load a page now, for an export about to ask for one."""
        if self._preparing is None or self._preparing.done():
            self._bind()
            self._preparing = asyncio.get_running_loop().create_task(self._warm())

    @contextlib.asynccontextmanager
    async def page(self) -> AsyncIterator[Tab]:
        """A warm page for one export; it goes back to the pool when the export ends well,
        and is closed when it failed."""
        self._bind()
        if self._preparing is not None:
            # Its failure (no browser, say) is met again, and reported, by this export.
            with contextlib.suppress(Exception):
                await self._preparing
        async with self._use() as tab:
            yield tab

    @contextlib.asynccontextmanager
    async def _use(self) -> AsyncIterator[Tab]:
        assert self._slots is not None
        async with self._slots:
            connection = await self.browser.acquire()
            try:
                tab = self._take(connection) or await self._open(connection)
                try:
                    yield tab
                except BaseException:
                    await tab.close()
                    raise
                try:
                    await tab.clear()
                except ExportFailed:
                    await tab.close()
                else:
                    self._idle.append(tab)
            finally:
                self.browser.release()

    async def _warm(self) -> None:
        async with self._use():
            pass

    def _take(self, connection: Connection) -> Tab | None:
        while self._idle:
            tab = self._idle.pop()
            if tab.connection is connection and not connection.is_closed:
                return tab
        return None

    async def _open(self, connection: Connection) -> Tab:
        tab = await open_tab(connection)
        self.opened += 1
        return tab

    def _bind(self) -> None:
        """Start over on a new event loop (the browser does the same)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop, self._slots = loop, asyncio.Semaphore(self.size)
            self._idle, self._preparing = [], None
