"""``/ws/events``: the signed-in user's window events, one JSON text frame each (in multi mode
only those about what the account may read: the bus subscription filters them).

Frames are the ``quire.api.events`` models dumped, ``{"kind": ..., "data": {...}}``; the
browser never sends anything that matters here. The socket ends with 1013 when the bus cuts
a listener that fell too far behind (or the server stops): the browser reconnects and reloads
the window state from the API.
"""

from __future__ import annotations

import contextlib

import anyio
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from quire.api.events import Event
from quire.web.context import current_user, services_of

EVENTS_PATH = "/ws/events"
CLOSE_RECONNECT = 1013


def event_frame(event: Event) -> str:
    """The JSON text frame for ``event``: its model dumped, ``{"kind": ..., "data": {...}}``."""
    return event.dump_json().decode()


async def events_socket(websocket: WebSocket) -> None:
    """Send the user's events until the browser leaves or the subscription ends.

    The subscription starts before the handshake completes, so no event published once the
    browser is connected can be missed.
    """
    bus = services_of(websocket).bus
    user = current_user(websocket)
    ended = False
    async with bus.subscribe(user) as events, anyio.create_task_group() as group:
        await websocket.accept()
        group.start_soon(_until_disconnect, websocket, group.cancel_scope)
        try:
            async for event in events:
                await websocket.send_text(event_frame(event))
        except WebSocketDisconnect:
            pass
        else:
            ended = True
        group.cancel_scope.cancel()
    if ended:
        with contextlib.suppress(WebSocketDisconnect):
            await websocket.close(CLOSE_RECONNECT, "reconnect and reload the window state")


async def _until_disconnect(websocket: WebSocket, scope: anyio.CancelScope) -> None:
    """Read (and ignore) what the browser sends; stop everything when it disconnects."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            scope.cancel()
            return


routes = [WebSocketRoute(EVENTS_PATH, events_socket, name="events")]
