"""Review repo functions: an outcome is written only over the status it was decided against,
and every user's pending reviews come back oldest first."""

from __future__ import annotations

from dataclasses import replace

import pytest

from quire.core.views import ReviewStatus
from quire.db import reviews
from quire.db.engine import Database
from quire.db.reviews import StoredReview

pytestmark = pytest.mark.anyio

NOW = 1_700_000_000_000


def pending(review_id: str, user: str = "owner", created: int = NOW) -> StoredReview:
    return StoredReview(
        id=review_id,
        user_id=user,
        path=None,
        content="Ship it?",
        content_hash="a" * 64,
        requested_by=user,
        timeout_ms=60_000,
        created_at_ms=created,
        deadline_ms=created + 60_000,
        status="pending",
        verdict=None,
        comments=None,
        decided_at_ms=None,
        late=False,
        superseded_by=None,
    )


def decided(review: StoredReview, comments: str | None = "Fine.") -> StoredReview:
    return replace(
        review, status="decided", verdict="approved", comments=comments, decided_at_ms=NOW + 5
    )


async def insert(database: Database, *stored: StoredReview) -> None:
    async with database.session() as session, session.begin():
        for review in stored:
            await reviews.insert_review(session, review)


async def record(database: Database, review: StoredReview, was: ReviewStatus) -> bool:
    async with database.session() as session, session.begin():
        return await reviews.record_outcome(session, review, was=was)


async def load(database: Database, review_id: str) -> StoredReview | None:
    async with database.session() as session:
        return await reviews.get_review(session, review_id)


async def test_an_outcome_is_written_over_the_status_it_was_decided_against(
    database: Database,
) -> None:
    review = pending("a1")
    await insert(database, review)
    assert await record(database, decided(review), "pending")
    assert await load(database, "a1") == decided(review)


@pytest.mark.parametrize("was", ["timeout", "superseded", "decided"])
async def test_an_outcome_over_a_status_that_changed_is_not_written(
    database: Database, was: ReviewStatus
) -> None:
    review = pending("a1")
    await insert(database, review)
    assert not await record(database, decided(review), was)
    assert await load(database, "a1") == review


async def test_an_outcome_of_a_review_that_is_gone_is_not_written(database: Database) -> None:
    assert not await record(database, decided(pending("a1")), "pending")
    assert await load(database, "a1") is None


async def test_every_outcome_field_is_written_and_the_request_fields_are_kept(
    database: Database,
) -> None:
    review = pending("a1")
    await insert(database, review)
    late = replace(
        review,
        content="changed",
        status="superseded",
        verdict="superseded",
        superseded_by="b2",
        late=True,
        comments="a\u3000note \U0001f600",
    )
    assert await record(database, late, "pending")
    assert await load(database, "a1") == replace(late, content="Ship it?")


async def test_every_users_pending_reviews_come_back_oldest_first(database: Database) -> None:
    first = pending("c3", created=NOW)
    second = pending("a1", "alice", NOW + 1)
    third = pending("b2", created=NOW + 1)
    ended = decided(pending("d4", created=NOW - 1))
    await insert(database, second, third, first, ended)
    async with database.session() as session:
        stored = await reviews.all_pending_reviews(session)
    assert [review.id for review in stored] == ["c3", "a1", "b2"]
    assert stored[0] == first


async def test_no_pending_reviews_come_back_as_an_empty_list(database: Database) -> None:
    async with database.session() as session:
        assert await reviews.all_pending_reviews(session) == []
