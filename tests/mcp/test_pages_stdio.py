"""A 1 MB document read in pages through the real processes: `quire serve` and `quire mcp`
over stdio, the SDK client following each `more.call` and the raw JSON-RPC line kept small."""

from __future__ import annotations

from pathlib import Path

import pytest

from quire.core.pages import BUDGET_CHARS
from tests.mcp.harness import data_of, text_of
from tests.mcp.test_end_to_end import mcp_client, serve, wait_for_server
from tests.mcp.test_pages import MEGABYTE

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_a_megabyte_comes_in_pages_over_stdio(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    state = tmp_path / "state"
    (workspace / "spec.md").write_text(MEGABYTE, encoding="utf-8")
    parts: list[str] = []
    with serve(workspace, state) as process:
        await wait_for_server(state, process)
        async with mcp_client(workspace, state) as client:
            data_of(await client.call_tool("open_file", {"path": "spec.md"}))
            arguments: dict[str, object] = {}
            while True:
                result = await client.call_tool("get_current_content", arguments)
                data = data_of(result)
                # The text content repeats the structured content as JSON: both stay small.
                assert len(text_of(result)) < BUDGET_CHARS * 1.1
                parts.append(data["content"])
                if "more" not in data:
                    break
                arguments = data["more"]["call"]["arguments"]
    assert "".join(parts) == MEGABYTE
    assert len(parts) > len(MEGABYTE) // BUDGET_CHARS
