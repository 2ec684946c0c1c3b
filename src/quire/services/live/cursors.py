"""Editors' cursors and names (Yjs awareness) between replicas: not stored, only sent.

A replica sends each awareness change its own editors make on ``CURSORS`` and applies the
others', dropping those not renewed within ``CURSOR_TIMEOUT_S`` (their replica died; a browser
renews its own every 15 s). What a replica applied from another is never sent on.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import time
from collections.abc import Callable
from typing import Any, Final

import anyio
from pycrdt import Awareness

from quire.services.replicas.fanout import Fanout

logger = logging.getLogger(__name__)

CURSORS: Final = "cursors"
"""The topic on which a replica sends its editors' awareness changes."""
CURSOR_TIMEOUT_S: Final = 30.0
"""How long another replica's editor's cursor stays without being renewed."""
FROM_REPLICA: Final = "replica"
"""The origin of awareness changes applied from another replica (never sent on)."""


class RemoteCursors:
    """The editors' cursors this replica sends and those it holds for other replicas."""

    def __init__(self, fanout: Fanout, awareness_of: Callable[[str], Awareness | None]) -> None:
        self._fanout = fanout
        self._awareness_of = awareness_of
        self._heard: dict[str, dict[int, float]] = {}
        """When each other replica's editor was last heard of, by document and client id."""

    def send_changes(self, doc_id: str, awareness: Awareness) -> Callable[[str, Any], None]:
        """The observer of ``doc_id``'s awareness that sends its own editors' changes."""

        def observe(topic: str, changes: tuple[dict[str, list[int]], Any]) -> None:
            change, origin = changes
            if topic != "update" or origin in (FROM_REPLICA, None):
                return
            ids = [*change["added"], *change["updated"], *change["removed"]]
            if ids:
                update = awareness.encode_awareness_update(ids)
                data = {"doc": doc_id, "update": base64.b64encode(update).decode("ascii")}
                self._fanout.send(CURSORS, json.dumps(data))

        return observe

    def received(self, data: str) -> None:
        try:
            value = json.loads(data)
            doc_id, update = str(value["doc"]), base64.b64decode(value["update"], validate=True)
        except (ValueError, KeyError, TypeError, binascii.Error):
            logger.warning("Ignored a cursor signal that is not one.")
            return
        awareness = self._awareness_of(doc_id)
        if awareness is None:
            return
        heard = self._heard.setdefault(doc_id, {})
        now = time.monotonic()

        def note(topic: str, changes: tuple[dict[str, list[int]], Any]) -> None:
            if topic == "update":
                for client_id in [*changes[0]["added"], *changes[0]["updated"]]:
                    heard[client_id] = now
                for client_id in changes[0]["removed"]:
                    heard.pop(client_id, None)

        subscription = awareness.observe(note)
        try:
            awareness.apply_awareness_update(update, FROM_REPLICA)
        finally:
            awareness.unobserve(subscription)

    def missed(self, *, recovered: bool) -> None:
        pass  # cursors are not stored: the next renewal brings them back

    async def run(self) -> None:
        """Drop the cursors of other replicas' editors not renewed in time, until cancelled."""
        while True:
            await anyio.sleep(CURSOR_TIMEOUT_S / 3)
            self.drop_stale(time.monotonic() - CURSOR_TIMEOUT_S)

    def drop_stale(self, before: float) -> None:
        """Remove the other replicas' cursors last heard of before ``before``."""
        for doc_id, heard in list(self._heard.items()):
            stale = [client_id for client_id, at in heard.items() if at < before]
            for client_id in stale:
                del heard[client_id]
            awareness = self._awareness_of(doc_id)
            if awareness is None:
                del self._heard[doc_id]
                continue
            gone = [client_id for client_id in stale if client_id in awareness.states]
            if gone:
                awareness.remove_awareness_states(gone, FROM_REPLICA)
