"""Approval and notice queries: an end is written only over a pending request, counts are per
account and per machine label, the queue is oldest first, and a repeated notice replaces the
last one of its session and kind."""

from __future__ import annotations

from dataclasses import replace

import pytest

from quire.db import approvals, notices
from quire.db.approvals import StoredApproval
from quire.db.engine import Database
from quire.db.notices import StoredNotice

pytestmark = pytest.mark.anyio

NOW = 4_102_444_800_000  # past what a 32-bit integer holds


def pending(approval_id: str, *, label: str = "box", created: int = NOW) -> StoredApproval:
    return StoredApproval(
        id=approval_id,
        user_id="owner",
        harness="claude-code",
        machine_label=label,
        session_id="s1",
        cwd="/work",
        tool_name="Bash",
        tool_input={"command": "ls \u202e", "nested": [1, {"a": None}]},
        suggestions=({"type": "addRules", "rules": []},),
        input_hash="a" * 64,
        created_at_ms=created,
        deadline_ms=created + 600_000,
        status="pending",
    )


async def insert(database: Database, *stored: StoredApproval) -> None:
    async with database.session() as session, session.begin():
        for approval in stored:
            await approvals.insert_approval(session, approval)


async def test_a_request_reads_back_as_stored(database: Database) -> None:
    await insert(database, pending("a1"))
    async with database.session() as session:
        assert await approvals.get_approval(session, "a1") == pending("a1")
        assert await approvals.get_approval(session, "nope") is None


async def test_an_end_is_written_only_over_a_pending_request(database: Database) -> None:
    await insert(database, pending("a1"))
    decision = {"behavior": "allow"}
    async with database.session() as session, session.begin():
        assert await approvals.record_end(
            session, "a1", "decided", decided_at_ms=NOW + 1, decision=decision
        )
        assert not await approvals.record_end(session, "a1", "expired", decided_at_ms=NOW + 2)
        assert not await approvals.record_end(session, "gone", "expired", decided_at_ms=NOW)
    async with database.session() as session:
        stored = await approvals.get_approval(session, "a1")
    assert stored == replace(
        pending("a1"), status="decided", decision=decision, decided_at_ms=NOW + 1
    )


async def test_waiting_counts_are_per_account_and_per_machine_label(database: Database) -> None:
    await insert(
        database,
        pending("a1", label="box"),
        pending("a2", label="box"),
        pending("a3", label="other"),
        replace(pending("a4"), user_id="someone"),
        replace(pending("a5"), status="expired"),
    )
    async with database.session() as session:
        assert await approvals.waiting_counts(session, "owner", "box") == (3, 2)
        assert await approvals.waiting_counts(session, "owner", "none") == (3, 0)


async def test_the_queue_is_oldest_first_and_overdue_ones_are_found(database: Database) -> None:
    await insert(database, pending("b", created=NOW + 5), pending("a", created=NOW))
    async with database.session() as session:
        assert [a.id for a in await approvals.pending_approvals(session, "owner")] == ["a", "b"]
        assert await approvals.overdue_ids(session, "owner", NOW + 600_000) == ["a"]
        assert await approvals.overdue_ids(session, None, NOW) == []


async def test_pruning_keeps_the_newest_ended_and_every_pending(database: Database) -> None:
    ended = [replace(pending(f"e{n}", created=NOW + n), status="expired") for n in range(5)]
    await insert(database, pending("p", created=NOW - 1), *ended)
    async with database.session() as session, session.begin():
        assert await approvals.prune_approvals(session, "owner", keep=2) == 3
    async with database.session() as session:
        kept = await approvals.recent_ended(session, "owner", 10)
        assert [a.id for a in kept] == ["e4", "e3"]
        assert await approvals.get_approval(session, "p") is not None


def notice(kind: str = "idle", message: str = "Waiting for input") -> StoredNotice:
    return StoredNotice(
        user_id="owner",
        session_id="s1",
        kind=kind,  # type: ignore[arg-type]
        harness="claude-code",
        machine_label="box",
        message=message,
        created_at_ms=NOW,
        expires_at_ms=NOW + 1000,
    )


async def test_a_repeated_notice_replaces_the_last_of_its_session_and_kind(
    database: Database,
) -> None:
    async with database.session() as session, session.begin():
        assert await notices.put_notice(session, notice()) is None
        assert await notices.put_notice(session, notice(message="again")) == notice()
        await notices.put_notice(session, notice("terminal"))
    async with database.session() as session, session.begin():
        live = await notices.live_notices(session, "owner", NOW)
        assert sorted((n.kind, n.message) for n in live) == [
            ("idle", "again"),
            ("terminal", "Waiting for input"),
        ]
        assert await notices.live_notices(session, "owner", NOW + 1000) == []
        removed = await notices.remove_notices(session, "owner", "s1", "idle")
        assert [n.kind for n in removed] == ["idle"]
        assert await notices.drop_expired(session, NOW + 1000) == 1
        assert await notices.remove_notices(session, "owner", "s1") == []
