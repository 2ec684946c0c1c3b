"""The edit tools against the real app in process."""

from pathlib import Path
from typing import Any

import pytest

from mcp import Client
from quire.client.api import QuireApi
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.services.live.versions import version_of
from tests.mcp.app_harness import AppHarness, app_harness
from tests.mcp.harness import data_of, error_of

pytestmark = pytest.mark.anyio

NO_DOCUMENT = "No document is open in Quire; open one first (open_file)."


async def test_an_edit_changes_the_live_text_and_save_writes_the_file(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        plan = h.mcp.workspace / "plan.md"
        plan.write_text("## Goals\n\nShip it.\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "plan.md"})
            edited = data_of(
                await client.call_tool(
                    "edit_document", {"find": "## Goals", "replace": "## Objectives"}
                )
            )
            live = data_of(await client.call_tool("get_current_content", {}))
            assert plan.read_text(encoding="utf-8") == "## Goals\n\nShip it.\n"
            data_of(
                await client.call_tool(
                    "edit_document",
                    {
                        "find": "Ship it.",
                        "replace": "Ship it well.",
                        "save": True,
                        "path": "plan.md",
                    },
                )
            )
    assert {key: edited[key] for key in ("ok", "replaced")} == {"ok": True, "replaced": 1}
    assert edited["version"].startswith("v")
    assert live["content"] == "## Objectives\n\nShip it.\n"
    assert live["dirty"] is True
    assert plan.read_text(encoding="utf-8") == "## Objectives\n\nShip it well.\n"


@pytest.mark.parametrize(
    ("arguments", "fragment", "count"),
    [
        ({"find": "missing", "replace": "x"}, "not found", 0),
        ({"find": "a", "replace": "x"}, "not unique (3 matches)", 3),
        ({"find": "a\r\nb", "replace": "x"}, "not found", 0),
    ],
)
async def test_a_refused_edit_leaves_the_document_and_counts_matches(
    tmp_path: Path, arguments: dict[str, Any], fragment: str, count: int
) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "d.md").write_text("a\na\na\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "d.md"})
            result = await client.call_tool("edit_document", arguments)
            live = data_of(await client.call_tool("get_current_content", {}))
    assert fragment in error_of(result)
    assert result.structured_content == {"error": error_of(result), "matchCount": count}
    assert live["content"] == "a\na\na\n"


async def test_a_path_that_is_not_the_open_document_is_refused(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        for name in ("a.md", "b.md"):
            (h.mcp.workspace / name).write_text("x\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "a.md"})
            message = error_of(
                await client.call_tool(
                    "edit_document", {"find": "x", "replace": "y", "path": "b.md"}
                )
            )
            live = data_of(await client.call_tool("get_current_content", {}))
    assert "b.md" in message
    assert live["content"] == "x\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_document", {"find": "x", "replace": "y"}),
        ("stream_edit", {"find": "x", "replace": "y"}),
        ("stream_edit_apply", {"find": "x", "replace": "y"}),
        ("set_content", {"content": "new"}),
        ("replace_document", {"content": "new"}),
    ],
)
async def test_with_nothing_open_every_edit_tool_says_to_open_one(
    tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        message = error_of(await client.call_tool(tool, arguments))
    assert message == NO_DOCUMENT


async def test_stream_edit_previews_every_candidate_and_apply_takes_one(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "d.md").write_text("x one\nx two\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "d.md"})
            preview = data_of(await client.call_tool("stream_edit", {"find": "x", "replace": "y"}))
            applied = data_of(
                await client.call_tool(
                    "stream_edit_apply",
                    {"edit_id": preview["editId"], "find": "x", "replace": "y", "match_index": 1},
                )
            )
            again = error_of(
                await client.call_tool(
                    "stream_edit_apply",
                    {"edit_id": preview["editId"], "find": "x", "replace": "y", "match_index": 0},
                )
            )
            live = data_of(await client.call_tool("get_current_content", {}))
    assert preview["matchCount"] == 2
    assert preview["applied"] is False
    assert [c["matchIndex"] for c in preview["candidates"]] == [0, 1]
    assert applied["version"] == live["version"] == version_of(live["content"])
    assert {key: applied[key] for key in ("ok", "replaced", "matchIndex")} == {
        "ok": True,
        "replaced": 1,
        "matchIndex": 1,
    }
    assert "stream_edit again" in again
    assert live["content"] == "x one\ny two\n"


async def test_stream_edit_without_preview_applies_at_once(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "d.md").write_text("one\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "d.md"})
            data = data_of(
                await client.call_tool(
                    "stream_edit", {"find": "one", "replace": "two", "preview": False}
                )
            )
            live = data_of(await client.call_tool("get_current_content", {}))
    assert (data["applied"], data["diff"], data["candidates"]) == (True, "", None)
    assert live["content"] == "two\n"


async def test_an_apply_past_the_last_occurrence_is_refused(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "d.md").write_text("x x\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "d.md"})
            result = await client.call_tool(
                "stream_edit_apply", {"find": "x", "replace": "y", "match_index": 5}
            )
    assert "out of bounds" in error_of(result) or "5" in error_of(result)
    assert result.structured_content is not None
    assert result.structured_content["matchCount"] == 2


async def test_set_content_keeps_crlf_and_replace_document_is_the_same(tmp_path: Path) -> None:
    async with app_harness(tmp_path) as h:
        path = h.mcp.workspace / "w.md"
        path.write_bytes(b"old\r\ntext\r\n")
        async with Client(h.mcp.server) as client:
            opened = data_of(await client.call_tool("open_file", {"path": "w.md"}))
            done = data_of(await client.call_tool("set_content", {"content": "new\nlines\n"}))
            assert done == {
                "ok": True,
                "version": version_of("new\r\nlines\r\n"),
                "conflicts": [],
                "docId": opened["docId"],
            }
            data_of(
                await client.call_tool("replace_document", {"content": "final\n", "save": True})
            )
    assert path.read_bytes() == b"final\r\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("set_content", {"content": "x" * (MAX_DOCUMENT_BYTES + 1)}),
        (
            "edit_document",
            {"find": "x" * (MAX_DOCUMENT_BYTES // 2), "replace": "y" * (MAX_DOCUMENT_BYTES // 2)},
        ),
        ("request_review", {"content": "a" + "\n" * (MAX_DOCUMENT_BYTES // 2)}),
    ],
)
async def test_a_request_too_large_to_send_is_refused_before_it_is_sent(
    tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        message = error_of(await client.call_tool(tool, arguments))
    assert "too large to send" in message


async def test_a_rewrite_merges_onto_what_the_person_typed_since_the_agent_read(
    tmp_path: Path,
) -> None:
    text = "# Plan\n\n## A\nfirst\n\n## B\nsecond\n"
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "p.md").write_text(text, encoding="utf-8")
        async with Client(h.mcp.server) as client:
            opened = data_of(await client.call_tool("open_file", {"path": "p.md"}))
            read = data_of(await client.call_tool("get_current_content", {}))
            doc_id = opened["docId"]
            # The person types in section A after the agent read the document.
            await h.app.documents.replace_unique(
                doc_id, "first\n", "first\nthe person's line\n", author="person"
            )
            rewrite = read["content"].replace("second", "second, by the agent")
            done = data_of(await client.call_tool("set_content", {"content": rewrite}))
            assert done["conflicts"] == []
            assert await h.app.documents.text(doc_id) == (
                "# Plan\n\n## A\nfirst\nthe person's line\n\n## B\nsecond, by the agent\n"
            )
            # Both change the same line: the person's stays and the conflict comes back.
            await h.app.documents.replace_unique(
                doc_id, "second, by the agent", "second (person)", author="person"
            )
            again = rewrite.replace("second, by the agent", "second (agent again)")
            clash = data_of(await client.call_tool("replace_document", {"content": again}))
            assert [(c["startLine"], c["endLine"], c["agentText"]) for c in clash["conflicts"]] == [
                (8, 8, "second (agent again)\n")
            ]
            assert "second (person)" in await h.app.documents.text(doc_id)
            assert "edit_document" in clash["conflicts"][0]["hint"]


async def _read_then_the_person_types(h: AppHarness, client: Client) -> tuple[str, str]:
    """Open a plan, read it as the agent, then have the person add a line: the document's id
    and the text the agent read."""
    text = "# Plan\n\n## A\nfirst\n\n## B\nsecond\n"
    (h.mcp.workspace / "p.md").write_text(text, encoding="utf-8")
    doc_id = data_of(await client.call_tool("open_file", {"path": "p.md"}))["docId"]
    read = data_of(await client.call_tool("get_current_content", {}))["content"]
    await h.app.documents.replace_unique(
        doc_id, "first\n", "first\nthe person's line\n", author="person"
    )
    return str(doc_id), str(read)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_document", {"find": "## B", "replace": "## Section B"}),
        ("stream_edit", {"find": "## B", "replace": "## Section B", "preview": False}),
        ("stream_edit_apply", {"find": "## B", "replace": "## Section B"}),
    ],
)
async def test_an_edit_between_the_read_and_the_rewrite_keeps_the_persons_line_and_the_edit(
    tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    """After its own edit, an agent's next rewrite is merged from what it knows: its read with
    its edit. The text after the edit holds the person's typing the agent never saw; merged
    from that, the rewrite would delete it as if the agent had. A rewrite that goes on to
    change the very line the agent edited is no conflict either."""
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        doc_id, read = await _read_then_the_person_types(h, client)
        data_of(await client.call_tool(tool, arguments))
        rewrite = read.replace("## B\nsecond", "## Section B, rewritten\nsecond, agent")
        done = data_of(await client.call_tool("set_content", {"content": rewrite}))
        merged = await h.app.documents.text(doc_id)
    assert done["conflicts"] == []
    assert merged == (
        "# Plan\n\n## A\nfirst\nthe person's line\n\n## Section B, rewritten\nsecond, agent\n"
    )


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("stream_edit", {"find": "## B", "replace": "## Section B"}),
        ("export_text", {}),
        ("export_metadata", {}),
    ],
)
async def test_a_preview_or_export_between_the_read_and_the_rewrite_moves_no_base(
    tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    """A preview or an export hands the agent no Markdown of the live text, so its next rewrite
    is still merged from its read, and the person's typing since stays."""
    async with app_harness(tmp_path) as h, Client(h.mcp.server) as client:
        doc_id, read = await _read_then_the_person_types(h, client)
        data_of(await client.call_tool(tool, arguments))
        rewrite = read.replace("# Plan", "# The plan")
        done = data_of(await client.call_tool("set_content", {"content": rewrite}))
        merged = await h.app.documents.text(doc_id)
    assert done["conflicts"] == []
    assert merged == "# The plan\n\n## A\nfirst\nthe person's line\n\n## B\nsecond\n"


async def test_a_base_the_server_never_gave_out_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "p.md").write_text("keep\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            opened = data_of(await client.call_tool("open_file", {"path": "p.md"}))
            result = await client.call_tool("set_content", {"content": "x\n", "base": "v0bad"})
            assert "`base` 'v0bad' is not a version" in error_of(result)
            assert await h.app.documents.text(opened["docId"]) == "keep\n"


async def test_stream_edit_apply_counts_match_index_in_the_text_the_agent_read(
    tmp_path: Path,
) -> None:
    """Without an editId the base is the version this client last read: a line the person
    adds above does not shift which occurrence is replaced, and their line stays."""
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "p.md").write_text("- item one\n- item two\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            doc_id = data_of(await client.call_tool("open_file", {"path": "p.md"}))["docId"]
            data_of(await client.call_tool("get_current_content", {}))
            await h.app.documents.replace_unique(
                doc_id, "- item one\n", "- item zero\n- item one\n", author="person"
            )
            args = {"find": "item", "replace": "entry", "match_index": 1}
            data_of(await client.call_tool("stream_edit_apply", args))
            preview = data_of(
                await client.call_tool("stream_edit", {"find": "entry", "replace": "item"})
            )
            refused = error_of(
                await client.call_tool(
                    "stream_edit_apply",
                    {
                        "find": "entry",
                        "replace": "item",
                        "edit_id": preview["editId"],
                        "base": "vx",
                    },
                )
            )
            text = await h.app.documents.text(doc_id)
    assert text == "- item zero\n- item one\n- entry two\n"
    assert preview["version"] == version_of(text)
    assert "`base` 'vx' is not a version" in refused


async def test_set_content_asks_the_server_once_without_reading_the_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_window(self: QuireApi) -> None:
        raise AssertionError("set_content asked for the window")

    monkeypatch.setattr(QuireApi, "window", no_window)
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "p.md").write_text("# A\n\nfirst\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            doc_id = data_of(await client.call_tool("open_file", {"path": "p.md"}))["docId"]
            await h.app.documents.replace_unique(doc_id, "first", "typed", author="person")
            done = data_of(await client.call_tool("set_content", {"content": "# B\n\nfirst\n"}))
            text = await h.app.documents.text(doc_id)
    assert done["conflicts"] == [] and text == "# B\n\ntyped\n"


async def test_a_body_over_the_limit_is_refused_before_it_is_sent_though_its_texts_fit(
    tmp_path: Path,
) -> None:
    """The client measures the body it would send (the server's limit is on the body), so the
    texts are not encoded a second time to be measured."""
    half = "x" * (MAX_DOCUMENT_BYTES // 2 - 10)
    async with app_harness(tmp_path) as h:
        (h.mcp.workspace / "p.md").write_text("keep\n", encoding="utf-8")
        async with Client(h.mcp.server) as client:
            await client.call_tool("open_file", {"path": "p.md"})
            message = error_of(
                await client.call_tool("edit_document", {"find": half, "replace": half})
            )
    assert "too large to send" in message and f"{MAX_DOCUMENT_BYTES:,} bytes" in message
