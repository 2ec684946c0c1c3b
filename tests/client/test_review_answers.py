"""The client reads the review loop's answers through the api models: a well-formed answer is a
typed model, an answer of the wrong shape is refused naming the field, never a KeyError."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from quire.api.reviews import CheckedReview, FileAnnotations, ReviewOutcome, ReviewRecord
from quire.client.api import QuireApi
from quire.core.errors import ServerFailed
from quire.core.server_info import ServerInfo

pytestmark = pytest.mark.anyio

INFO = ServerInfo(url="http://127.0.0.1:4747", token="t" * 64, pid=123)

RECORD: dict[str, Any] = {
    "reviewId": "r1",
    "status": "decided",
    "verdict": "approved",
    "comments": "Go.",
    "late": False,
    "supersededBy": None,
    "path": "/w/plan.md",
    "content": None,
    "contentHash": "ab" * 32,
    "requestedBy": "claude-code",
    "timeoutMs": 300_000,
    "createdAt": 1_000,
    "deadline": 301_000,
    "decidedAt": 2_000,
}

Call = Callable[[QuireApi], Awaitable[object]]


async def ask(api: QuireApi) -> str:
    return await api.request_review(path=None, content="x", timeout_ms=None, requested_by=None)


async def wait(api: QuireApi) -> ReviewOutcome:
    return await api.wait_review("r1", 1_000)


async def resume(api: QuireApi) -> ReviewOutcome:
    return await api.resume_review("r1", 1_000, path=None, content=None, timeout_ms=None)


async def record(api: QuireApi) -> CheckedReview:
    return await api.review("r1")


async def decide(api: QuireApi) -> ReviewRecord:
    return await api.decide("r1", "approved")


async def read_annotations(api: QuireApi) -> FileAnnotations:
    return await api.annotations("/w/plan.md")


def answering(data: object) -> QuireApi:
    return QuireApi(
        INFO,
        server_file=Path("/state/server.json"),
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=data)),
    )


async def test_a_verdict_is_read_as_an_outcome_with_the_keys_that_apply() -> None:
    api = answering({"verdict": "approved", "reviewId": "r1", "comments": None, "late": True})
    outcome = await wait(api)
    await api.aclose()
    assert (outcome.verdict, outcome.review_id, outcome.late) == ("approved", "r1", True)
    assert not outcome.is_pending
    assert outcome.dump() == {
        "verdict": "approved",
        "reviewId": "r1",
        "comments": None,
        "late": True,
    }


async def test_a_pending_wait_is_read_as_pending() -> None:
    api = answering({"status": "pending", "reviewId": "r1"})
    outcome = await resume(api)
    await api.aclose()
    assert outcome.is_pending
    assert outcome.dump() == {"status": "pending", "reviewId": "r1"}


async def test_a_review_record_is_read_with_its_staleness() -> None:
    api = answering({**RECORD, "stale": True})
    checked = await record(api)
    await api.aclose()
    assert (checked.review_id, checked.requested_by, checked.stale) == ("r1", "claude-code", True)


@pytest.mark.parametrize(
    ("call", "data", "field"),
    [
        (ask, {"status": "pending", "deadline": 5}, "reviewId"),
        (ask, {"status": "pending", "reviewId": 7}, "reviewId"),
        (wait, {"verdict": "maybe", "reviewId": "r1", "comments": None}, "verdict"),
        (wait, {"reviewId": "r1", "comments": None}, "verdict"),
        (wait, {"verdict": "approved", "reviewId": "r1"}, "comments"),
        (wait, {"status": "waiting", "reviewId": "r1"}, "status"),
        (wait, {"status": "pending", "reviewId": "r1", "verdict": "approved"}, "verdict"),
        (resume, {"status": "pending", "reviewId": "r1", "late": "perhaps"}, "late"),
        (record, RECORD, "stale"),
        (record, {**RECORD, "stale": False, "timeoutMs": "soon"}, "timeoutMs"),
        (decide, {**RECORD, "requestedBy": None}, "requestedBy"),
        (decide, {key: value for key, value in RECORD.items() if key != "late"}, "late"),
        (read_annotations, {"path": "/w/plan.md", "verdict": None, "comments": None}, "late"),
        (
            read_annotations,
            {
                "path": "/w/plan.md",
                "verdict": None,
                "comments": None,
                "late": False,
                "tasks": [{"line": "one", "checked": False, "text": "a"}],
            },
            "tasks.0.line",
        ),
    ],
)
async def test_a_review_answer_of_the_wrong_shape_is_refused_naming_the_field(
    call: Call, data: dict[str, Any], field: str
) -> None:
    api = answering(data)
    with pytest.raises(ServerFailed) as caught:
        await call(api)
    await api.aclose()
    message = str(caught.value)
    assert f"field `{field}`" in message
    assert "http://127.0.0.1:4747" in message
    assert "same version" in message
