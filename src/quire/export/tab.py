"""One export page in the browser: loaded from the made-up origin, every request intercepted,
diagrams and math finished by the bundle's modules, then printed or read back.

Owns the page's requests (the bundle from memory, local files through ``Resources``, remote
ones only when allowed, everything else failed) and the page's life (its own browser context,
disposed after). The PDF options are ``print_pdf``'s.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from quire.core.errors import ExportFailed, QuireError
from quire.export.assets import bundle, media_type
from quire.export.browser import Browser
from quire.export.cdp import Connection, Message
from quire.export.page import ASSETS, DIAGRAM_ERROR_PREFIX, FILES, ORIGIN
from quire.export.resources import Resources
from quire.export.resources import media_type as file_media_type

PAGE_SECONDS = 120.0
"""The longest a page may take to draw its diagrams and math."""


@dataclass(frozen=True)
class Finished:
    """What the page reported once drawn: the diagrams that failed, by their index among the
    page's diagrams, with the drawer's message."""

    failed_diagrams: tuple[tuple[int, str], ...]


class Tab:
    """A loaded export page; ``open_tab`` makes one."""

    def __init__(self, connection: Connection, session: str) -> None:
        self._connection = connection
        self._session = session

    async def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` in the page (a promise awaited)."""
        result = await self._call(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise ExportFailed(f"The export page failed: {text}")
        return result.get("result", {}).get("value")

    async def print_pdf(self, options: Message) -> bytes:
        """The page printed to PDF with ``Page.printToPDF``'s ``options``."""
        result = await self._call("Page.printToPDF", options)
        return base64.b64decode(result["data"])

    async def _call(self, method: str, params: Message) -> Message:
        return await self._connection.call(method, params, session=self._session)


@contextlib.asynccontextmanager
async def open_tab(
    browser: Browser, url: str, html: str, resources: Resources
) -> AsyncIterator[tuple[Tab, Finished]]:
    """Load ``html`` as the page at ``url`` in a fresh context and wait until it is drawn."""
    connection = await browser.acquire()
    context: str | None = None
    try:
        context = (await connection.call("Target.createBrowserContext"))["browserContextId"]
        target = await connection.call(
            "Target.createTarget", {"url": "about:blank", "browserContextId": context}
        )
        attached = await connection.call(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
        )
        session: str = attached["sessionId"]
        loaded = asyncio.get_running_loop().create_future()
        requests = _Requests(connection, session, url, html, resources, loaded)
        connection.listen(session, requests.on_event)
        try:
            await connection.call(
                "Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, session=session
            )
            await connection.call("Page.enable", session=session)
            await connection.call("Page.navigate", {"url": url}, session=session)
            tab = Tab(connection, session)
            try:
                async with asyncio.timeout(PAGE_SECONDS):
                    await loaded
                    failed = await tab.evaluate("window.quireFinished ?? []")
            except TimeoutError:
                raise ExportFailed(
                    f"The export page did not finish drawing within {PAGE_SECONDS:.0f} seconds;"
                    " a diagram or formula may be too large. Split the document and try again."
                ) from None
            yield tab, Finished(tuple((int(i), _message(title)) for i, title in failed or ()))
        finally:
            connection.forget(session)
    finally:
        if context is not None and not connection.is_closed:
            with contextlib.suppress(ExportFailed):
                await connection.call("Target.disposeBrowserContext", {"browserContextId": context})
        browser.release()


def _message(title: str) -> str:
    return title.removeprefix(DIAGRAM_ERROR_PREFIX).strip() or "The diagram could not be drawn."


class _Requests:
    """The page's request rule and load signal, as the session's event listener."""

    def __init__(
        self,
        connection: Connection,
        session: str,
        url: str,
        html: str,
        resources: Resources,
        loaded: asyncio.Future[None],
    ) -> None:
        self._connection = connection
        self._session = session
        self._url = url
        self._html = html.encode("utf-8")
        self._resources = resources
        self._loaded = loaded

    def on_event(self, method: str, params: Message) -> None:
        if method == "Page.loadEventFired" and not self._loaded.done():
            self._loaded.set_result(None)
        elif method == "Fetch.requestPaused":
            self._answer(params["requestId"], params["request"]["url"])

    def _answer(self, request: str, url: str) -> None:
        if url.split("#", 1)[0] == self._url:
            self._fulfil(request, self._html, "text/html; charset=utf-8")
            return
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" == ORIGIN:
            self._answer_own(request, unquote(parts.path))
        elif parts.scheme in ("http", "https") and self._resources.remote_allowed(url):
            self._send("Fetch.continueRequest", {"requestId": request})
        else:
            self._send(
                "Fetch.failRequest", {"requestId": request, "errorReason": "BlockedByClient"}
            )

    def _answer_own(self, request: str, path: str) -> None:
        data: bytes | None = None
        kind = "application/octet-stream"
        try:
            if path.startswith(ASSETS):
                name = path[len(ASSETS) :]
                data, kind = bundle().read(name), media_type(name)
            elif path.startswith(FILES + "/"):
                local = Path(path[len(FILES) :])
                data, kind = self._resources.local(local), file_media_type(local)
        except QuireError:
            data = None
        if data is None:
            self._send("Fetch.failRequest", {"requestId": request, "errorReason": "AccessDenied"})
        else:
            self._fulfil(request, data, kind)

    def _fulfil(self, request: str, body: bytes, kind: str) -> None:
        self._send(
            "Fetch.fulfillRequest",
            {
                "requestId": request,
                "responseCode": 200,
                "responseHeaders": [
                    {"name": "Content-Type", "value": kind},
                    {"name": "Access-Control-Allow-Origin", "value": "*"},
                ],
                "body": base64.b64encode(body).decode("ascii"),
            },
        )

    def _send(self, method: str, params: Message) -> None:
        self._connection.send(method, params, session=self._session)
