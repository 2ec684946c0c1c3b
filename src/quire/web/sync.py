"""``/ws/documents/{doc_id}``: the Yjs sync protocol (y-protocols sync and awareness) of one
live document, binary frames as y-websocket speaks them.

Owns the wire protocol and each connection's send queue. The document, its journal and who
may connect are not its business (LiveDocuments and the auth middleware own them): a document
the account may not read is unknown to ``LiveDocuments.editing``, and the updates of an
account that may only read it are dropped (it receives every update, its own change nothing).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from typing import Any, Final

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from pycrdt import (
    TransactionEvent,
    YMessageType,
    YSyncMessageType,
    create_awareness_message,
    create_sync_message,
    create_update_message,
    handle_sync_message,
    read_message,
)
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from quire.services.chat.privacy import live_chat_guard
from quire.services.document_access import writable
from quire.services.live.document import LiveDocument, Origin
from quire.services.live.documents import LiveDocuments
from quire.services.users.access import current_access
from quire.web.context import services_of

logger = logging.getLogger(__name__)

SYNC_PATH: Final = "/ws/documents/{doc_id}"
MAX_QUEUED: Final = 10_000
"""Messages a connection may have waiting to be sent before it is cut off (it resyncs)."""

CLOSE_UNKNOWN: Final = 4404
CLOSE_MALFORMED: Final = 1007
CLOSE_BEHIND: Final = 1013
_QUERY_AWARENESS: Final = 3


async def document_socket(websocket: WebSocket) -> None:
    """Serve the live document named in the path to one editor."""
    await serve_document(websocket, services_of(websocket).documents)


async def serve_document(websocket: WebSocket, documents: LiveDocuments) -> None:
    """Speak the sync protocol for the document ``doc_id`` of the path until the editor
    leaves. An id naming no document (open now, or stored from before a restart), or one
    the account may not read, is closed with 4404."""
    doc_id = str(websocket.path_params.get("doc_id", ""))
    async with documents.editing(doc_id) as live:
        await websocket.accept()
        if live is None:
            await websocket.close(
                CLOSE_UNKNOWN, "No document has this id; open the document first."
            )
            return
        await _Connection(websocket, live, may_change=writable(live.path)).run()


class _Connection:
    """One editor connected to one document."""

    def __init__(self, websocket: WebSocket, live: LiveDocument, *, may_change: bool) -> None:
        self._websocket = websocket
        self._live = live
        self._may_change = may_change
        self._origin = Origin("person", f"editor-{secrets.token_hex(6)}")
        self._send: MemoryObjectSendStream[bytes]
        self._receive: MemoryObjectReceiveStream[bytes]
        self._send, self._receive = anyio.create_memory_object_stream[bytes](MAX_QUEUED)
        self._changed = anyio.Event()
        self._client_ids: set[int] = set()
        self._close: tuple[int, str] | None = None
        self._stopped = False

    async def run(self) -> None:
        live = self._live
        subscription = live.ydoc.observe(self._on_update)
        awareness_id = live.awareness.observe(self._on_awareness)
        try:
            self._queue(create_sync_message(live.ydoc))
            states = list(live.awareness.states)
            if states:
                self._queue(
                    create_awareness_message(live.awareness.encode_awareness_update(states))
                )
            async with anyio.create_task_group() as group:
                group.start_soon(self._sender, group.cancel_scope)
                group.start_soon(self._persister)
                await self._receiver()
                group.cancel_scope.cancel()
        except anyio.get_cancelled_exc_class():
            # Stopped from outside (the account's access was taken away): whoever stopped it
            # closes the socket with its own code (4401/4403).
            self._stopped = True
            raise
        finally:
            live.ydoc.unobserve(subscription)
            live.awareness.unobserve(awareness_id)
            self._send.close()
            self._receive.close()
            if self._client_ids:
                live.awareness.remove_awareness_states(sorted(self._client_ids), self)
            with anyio.CancelScope(shield=True):
                await self._flush()
                if not self._stopped:
                    await self._close_socket()

    async def _receiver(self) -> None:
        while self._close is None:
            try:
                message = await self._websocket.receive()
            except WebSocketDisconnect:
                return
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("bytes")
            if data is None:
                self._close = (CLOSE_MALFORMED, "Send binary Yjs messages only.")
                return
            try:
                self._handle(data)
            except Exception as exc:  # a broken message from one editor must not stop others
                logger.info("Closing an editor of %s: bad message (%s)", self._live.path, exc)
                self._close = (CLOSE_MALFORMED, "Malformed Yjs message.")

    def _handle(self, data: bytes) -> None:
        if not data:
            return
        live = self._live
        if data[0] == YMessageType.SYNC:
            if len(data) < 2:
                raise ValueError("a sync message without its type")
            if data[1] == YSyncMessageType.SYNC_STEP1:
                reply = handle_sync_message(data[1:], live.ydoc)
                if reply is not None:
                    self._queue(reply)
                return
            if not self._may_change:
                logger.debug("Dropped an update of %s from an editor who may only read", live.path)
                return
            guard = live_chat_guard(current_access(), live)  # a chat only its owner unmakes
            with live.change(self._origin):
                handle_sync_message(data[1:], live.ydoc)
            if guard is not None:
                guard.after()
            self._changed.set()
        elif data[0] == YMessageType.AWARENESS:
            live.awareness.apply_awareness_update(read_message(data[1:]), self)
        elif data[0] == _QUERY_AWARENESS:
            states = list(live.awareness.states)
            self._queue(create_awareness_message(live.awareness.encode_awareness_update(states)))

    def _on_update(self, event: TransactionEvent) -> None:
        # Called inside the document's transaction: it must not raise.
        if self._live.origin != self._origin:
            self._queue(create_update_message(event.update))

    def _on_awareness(self, topic: str, changes: tuple[dict[str, Any], Any]) -> None:
        if topic != "update":
            return
        change, origin = changes
        if origin is self:
            self._client_ids.update(change["added"])
            self._client_ids.difference_update(change["removed"])
        ids = [*change["added"], *change["updated"], *change["removed"]]
        if ids:
            awareness = self._live.awareness
            self._queue(create_awareness_message(awareness.encode_awareness_update(ids)))

    def _queue(self, message: bytes) -> None:
        try:
            self._send.send_nowait(message)
        except anyio.WouldBlock:
            logger.warning(
                "An editor of %s fell too far behind; disconnecting it.", self._live.path
            )
            self._close = (CLOSE_BEHIND, "Too far behind; reconnect to resync.")
            self._send.close()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    async def _sender(self, scope: anyio.CancelScope) -> None:
        try:
            async for message in self._receive:
                await self._websocket.send_bytes(message)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass
        # The queue ended (cut off) or the editor left: stop receiving too.
        scope.cancel()

    async def _persister(self) -> None:
        while True:
            await self._changed.wait()
            self._changed = anyio.Event()
            await self._flush()

    async def _flush(self) -> None:
        try:
            await self._live.journal.flush()
        except Exception:
            logger.exception(
                "Storing the edits of %s failed; they will be retried.", self._live.path
            )

    async def _close_socket(self) -> None:
        socket = self._websocket
        if WebSocketState.DISCONNECTED in (socket.client_state, socket.application_state):
            return
        code, reason = self._close or (1000, "")
        # An editor that already left (its tab closed, its network gone) makes the close
        # raise WebSocketDisconnect: a normal end, not an error.
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await self._websocket.close(code, reason)


routes = [WebSocketRoute(SYNC_PATH, document_socket, name="document-sync")]
