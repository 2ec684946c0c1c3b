"""Presence across replicas: each replica sends its own entries of a chat whenever they change,
and all of them again every ``RESEND_S`` (so a replica that died is forgotten once its last
entries age out); what the others send is shown beside its own (``ChatPresence.heard``)."""

from __future__ import annotations

import json
import logging

import anyio

from quire.services.chat.presence import REMOTE_KEPT_MS, ChatPresence
from quire.services.replicas.fanout import Fanout

logger = logging.getLogger(__name__)

TOPIC = "chat-presence"
"""The replicas' topic of presence: ``{"replica", "chat", "entries"}``."""
RESEND_S = REMOTE_KEPT_MS / 3000
"""How often a replica sends all its entries again."""


class PresenceSharing:
    """Sends this replica's presence to the others and takes in theirs."""

    def __init__(self, presence: ChatPresence, fanout: Fanout) -> None:
        self._presence = presence
        self._fanout = fanout
        fanout.listen(TOPIC, self)

    @property
    def is_shared(self) -> bool:
        """Whether there are other replicas to tell."""
        return self._fanout.state != "alone"

    def share(self, chat: str) -> None:
        """Send this replica's entries of ``chat`` (after they changed)."""
        if self.is_shared:
            entries = self._presence.shared(chat)
            payload = {"replica": self._fanout.replica, "chat": chat, "entries": entries}
            self._fanout.send(TOPIC, json.dumps(payload))

    async def run(self) -> None:
        """Send every chat's entries again every ``RESEND_S``, until cancelled."""
        while True:
            await anyio.sleep(RESEND_S)
            self._share_all()

    def received(self, data: str) -> None:
        try:
            payload = json.loads(data)
            self._presence.heard(payload["replica"], payload["chat"], payload["entries"])
        except (ValueError, TypeError, KeyError):
            logger.warning("Ignored presence from another replica that is not presence.")

    def missed(self, *, recovered: bool) -> None:
        if recovered:
            self._share_all()

    def _share_all(self) -> None:
        for chat in self._presence.chats():
            self.share(chat)
