"""A fanout that keeps what is sent: the replicas' seam, without a broker."""

from __future__ import annotations

from quire.services.replicas.fanout import FanoutState, Listener


class SentSignals:
    """Keeps each signal sent, and how many of them a ``flush`` had been asked to push out
    (what a replica acknowledges only after its signals left)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self.flushed = 0
        """How many of ``sent`` had been sent when ``flush`` was last awaited."""

    @property
    def replica(self) -> str:
        return "here"

    @property
    def state(self) -> FanoutState:
        return "connected"

    def send(self, topic: str, data: str) -> None:
        self.sent.append((topic, data))

    def listen(self, topic: str, listener: Listener) -> None:
        pass

    async def flush(self) -> None:
        self.flushed = len(self.sent)
