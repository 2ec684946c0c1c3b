"""The chat tools through the SDK's in-memory client, against the real app in process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from mcp import Client
from quire.client.chats import ChatApi
from tests.mcp.app_harness import AppHarness, app_harness
from tests.mcp.harness import data_of, error_of

pytestmark = pytest.mark.anyio


def people(h: AppHarness) -> ChatApi:
    """The person and the other agents, through the API."""
    return ChatApi(h.person)


async def make_chat(h: AppHarness, client: Client) -> str:
    created = data_of(
        await client.call_tool("create_chat", {"path": "Chats/team.md", "title": "Team"})
    )
    assert created == {
        "path": str(h.mcp.workspace.resolve() / "Chats" / "team.md"),
        "created": True,
        "converted": False,
        "private": False,
    }
    return str(created["path"])


async def until_waiting(chats: ChatApi, path: str, name: str) -> None:
    with anyio.fail_after(30):
        while True:
            view = await chats.read(path)
            if any(p.name == name and p.state == "waiting" for p in view.presence):
                return
            await anyio.sleep(0.01)


async def test_create_post_read_and_list_a_chat(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        path = await make_chat(h, client)
        posted = data_of(
            await client.call_tool("post_chat", {"path": path, "body": "Hi @ann", "as": "bot"})
        )
        await people(h).post(path, "ann", "Welcome, bot.")
        read = data_of(await client.call_tool("read_chat", {"path": path, "as": "bot"}))
        listed = data_of(await client.call_tool("list_chats", {"as": "ann"}))
        again = data_of(await client.call_tool("create_chat", {"path": path}))
    assert posted == {"kind": "message", "number": 1}
    assert read["title"] == "Team" and read["participants"] == ["bot", "ann"]
    assert [(m["number"], m["author"], m["body"], m["mentions"]) for m in read["messages"]] == [
        (1, "bot", "Hi @ann", ["ann"]),
        (2, "ann", "Welcome, bot.", []),
    ]
    assert read["next"] == 2
    [chat] = listed["chats"]
    assert (chat["path"], chat["messageCount"], chat["unread"]) == (path, 2, 1)
    assert again == {"path": path, "created": False, "converted": False, "private": False}


async def test_wait_chat_wakes_on_a_post_and_never_blocks_other_requests(
    tmp_path: Path,
) -> None:
    async with app_harness(tmp_path) as h:
        results: list[types.CallToolResult] = []
        async with Client(h.mcp.server, mode="legacy") as client, anyio.create_task_group() as tg:
            path = await make_chat(h, client)
            await client.call_tool("read_chat", {"path": path, "as": "bot"})

            async def wait() -> None:
                results.append(await client.call_tool("wait_chat", {"path": path, "as": "bot"}))

            tg.start_soon(wait)
            await until_waiting(people(h), path, "bot")
            with anyio.fail_after(5):
                await client.session.send_ping()
                read = data_of(await client.call_tool("read_chat", {"path": path}))
            assert not results, "the wait must still be pending"
            assert read["presence"][0]["state"] == "waiting"
            await people(h).post(path, "bot", "my own post does not wake me")
            await people(h).post(path, "ann", "@bot your turn")
    data = data_of(results[0])
    assert data["status"] == "messages"
    assert [(m["number"], m["body"]) for m in data["messages"]] == [(2, "@bot your turn")]
    assert data["next"] == 2
    assert data["hint"] == "Reply with post_chat, then call wait_chat again with after: 2."
    assert data["reminder"] is None


async def test_wait_chat_with_mentions_only_and_after(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        path = await make_chat(h, client)
        for body in ("chatter", "@bot-2 not you", "@everyone hello", "@BOT look"):
            await people(h).post(path, "ann", body)
        mentions = data_of(
            await client.call_tool(
                "wait_chat", {"path": path, "as": "bot", "after": 0, "mentions_only": True}
            )
        )
        after = data_of(
            await client.call_tool("wait_chat", {"path": path, "as": "bot", "after": 3})
        )
    assert [m["body"] for m in mentions["messages"]] == ["@everyone hello", "@BOT look"]
    assert [m["number"] for m in after["messages"]] == [4]


async def test_wait_chat_repeats_the_role_after_messages(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        path = await make_chat(h, client)
        role = data_of(
            await client.call_tool("post_chat", {"path": path, "as": "qa", "body": "/role Test it"})
        )
        await people(h).post(path, "ann", "go")
        waited = data_of(
            await client.call_tool("wait_chat", {"path": path, "as": "qa", "after": 0})
        )
    assert role == {"kind": "role", "cleared": False}
    assert waited["reminder"].startswith("(reminder for qa) Your role in this chat: Test it")


async def test_wait_chat_times_out_and_says_which_after_to_use(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        path = await make_chat(h, client)
        await people(h).post(path, "ann", "old news")
        data = data_of(
            await client.call_tool("wait_chat", {"path": path, "as": "bot", "timeout_seconds": 1})
        )
    assert data == {
        "status": "timeout",
        "messages": [],
        "next": 1,
        "reminder": None,
        "hint": "No new messages yet. Call wait_chat again with after: 1.",
    }


async def test_a_chat_deleted_during_wait_chat_is_an_error_saying_it_is_gone(
    tmp_path: Path,
) -> None:
    async with app_harness(tmp_path) as h:
        results: list[types.CallToolResult] = []
        async with Client(h.mcp.server) as client, anyio.create_task_group() as tg:
            path = await make_chat(h, client)

            async def wait() -> None:
                results.append(await client.call_tool("wait_chat", {"path": path, "as": "bot"}))

            tg.start_soon(wait)
            await until_waiting(people(h), path, "bot")
            await people(h).delete(path)
    message = error_of(results[0])
    assert message.startswith(f"The chat {path} is gone")
    assert "Stop waiting" in message


async def test_without_as_the_client_s_name_is_used(tmp_path: Path) -> None:
    info = types.Implementation(name="codex-cli\x1b", version="1.0")
    async with app_harness(tmp_path) as h, Client(h.mcp.server, client_info=info) as client:
        path = await make_chat(h, client)
        await client.call_tool("post_chat", {"path": path, "body": "hello"})
        read = data_of(await client.call_tool("read_chat", {"path": path}))
    assert [m["author"] for m in read["messages"]] == ["codex-cli"]


async def test_reactions_and_avatars(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        picked = data_of(await client.call_tool("set_chat_avatar", {"as": "bot", "pick": "auto"}))
        gifs = data_of(await client.call_tool("list_chat_gifs", {}))
        both = error_of(
            await client.call_tool("set_chat_avatar", {"as": "bot", "pick": "owl", "svg": "<svg/>"})
        )
        neither = error_of(await client.call_tool("set_chat_avatar", {"as": "bot"}))
    assert picked == {"name": "avatar-bot", "picked": "robot"}
    assert gifs["workspace"] == str(h.mcp.workspace.resolve())
    assert {"name": "nod", "builtin": True} in gifs["gifs"]
    assert gifs["avatars"] == {"bot": "avatar-bot"}
    assert "exactly one of `pick`" in both and "exactly one of `pick`" in neither


@pytest.mark.parametrize(
    ("tool", "arguments", "fragment"),
    [
        ("read_chat", {"path": "/etc/hosts.md"}, "not inside an allowed folder"),
        ("read_chat", {"path": "Chats/missing.md"}, "does not exist"),
        ("post_chat", {"path": "Chats/team.md", "body": "   "}, "body"),
        ("post_chat", {"path": "Chats/team.md", "body": "x", "as": "()·"}, "as"),
        ("wait_chat", {"path": "Chats/team.md", "timeout_seconds": 301}, "at most 300"),
        ("wait_chat", {"path": "Chats/team.md", "after": -1}, "at least 0"),
        ("wait_chat", {"path": "Chats/team.md", "mentions": True}, "mentions_only"),
        ("create_chat", {"path": "notes.txt"}, "Markdown"),
        ("list_chats", {"workspace": "/"}, "not inside an allowed folder"),
        ("post_chat", {"path": "Chats/team.md", "body": "/context lots"}, "87k/200k"),
    ],
)
async def test_bad_arguments_are_error_results_naming_the_problem(
    tmp_path: Path, tool: str, arguments: dict[str, Any], fragment: str
) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        await make_chat(h, client)
        message = error_of(await client.call_tool(tool, arguments))
    assert fragment in message
