"""Resources and resource templates, with and without a server."""

import json
from pathlib import Path

import mcp_types as types
import pytest

from mcp import Client, MCPError
from quire.mcp.resources import (
    CURRENT_URI,
    RECENT_URI,
    RESOURCE_NOT_FOUND,
    SERVER_ERROR,
    TRUNCATED_KEY,
    UNLISTED_KEY,
)
from tests.mcp.app_harness import app_harness
from tests.mcp.harness import make_harness

pytestmark = pytest.mark.anyio


def text_of(result: types.ReadResourceResult) -> str:
    [content] = result.contents
    assert isinstance(content, types.TextResourceContents)
    return content.text


async def test_with_no_server_the_listing_says_its_files_are_unlisted(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        listed = await client.list_resources()
        templates = await client.list_resource_templates()
    assert [r.uri for r in listed.resources] == [CURRENT_URI, RECENT_URI]
    assert listed.meta is not None and "No Quire server is running" in listed.meta[UNLISTED_KEY]
    [template] = templates.resource_templates
    assert template.uri_template == "text://vault-search?q={query}"
    assert template.mime_type == "application/json"
    assert "&limit=" in (template.description or "")


@pytest.mark.parametrize("uri", [CURRENT_URI, RECENT_URI, "file:///x.md"])
async def test_with_no_server_reads_are_server_errors(tmp_path: Path, uri: str) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    assert caught.value.code == SERVER_ERROR
    assert "open_file" in caught.value.message


async def test_workspace_files_are_listed_as_percent_encoded_file_uris(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "My Notes 100%.md").write_text("# A\n", encoding="utf-8")
        (h.mcp.workspace / "café.md").write_text("# B\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            listed = await client.list_resources()
            uris = [r.uri for r in listed.resources]
            encoded = next(uri for uri in uris if uri.endswith("My%20Notes%20100%25.md"))
            by_encoded = text_of(await client.read_resource(encoded))
            as_written = text_of(
                await client.read_resource("file://" + str(h.mcp.workspace / "My Notes 100%.md"))
            )
            local = text_of(
                await client.read_resource(
                    "file://localhost" + str(h.mcp.workspace / "caf%C3%A9.md")
                )
            )
    assert any(uri.endswith("/caf%C3%A9.md") for uri in uris)
    assert listed.meta is None or UNLISTED_KEY not in listed.meta
    assert by_encoded == as_written == "# A\n"
    assert local == "# B\n"


@pytest.mark.parametrize(
    ("suffix", "code", "fragment"),
    [
        ("/secret.md", RESOURCE_NOT_FOUND, "open_file"),
        ("/%ZZ.md", -32602, "malformed escape"),
        ("/%FF.md", -32602, "UTF-8"),
        ("/../../etc/passwd", RESOURCE_NOT_FOUND, "open_file"),
        ("/link.md", RESOURCE_NOT_FOUND, "link.md"),
    ],
)
async def test_only_advertised_documents_are_readable(
    tmp_path: Path, suffix: str, code: int, fragment: str
) -> None:
    async with app_harness(tmp_path) as h:
        outside = tmp_path / "secret.md"
        outside.write_text("secret\n", encoding="utf-8")
        (h.mcp.workspace / ".env").write_text("KEY=1\n", encoding="utf-8")
        (h.mcp.workspace / "link.md").symlink_to(h.mcp.workspace / ".env")
        base = str(tmp_path) if suffix == "/secret.md" else str(h.mcp.workspace)
        async with Client(h.mcp.server) as client:
            with pytest.raises(MCPError) as caught:
                await client.read_resource("file://" + base + suffix)
    assert caught.value.code == code
    assert fragment in caught.value.message
    assert "secret\n" not in caught.value.message
    assert "KEY=1" not in caught.value.message


async def test_current_reads_the_live_document(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "a.md").write_text("one\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            with pytest.raises(MCPError) as caught:
                await client.read_resource(CURRENT_URI)
            await client.call_tool("open_file", {"path": "a.md"})
            await client.call_tool("edit_document", {"find": "one", "replace": "two"})
            text = text_of(await client.read_resource(CURRENT_URI))
    assert caught.value.code == RESOURCE_NOT_FOUND
    assert text == "two\n"


async def test_recent_documents_have_titles_previews_and_skip_counts(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "a.md").write_text(
            "---\nx: 1\n---\n# Alpha\n\nBody text.\n", encoding="utf-8"
        )
        (h.mcp.workspace / "b.md").write_text("no heading\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "a.md"})
            await client.call_tool("open_file", {"path": "b.md"})
            (h.mcp.workspace / "b.md").unlink()
            data = json.loads(text_of(await client.read_resource(RECENT_URI)))
    assert data["count"] == 1
    [document] = data["documents"]
    assert (document["title"], document["preview"]) == ("Alpha", "Alpha\n\nBody text.")
    assert isinstance(document["mtimeMs"], int)
    assert data["skipped"]["missing"] == 1


async def test_the_search_template_searches_a_vault_with_no_server(tmp_path: Path) -> None:
    h = make_harness(tmp_path)
    (h.workspace / "v").mkdir()
    (h.workspace / "v" / "a.md").write_text("the plan\n", encoding="utf-8")
    async with Client(h.server) as client:
        result = await client.read_resource("text://vault-search?q=PLAN&vault=v&limit=5")
    data = json.loads(text_of(result))
    assert data["mode"] == "grep-disk"
    assert [hit["path"] for hit in data["results"]] == [str(h.workspace / "v" / "a.md")]


async def test_the_search_template_searches_the_workspaces_through_the_server(
    tmp_path: Path,
) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "a.md").write_text("find me\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            data = json.loads(text_of(await client.read_resource("text://vault-search?q=find+me")))
            tool = await client.call_tool("search_vault", {"query": "FIND"})
    assert data["mode"] == "grep"
    assert data["query"] == "find me"
    assert [hit["title"] for hit in data["results"]] == ["a"]
    assert tool.structured_content is not None
    assert len(tool.structured_content["results"]) == 1


@pytest.mark.parametrize(
    ("uri", "fragment"),
    [
        ("text://vault-search?q=a&lmit=5", "Did you mean `limit`?"),
        ("text://vault-search?q=a&q=b", "twice"),
        ("text://vault-search?q=%ZZ", "malformed escape"),
        ("text://vault-search?q=a&limit=0", "from 1 to 200"),
        ("text://vault-search?q=a&limit=201", "from 1 to 200"),
        ("text://vault-search?q=a&limit=5.0", "from 1 to 200"),
        ("text://vault-search?q=a&semantic=yes", "true or false"),
        ("text://vault-search?q=a&limit", "has no value"),
        ("text://vault-search?q=", "non-empty `q`"),
        ("text://vault-search?limit=5", "non-empty `q`"),
        ("quire://currnt", "Did you mean quire://current?"),
        ("nothing", "resources/list"),
    ],
)
async def test_a_bad_resource_uri_is_an_invalid_params_error(
    tmp_path: Path, uri: str, fragment: str
) -> None:
    h = make_harness(tmp_path)
    async with Client(h.server) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    assert caught.value.code == -32602
    assert fragment in caught.value.message


async def test_a_listing_cut_short_says_so(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        for index in range(3):
            (h.mcp.workspace / f"{index}.md").write_text("x\n", encoding="utf-8")
        api = await h.mcp.services.link.api()
        files, note = await api.all_files(cap=2)
    assert len(files) == 2
    assert note is not None and "first 2 of the 3" in note
    assert TRUNCATED_KEY == "quire/workspaceFilesTruncated"
