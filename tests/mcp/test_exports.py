import os
from pathlib import Path

import pytest

from mcp import Client
from quire.services.live.versions import version_of
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import data_of, error_of, make_harness

pytestmark = pytest.mark.anyio


async def test_export_text_reads_a_file_with_no_server(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "a.md").write_text("# Title\n\nSome **bold** words.\n", encoding="utf-8")
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("export_text", {"path": "a.md"}))
    assert data == {
        "text": "Title\n\nSome bold words.",
        "word_count": 4,
        "char_count": 23,
        "path": str((h.workspace / "a.md").resolve()),
    }


async def test_export_metadata_reads_front_matter_and_headings(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    source = "---\ntags: [a, b]\n---\n# One\n\nSee [[Plan#Goals]].\n\n## Two\n"
    (h.workspace / "m.md").write_text(source, encoding="utf-8")
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("export_metadata", {"path": "m.md"}))
    assert data["frontmatter"] == {"tags": ["a", "b"]}
    assert data["headings"] == [{"level": 1, "text": "One"}, {"level": 2, "text": "Two"}]
    assert data["wikilinks"] == ["Plan"]
    assert data["wikilink_headings"] == [{"target": "Plan", "heading": "Goals"}]


async def test_a_home_relative_path_is_read_from_the_home_folder(tmp_path: Path) -> None:
    h = make_harness(tmp_path, allow=[tmp_path / "home"])
    (h.home / "n.md").write_text("home note\n", encoding="utf-8")
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("export_text", {"path": "~/n.md"}))
    assert data["text"] == "home note"


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("notes.txt", b"x", "only Markdown documents"),
        (".hidden.md", b"x", "only Markdown documents"),
        ("latin.md", b"caf\xe9\n", "not UTF-8"),
        ("missing.md", None, "does not exist"),
    ],
)
async def test_export_text_refuses_a_file_it_may_not_read(
    tmp_path: Path, name: str, content: bytes | None, fragment: str
) -> None:
    h = make_harness(tmp_path)
    if content is not None:
        (h.workspace / name).write_bytes(content)
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("export_text", {"path": name}))
    assert fragment in message


async def test_a_fifo_named_like_a_document_is_refused_without_blocking(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    os.mkfifo(h.workspace / "pipe.md")
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("export_text", {"path": "pipe.md"}))
    assert "named pipe" in message


async def test_a_link_to_a_dotfile_is_refused(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    (h.workspace / ".env").write_text("SECRET=1\n", encoding="utf-8")
    (h.workspace / "notes.md").symlink_to(h.workspace / ".env")
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("export_text", {"path": "notes.md"}))
    assert "symbolic link" in message
    assert "SECRET" not in message


async def test_a_file_outside_the_allowed_folders_is_refused(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("secret\n", encoding="utf-8")
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("export_text", {"path": str(outside)}))
    assert "not inside an allowed folder" in message
    assert str(h.workspace) in message


async def test_a_link_leading_out_of_the_allowed_folders_is_refused(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("secret\n", encoding="utf-8")
    (h.workspace / "in.md").symlink_to(outside)
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("export_text", {"path": "in.md"}))
    assert "not inside an allowed folder" in message


async def test_without_any_allowed_folder_every_path_is_refused_with_the_fix(
    tmp_path: Path,
) -> None:
    h = make_harness(tmp_path, default_workspace=False)
    (h.workspace / "a.md").write_text("x\n", encoding="utf-8")
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("export_text", {"path": "a.md"}))
    assert "no folder is allowed yet" in message
    assert "--allow DIR" in message


async def test_export_text_without_path_and_no_server_says_to_pass_path(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("export_text", {}))
    assert "pass path" in message


async def test_diff_documents_compares_two_files(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "a.md").write_text("one\ntwo\n", encoding="utf-8")
    (h.workspace / "b.md").write_text("one\nthree\n", encoding="utf-8")
    async with Client(h.server) as client:
        data = data_of(
            await client.call_tool(
                "diff_documents", {"path_a": "a.md", "path_b": "b.md", "context_lines": 0}
            )
        )
    assert (data["hunks"], data["added"], data["removed"]) == (1, 1, 1)
    assert "-two\n+three\n" in data["diff"]
    assert data["path_a"].endswith("/a.md")


async def test_identical_files_give_an_empty_diff(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    for name in ("a.md", "b.md"):
        (h.workspace / name).write_text("same\n", encoding="utf-8")
    async with Client(h.server) as client:
        data = data_of(
            await client.call_tool("diff_documents", {"path_a": "a.md", "path_b": "b.md"})
        )
    assert (data["diff"], data["hunks"], data["added"], data["removed"]) == ("", 0, 0, 0)


async def test_files_differing_only_in_line_endings_are_not_identical(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "a.md").write_bytes(b"x\n")
    (h.workspace / "b.md").write_bytes(b"x\r\n")
    async with Client(h.server) as client:
        data = data_of(
            await client.call_tool("diff_documents", {"path_a": "a.md", "path_b": "b.md"})
        )
    assert data["hunks"] == 1


async def test_export_text_of_the_live_document_returns_its_version(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "p.md").write_text("# Plan\n\nfirst\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            doc_id = data_of(await client.call_tool("open_file", {"path": "p.md"}))["docId"]
            await h.app.documents.replace_unique(doc_id, "first", "typed", author="person")
            live = data_of(await client.call_tool("export_text", {}))
            current = data_of(await client.call_tool("get_current_content", {}))
            from_disk = data_of(await client.call_tool("export_text", {"path": "p.md"}))
    assert live["text"] == "Plan\n\ntyped"
    assert live["version"] == current["version"] == version_of("# Plan\n\ntyped\n")
    assert "version" not in from_disk
