"""The review routes through the real app: request, wait (woken by a decision from another
client), pending, timeout, superseded, late, resume checks, the panel's review, annotations."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from quire.db.engine import Database
from quire.services.app import AppServices
from quire.settings.model import Settings
from tests.support.world import World, open_world, world_services
from tests.web.conftest import AUTH, TOKEN

pytestmark = pytest.mark.anyio


@pytest.fixture
async def world(database: Database, settings: Settings) -> AsyncIterator[World]:
    async with open_world(database, settings.workspaces[0].resolve()) as opened:
        yield opened


@pytest.fixture
def services(world: World, settings: Settings) -> AppServices:
    return world_services(world, settings, TOKEN)


async def post(client: httpx.AsyncClient, url: str, body: object = None) -> httpx.Response:
    return await client.post(url, json=body, headers=AUTH)


async def get(client: httpx.AsyncClient, url: str, **params: Any) -> httpx.Response:
    return await client.get(url, params=params, headers=AUTH)


def error(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    detail = response.json()["error"]
    assert detail["type"] == kind, detail
    assert isinstance(detail, dict)
    return detail


async def request(client: httpx.AsyncClient, body: dict[str, object]) -> str:
    response = await post(client, "/api/reviews", body)
    assert response.status_code == 200, response.text
    review_id = response.json()["reviewId"]
    assert isinstance(review_id, str)
    return review_id


async def test_a_request_answers_pending_with_its_id_and_deadline(
    client: httpx.AsyncClient, world: World
) -> None:
    response = await post(client, "/api/reviews", {"content": "Plan", "timeout_ms": 60_000})
    assert response.json() == {
        "reviewId": response.json()["reviewId"],
        "status": "pending",
        "deadline": world.clock.now + 60_000,
    }


async def test_a_review_of_a_path_opens_it_in_read_view(
    client: httpx.AsyncClient, world: World
) -> None:
    path = world.write("plan.md", "# Plan\n")
    review_id = await request(client, {"path": str(path)})
    current = (await get(client, "/api/documents/current")).json()
    assert current["path"] == str(path)
    assert (await get(client, "/api/window")).json()["view"] == "read"
    record = (await get(client, f"/api/reviews/{review_id}")).json()
    assert (record["path"], record["status"], record["stale"]) == (str(path), "pending", False)


async def test_a_waiting_client_gets_the_verdict_another_client_gives(
    client: httpx.AsyncClient, world: World
) -> None:
    review_id = await request(client, {"content": "Ship it?"})
    world.sleep.hold = True
    answers: list[httpx.Response] = []

    async def waiter() -> None:
        answers.append(await get(client, f"/api/reviews/{review_id}/wait", wait_ms=600_000))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await world.sleep.sleeping.wait()
            body = {"verdict": "approved", "comments": "Go."}
            decided = await post(client, f"/api/reviews/{review_id}/decision", body)
            assert decided.json()["status"] == "decided"
    assert answers[0].json() == {"verdict": "approved", "reviewId": review_id, "comments": "Go."}


async def test_a_wait_answers_pending_when_wait_ms_runs_out(
    client: httpx.AsyncClient, world: World
) -> None:
    review_id = await request(client, {"content": "Ship it?"})
    response = await get(client, f"/api/reviews/{review_id}/wait", wait_ms=1_000)
    assert response.json() == {"status": "pending", "reviewId": review_id}


async def test_a_review_left_alone_answers_timeout_and_a_late_decision_says_so(
    client: httpx.AsyncClient, world: World
) -> None:
    review_id = await request(client, {"content": "Ship it?", "timeout_ms": 5_000})
    answer = (await get(client, f"/api/reviews/{review_id}/wait")).json()
    assert (answer["verdict"], answer["comments"]) == ("timeout", None)
    assert "5 seconds" in answer["message"]
    decided = await post(client, f"/api/reviews/{review_id}/decision", {"verdict": "dismissed"})
    assert decided.json()["late"] is True
    answer = (await get(client, f"/api/reviews/{review_id}/wait")).json()
    assert (answer["verdict"], answer["late"]) == ("dismissed", True)


async def test_a_waiting_client_is_answered_timeout_when_the_deadline_timer_rings(
    client: httpx.AsyncClient, world: World
) -> None:
    review_id = await request(client, {"content": "Ship it?", "timeout_ms": 5_000})
    world.sleep.hold = True
    answers: list[httpx.Response] = []

    async def waiter() -> None:
        answers.append(await get(client, f"/api/reviews/{review_id}/wait", wait_ms=600_000))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            await world.sleep.sleeping.wait()
            await world.timer.fire()
    answer = answers[0].json()
    assert (answer["verdict"], answer["reviewId"], answer["comments"]) == (
        "timeout",
        review_id,
        None,
    )
    assert "5 seconds" in answer["message"]
    record = (await get(client, f"/api/reviews/{review_id}")).json()
    assert (record["status"], record["verdict"], record["late"]) == ("timeout", "timeout", False)
    assert (await get(client, "/api/reviews/active")).json() == {"review": None}


async def test_a_request_with_wait_ms_registers_then_waits(
    client: httpx.AsyncClient, world: World
) -> None:
    body = {"content": "Ship it?", "timeout_ms": 5_000, "wait_ms": 1_000}
    answer = (await post(client, "/api/reviews", body)).json()
    assert answer == {"status": "pending", "reviewId": answer["reviewId"]}
    body["wait_ms"] = 10_000
    answer = (await post(client, "/api/reviews", body)).json()
    assert answer["verdict"] == "timeout"
    assert world.sleep.calls == [1.0, 5.0]


async def test_a_request_with_a_bad_wait_ms_registers_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    path = world.write("plan.md")
    body = {"path": str(path), "wait_ms": 999}
    detail = error(await post(client, "/api/reviews", body), 400, "InvalidArgument")
    assert detail["argument"] == "wait_ms"
    assert "from 1,000 to 600,000" in detail["message"]
    assert (await get(client, "/api/reviews/active")).json() == {"review": None}
    assert (await get(client, "/api/documents/current")).json()["path"] is None


async def test_a_newer_request_supersedes_the_panels_review(
    client: httpx.AsyncClient, world: World
) -> None:
    assert (await get(client, "/api/reviews/active")).json() == {"review": None}
    first = await request(client, {"content": "First"})
    second = await request(client, {"content": "Second"})
    answer = (await get(client, f"/api/reviews/{first}/wait")).json()
    assert (answer["verdict"], answer["supersededBy"]) == ("superseded", second)
    active = (await get(client, "/api/reviews/active")).json()["review"]
    assert (active["reviewId"], active["content"]) == (second, "Second")


@pytest.mark.parametrize(
    ("body", "argument", "words"),
    [
        ({}, "content", "Pass either `path`"),
        ({"content": "   "}, "content", "must not be empty or only whitespace"),
        ({"content": "x", "timeout_ms": "5000"}, "timeout_ms", "must be a whole number"),
        ({"content": "x", "timeout_ms": 4_000}, "timeout_ms", "from 5,000 to 600,000"),
        ({"content": "x", "timeout_ms": 5_000.5}, "timeout_ms", "must be a whole number"),
        ({"content": "x", "blocking": False}, "blocking", "not an argument"),
        ({"content": 5}, "content", "must be text"),
        ({"path": "plan.md"}, "path", "must be an absolute path"),
    ],
)
async def test_a_bad_request_is_refused_naming_the_argument(
    client: httpx.AsyncClient, body: dict[str, object], argument: str, words: str
) -> None:
    detail = error(await post(client, "/api/reviews", body), 400, "InvalidArgument")
    assert detail["argument"] == argument
    assert words in detail["message"]
    assert (await get(client, "/api/reviews/active")).json() == {"review": None}


@pytest.mark.parametrize("wait_ms", ["999", "600001", "abc", "1e3", "1000.0"])
async def test_a_bad_wait_ms_is_refused(
    client: httpx.AsyncClient, world: World, wait_ms: str
) -> None:
    review_id = await request(client, {"content": "Ship it?"})
    response = await get(client, f"/api/reviews/{review_id}/wait", wait_ms=wait_ms)
    assert error(response, 400, "InvalidArgument")["argument"] == "wait_ms"


@pytest.mark.parametrize("review_id", ["nope", "%00", "%FF%FE", "abc%20def", "0" * 70])
async def test_an_unknown_review_is_not_found(client: httpx.AsyncClient, review_id: str) -> None:
    for response in (
        await get(client, f"/api/reviews/{review_id}"),
        await get(client, f"/api/reviews/{review_id}/wait"),
        await post(client, f"/api/reviews/{review_id}/decision", {"verdict": "approved"}),
    ):
        assert "No review has the id" in error(response, 404, "ReviewNotFound")["message"]


async def test_a_second_decision_is_refused(client: httpx.AsyncClient) -> None:
    review_id = await request(client, {"content": "Ship it?"})
    url = f"/api/reviews/{review_id}/decision"
    assert (await post(client, url, {"verdict": "approved"})).status_code == 200
    error(await post(client, url, {"verdict": "dismissed"}), 409, "ReviewRefused")


@pytest.mark.parametrize(
    ("body", "argument"),
    [
        ({"verdict": "timeout"}, "verdict"),
        ({"verdict": "superseded"}, "verdict"),
        ({}, "verdict"),
        ({"verdict": "approved", "comments": 3}, "comments"),
        ({"verdict": "approved", "late": True}, "late"),
    ],
)
async def test_a_bad_decision_is_refused(
    client: httpx.AsyncClient, body: dict[str, object], argument: str
) -> None:
    review_id = await request(client, {"content": "Ship it?"})
    response = await post(client, f"/api/reviews/{review_id}/decision", body)
    assert error(response, 400, "InvalidArgument")["argument"] == argument


@pytest.mark.parametrize(
    ("resent", "argument"),
    [
        ({"timeout_ms": 5_000}, "timeout_ms"),
        ({"content": "Other"}, "content"),
        ({"path": "/elsewhere.md"}, "path"),
    ],
)
async def test_a_resumed_wait_that_changes_the_review_is_refused(
    client: httpx.AsyncClient, world: World, resent: dict[str, object], argument: str
) -> None:
    review_id = await request(client, {"content": "Text", "timeout_ms": 60_000})
    response = await post(client, f"/api/reviews/{review_id}/wait", resent)
    detail = error(response, 400, "InvalidArgument")
    assert detail["argument"] == argument
    assert "A resumed review cannot change" in detail["message"]
    assert world.sleep.calls == []


async def test_a_resumed_wait_with_the_same_arguments_waits(
    client: httpx.AsyncClient, world: World
) -> None:
    review_id = await request(client, {"content": "Text", "timeout_ms": 60_000})
    body = {"content": "Text", "timeout_ms": 60_000, "wait_ms": 1_000}
    response = await post(client, f"/api/reviews/{review_id}/wait", body)
    assert response.json() == {"status": "pending", "reviewId": review_id}
    assert world.sleep.calls == [1.0]


async def test_annotations_carry_the_verdict_stale_and_tasks(
    client: httpx.AsyncClient, world: World
) -> None:
    path = world.write("plan.md", "- [ ] one\n")
    review_id = await request(client, {"path": str(path)})
    body = {"verdict": "changes_requested", "comments": "More."}
    await post(client, f"/api/reviews/{review_id}/decision", body)
    await post(client, "/api/documents/edit", {"find": "[ ] one", "replace": "[x] one"})
    data = (await get(client, "/api/annotations", path=str(path))).json()
    assert (data["verdict"], data["comments"], data["late"], data["stale"]) == (
        "changes_requested",
        "More.",
        False,
        True,
    )
    assert data["tasks"] == [{"line": 1, "checked": True, "text": "one"}]
    assert data["reviewId"] == review_id


async def test_annotations_of_an_unreadable_file_say_why(
    client: httpx.AsyncClient, world: World
) -> None:
    missing = world.workspace / "gone.md"
    data = (await get(client, "/api/annotations", path=str(missing))).json()
    assert data["tasks"] == []
    assert data["verdict"] is None
    assert "the file does not exist." in data["tasksNote"]
    assert data["tasksNote"].endswith(". Its tasks were not read.")


@pytest.mark.parametrize(("params", "words"), [({}, "is required"), ({"path": "a.md"}, "absolute")])
async def test_annotations_need_an_absolute_path(
    client: httpx.AsyncClient, params: dict[str, str], words: str
) -> None:
    response = await get(client, "/api/annotations", **params)
    assert words in error(response, 400, "InvalidArgument")["message"]
