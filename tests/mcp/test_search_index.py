"""search_vault and text://vault-search over the real app's index: modes, pages, cursors,
tags, semantic's note, and a vault the server serves."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mcp import Client
from quire.api.search import MARK_END, MARK_START
from quire.search import semantic
from tests.mcp.app_harness import AppHarness, app_harness
from tests.mcp.harness import data_of, error_of

pytestmark = pytest.mark.anyio


async def filled(h: AppHarness, count: int = 5) -> Path:
    folder = h.mcp.workspace
    for number in range(count):
        (folder / f"n{number}.md").write_text(
            f"# Note {number}\n\nThe Lighthouse keeper {number}\n#harbour\n", encoding="utf-8"
        )
    (folder / "other.md").write_text("# Other\n\nkeeper of nothing\n", encoding="utf-8")
    assert h.app.search is not None
    await h.app.search.catch_up()
    return folder


async def test_search_vault_answers_one_result_per_file_from_the_index(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        folder = await filled(h)
        async with Client(h.mcp.server) as client:
            data = data_of(await client.call_tool("search_vault", {"query": "LIGHTHOUSE"}))
    assert data["mode"] == "grep"
    assert data["query"] == "LIGHTHOUSE"
    assert sorted(hit["path"] for hit in data["results"]) == [
        str(folder / f"n{number}.md") for number in range(5)
    ]
    first = data["results"][0]
    assert first["line"] == 3
    assert f"The {MARK_START}Lighthouse{MARK_END} keeper" in first["snippet"]
    assert "truncated" not in data
    assert "nextCursor" not in data


async def test_pages_of_search_vault_follow_next_cursor_to_every_file_once(
    tmp_path: Path,
) -> None:
    async with app_harness(tmp_path) as h:
        await filled(h)
        seen: list[str] = []
        async with Client(h.mcp.server) as client:
            arguments: dict[str, object] = {"query": "keeper", "limit": 2}
            for _page in range(5):
                data = data_of(await client.call_tool("search_vault", arguments))
                seen += [hit["path"] for hit in data["results"]]
                if "nextCursor" not in data:
                    break
                assert data["truncated"] is True
                arguments = {"query": "keeper", "limit": 2, "cursor": data["nextCursor"]}
    assert len(seen) == len(set(seen)) == 6


async def test_a_cursor_the_server_never_gave_out_is_an_argument_error(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        await filled(h)
        async with Client(h.mcp.server) as client:
            message = error_of(
                await client.call_tool("search_vault", {"query": "keeper", "cursor": "made.up"})
            )
    assert "is not a cursor this server gave out" in message


async def test_words_mode_and_tags_narrow_the_search(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        await filled(h)
        async with Client(h.mcp.server) as client:
            words = data_of(
                await client.call_tool(
                    "search_vault", {"query": "keeper lighthouse", "mode": "words"}
                )
            )
            tagged = data_of(
                await client.call_tool("search_vault", {"query": "keeper tag:harbour"})
            )
    assert words["mode"] == "words"
    assert len(words["results"]) == 5
    assert len(tagged["results"]) == 5
    assert all("other.md" not in hit["path"] for hit in tagged["results"])


async def test_semantic_without_the_extra_says_how_to_install_it_and_words_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # what an absent package looks like
    async with app_harness(tmp_path) as h:
        await filled(h)
        async with Client(h.mcp.server) as client:
            data = data_of(
                await client.call_tool("search_vault", {"query": "keeper", "semantic": True})
            )
    assert data["mode"] == "semantic"
    assert len(data["results"]) == 6
    assert data["note"].startswith(semantic.NOT_INSTALLED)
    assert "pip install 'quire[semantic]'" in data["note"]


@pytest.mark.skipif(not semantic.installed(), reason="pip install -e '.[semantic]'")
async def test_semantic_ranks_by_meaning_through_the_tool(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        folder = await filled(h)
        (folder / "ship.md").write_text("# Voyage\n\nThe ship sailed across the ocean.\n")
        assert h.app.search is not None
        await h.app.search.catch_up()
        async with Client(h.mcp.server) as client:
            data = data_of(
                await client.call_tool("search_vault", {"query": "ocean voyage", "semantic": True})
            )
            read = await client.read_resource("text://vault-search?q=boat%20trip&semantic=true")
            resource = json.loads(read.contents[0].text)  # type: ignore[union-attr]
    for answer in (data, resource):
        assert answer["mode"] == "semantic"
        assert "note" not in answer
        assert answer["results"][0]["path"].endswith("ship.md")


async def test_a_vault_the_server_serves_is_searched_through_the_index(tmp_path: Path) -> None:
    async with app_harness(tmp_path, allow=[tmp_path]) as h:
        folder = await filled(h)
        async with Client(h.mcp.server) as client:
            data = data_of(
                await client.call_tool(
                    "search_vault", {"query": "keeper", "vault": str(folder), "limit": 2}
                )
            )
    assert data["mode"] == "grep"
    assert data["vault"] == str(folder)
    assert "nextCursor" in data


async def test_the_search_resource_takes_mode_and_cursor(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        await filled(h)
        async with Client(h.mcp.server) as client:
            first = await client.read_resource("text://vault-search?q=keeper&limit=4&mode=grep")
            page = json.loads(first.contents[0].text)  # type: ignore[union-attr]
            cursor = page["nextCursor"]
            second = await client.read_resource(
                f"text://vault-search?q=keeper&limit=4&mode=grep&cursor={cursor}"
            )
            rest = json.loads(second.contents[0].text)  # type: ignore[union-attr]
    paths = [hit["path"] for hit in page["results"] + rest["results"]]
    assert len(paths) == len(set(paths)) == 6
