"""Reading an agent's JSON settings file as an object, or saying why it must stay untouched,
and writing it back atomically in its own indentation."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.services.agents.jsonfile import (
    parse_json_object,
    read_json_object,
    write_json_object,
)

PATH = Path("/home/me/.cursor/mcp.json")


@pytest.mark.parametrize(
    ("raw", "data"),
    [
        (b"", {}),
        (b"  \n\t\n", {}),
        (b"{}", {}),
        (b'{"a": 1, "b": [true, null]}', {"a": 1, "b": [True, None]}),
        ('{"é": "名前"}'.encode(), {"é": "名前"}),
    ],
)
def test_an_object_or_an_empty_file_reads(raw: bytes, data: dict[str, object]) -> None:
    read = parse_json_object(PATH, raw)
    assert read.problem is None
    assert read.data == data


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"{", "it is not valid JSON (Expecting property name enclosed in double quotes at "
         "line 1, column 2)"),
        (b'{"a": 1,}', "it is not valid JSON (Expecting property name enclosed in double quotes "
         "at line 1, column 9)"),
        (b'// comment\n{"a": 1}', "it is not valid JSON (Expecting value at line 1, column 1)"),
        (b"\xef\xbb\xbf{}", "it is not valid JSON (Unexpected UTF-8 BOM (decode using "
         "utf-8-sig) at line 1, column 1)"),
        (b'{"a": "\xff"}', "it is not UTF-8 text (byte 8)"),
        (b"[]", "it holds a list, not a JSON object"),
        (b'"text"', "it holds a string, not a JSON object"),
        (b"3", "it holds a number, not a JSON object"),
        (b"true", "it holds a boolean, not a JSON object"),
        (b"null", "it holds null, not a JSON object"),
        (b"{}\x00", "it is not valid JSON (Extra data at line 1, column 3)"),
        (b"[" * 100_000 + b"]" * 100_000, "it is nested too deeply to read"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_an_object_is_left_with_the_reason(raw: bytes, problem: str) -> None:
    read = parse_json_object(PATH, raw)
    assert read.data is None
    assert read.problem == problem


def test_a_missing_file_reads_as_no_data_and_no_problem(tmp_path: Path) -> None:
    read = read_json_object(tmp_path / "absent.json")
    assert (read.data, read.problem) == (None, None)


def test_a_folder_is_not_a_settings_file(tmp_path: Path) -> None:
    assert read_json_object(tmp_path).problem == "it is not a regular file"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    assert read_json_object(fifo).problem == "it is not a regular file"


def test_a_huge_file_is_not_read(tmp_path: Path) -> None:
    big = tmp_path / "settings.json"
    with big.open("wb") as file:
        file.truncate(MAX_DOCUMENT_BYTES + 1)
    assert read_json_object(big).problem == "it is larger than 16 MiB"


def test_an_unreadable_file_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "settings.json"
    locked.write_text("{}", encoding="utf-8")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    assert read_json_object(locked).problem == "it cannot be read (Permission denied)"


@pytest.mark.parametrize(
    ("text", "indent"),
    [
        ('{\n  "a": 1\n}\n', 2),
        ('{\n    "a": {\n        "b": 1\n    }\n}\n', 4),
        ('{\n\t"a": 1\n}\n', "\t"),
        ('{"a": 1}', 2),
        ("", 2),
    ],
)
def test_the_file_keeps_its_indentation(tmp_path: Path, text: str, indent: int | str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(text, encoding="utf-8")
    read = read_json_object(path)
    assert read.indent == indent
    write_json_object(read, {"a": 1, "z": "é"})
    assert (
        path.read_text(encoding="utf-8")
        == json.dumps({"a": 1, "z": "é"}, indent=indent, ensure_ascii=False) + "\n"
    )


def test_writing_creates_the_folder(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "mcp.json"
    write_json_object(read_json_object(path), {"mcpServers": {}})
    assert json.loads(path.read_text(encoding="utf-8")) == {"mcpServers": {}}


def test_writing_keeps_the_permissions(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o600)
    write_json_object(read_json_object(path), {"a": 1})
    assert path.stat().st_mode & 0o777 == 0o600


def test_writing_through_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text("{}", encoding="utf-8")
    link = tmp_path / "settings.json"
    link.symlink_to(target)
    write_json_object(read_json_object(link), {"a": 1})
    assert link.is_symlink()
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": 1}
    assert sorted(path.name for path in target.parent.iterdir()) == ["settings.json"]
