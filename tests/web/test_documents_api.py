"""The document and window routes through the real app: open, current, edits, stream edits,
set-content, save, the window, recents and the file listing, with strict argument checks."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from quire.core.views import OWNER, document_id
from quire.db.engine import Database
from quire.services.app import AppServices, open_services
from quire.services.live.versions import version_of
from quire.settings.model import Settings
from quire.web.app import create_app
from tests.support.machines import machine_under
from tests.support.world import World, open_world, world_services
from tests.web.conftest import AUTH, TOKEN

pytestmark = pytest.mark.anyio


@pytest.fixture
async def world(database: Database, settings: Settings) -> AsyncIterator[World]:
    async with open_world(database, settings.workspaces[0].resolve()) as opened:
        yield opened


@pytest.fixture
def services(world: World, settings: Settings) -> AppServices:
    return world_services(world, settings, TOKEN)


async def post(client: httpx.AsyncClient, url: str, body: object = None) -> httpx.Response:
    if body is None:
        return await client.post(url, headers=AUTH)
    return await client.post(url, json=body, headers=AUTH)


async def get(client: httpx.AsyncClient, url: str, **params: Any) -> httpx.Response:
    return await client.get(url, params=params, headers=AUTH)


def error(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    detail = response.json()["error"]
    assert detail["type"] == kind, detail
    assert isinstance(detail, dict)
    return detail


async def open_doc(
    client: httpx.AsyncClient, world: World, name: str = "plan.md", text: str = "# Plan\n"
) -> Path:
    path = world.write(name, text)
    response = await post(client, "/api/documents/open", {"path": str(path)})
    assert response.status_code == 200, response.text
    return path


async def test_open_answers_the_opened_document(client: httpx.AsyncClient, world: World) -> None:
    path = world.write("plan.md")
    response = await post(client, "/api/documents/open", {"path": str(path), "mode": "edit"})
    assert response.status_code == 200
    assert response.json() == {
        "opened": True,
        "path": str(path),
        "docId": document_id(path),
        "view": "edit",
        "browserConnected": False,
        "version": version_of(path.read_text(encoding="utf-8")),
    }


async def test_open_says_whether_a_browser_window_listens_for_the_users_events(
    client: httpx.AsyncClient, world: World
) -> None:
    path = world.write("plan.md")
    async with world.bus.subscribe(OWNER):
        response = await post(client, "/api/documents/open", {"path": str(path)})
    assert response.json()["browserConnected"] is True
    response = await post(client, "/api/documents/open", {"path": str(path)})
    assert response.json()["browserConnected"] is False


async def test_the_api_needs_the_token(client: httpx.AsyncClient, world: World) -> None:
    response = await client.get("/api/documents/current")
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("body", "argument", "words"),
    [
        ({}, "path", "`path` is required"),
        ({"path": 5}, "path", "must be text (a string), got 5"),
        ({"path": None}, "path", "must be text"),
        ({"path": "plan.md"}, "path", "must be an absolute path"),
        ({"path": "~/plan.md"}, "path", "must be an absolute path"),
        ({"path": ""}, "path", "must not be empty"),
        ({"path": "/w/a\u0000.md"}, "path", "NUL"),
        ({"path": "/x.md", "mode": "source"}, "mode", "must be 'read' or 'edit'"),
        ({"path": "/x.md", "mode": 1}, "mode", "must be 'read' or 'edit'"),
        ({"path": "/x.md", "line": "5"}, "line", 'must be a whole number, got "5"'),
        ({"path": "/x.md", "line": 5.0}, "line", "must be a whole number"),
        ({"path": "/x.md", "line": True}, "line", "must be a whole number"),
        ({"path": "/x.md", "zoom": 2}, "zoom", "not an argument of this request"),
    ],
)
async def test_open_refuses_bad_arguments_naming_them(
    client: httpx.AsyncClient, body: dict[str, object], argument: str, words: str
) -> None:
    detail = error(await post(client, "/api/documents/open", body), 400, "InvalidArgument")
    assert detail["argument"] == argument
    assert words in detail["message"]


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"{", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object, got an array"),
        (b'"path"', "must be a JSON object, got a string"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
async def test_a_body_that_is_not_a_json_object_is_refused(
    client: httpx.AsyncClient, raw: bytes, words: str
) -> None:
    response = await client.post("/api/documents/open", content=raw, headers=AUTH)
    detail = error(response, 400, "InvalidArgument")
    assert words in detail["message"]


@pytest.mark.parametrize(
    ("name", "content", "status", "kind"),
    [
        ("notes.txt", b"text", 400, "PathRefused"),
        (".hidden.md", b"# x", 400, "PathRefused"),
        ("missing.md", None, 404, "FileMissing"),
        ("latin1.md", b"caf\xe9", 400, "NotUtf8"),
    ],
)
async def test_open_refuses_what_the_path_rules_refuse(
    client: httpx.AsyncClient,
    world: World,
    name: str,
    content: bytes | None,
    status: int,
    kind: str,
) -> None:
    path = world.workspace / name
    if content is not None:
        path.write_bytes(content)
    error(await post(client, "/api/documents/open", {"path": str(path)}), status, kind)
    assert (await get(client, "/api/documents/current")).json() == {"path": None, "content": ""}


async def test_current_is_null_until_a_document_is_open_then_its_live_text(
    client: httpx.AsyncClient, world: World
) -> None:
    assert (await get(client, "/api/documents/current")).json() == {"path": None, "content": ""}
    path = await open_doc(client, world, text="# Plan\n\nold\n")
    await world.documents.replace_unique(document_id(path), "old", "new", author="person")
    assert (await get(client, "/api/documents/current")).json() == {
        "path": str(path),
        "content": "# Plan\n\nnew\n",
        "docId": document_id(path),
        "dirty": True,
        "version": version_of("# Plan\n\nnew\n"),
    }
    error(await get(client, "/api/documents/current", path="x"), 400, "InvalidArgument")


@pytest.mark.parametrize(
    "url",
    [
        "/api/documents/edit",
        "/api/documents/stream-edit",
        "/api/documents/stream-edit-apply",
    ],
)
async def test_an_edit_with_nothing_open_says_to_open_a_document(
    client: httpx.AsyncClient, url: str
) -> None:
    detail = error(await post(client, url, {"find": "a", "replace": "b"}), 409, "NotOpen")
    assert detail["message"] == "No document is open in Quire; open one first (open_file)."
    assert "matchCount" not in detail


async def test_set_content_and_save_with_nothing_open_say_so(client: httpx.AsyncClient) -> None:
    error(await post(client, "/api/documents/set-content", {"content": "x"}), 409, "NotOpen")
    error(await post(client, "/api/documents/save", {}), 409, "NotOpen")


async def test_an_edit_replaces_the_unique_match_in_the_live_document(
    client: httpx.AsyncClient, world: World
) -> None:
    path = await open_doc(client, world, text="# Plan\n\nstep one\n")
    response = await post(
        client, "/api/documents/edit", {"find": "one", "replace": "two", "path": str(path)}
    )
    assert response.json() == {
        "ok": True,
        "replaced": 1,
        "version": version_of("# Plan\n\nstep two\n"),
        "docId": document_id(path),
    }
    assert await world.documents.text(document_id(path)) == "# Plan\n\nstep two\n"
    assert path.read_text(encoding="utf-8") == "# Plan\n\nstep one\n"
    await post(client, "/api/documents/edit", {"find": "two", "replace": "3", "save": True})
    assert path.read_text(encoding="utf-8") == "# Plan\n\nstep 3\n"


@pytest.mark.parametrize(
    ("find", "count", "words"),
    [("absent", 0, "was not found"), ("o", 2, "not unique (2 matches)")],
)
async def test_an_edit_that_does_not_match_once_is_refused_with_the_match_count(
    client: httpx.AsyncClient, world: World, find: str, count: int, words: str
) -> None:
    path = await open_doc(client, world, text="one two\n")
    response = await post(client, "/api/documents/edit", {"find": find, "replace": "x"})
    detail = error(response, 409, "EditRefused")
    assert detail["matchCount"] == count
    assert words in detail["message"]
    assert await world.documents.text(document_id(path)) == "one two\n"


async def test_an_edit_asserting_another_path_is_refused_without_a_match_count(
    client: httpx.AsyncClient, world: World
) -> None:
    other = world.write("other.md", "one\n")
    path = await open_doc(client, world, text="one\n")
    link = world.workspace / "alias.md"
    link.symlink_to(path)
    body = {"find": "one", "replace": "two", "path": str(other)}
    detail = error(await post(client, "/api/documents/edit", body), 409, "EditRefused")
    assert "is not the open document" in detail["message"]
    assert "matchCount" not in detail
    body["path"] = str(link)
    assert (await post(client, "/api/documents/edit", body)).status_code == 200


@pytest.mark.parametrize(
    ("body", "argument"),
    [
        ({"replace": "x"}, "find"),
        ({"find": "x"}, "replace"),
        ({"find": "x", "replace": 1}, "replace"),
        ({"find": "x", "replace": "y", "save": "yes"}, "save"),
        ({"find": "x", "replace": "y", "save": 1}, "save"),
        ({"find": "x", "replace": "y", "path": "rel.md"}, "path"),
        ({"find": "x", "replace": "y", "force": True}, "force"),
    ],
)
async def test_an_edit_with_bad_arguments_is_refused_naming_them(
    client: httpx.AsyncClient, world: World, body: dict[str, object], argument: str
) -> None:
    await open_doc(client, world, text="x\n")
    detail = error(await post(client, "/api/documents/edit", body), 400, "InvalidArgument")
    assert detail["argument"] == argument


async def test_a_stream_edit_previews_every_candidate_and_applies_the_one_chosen(
    client: httpx.AsyncClient, world: World
) -> None:
    path = await open_doc(client, world, text="a\nx\nb\nx\n")
    response = await post(client, "/api/documents/stream-edit", {"find": "x", "replace": "y"})
    preview = response.json()
    assert (preview["ok"], preview["matchCount"], preview["applied"]) == (True, 2, False)
    assert [item["matchIndex"] for item in preview["candidates"]] == [0, 1]
    assert [item["startLine"] for item in preview["candidates"]] == [2, 4]
    assert preview["diff"] == preview["candidates"][0]["diff"]
    apply = {"edit_id": preview["editId"], "find": "x", "replace": "y", "match_index": 1}
    response = await post(client, "/api/documents/stream-edit-apply", apply)
    assert response.json() == {
        "ok": True,
        "replaced": 1,
        "matchIndex": 1,
        "version": version_of("a\nx\nb\ny\n"),
        "docId": document_id(path),
    }
    assert await world.documents.text(document_id(path)) == "a\nx\nb\ny\n"
    again = await post(client, "/api/documents/stream-edit-apply", apply)
    assert "already applied" in error(again, 409, "EditRefused")["message"]


async def test_a_stream_edit_without_preview_applies_at_once(
    client: httpx.AsyncClient, world: World
) -> None:
    path = await open_doc(client, world, text="one\n")
    body = {"find": "one", "replace": "two", "preview": False}
    result = (await post(client, "/api/documents/stream-edit", body)).json()
    assert result["applied"] is True
    assert (result["diff"], result["candidates"], result["matchCount"]) == ("", None, 1)
    assert await world.documents.text(document_id(path)) == "two\n"
    apply = {"edit_id": result["editId"], "find": "two", "replace": "three"}
    refused = await post(client, "/api/documents/stream-edit-apply", apply)
    assert "Unknown or stale editId" in error(refused, 409, "EditRefused")["message"]


async def test_a_preview_of_another_document_is_stale(
    client: httpx.AsyncClient, world: World
) -> None:
    await open_doc(client, world, "a.md", "x\n")
    preview = (
        await post(client, "/api/documents/stream-edit", {"find": "x", "replace": "y"})
    ).json()
    await open_doc(client, world, "b.md", "x\n")
    apply = {"edit_id": preview["editId"], "find": "x", "replace": "y"}
    refused = await post(client, "/api/documents/stream-edit-apply", apply)
    assert "Stale editId" in error(refused, 409, "EditRefused")["message"]


@pytest.mark.parametrize(
    ("url", "body", "status", "kind", "count"),
    [
        ("stream-edit", {"find": "zz", "replace": "y"}, 409, "EditRefused", 0),
        ("stream-edit", {"find": "x", "replace": "y", "preview_lines": 21}, 400, "", None),
        ("stream-edit", {"find": "x", "replace": "y", "preview_lines": "5"}, 400, "", None),
        ("stream-edit", {"find": "x", "replace": "y", "preview": False}, 409, "EditRefused", 2),
        ("stream-edit-apply", {"find": "x", "replace": "y", "match_index": 2}, 409, "", 2),
        ("stream-edit-apply", {"find": "x", "replace": "y", "match_index": -1}, 400, "", None),
        ("stream-edit-apply", {"find": "x", "replace": "y", "edit_id": " "}, 400, "", None),
        ("stream-edit-apply", {"find": "zz", "replace": "y"}, 409, "EditRefused", 0),
    ],
)
async def test_stream_edit_refusals_carry_a_match_count_only_when_they_searched(
    client: httpx.AsyncClient,
    world: World,
    url: str,
    body: dict[str, object],
    status: int,
    kind: str,
    count: int | None,
) -> None:
    path = await open_doc(client, world, text="x\nx\n")
    response = await post(client, f"/api/documents/{url}", body)
    detail = error(
        response, status, kind or ("EditRefused" if status == 409 else "InvalidArgument")
    )
    assert detail.get("matchCount") == count
    assert await world.documents.text(document_id(path)) == "x\nx\n"


async def test_set_content_keeps_crlf_and_saves_on_request(
    client: httpx.AsyncClient, world: World
) -> None:
    path = await open_doc(client, world, text="\ufeffa\r\nb\r\n")
    response = await post(client, "/api/documents/set-content", {"content": "c\nd\n"})
    assert response.json() == {
        "ok": True,
        "version": version_of("\ufeffc\r\nd\r\n"),
        "conflicts": [],
        "docId": document_id(path),
    }
    assert await world.documents.text(document_id(path)) == "\ufeffc\r\nd\r\n"
    assert path.read_bytes() == "\ufeffa\r\nb\r\n".encode()
    body = {"content": "e\n", "save": True, "path": str(path)}
    await post(client, "/api/documents/set-content", body)
    assert path.read_bytes() == "\ufeffe\r\n".encode()


async def test_save_writes_the_live_text_to_the_file(
    client: httpx.AsyncClient, world: World
) -> None:
    path = await open_doc(client, world, text="one\n")
    await post(client, "/api/documents/edit", {"find": "one", "replace": "two"})
    response = await post(client, "/api/documents/save", {"path": str(path)})
    assert response.json() == {"ok": True, "path": str(path)}
    assert path.read_text(encoding="utf-8") == "two\n"
    current = (await get(client, "/api/documents/current")).json()
    assert current["dirty"] is False


async def test_a_request_over_sixteen_mib_is_refused(
    client: httpx.AsyncClient, world: World
) -> None:
    path = await open_doc(client, world, text="one\n")
    content = "\n" * (8 * 1024 * 1024 + 1)
    response = await post(client, "/api/documents/set-content", {"content": content})
    assert "16 MiB" in error(response, 413, "FileTooLarge")["message"]
    assert await world.documents.text(document_id(path)) == "one\n"


async def test_the_window_routes_show_and_change_the_window(
    client: httpx.AsyncClient, world: World
) -> None:
    a = await open_doc(client, world, "a.md")
    b = await open_doc(client, world, "b.md")
    window = (await get(client, "/api/window")).json()
    assert [tab["path"] for tab in window["tabs"]] == [str(a), str(b)]
    assert (window["active"], window["view"], window["present"]) == (
        document_id(b),
        "read",
        False,
    )
    response = await post(client, "/api/window/view", {"docId": document_id(a), "view": "source"})
    assert response.json()["tabs"][0]["view"] == "source"
    response = await post(client, "/api/window/activate", {"docId": document_id(a)})
    assert response.json()["active"] == document_id(a)
    response = await post(client, "/api/window/present", {})
    assert response.json() == {"ok": True, "path": str(a), "docId": document_id(a)}
    assert (await get(client, "/api/window")).json()["present"] is True
    assert (await post(client, "/api/window/leave-present")).json()["present"] is False
    response = await post(client, "/api/window/close", {"docId": document_id(a)})
    assert response.json()["active"] == document_id(b)
    refused = await post(client, "/api/window/close", {"docId": document_id(a)})
    error(refused, 409, "NotOpen")
    bad = await post(client, "/api/window/view", {"docId": document_id(b), "view": "zen"})
    assert error(bad, 400, "InvalidArgument")["argument"] == "view"


async def test_present_a_path_and_present_with_nothing_open(
    client: httpx.AsyncClient, world: World
) -> None:
    detail = error(await post(client, "/api/window/present", {}), 409, "NotOpen")
    assert detail["message"].startswith("No document is open to present.")
    path = world.write("show.md")
    response = await post(client, "/api/window/present", {"path": str(path)})
    assert response.json()["path"] == str(path)
    assert (await world.windows.state(OWNER)).present


async def test_recent_lists_newest_first_with_a_checked_limit(
    client: httpx.AsyncClient, world: World
) -> None:
    a = await open_doc(client, world, "a.md")
    world.clock.advance(5)
    b = await open_doc(client, world, "b.md")
    assert (await get(client, "/api/recent")).json() == {
        "recent": [
            {"path": str(b), "fileName": "b.md", "openedAt": world.clock.now},
            {"path": str(a), "fileName": "a.md", "openedAt": world.clock.now - 5},
        ]
    }
    assert len((await get(client, "/api/recent", limit=1)).json()["recent"]) == 1
    for limit in ("0", "201", "abc", "1.5", "", "-1"):
        detail = error(await get(client, "/api/recent", limit=limit), 400, "InvalidArgument")
        assert detail["argument"] == "limit"


async def test_recent_documents_describes_those_that_can_still_be_read(
    client: httpx.AsyncClient, world: World
) -> None:
    a = await open_doc(client, world, "a.md", "---\ntags: [x]\n---\n# Alpha\n\nFirst words.\n")
    world.clock.advance(5)
    gone = await open_doc(client, world, "gone.md")
    world.clock.advance(5)
    broken = await open_doc(client, world, "broken.md")
    world.clock.advance(5)
    b = await open_doc(client, world, "b.md", "# Beta\n\n" + "x" * 400 + "\n")
    gone.unlink()
    broken.write_bytes(b"# Broken \xff\n")
    answer = (await get(client, "/api/recent/documents")).json()
    assert [doc["path"] for doc in answer["documents"]] == [str(b), str(a)]
    beta, alpha = answer["documents"]
    assert beta["title"] == "Beta" and len(beta["preview"]) == 200
    assert alpha == {
        "path": str(a),
        "title": "Alpha",
        "mtimeMs": a.stat().st_mtime_ns // 1_000_000,
        "preview": "Alpha\n\nFirst words.",
    }
    assert answer["count"] == 2
    assert answer["skipped"] == {
        "missing": 1,
        "notDocument": 0,
        "tooLarge": 0,
        "unreadable": 1,
        "notAllowed": 0,
    }
    one = (await get(client, "/api/recent/documents", limit=1)).json()
    assert [doc["path"] for doc in one["documents"]] == [str(b)]
    detail = error(await get(client, "/api/recent/documents", limit="0"), 400, "InvalidArgument")
    assert detail["argument"] == "limit"


async def test_files_lists_the_workspace_a_page_at_a_time(
    client: httpx.AsyncClient, world: World
) -> None:
    for name in ("a.md", "b.md", "sub/c.md", "skip.txt", ".hidden/d.md"):
        world.write(name)
    first = (await get(client, "/api/files", limit=2)).json()
    assert [item["relPath"] for item in first["files"]] == ["a.md", "b.md"]
    assert first["total"] == 4
    assert first["truncated"] is False
    item = first["files"][0]
    assert item["workspace"] == str(world.workspace)
    assert item["path"] == str(world.workspace / "a.md")
    assert set(item) == {"path", "workspace", "relPath", "mtimeMs", "size"}
    second = (await get(client, "/api/files", limit=2, cursor=first["nextCursor"])).json()
    assert [item["relPath"] for item in second["files"]] == ["sub/c.md", "welcome.md"]
    assert second["nextCursor"] is None
    detail = error(await get(client, "/api/files", cursor="bogus"), 400, "InvalidArgument")
    assert detail["argument"] == "cursor"


@pytest.mark.parametrize("doc_id", ["a\u0000b", "\ud800", 5, None])
async def test_a_window_route_refuses_a_doc_id_no_tab_holds(
    client: httpx.AsyncClient, world: World, doc_id: object
) -> None:
    await open_doc(client, world)
    raw = json.dumps({"docId": doc_id, "view": "read"}).encode("ascii")
    response = await client.post("/api/window/view", content=raw, headers=AUTH)
    if doc_id == "a\u0000b":
        error(response, 409, "NotOpen")
    else:
        assert error(response, 400, "InvalidArgument")["argument"] == "docId"


async def test_a_repeated_or_unknown_query_parameter_is_refused(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/api/recent?limit=1&limit=2", headers=AUTH)
    assert "more than once" in error(response, 400, "InvalidArgument")["message"]
    response = await client.get("/api/files?page=2", headers=AUTH)
    assert "not a parameter" in error(response, 400, "InvalidArgument")["message"]


async def test_the_workspaces_endpoint_names_the_served_folders(tmp_path: Path) -> None:
    first, second = tmp_path / "notes", tmp_path / "plans"
    first.mkdir()
    second.mkdir()
    settings = Settings(workspaces=(first, second), state_dir=tmp_path / "state", port=4747)
    token = "f" * 64
    async with open_services(
        settings, token=token, clock=lambda: 1, machine=machine_under(tmp_path)
    ) as services:
        transport = httpx.ASGITransport(app=create_app(services))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:4747") as c:
            answer = await c.get("/api/workspaces", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    assert answer.json() == {
        "workspaces": [
            {"path": str(first.resolve()), "name": "notes"},
            {"path": str(second.resolve()), "name": "plans"},
        ]
    }


@pytest.mark.parametrize(
    "text",
    [
        '# Ünïcödé ✓ 𝄞 — \u2028 "quotes" \\ back\\slash\t\x01\n',
        "</script><!-- \u00a0\u200b\ufeff -->\r\n",
        "# Big\n\n" + "- a line of the plan\n" * 60_000,
    ],
    ids=["unicode", "markup", "large"],
)
async def test_the_live_text_comes_back_exactly_as_json(
    client: httpx.AsyncClient, world: World, text: str
) -> None:
    path = await open_doc(client, world, text=text)
    response = await get(client, "/api/documents/current")
    assert response.headers["content-type"] == "application/json"
    assert json.loads(response.content) == {
        "path": str(path),
        "content": text,
        "docId": document_id(path),
        "dirty": False,
        "version": version_of(text),
    }
