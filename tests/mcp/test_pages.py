"""Results an agent can hold: long documents, diffs, chats and previews come in pages of at
most ~80,000 characters, each naming the call that reads on; tools/list stays small."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from mcp import Client
from quire.client.chats import ChatApi
from quire.core.pages import BUDGET_CHARS
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import data_of, make_harness

pytestmark = pytest.mark.anyio

MEGABYTE = "".join(f"Line {n:06} of a long specification, with its words.\n" for n in range(20_000))


async def read_all(client: Client, name: str, field: str, args: dict[str, Any]) -> str:
    """Follow ``more.call`` from the first page to the last, checking each page's size."""
    parts: list[str] = []
    while True:
        result = data_of(await client.call_tool(name, args))
        assert len(result[field]) <= BUDGET_CHARS
        parts.append(result[field])
        if "more" not in result:
            return "".join(parts)
        more = result["more"]
        assert more["call"]["name"] == name and more["remaining"] > 0
        args = more["call"]["arguments"]


async def test_a_one_megabyte_document_is_read_in_pages_that_add_up(tmp_path: Path) -> None:
    assert len(MEGABYTE) > 1_000_000
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "spec.md").write_text(MEGABYTE, encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "spec.md"})
            first = data_of(await client.call_tool("get_current_content", {}))
            whole = await read_all(client, "get_current_content", "content", {})
            some = data_of(
                await client.call_tool("get_current_content", {"offset": 101, "limit": 2})
            )
    assert first["content"].endswith("\n") and len(first["content"]) <= BUDGET_CHARS
    lines = first["content"].count("\n")
    assert first["more"] == {
        "nextOffset": lines + 1,
        "remaining": 20_000 - lines,
        "call": {"name": "get_current_content", "arguments": {"offset": lines + 1}},
    }
    assert first["version"] and first["path"].endswith("spec.md")
    assert whole == MEGABYTE
    assert some["content"] == "".join(MEGABYTE.splitlines(keepends=True)[100:102])
    assert some["more"]["call"]["arguments"] == {"offset": 103, "limit": 2}


async def test_a_small_document_keeps_todays_answer(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "a.md").write_text("# A\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "a.md"})
            current = data_of(await client.call_tool("get_current_content", {}))
    assert set(current) == {"path", "content", "dirty", "version"}


async def test_export_text_and_diff_of_big_files_come_in_pages(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "a.md").write_text(MEGABYTE, encoding="utf-8")
    (h.workspace / "b.md").write_text(MEGABYTE.replace("words", "terms"), encoding="utf-8")
    async with Client(h.server) as client:
        text = await read_all(client, "export_text", "text", {"path": "a.md"})
        first = data_of(
            await client.call_tool("diff_documents", {"path_a": "a.md", "path_b": "b.md"})
        )
        diff = await read_all(
            client, "diff_documents", "diff", {"path_a": "a.md", "path_b": "b.md"}
        )
    assert text.count("\n") == 19_999 and "Line 019999" in text
    assert first["added"] == first["removed"] == 20_000  # counts are the whole diff's
    assert first["more"]["call"]["arguments"]["path_a"] == str(h.workspace / "a.md")
    assert diff.count("\n+Line") == 20_000


async def test_an_offset_past_the_end_is_an_error_naming_the_range(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "a.md").write_text("one\ntwo\n", encoding="utf-8")
    async with Client(h.server) as client:
        result = await client.call_tool("export_text", {"path": "a.md", "offset": 9})
    assert result.is_error
    assert "from 1 to 2" in str(result.content[0])


async def test_a_long_chat_is_read_in_pages_and_wait_chat_is_bounded(tmp_path: Path) -> None:
    body = "word " * 800  # 4,000 characters a message
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        path = data_of(await client.call_tool("create_chat", {"path": "Chats/long.md"}))["path"]
        chats = ChatApi(h.person)
        for n in range(40):
            await chats.post(path, "ann", f"{n} {body}")
        first = data_of(await client.call_tool("read_chat", {"path": path, "as": "bot"}))
        numbers = [m["number"] for m in first["messages"]]
        rest = data_of(await client.call_tool(**_call(first["more"]["call"])))
        waited = data_of(
            await client.call_tool("wait_chat", {"path": path, "as": "bob", "after": 0})
        )
    assert 10 < len(numbers) < 40 and numbers == list(range(1, len(numbers) + 1))
    assert first["next"] == numbers[-1] == first["more"]["nextOffset"]
    assert first["more"]["remaining"] == 40 - len(numbers)
    assert first["more"]["call"]["arguments"]["after"] == numbers[-1]
    assert rest["messages"][0]["number"] == numbers[-1] + 1
    assert len(waited["messages"]) == len(numbers)
    assert waited["more"]["call"]["name"] == "wait_chat"
    assert "more.call" in waited["hint"]


def _call(call: dict[str, Any]) -> dict[str, Any]:
    return {"name": call["name"], "arguments": call["arguments"]}


async def test_many_preview_candidates_are_listed_in_pages(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "spec.md").write_text(MEGABYTE, encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "spec.md"})
            args = {"find": "words", "replace": "terms", "preview_lines": 20}
            first = data_of(await client.call_tool("stream_edit", args))
            second = data_of(await client.call_tool(**_call(first["more"]["call"])))
    assert first["matchCount"] == 20_000
    listed = len(first["candidates"])
    assert 0 < listed < 20_000
    assert first["more"]["nextOffset"] == listed
    assert second["candidates"][0]["matchIndex"] == listed


async def test_the_document_resources_come_in_pages(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "spec.md").write_text(MEGABYTE, encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "spec.md"})
            parts, uri = [], "quire://current"
            while True:
                result = await client.read_resource(uri)
                [content] = result.contents
                assert isinstance(content, types.TextResourceContents)
                assert len(content.text) <= BUDGET_CHARS
                parts.append(content.text)
                meta = result.meta or {}
                if "quire/more" not in meta:
                    break
                uri = meta["quire/more"]["call"]["arguments"]["uri"]
            file_uri = "file://" + str((h.mcp.workspace / "spec.md").resolve())
            page = await client.read_resource(file_uri + "?offset=3&limit=1")
            with pytest.raises(Exception, match="not a parameter"):
                await client.read_resource("quire://current?line=3")
    assert "".join(parts) == MEGABYTE
    [one] = page.contents
    assert isinstance(one, types.TextResourceContents)
    assert one.text == "Line 000002 of a long specification, with its words.\n"


async def test_tools_list_with_every_tool_stays_under_12000_tokens(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        listed = await client.list_tools()
    size = len(listed.model_dump_json(by_alias=True, exclude_none=True))
    assert size / 4 < 12_000, f"tools/list is {size / 4:.0f} tokens: tighten descriptions"


async def test_export_metadata_of_a_long_document_lists_in_pages_that_add_up(
    tmp_path: Path,
) -> None:
    text = "".join(f"## Heading {n:05} about [[Note {n:05}#Part]]\n\n" for n in range(6_000))
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "big.md").write_text(text, encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "big.md"})
            runs: list[list[dict[str, Any]]] = []
            for args in ({}, {"path": "big.md"}):
                result = data_of(await client.call_tool("export_metadata", args))
                runs.append([result])
                while "more" in result:
                    call = result["more"]["call"]
                    assert call["name"] == "export_metadata"
                    assert ("path" in call["arguments"]) == ("path" in args)
                    result = data_of(await client.call_tool(**_call(call)))
                    runs[-1].append(result)
    for pages in runs:
        assert len(pages) > 1 and max(len(str(page)) for page in pages) < BUDGET_CHARS + 5_000
        headings = [item["text"] for page in pages for item in page["headings"]]
        links = [item for page in pages for item in page["wikilinks"]]
        targets = [item["target"] for page in pages for item in page["wikilink_headings"]]
        assert len(headings) == len(set(headings)) == 6_000
        assert links == targets == [f"Note {n:05}" for n in range(6_000)]
        assert {page["word_count"] for page in pages} == {pages[0]["word_count"]}


async def test_a_preview_diff_longer_than_a_result_is_read_in_pages(tmp_path: Path) -> None:
    replace = "".join(f"new line {n:05} of a long replacement text\n" for n in range(1_500))
    args = {"find": "Line 000005 of a long specification, with its words.\n", "replace": replace}
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "spec.md").write_text(MEGABYTE, encoding="utf-8")
        async with Client(h.mcp.server) as client:
            doc_id = data_of(await client.call_tool("open_file", {"path": "spec.md"}))["docId"]
            whole = (await h.app.documents.preview(doc_id, args["find"], replace)).preview.diff
            result = data_of(await client.call_tool("stream_edit", args))
            parts = [result["diff"]]
            while "more" in result:
                call = result["more"]["call"]
                assert call["arguments"]["find"] == args["find"]
                result = data_of(await client.call_tool(**_call(call)))
                parts.append(result["diff"])
            applied = data_of(
                await client.call_tool("stream_edit_apply", {**args, "edit_id": result["editId"]})
            )
    assert len(parts) > 1 and "".join(parts) == whole
    assert all(len(part) + len(replace) <= BUDGET_CHARS for part in parts)
    assert applied["replaced"] == 1
