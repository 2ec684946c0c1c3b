"""A small Yjs browser: a pycrdt Doc kept in sync with one live document of a running Quire
server over ``/ws/documents/{docId}``, by pycrdt's Provider (the sync protocol a browser speaks).

Owns only the client end of the socket and the waiting for text; it never talks HTTP and never
judges what the text should hold.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
from pycrdt import Doc, Provider, Text, TransactionEvent
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

SYNC_TIMEOUT_S = 10
"""How long the first sync with the server may take."""
CONTENT = "content"
"""The name of the Text the server keeps the document in (and a browser's editor binds)."""


class WebSocketChannel:
    """pycrdt's Channel over a websockets client connection: binary frames in and out."""

    def __init__(self, websocket: ClientConnection, path: str) -> None:
        self._websocket = websocket
        self._path = path

    @property
    def path(self) -> str:
        return self._path

    def __aiter__(self) -> WebSocketChannel:
        return self

    async def __anext__(self) -> bytes:
        try:
            return await self.recv()
        except ConnectionClosed:
            raise StopAsyncIteration from None

    async def send(self, message: bytes) -> None:
        await self._websocket.send(message)

    async def recv(self) -> bytes:
        message = await self._websocket.recv()
        if isinstance(message, str):
            raise TypeError("the server sent a text frame; Yjs messages are binary")
        return message


class YjsBrowser:
    """One simulated browser's copy of a live document.

    ``last_update_at`` is the ``time.perf_counter()`` of the newest change applied to the copy
    (typed here or received), taken inside the document's observer: the moment it happened.
    """

    def __init__(self, doc: Doc[Text]) -> None:
        self.doc = doc
        self.content: Text = doc.get(CONTENT, type=Text)
        self.last_update_at = time.perf_counter()
        self._updated = anyio.Event()
        self._subscription = doc.observe(self._on_update)

    @property
    def text(self) -> str:
        """The copy's text now."""
        return str(self.content)

    def insert(self, index: int, keystroke: str) -> None:
        """Insert ``keystroke`` at character ``index``, as a person typing there would."""
        self.content.insert(index, keystroke)

    async def until(self, condition: Callable[[str], bool]) -> float:
        """Wait until the text satisfies ``condition`` (checked after every change); returns
        the ``perf_counter`` time of the change that made it so (or of the last one before).
        It waits as long as it takes: bound it with ``anyio.fail_after``."""
        while not condition(self.text):
            await self._updated.wait()
            self._updated = anyio.Event()
        return self.last_update_at

    def close(self) -> None:
        """Stop observing the document."""
        self.doc.unobserve(self._subscription)

    def _on_update(self, event: TransactionEvent) -> None:
        # The text cannot be read inside the transaction: note the time, wake the waiter.
        self.last_update_at = time.perf_counter()
        self._updated.set()


@asynccontextmanager
async def yjs_browser(
    base_url: str, doc_id: str, token: str, doc: Doc[Text] | None = None
) -> AsyncIterator[YjsBrowser]:
    """Connect a browser to the document ``doc_id`` of the server at ``base_url`` (http://…)
    with ``token``; yields once the first sync is complete, disconnects on exit. ``doc``: the
    copy a browser kept from an earlier connection (it reconnects with it), else a new one."""
    url = base_url.replace("http://", "ws://", 1) + f"/ws/documents/{doc_id}"
    doc = Doc() if doc is None else doc
    browser = YjsBrowser(doc)
    try:
        async with (
            connect(
                url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=None
            ) as websocket,
            Provider(doc, WebSocketChannel(websocket, url)) as provider,
        ):
            with anyio.fail_after(SYNC_TIMEOUT_S):
                await provider.synced.wait()
            yield browser
    finally:
        browser.close()
