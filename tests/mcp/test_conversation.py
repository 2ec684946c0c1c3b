import stat
from pathlib import Path
from typing import Any

import pytest

from mcp import Client
from tests.mcp.harness import NOW_MS, data_of, error_of, make_harness

pytestmark = pytest.mark.anyio


async def test_a_saved_message_comes_back_in_the_context(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        saved = data_of(
            await client.call_tool(
                "save_conversation_message",
                {
                    "session_id": "task-1",
                    "role": "agent",
                    "content": "Drafted the plan.",
                    "cited_docs": ["plan.md", "plan.md", "~/x.md"],
                },
            )
        )
        context = data_of(
            await client.call_tool("get_conversation_context", {"session_id": "task-1"})
        )
    assert saved["ok"] is True
    assert saved["timestampMs"] == NOW_MS
    assert "dropped" not in saved
    assert context["count"] == 1
    message = context["messages"][0]
    assert message["content"] == "Drafted the plan."
    assert message["citedDocs"] == [str(h.workspace / "plan.md"), str(h.home / "x.md")]
    assert context["recentDocs"] == message["citedDocs"]
    session_file = h.state / "sessions" / "task-1.json"
    assert stat.S_IMODE(session_file.stat().st_mode) == 0o600


async def test_an_unknown_session_is_empty(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        context = data_of(await client.call_tool("get_conversation_context", {"session_id": "x"}))
    assert context == {"sessionId": "x", "messages": [], "count": 0, "recentDocs": []}


@pytest.mark.parametrize(
    ("tool", "arguments", "fragment"),
    [
        ("get_conversation_context", {"session_id": ""}, "`session_id` must not be empty"),
        ("get_conversation_context", {"session_id": "  "}, "`session_id` must not be empty"),
        ("get_conversation_context", {"session_id": "a", "limit": 0}, "at least 1"),
        ("get_conversation_context", {"session_id": "a", "limit": 201}, "at most 200"),
        ("get_conversation_context", {"session_id": "a", "limit": "5"}, "must be an integer"),
        ("get_conversation_context", {"session_id": "a" * 201}, "too long"),
        ("get_conversation_context", {"sesion_id": "a"}, "Did you mean `session_id`?"),
        (
            "save_conversation_message",
            {"session_id": "a", "role": "bot", "content": "x"},
            "`role` must be one of `agent`, `human` or `system`",
        ),
        (
            "save_conversation_message",
            {"session_id": "a", "role": "agent", "content": " "},
            "`content` must not be empty",
        ),
        (
            "save_conversation_message",
            {"session_id": "a", "role": "agent"},
            "`content` is required",
        ),
        (
            "save_conversation_message",
            {"session_id": "a", "role": "agent", "content": "x", "cited_docs": [3]},
            "`cited_docs[0]` must be a string",
        ),
        (
            "save_conversation_message",
            {"session_id": "a", "role": "agent", "content": "x", "cited_docs": ["  "]},
            "`cited_docs[0]` must not be empty",
        ),
        (
            "save_conversation_message",
            {"session_id": "a", "role": "agent", "content": "x", "cited_docs": "a.md"},
            "`cited_docs` must be an array",
        ),
    ],
)
async def test_a_bad_conversation_call_is_refused(
    tmp_path: Path, tool: str, arguments: dict[str, Any], fragment: str
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        message = error_of(await client.call_tool(tool, arguments))
    assert fragment in message
    assert not (h.state / "sessions" / "a.json").exists()


async def test_an_unreadable_session_file_is_an_error_not_an_empty_session(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path)
    (h.state / "sessions").mkdir(parents=True)
    (h.state / "sessions" / "s.json").write_text("not json", encoding="utf-8")
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("get_conversation_context", {"session_id": "s"}))
    assert "not valid JSON" in message
