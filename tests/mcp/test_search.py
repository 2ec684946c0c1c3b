from pathlib import Path
from typing import Any

import pytest

from mcp import Client
from quire.fs import walk as walker
from tests.mcp.harness import data_of, error_of, make_harness

pytestmark = pytest.mark.anyio


def notes(folder: Path) -> Path:
    vault = folder / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "a.md").write_text("# Alpha\nThe plan is ready.\n", encoding="utf-8")
    (vault / "sub" / "b.md").write_text("# Beta\nplan one\nPLAN two\n", encoding="utf-8")
    (vault / "c.md").write_text("nothing here\n", encoding="utf-8")
    return vault


async def test_a_vault_is_searched_on_disk_with_no_server(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    vault = notes(h.workspace)
    async with Client(h.server) as client:
        data = data_of(
            await client.call_tool("search_vault", {"query": " plan ", "vault": "vault"})
        )
    assert data["mode"] == "grep-disk"
    assert data["query"] == "plan"
    assert data["vault"] == str(vault.resolve())
    assert [(hit["title"], hit["matches"]) for hit in data["results"]] == [
        ("Beta", 2),
        ("Alpha", 1),
    ]
    assert "note" not in data
    assert "truncated" not in data


async def test_limit_caps_the_results(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    notes(h.workspace)
    async with Client(h.server) as client:
        data = data_of(
            await client.call_tool("search_vault", {"query": "plan", "vault": "vault", "limit": 1})
        )
    assert [hit["title"] for hit in data["results"]] == ["Beta"]


async def test_semantic_search_of_a_folder_no_server_serves_greps_it(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    notes(h.workspace)
    async with Client(h.server) as client:
        data = data_of(
            await client.call_tool(
                "search_vault", {"query": "plan", "vault": "vault", "semantic": True}
            )
        )
    assert data["note"].startswith("Semantic search needs the server's index")
    assert data["mode"] == "grep-disk"


async def test_unreadable_files_are_named_in_the_note(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    vault = notes(h.workspace)
    (vault / "latin.md").write_bytes(b"plan caf\xe9\n")
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("search_vault", {"query": "plan", "vault": "vault"}))
    assert "1 file was not searched because it could not be read" in data["note"]
    assert "latin.md (not UTF-8 text (byte 9 (0xE9) on line 1))" in data["note"]


async def test_a_deeply_nested_vault_says_it_was_cut(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    deep = h.workspace / "vault"
    for level in range(34):
        deep = deep / f"d{level}"
    deep.mkdir(parents=True)
    (deep / "deep.md").write_text("plan\n", encoding="utf-8")
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("search_vault", {"query": "plan", "vault": "vault"}))
    assert data["truncated"] is True
    assert data["depthCut"] is True
    assert "32 levels" in data["note"]
    assert data["results"] == []


async def test_a_vault_past_the_entry_budget_says_it_was_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walker, "MAX_ENTRIES", 2)
    h = make_harness(tmp_path)
    notes(h.workspace)
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("search_vault", {"query": "plan", "vault": "vault"}))
    assert data["truncated"] is True
    assert "stopped after reading 2 folder entries" in data["note"]
    # Which two entries were read is the file system's listing order; Beta is a level down.
    assert "Beta" not in [hit["title"] for hit in data["results"]]


async def test_a_file_link_out_of_the_vault_is_not_searched(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    vault = notes(h.workspace)
    outside = h.workspace / "elsewhere.md"
    outside.write_text("# Elsewhere\nplan\n", encoding="utf-8")
    (vault / "link.md").symlink_to(outside)
    (vault / "inner.md").symlink_to(vault / "a.md")
    async with Client(h.server) as client:
        data = data_of(await client.call_tool("search_vault", {"query": "plan", "vault": "vault"}))
    assert [hit["title"] for hit in data["results"]] == ["Beta", "Alpha"]


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"query": ""}, "`query` must not be empty"),
        ({"query": "   "}, "`query` must not be empty"),
        ({"query": "x", "limit": 0}, "at least 1"),
        ({"query": "x", "limit": 201}, "at most 200"),
        ({"query": "x", "limit": "5"}, "must be an integer"),
        ({"query": "x", "semantic": "yes"}, "must be a boolean"),
        ({"query": "x", "vault": ""}, "`vault` must not be empty"),
        ({"query": "x", "vault": "missing"}, "does not exist"),
        ({"query": "x", "vault": "file.md"}, "not a folder"),
        ({"query": "x", "vault": ".git"}, "hidden folder"),
        ({"query": "x", "vault": "/"}, "not inside an allowed folder"),
        ({"query": "x", "vualt": "v"}, "Did you mean `vault`?"),
    ],
)
async def test_a_bad_search_is_refused(
    tmp_path: Path, arguments: dict[str, Any], fragment: str
) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "file.md").write_text("x\n", encoding="utf-8")
    (h.workspace / ".git").mkdir()
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("search_vault", arguments))
    assert fragment in message


async def test_without_vault_and_no_server_the_search_needs_a_server(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        message = error_of(await client.call_tool("search_vault", {"query": "x"}))
    assert "No Quire server is running" in message
