"""One warm export page in the browser: the shell loaded once from the made-up origin, every
request intercepted, each export's document swapped in, drawn, then printed or read back.

Owns the page's requests (the shell and the bundle from memory, local files through the
current export's ``Resources``, remote ones only when that export allows them, everything
else failed) and the page's life (its own browser context, closed when the page is dropped).
Between documents the page keeps only the bundle's modules: the stylesheet, base address,
title, body, scroll, fonts and diagram settings are set again by every ``show``, and each
export's files have their own addresses (a request for a previous export's file is failed).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from quire.core.errors import ExportFailed, QuireError
from quire.export.assets import bundle, media_type
from quire.export.cdp import Connection, Message
from quire.export.page import (
    ASSETS,
    DIAGRAM_ERROR_PREFIX,
    FILES,
    ORIGIN,
    SHELL_URL,
    Shown,
    shell_page,
    show_expression,
)
from quire.export.resources import Resources
from quire.export.resources import media_type as file_media_type

PAGE_SECONDS = 120.0
"""The longest a page may take to load, or to draw one document's diagrams and math."""

_BUNDLE_CACHE = "public, max-age=31536000, immutable"
"""Bundle files carry build hashes in their names, so the page may keep them."""


@dataclass(frozen=True)
class Finished:
    """What the page reported once drawn: the diagrams that failed, by their index among the
    page's diagrams, with the drawer's message."""

    failed_diagrams: tuple[tuple[int, str], ...]


class Tab:
    """A warm export page; ``open_tab`` makes one, ``show`` puts a document in it."""

    def __init__(self, connection: Connection, session: str, context: str) -> None:
        self.connection = connection
        self._session = session
        self._context = context
        self._requests = _Requests(connection, session)
        self._css: str | None = None
        self._serial = 0
        self.shown = 0
        """How many documents this page has drawn."""

    async def show(self, shown: Shown, resources: Resources) -> Finished:
        """Put ``shown`` in the page in place of the last document and wait until it is
        drawn; the page's requests follow ``resources`` until the next ``show``."""
        self._serial += 1
        self._requests.begin(self._serial, resources)
        sent = dataclasses.replace(shown, css=None) if shown.css == self._css else shown
        self._css = None
        try:
            async with asyncio.timeout(PAGE_SECONDS):
                failed = await self.evaluate(show_expression(sent, self._serial))
        except TimeoutError:
            raise ExportFailed(
                f"The export page did not finish drawing within {PAGE_SECONDS:.0f} seconds; "
                "a diagram or formula may be too large. Split the document and try again."
            ) from None
        self._css = shown.css
        self.shown += 1
        return Finished(tuple((int(i), _message(title)) for i, title in failed or ()))

    async def clear(self) -> None:
        """Empty the page (it keeps no document while it waits for the next)."""
        self._requests.begin(self._serial + 1, None)
        await self.evaluate("document.body.replaceChildren(); document.title = ''")

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

    async def close(self) -> None:
        """Close the page and its browser context (nothing if the browser is gone)."""
        self.connection.forget(self._session)
        if not self.connection.is_closed:
            with contextlib.suppress(ExportFailed):
                await self.connection.call(
                    "Target.disposeBrowserContext", {"browserContextId": self._context}
                )

    async def _call(self, method: str, params: Message) -> Message:
        return await self.connection.call(method, params, session=self._session)


async def open_tab(connection: Connection) -> Tab:
    """A new warm page in its own browser context, its shell loaded."""
    context: str = (await connection.call("Target.createBrowserContext"))["browserContextId"]
    try:
        target = await connection.call(
            "Target.createTarget", {"url": "about:blank", "browserContextId": context}
        )
        attached = await connection.call(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
        )
        tab = Tab(connection, attached["sessionId"], context)
        loaded = tab._requests.loaded
        connection.listen(tab._session, tab._requests.on_event)
        await tab._call("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})
        await tab._call("Page.enable", {})
        await tab._call("Page.navigate", {"url": SHELL_URL})
        try:
            async with asyncio.timeout(PAGE_SECONDS):
                await loaded
        except TimeoutError:
            raise ExportFailed(
                f"The export page did not load within {PAGE_SECONDS:.0f} seconds; check that "
                "the browser runs, or set `export.browser` to another one."
            ) from None
    except BaseException:
        with contextlib.suppress(ExportFailed):
            await connection.call("Target.disposeBrowserContext", {"browserContextId": context})
        raise
    return tab


def _message(title: str) -> str:
    return title.removeprefix(DIAGRAM_ERROR_PREFIX).strip() or "The diagram could not be drawn."


class _Requests:
    """The page's request rule and load signal, as the session's event listener; the rule is
    the current export's (``begin``)."""

    def __init__(self, connection: Connection, session: str) -> None:
        self._connection = connection
        self._session = session
        self._serial = 0
        self._resources: Resources | None = None
        self.loaded: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def begin(self, serial: int, resources: Resources | None) -> None:
        """From now on, answer the files of export ``serial`` by ``resources`` (None: no
        file at all)."""
        self._serial, self._resources = serial, resources

    def on_event(self, method: str, params: Message) -> None:
        if method == "Page.loadEventFired" and not self.loaded.done():
            self.loaded.set_result(None)
        elif method == "Fetch.requestPaused":
            self._answer(params["requestId"], params["request"]["url"])

    def _answer(self, request: str, url: str) -> None:
        if url.split("#", 1)[0] == SHELL_URL:
            self._fulfil(request, shell_page().encode("utf-8"), "text/html; charset=utf-8")
            return
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" == ORIGIN:
            self._answer_own(request, unquote(parts.path))
        elif (
            parts.scheme in ("http", "https")
            and self._resources is not None
            and self._resources.remote_allowed(url)
        ):
            self._send("Fetch.continueRequest", {"requestId": request})
        else:
            self._fail(request, "BlockedByClient")

    def _answer_own(self, request: str, path: str) -> None:
        data: bytes | None = None
        kind = "application/octet-stream"
        cache = "no-store"
        try:
            if path.startswith(ASSETS):
                name = path[len(ASSETS) :]
                data, kind, cache = bundle().read(name), media_type(name), _BUNDLE_CACHE
            elif (local := self._file(path)) is not None and self._resources is not None:
                data, kind = self._resources.local(local), file_media_type(local)
        except QuireError:
            data = None
        if data is None:
            self._fail(request, "AccessDenied")
        else:
            self._fulfil(request, data, kind, cache)

    def _file(self, path: str) -> Path | None:
        """The file ``/<serial>/fs/<path>`` names when ``serial`` is the current export's."""
        prefix = f"/{self._serial}{FILES}/"
        return Path(path[len(prefix) - 1 :]) if path.startswith(prefix) else None

    def _fulfil(self, request: str, body: bytes, kind: str, cache: str = "no-store") -> None:
        self._send(
            "Fetch.fulfillRequest",
            {
                "requestId": request,
                "responseCode": 200,
                "responseHeaders": [
                    {"name": "Content-Type", "value": kind},
                    {"name": "Cache-Control", "value": cache},
                    {"name": "Access-Control-Allow-Origin", "value": "*"},
                ],
                "body": base64.b64encode(body).decode("ascii"),
            },
        )

    def _fail(self, request: str, reason: str) -> None:
        self._send("Fetch.failRequest", {"requestId": request, "errorReason": reason})

    def _send(self, method: str, params: Message) -> None:
        self._connection.send(method, params, session=self._session)
