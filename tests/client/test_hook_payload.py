"""Which file a PostToolUse payload wrote: the event, the tool, its outcome and the path rule."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quire.client.hook_payload import MAX_PAYLOAD_BYTES, tool_failed, written_document


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "notes.md").write_text("# Notes\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("plain\n", encoding="utf-8")
    (tmp_path / ".hidden.md").write_text("# Hidden\n", encoding="utf-8")
    (tmp_path / ".env").write_text("KEY=1\n", encoding="utf-8")
    (tmp_path / "key.md").symlink_to(tmp_path / ".env")
    (tmp_path / "folder.md").mkdir()
    os.mkfifo(tmp_path / "pipe.md")
    return tmp_path


def payload(file_path: object = "notes.md", **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": file_path, "content": "# Notes\n"},
        "tool_response": {"filePath": file_path, "success": True},
        "tool_use_id": "toolu_1",
    }
    body.update(fields)
    return body


def judge(body: object, folder: Path) -> Path | None:
    data = json.dumps(body).encode()
    return written_document(data, cwd=folder, home=folder / "home")


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit"])
def test_a_writing_tool_names_the_markdown_file_it_wrote(folder: Path, tool: str) -> None:
    found = judge(payload(str(folder / "notes.md"), tool_name=tool), folder)
    assert found == (folder / "notes.md").resolve()


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"hook_event_name": "PreToolUse"}, "the file is not written yet"),
        ({"hook_event_name": "PermissionRequest"}, "another event"),
        ({"hook_event_name": 5}, "an event that is not text"),
        ({"tool_name": "Read"}, "Read carries a file_path too"),
        ({"tool_name": "NotebookEdit"}, "another tool"),
        ({"tool_name": "write"}, "tool names are exact"),
        ({"tool_name": ["Write"]}, "a tool name that is not text"),
        ({"tool_response": {"success": False}}, "success: false"),
        ({"tool_response": {"is_error": True}}, "is_error: true"),
        ({"tool_response": {"error": "File has not been read yet"}}, "an error"),
        ({"tool_response": {"error": {"code": 1}}}, "an error object"),
        ({"tool_response": "<tool_use_error>String not found</tool_use_error>"}, "error text"),
        ({"tool_response": {"content": "<tool_use_error>no</tool_use_error>"}}, "error content"),
        ({"tool_input": {"content": "# x"}}, "no file_path"),
        ({"tool_input": {"file_path": 5}}, "a file_path that is not text"),
        ({"tool_input": "notes.md"}, "a tool_input that is not an object"),
        ({"tool_input": {"file_path": ""}}, "an empty file_path"),
        ({"tool_input": {"file_path": "   "}}, "a blank file_path"),
        ({"tool_input": {"file_path": "notes\u0000.md"}}, "a NUL in the path"),
        ({"tool_input": {"file_path": "\ud800.md"}}, "an unpaired surrogate"),
        ({"tool_input": {"file_path": "notes.txt"}}, "not Markdown"),
        ({"tool_input": {"file_path": ".hidden.md"}}, "a dotfile"),
        ({"tool_input": {"file_path": "key.md"}}, "a link to a dotfile"),
        ({"tool_input": {"file_path": "missing.md"}}, "nothing there"),
        ({"tool_input": {"file_path": "folder.md"}}, "a folder"),
        ({"tool_input": {"file_path": "pipe.md"}}, "a FIFO"),
    ],
)
def test_a_payload_that_wrote_no_markdown_document_names_nothing(
    folder: Path, fields: dict[str, Any], why: str
) -> None:
    assert judge(payload(**fields), folder) is None, why


@pytest.mark.parametrize(
    "response",
    [
        None,
        {},
        {"success": True},
        {"filePath": "/w/notes.md", "type": "create"},
        {"error": ""},
        {"error": "  "},
        {"error": None},
        {"is_error": False},
        "Updated notes.md",
        ["not", "an", "object"],
    ],
)
def test_a_tool_that_did_not_report_a_failure_counts_as_done(
    folder: Path, response: object
) -> None:
    assert not tool_failed(response)
    assert judge(payload(tool_response=response), folder) == (folder / "notes.md").resolve()


@pytest.mark.parametrize("missing", ["hook_event_name", "tool_name", "tool_response"])
def test_a_payload_without_a_field_is_judged_by_its_file_path(folder: Path, missing: str) -> None:
    body = payload()
    del body[missing]
    assert judge(body, folder) == (folder / "notes.md").resolve()


def test_a_relative_path_is_taken_from_the_payloads_working_directory(
    folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    found = written_document(
        json.dumps(payload("notes.md", cwd=str(folder))).encode(), cwd=elsewhere, home=elsewhere
    )
    assert found == (folder / "notes.md").resolve()


@pytest.mark.parametrize("cwd", ["relative/dir", 7, "/w/\u0000"])
def test_a_payload_cwd_that_is_not_an_absolute_path_is_not_used(folder: Path, cwd: object) -> None:
    assert judge(payload("notes.md", cwd=cwd), folder) == (folder / "notes.md").resolve()


def test_a_home_relative_path_is_taken_from_home(folder: Path) -> None:
    home = folder / "home"
    home.mkdir()
    (home / "plan.md").write_text("# Plan\n", encoding="utf-8")
    assert judge(payload("~/plan.md"), folder) == (home / "plan.md").resolve()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"   ",
        b"not json",
        b"[1, 2]",
        b'"PostToolUse"',
        b"null",
        b"\xff\xfe{",
        b"{" * 100_000,
        b'{"tool_input": {"file_path": "notes.md"}',
    ],
)
def test_input_that_is_not_a_json_object_names_nothing(folder: Path, data: bytes) -> None:
    assert written_document(data, cwd=folder, home=folder) is None


def test_a_payload_over_64_mib_names_nothing(folder: Path) -> None:
    head = json.dumps(payload(str(folder / "notes.md"))).encode()[:-1] + b', "pad": "'
    tail = b'"}'
    at_limit = head + b"x" * (MAX_PAYLOAD_BYTES - len(head) - len(tail)) + tail
    assert len(at_limit) == MAX_PAYLOAD_BYTES
    assert written_document(at_limit, cwd=folder, home=folder) == (folder / "notes.md").resolve()
    over = head + b"x" * (MAX_PAYLOAD_BYTES - len(head) - len(tail) + 1) + tail
    assert written_document(over, cwd=folder, home=folder) is None


@given(st.binary(max_size=512))
def test_any_bytes_are_judged_without_raising(data: bytes) -> None:
    written_document(data, cwd=Path("/nonexistent"), home=Path("/nonexistent"))


@given(
    st.dictionaries(
        st.text(max_size=20),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=30),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=10), inner, max_size=3)
            ),
            max_leaves=10,
        ),
        max_size=6,
    )
)
def test_any_json_object_is_judged_without_raising(body: dict[str, Any]) -> None:
    written_document(json.dumps(body).encode(), cwd=Path("/nonexistent"), home=Path("/nonexistent"))
