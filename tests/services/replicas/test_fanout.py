"""Signals between replicas: their wire form, and who hears what."""

from __future__ import annotations

import json

import pytest

from quire.services.replicas.fanout import Alone, Signal, Topics, Wakeups


class Recorder:
    def __init__(self) -> None:
        self.heard: list[str] = []
        self.gaps: list[bool] = []

    def received(self, data: str) -> None:
        self.heard.append(data)

    def missed(self, *, recovered: bool) -> None:
        self.gaps.append(recovered)


def test_a_signal_travels_as_json_and_comes_back_the_same() -> None:
    signal = Signal("web-1", "chat-posts", "/srv/notes/room ü.md")
    assert Signal.decode(signal.encode()) == signal
    assert Signal.decode(signal.encode().decode()) == signal


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json",
        b"\xff\xfe",
        b"[]",
        b"{}",
        json.dumps({"replica": "a", "topic": "t"}).encode(),
        json.dumps({"replica": 1, "topic": "t", "data": "x"}).encode(),
        json.dumps({"replica": "a", "topic": None, "data": "x"}).encode(),
        json.dumps({"replica": "a", "topic": "t", "data": ["x"]}).encode(),
        b"1" * 100_000,
    ],
)
def test_anything_that_is_not_a_signal_is_ignored(raw: bytes) -> None:
    assert Signal.decode(raw) is None


def test_a_replica_does_not_hear_its_own_signals() -> None:
    topics = Topics("web-1")
    heard = Recorder()
    topics.add("chat-posts", heard)
    topics.deliver(Signal("web-1", "chat-posts", "mine"))
    topics.deliver(Signal("web-2", "chat-posts", "theirs"))
    topics.deliver(Signal("web-2", "unknown-topic", "nobody listens"))
    assert heard.heard == ["theirs"]


def test_a_failing_listener_does_not_stop_the_others() -> None:
    class Broken:
        def received(self, data: str) -> None:
            raise RuntimeError("boom")

        def missed(self, *, recovered: bool) -> None:
            raise RuntimeError("boom")

    topics = Topics("web-1")
    heard = Recorder()
    topics.add("a", Broken())
    topics.add("b", heard)
    topics.deliver(Signal("web-2", "a", "x"))
    topics.deliver(Signal("web-2", "b", "y"))
    topics.missed(recovered=True)
    assert (heard.heard, heard.gaps) == (["y"], [True])


def test_one_listener_per_topic() -> None:
    topics = Topics("web-1")
    topics.add("a", Recorder())
    with pytest.raises(ValueError, match="has a listener already"):
        topics.add("a", Recorder())


def test_wakeups_wake_one_key_or_everything() -> None:
    woken: list[str] = []
    wakeups = Wakeups(woken.append, lambda: woken.append("*"))
    wakeups.received("review-1")
    wakeups.missed(recovered=False)
    wakeups.missed(recovered=True)
    assert woken == ["review-1", "*", "*"]


def test_a_lone_server_sends_nothing_and_hears_nothing() -> None:
    alone = Alone("laptop")
    alone.listen("a", Recorder())
    alone.send("a", "x")
    assert (alone.replica, alone.state) == ("laptop", "alone")
