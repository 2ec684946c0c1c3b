"""Who changes are attributed to: the agent a token request names in X-Quire-Agent, ``agent``
when it names none, and the signed-in person for a browser's own requests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from quire.api.events import Event
from quire.core.views import OWNER
from quire.services.app import AppServices
from tests.web.conftest import AUTH, TOKEN

pytestmark = pytest.mark.anyio

PLAN = "# Plan\n\n- step one\n- step two\n"


class Recorder:
    """The events the owner's windows receive, collected while a test runs."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def of(self, kind: str) -> Iterator[dict[str, object]]:
        return (event.data.dump() for event in self.events if event.kind == kind)


@asynccontextmanager
async def recorded(services: AppServices) -> AsyncIterator[Recorder]:
    recorder = Recorder()
    async with services.bus.subscribe(OWNER) as events, anyio.create_task_group() as group:

        async def collect() -> None:
            async for event in events:
                recorder.events.append(event)

        group.start_soon(collect)
        yield recorder
        # Events are published before each answer: let the collector take what is queued.
        await anyio.wait_all_tasks_blocked()
        group.cancel_scope.cancel()


def agent_headers(value: str | None) -> dict[str, str]:
    return AUTH if value is None else {**AUTH, "X-Quire-Agent": value}


async def open_plan(client: httpx.AsyncClient, settings_path: Path) -> Path:
    path = settings_path / "plan.md"
    path.write_text(PLAN, encoding="utf-8")
    response = await client.post("/api/documents/open", json={"path": str(path)}, headers=AUTH)
    assert response.status_code == 200, response.text
    return path


@pytest.fixture
def workspace(services: AppServices) -> Path:
    return services.settings.workspaces[0]


async def browser_cookie(client: httpx.AsyncClient) -> dict[str, str]:
    response = await client.get("/", params={"token": TOKEN})
    cookie = response.cookies.get("quire_session")
    assert cookie
    client.cookies.clear()
    return {"Cookie": f"quire_session={cookie}"}


EDITS: list[tuple[str, dict[str, Any]]] = [
    ("/api/documents/edit", {"find": "step one", "replace": "step 1"}),
    ("/api/documents/stream-edit", {"find": "step one", "replace": "step 1", "preview": False}),
    ("/api/documents/stream-edit-apply", {"find": "step", "replace": "stage", "match_index": 1}),
    ("/api/documents/set-content", {"content": "# Plan\n\nall new\n"}),
]


@pytest.mark.parametrize(("route", "body"), EDITS, ids=[route for route, _ in EDITS])
@pytest.mark.parametrize(
    ("header", "author"),
    [
        ("test-agent", "test-agent"),
        (None, "agent"),
        ("", "agent"),
        ("claude%20code", "claude code"),
        ("%E2%80%AEevil%00%0Aname", "evil name"),
        ("%00%E2%80%8B", "agent"),
        ("x" * 500, "x" * 60),
    ],
)
async def test_an_agent_edit_is_attributed_to_the_agent_its_header_names(
    client: httpx.AsyncClient,
    services: AppServices,
    workspace: Path,
    route: str,
    body: dict[str, Any],
    header: str | None,
    author: str,
) -> None:
    await open_plan(client, workspace)
    async with recorded(services) as recorder:
        response = await client.post(route, json=body, headers=agent_headers(header))
        assert response.status_code == 200, response.text
    activity = list(recorder.of("activity"))
    document = list(recorder.of("document"))
    assert [item["author"] for item in activity] == [author]
    assert [item["author"] for item in document] == [author]


async def test_a_browser_edit_keeps_the_signed_in_person_even_with_the_header(
    client: httpx.AsyncClient, services: AppServices, workspace: Path
) -> None:
    await open_plan(client, workspace)
    headers = {**await browser_cookie(client), "X-Quire-Agent": "pretender"}
    async with recorded(services) as recorder:
        response = await client.post(
            "/api/documents/edit", json={"find": "step one", "replace": "step 1"}, headers=headers
        )
        assert response.status_code == 200, response.text
    assert [item["author"] for item in recorder.of("activity")] == [OWNER]


async def test_opening_and_presenting_name_the_agent_and_a_browser_names_nobody(
    client: httpx.AsyncClient, services: AppServices, workspace: Path
) -> None:
    path = workspace / "plan.md"
    path.write_text(PLAN, encoding="utf-8")
    browser = await browser_cookie(client)
    async with recorded(services) as recorder:
        for headers in (agent_headers("test-agent"), AUTH, browser):
            opened = await client.post(
                "/api/documents/open", json={"path": str(path)}, headers=headers
            )
            presented = await client.post("/api/window/present", json={}, headers=headers)
            assert (opened.status_code, presented.status_code) == (200, 200)
        presented = await client.post(
            "/api/window/present", json={"path": str(path)}, headers=agent_headers("shower")
        )
        assert presented.status_code == 200
    assert [item.get("author") for item in recorder.of("open")] == [
        "test-agent",
        "agent",
        None,
        "shower",
    ]
    assert [item.get("author") for item in recorder.of("present")] == [
        "test-agent",
        "agent",
        None,
        "shower",
    ]


@pytest.mark.parametrize(
    ("headers", "body", "requested_by"),
    [
        (agent_headers("test-agent"), {}, "test-agent"),
        (AUTH, {}, "agent"),
        (agent_headers("%E2%80%AE"), {}, "agent"),
        (
            agent_headers("test-agent"),
            {"requested_by": "  named in the body "},
            "named in the body",
        ),
        (None, {}, OWNER),
    ],
    ids=["header", "no-header", "unreadable-header", "body-wins", "browser"],
)
async def test_a_review_records_the_agent_that_asked(
    client: httpx.AsyncClient,
    headers: dict[str, str] | None,
    body: dict[str, str],
    requested_by: str,
) -> None:
    sent = headers if headers is not None else await browser_cookie(client)
    created = await client.post(
        "/api/reviews", json={"content": "# Check me\n", **body}, headers=sent
    )
    assert created.status_code == 200, created.text
    record = await client.get(f"/api/reviews/{created.json()['reviewId']}", headers=AUTH)
    assert record.json()["requestedBy"] == requested_by


async def test_an_empty_requested_by_is_still_refused_whatever_the_header(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/api/reviews",
        json={"content": "x", "requested_by": "  "},
        headers=agent_headers("test-agent"),
    )
    assert response.status_code == 400
    assert response.json()["error"]["argument"] == "requested_by"
