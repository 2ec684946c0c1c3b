"""An agent on ``/mcp`` through the load balancer: the official MCP SDK client, over Streamable
HTTP, to nginx round-robin in front of two replicas.

With replicas the endpoint keeps no session between requests, so each call may land on either
replica; a client of the session era (``legacy``) and one of the per-request era (``auto``)
both work, and what the agent does reaches a person's editor on a replica of its own.
"""

from __future__ import annotations

from functools import partial

import anyio
import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from bench.yjs_client import yjs_browser
from mcp import Client
from tests.mcp.harness import data_of
from tests.support.replicas import Cluster, load_balancer

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_agent_on_mcp_through_the_load_balancer_edits_a_live_document(
    cluster: Cluster, mode: str
) -> None:
    token = await cluster.account("alice")
    first = cluster.replicas[0]
    plan = cluster.workspace / "plan.md"
    async with load_balancer(cluster) as balancer:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        transport = streamable_http_client(balancer.url + "/mcp", http_client=http)
        agent = Implementation(name="planner", version="1")
        async with http, Client(transport, client_info=agent, mode=mode) as client:
            opened = data_of(await client.call_tool("open_file", {"path": str(plan)}))
            async with yjs_browser(first.url, opened["docId"], token) as person:
                for number in range(4):  # each call may reach either replica
                    edit = {"find": "Ship it.", "replace": f"Ship it ({number})."}
                    if number:
                        edit["find"] = f"Ship it ({number - 1})."
                    data_of(await client.call_tool("edit_document", edit))
                    with anyio.fail_after(20):
                        await person.until(partial(contains, f"Ship it ({number})."))
                current = data_of(await client.call_tool("get_current_content", {}))
                assert current["content"] == person.text == "# Plan\n\nShip it (3).\n"


def contains(wanted: str, text: str) -> bool:
    return wanted in text
