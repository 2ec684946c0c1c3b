"""The review loop through MCP against the real app: the test plays the person."""

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client
from quire.client.api import QuireApi
from quire.mcp.catalog import TOOLS
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import data_of, error_of

pytestmark = pytest.mark.anyio


async def active_review(person: QuireApi) -> dict[str, Any]:
    """The review in the panel, once there is one (bounded wait)."""
    with anyio.fail_after(10):
        while True:
            found = (await person.call("GET", "/api/reviews/active"))["review"]
            if found is not None:
                return dict(found)
            await anyio.sleep(0.01)


async def test_a_waiting_review_returns_the_verdict_and_pings_answer_meanwhile(
    tmp_path: Path,
) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "plan.md").write_text("# Plan\n", encoding="utf-8")
        results: list[types.CallToolResult] = []
        async with (
            Client(h.mcp.server, mode="legacy") as client,
            anyio.create_task_group() as group,
        ):

            async def ask() -> None:
                results.append(
                    await client.call_tool("request_review", {"path": "plan.md", "wait_ms": 600000})
                )

            group.start_soon(ask)
            review = await active_review(h.person)
            with anyio.fail_after(5):
                await client.session.send_ping()
                tools = await client.list_tools()
            assert not results, "the ping must answer while the review still waits"
            assert len(tools.tools) == len(TOOLS)
            await h.person.decide(review["reviewId"], "changes_requested", "Add a risk list.")
    data = data_of(results[0])
    assert data == {
        "verdict": "changes_requested",
        "reviewId": review["reviewId"],
        "comments": "Add a risk list.",
    }
    assert review["path"] == str(h.mcp.workspace / "plan.md")


async def test_a_non_blocking_review_is_resumed_by_id(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        started = data_of(
            await client.call_tool("request_review", {"content": "Ship?", "blocking": False})
        )
        peek = data_of(
            await client.call_tool(
                "request_review", {"review_id": started["reviewId"], "blocking": False}
            )
        )
        await h.person.decide(started["reviewId"], "approved")
        resumed = data_of(
            await client.call_tool(
                "request_review", {"review_id": started["reviewId"], "content": "Ship?"}
            )
        )
    assert started["status"] == "pending"
    assert "review_id" in started["message"]
    assert peek == {"status": "pending", "reviewId": started["reviewId"]}
    assert resumed["verdict"] == "approved"


async def test_a_short_wait_returns_pending(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        data = data_of(await client.call_tool("request_review", {"content": "x", "wait_ms": 1000}))
    assert data["status"] == "pending"


@pytest.mark.parametrize(
    ("resent", "argument"),
    [({"content": "other"}, "content"), ({"timeout_ms": 9000}, "timeout_ms")],
)
@pytest.mark.parametrize("blocking", [True, False])
async def test_resending_different_arguments_with_a_review_id_is_refused(
    tmp_path: Path, resent: dict[str, Any], argument: str, blocking: bool
) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        started = data_of(
            await client.call_tool(
                "request_review", {"content": "x", "timeout_ms": 8000, "blocking": False}
            )
        )
        message = error_of(
            await client.call_tool(
                "request_review",
                {"review_id": started["reviewId"], "blocking": blocking, **resent},
            )
        )
    assert f"`{argument}`" in message


async def test_a_newer_review_supersedes_the_pending_one(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        first = data_of(
            await client.call_tool("request_review", {"content": "one", "blocking": False})
        )
        second = data_of(
            await client.call_tool("request_review", {"content": "two", "blocking": False})
        )
        ended = data_of(await client.call_tool("request_review", {"review_id": first["reviewId"]}))
    assert ended["verdict"] == "superseded"
    assert ended["supersededBy"] == second["reviewId"]


async def test_an_unknown_review_id_is_an_error(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        result = await client.call_tool("request_review", {"review_id": "nope"})
    assert "nope" in error_of(result)


async def test_annotations_come_from_the_server_with_the_verdict(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "plan.md").write_text("- [x] done\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            started = data_of(
                await client.call_tool("request_review", {"path": "plan.md", "blocking": False})
            )
            await h.person.decide(started["reviewId"], "approved", "Good.")
            data = data_of(await client.call_tool("get_user_annotations", {"path": "plan.md"}))
    assert (data["verdict"], data["comments"], data["late"]) == ("approved", "Good.", False)
    assert data["tasks"] == [{"line": 1, "checked": True, "text": "done"}]
    assert "serverRunning" not in data


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("claude-code", "claude-code"),
        ("bad\0name\n" + "x" * 300, "badname " + "x" * 52),
        ("\u202e\u200b", "agent"),
    ],
)
async def test_the_review_names_the_client_that_asked(
    tmp_path: Path, name: str, stored: str
) -> None:
    async with app_harness(tmp_path) as h:
        info = types.Implementation(name=name, version="1")
        async with Client(h.mcp.server, mode="legacy", client_info=info) as client:
            started = data_of(
                await client.call_tool("request_review", {"content": "x", "blocking": False})
            )
        record = await h.person.review(started["reviewId"])
    assert record.requested_by == stored
