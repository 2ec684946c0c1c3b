"""The review tools' rules that hold with no server: argument checks and annotations from disk."""

from pathlib import Path
from typing import Any

import pytest

from mcp import Client
from tests.mcp.harness import data_of, error_of, make_harness

pytestmark = pytest.mark.anyio


async def test_annotations_read_the_tasks_from_disk_with_no_server(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "plan.md").write_text(
        "- [ ] write\n- [x] test\n\n```\n- [ ] code\n```\n", encoding="utf-8"
    )
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("get_user_annotations", {"path": "plan.md"}))
    assert data["tasks"] == [
        {"line": 1, "checked": False, "text": "write"},
        {"line": 2, "checked": True, "text": "test"},
    ]
    assert (data["verdict"], data["comments"], data["late"]) == (None, None, False)
    assert data["serverRunning"] is False
    assert "No Quire server is running" in data["note"]
    assert data["path"] == str(h.workspace / "plan.md")


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("missing.md", None, "does not exist. Check the path"),
        ("latin.md", b"- [ ] caf\xe9\n", "not UTF-8"),
        ("notes.txt", b"- [ ] x\n", "only Markdown documents"),
    ],
)
async def test_a_file_that_cannot_be_read_has_no_tasks_and_says_why(
    tmp_path: Path, name: str, content: bytes | None, fragment: str
) -> None:
    h = make_harness(tmp_path)
    if content is not None:
        (h.workspace / name).write_bytes(content)
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("get_user_annotations", {"path": name}))
    assert data["tasks"] == []
    assert fragment in data["tasksNote"]
    assert data["tasksNote"].endswith("Its tasks were not read.")


async def test_annotations_of_a_file_outside_the_allowed_folders_are_refused(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        message = error_of(
            await client.call_tool("get_user_annotations", {"path": str(tmp_path / "x.md")})
        )
    assert "not inside an allowed folder" in message


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "needs one of `path`, `content` or `review_id`"),
        ({"blocking": False}, "needs one of `path`, `content` or `review_id`"),
        ({"content": ""}, "`content` must not be empty"),
        ({"content": "  \n"}, "`content` must not be empty or only whitespace"),
        ({"review_id": ""}, "`review_id` must not be empty"),
        ({"review_id": "  "}, "`review_id` must not be empty"),
        ({"path": "a.md", "content": "x"}, "not both"),
        ({"content": "x", "timeout_ms": 4999}, "`timeout_ms` must be at least 5000"),
        ({"content": "x", "timeout_ms": 600001}, "`timeout_ms` must be at most 600000"),
        ({"content": "x", "wait_ms": 999}, "`wait_ms` must be at least 1000"),
        ({"content": "x", "wait_ms": 600001}, "`wait_ms` must be at most 600000"),
        ({"content": "x", "timeout_ms": 5000.5}, "`timeout_ms` must be an integer"),
        ({"content": "x", "blocking": "false"}, "`blocking` must be a boolean"),
        ({"path": "notes.txt"}, "Refusing to review"),
        ({"path": "gone.md"}, "does not exist"),
    ],
)
async def test_a_bad_review_request_is_refused_before_any_review_is_made(
    tmp_path: Path, arguments: dict[str, Any], fragment: str
) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "notes.txt").write_text("x\n", encoding="utf-8")
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("request_review", arguments))
    assert fragment in message
