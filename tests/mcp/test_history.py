"""The history tools through the SDK's in-memory client, against the real app in process over
a real git repository: what an agent reads back, restore, and strict arguments."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from mcp import Client
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import data_of, error_of
from tests.support.git_repo import log, make_repo

pytestmark = pytest.mark.anyio

PLAN = "# Plan\n\n- one\n"


async def test_an_agent_reads_what_changed_and_restores_a_version(tmp_path: Path) -> None:
    make_repo(tmp_path / "ws", {"plan.md": PLAN})
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        assert h.app.history is not None
        ws = h.mcp.workspace.resolve()
        data_of(await client.call_tool("open_file", {"path": "plan.md"}))
        data_of(
            await client.call_tool(
                "edit_document", {"find": "- one", "replace": "- one\n- two", "save": True}
            )
        )
        with anyio.fail_after(20):
            await h.app.history.recorder.flush()
        page = data_of(await client.call_tool("get_history", {"path": "plan.md", "limit": 5}))
        assert [entry["message"] for entry in page["entries"]][-1] == "start"
        newest = page["entries"][0]
        assert newest["path"] == f"{ws}/plan.md" and newest["message"].startswith("Edit by ")
        assert "(via owner)" in newest["author"]
        first = page["entries"][-1]["rev"]
        old = data_of(await client.call_tool("get_version", {"path": "plan.md", "rev": first}))
        assert old["content"] == PLAN
        restored = data_of(
            await client.call_tool("restore_version", {"path": "plan.md", "rev": first})
        )
        assert restored["commit"] and (ws / "plan.md").read_text(encoding="utf-8") == PLAN
        assert log(ws, "-1")[0].endswith(f"|Restore to {first}")


async def test_a_long_version_comes_in_pages_each_naming_the_call_that_reads_on(
    tmp_path: Path,
) -> None:
    lines = [f"line {number:05d} " + "x" * 90 + "\n" for number in range(1, 3001)]
    long = "# Long\n\n" + "".join(lines)
    make_repo(tmp_path / "ws", {"long.md": long})
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        first = data_of(await client.call_tool("get_version", {"path": "long.md", "rev": "HEAD"}))
        pages, call = [first["content"]], first["more"]["call"]
        while call is not None:
            assert call["name"] == "get_version" and call["arguments"]["rev"] == first["rev"]
            page = data_of(await client.call_tool(call["name"], call["arguments"]))
            pages.append(page["content"])
            call = page.get("more", {}).get("call")
    assert first["size"] == len(long.encode("utf-8")) and len(first["content"]) < len(long)
    assert len(first["content"]) <= 80_000
    assert "".join(pages) == long and len(pages) > 1


@pytest.mark.parametrize(
    ("tool", "arguments", "needle"),
    [
        ("get_history", {"path": "plan.md", "limit": 0}, "limit"),
        ("get_history", {"path": "plan.md", "limit": "5"}, "limit"),
        ("get_history", {"path": "plan.md", "extra": 1}, "extra"),
        ("get_history", {}, "path"),
        ("get_version", {"path": "plan.md", "rev": ""}, "rev"),
        ("get_version", {"path": "plan.md", "rev": "--all"}, "rev"),
        ("get_version", {"path": "plan.md"}, "rev"),
        ("restore_version", {"path": "/etc/passwd.md", "rev": "HEAD"}, "allowed"),
    ],
)
async def test_bad_arguments_are_refused_and_named(
    tmp_path: Path, tool: str, arguments: dict[str, object], needle: str
) -> None:
    make_repo(tmp_path / "ws", {"plan.md": PLAN})
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        message = error_of(await client.call_tool(tool, arguments))
        assert needle in message, message
        assert (h.mcp.workspace / "plan.md").read_text(encoding="utf-8") == PLAN
