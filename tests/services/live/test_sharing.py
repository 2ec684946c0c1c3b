"""The replicas' side of live documents on their own: cursors sent and received (what is sent
on, what is dropped when stale, what is ignored) and catch-ups (coalesced, retried)."""

from __future__ import annotations

import base64
import json
import time

import anyio
import pytest
from pycrdt import Awareness, Doc

from quire.services.live.cursors import CURSORS, FROM_REPLICA, RemoteCursors
from quire.services.live.sharing import CatchUps
from tests.support.signals import SentSignals

pytestmark = pytest.mark.anyio


def cursor_of(client_id: int, name: str) -> bytes:
    awareness = Awareness(Doc(client_id=client_id))
    awareness.set_local_state({"user": {"name": name}})
    return awareness.encode_awareness_update([client_id])


def test_an_editors_cursor_is_sent_and_one_from_another_replica_is_not_sent_back() -> None:
    fanout = SentSignals()
    here = Awareness(Doc())
    cursors = RemoteCursors(fanout, lambda doc_id: here if doc_id == "plan" else None)
    here.observe(cursors.send_changes("plan", here))
    here.apply_awareness_update(cursor_of(7, "Ada"), "a connection")
    assert [topic for topic, _ in fanout.sent] == [CURSORS]
    sent = json.loads(fanout.sent[0][1])
    assert sent["doc"] == "plan"
    there = Awareness(Doc())
    there.apply_awareness_update(base64.b64decode(sent["update"]), "test")
    assert there.states[7] == {"user": {"name": "Ada"}}

    other = base64.b64encode(cursor_of(8, "Bob")).decode()
    cursors.received(json.dumps({"doc": "plan", "update": other}))
    assert here.states[8] == {"user": {"name": "Bob"}}
    assert len(fanout.sent) == 1  # what came from a replica goes to no replica


@pytest.mark.parametrize(
    "data",
    ["not json", "[]", json.dumps({"doc": "plan"}), json.dumps({"doc": "plan", "update": "@@"})],
)
def test_a_malformed_cursor_signal_is_ignored(data: str, caplog: pytest.LogCaptureFixture) -> None:
    here = Awareness(Doc())
    RemoteCursors(SentSignals(), lambda doc_id: here).received(data)
    assert here.states == {} or set(here.states) == {here.client_id}
    assert "Ignored a cursor signal" in caplog.text


def test_another_replicas_cursor_not_renewed_in_time_is_removed() -> None:
    here = Awareness(Doc())
    here.set_local_state(None)
    removed: list[list[int]] = []
    here.observe(
        lambda topic, changes: (
            removed.append(changes[0]["removed"])
            if topic == "change" and changes[1] == FROM_REPLICA
            else None
        )
    )
    cursors = RemoteCursors(SentSignals(), lambda doc_id: here)
    update = base64.b64encode(cursor_of(7, "Ada")).decode()
    cursors.received(json.dumps({"doc": "plan", "update": update}))
    cursors.drop_stale(time.monotonic() - 60)  # heard just now: kept
    assert 7 in here.states
    cursors.drop_stale(time.monotonic() + 1)
    assert 7 not in here.states and removed[-1] == [7]


async def test_catch_ups_of_one_document_are_coalesced_and_a_failed_one_is_retried() -> None:
    calls: list[str] = []
    failures = [RuntimeError("the database is away")]

    async def catch_up(doc_id: str) -> None:
        calls.append(doc_id)
        if failures:
            raise failures.pop()

    catch_ups = CatchUps(catch_up, lambda: ["a", "b"])
    async with anyio.create_task_group() as group:
        group.start_soon(catch_ups.run)
        catch_ups.received("a")
        catch_ups.received("a")
        with anyio.fail_after(5):
            while calls.count("a") < 2:  # noqa: ASYNC110 - the retry has no event to await
                await anyio.sleep(0.01)
        catch_ups.missed(recovered=True)
        with anyio.fail_after(5):
            while "b" not in calls:  # noqa: ASYNC110
                await anyio.sleep(0.01)
        group.cancel_scope.cancel()
    assert calls[:2] == ["a", "a"]  # twice announced before the task ran: once, then a retry
