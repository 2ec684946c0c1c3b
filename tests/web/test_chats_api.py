"""The chat routes through the real app: every operation of the table, strict bodies, waits
woken by another client's post, 40 concurrent posters, inert pictures, chat turned off."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from quire.core.chat import MAX_MESSAGE_BYTES
from quire.core.limits import MAX_DOCUMENT_BYTES
from quire.core.views import OWNER
from quire.markdown.chat import parse_chat
from quire.services.app import AppServices, open_services
from quire.settings.model import Settings
from quire.web.app import create_app
from quire.web.chats import CHAT_TURNED_OFF, INERT_SVG_HEADERS
from quire.web.openapi import route_table
from tests.support.machines import machine_under
from tests.web.conftest import AUTH, BASE_URL, TOKEN

pytestmark = pytest.mark.anyio

HEAD = "---\nquire-chat: true\ntitle: Team\n---\n\nAbout the release.\n"
SVG = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="3"/></svg>'
WAKE_LIMIT_S = 10


@pytest.fixture
def workspace(settings: Settings) -> Path:
    return settings.workspaces[0].resolve()


@pytest.fixture
async def api(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url=BASE_URL, headers=AUTH, timeout=60
    ) as opened:
        yield opened


@pytest.fixture
def chat(workspace: Path) -> Path:
    path = workspace / "Chats" / "team.md"
    path.parent.mkdir()
    path.write_text(HEAD, encoding="utf-8")
    return path


def ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def refused(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    detail = response.json()["error"]
    assert detail["type"] == kind, detail
    assert isinstance(detail, dict)
    return detail


async def say(api: httpx.AsyncClient, chat: Path, who: str, body: str) -> int:
    answer = ok(
        await api.post("/api/chats/post", json={"path": str(chat), "as": who, "body": body})
    )
    assert answer["kind"] == "message"
    number = answer["number"]
    assert isinstance(number, int)
    return number


# The table, operation by operation


async def test_a_chat_is_created_posted_to_read_and_listed(
    api: httpx.AsyncClient, workspace: Path
) -> None:
    path = workspace / "Chats" / "release.md"
    assert ok(await api.post("/api/chats", json={"path": str(path), "title": "Release"})) == {
        "path": str(path),
        "created": True,
        "converted": False,
        "private": False,
    }
    assert await say(api, path, "ann", "Hello @bob and @all") == 1
    view = ok(await api.get("/api/chats/read", params={"path": str(path), "as": "bob"}))
    assert view == {
        "path": str(path),
        "title": "Release",
        "description": "",
        "participants": ["ann"],
        "messages": [
            {
                "number": 1,
                "author": "ann",
                "time": "2023-11-14T22:13:20Z",
                "body": "Hello @bob and @all",
                "mentions": ["all", "bob"],
            }
        ],
        "next": 1,
        "presence": [],
        "roles": {},
        "avatars": {},
    }
    listed = ok(await api.get("/api/chats", params={"workspace": str(workspace), "as": "carol"}))
    assert listed == {
        "chats": [
            {
                "path": str(path),
                "workspace": str(workspace),
                "title": "Release",
                "messageCount": 1,
                "lastActivity": 1_700_000_000_000,
                "unread": 1,
                "pinned": False,
                "private": False,
            }
        ]
    }


async def test_a_note_is_converted_once(api: httpx.AsyncClient, workspace: Path) -> None:
    note = workspace / "welcome.md"
    first = ok(await api.post("/api/chats", json={"path": str(note)}))
    second = ok(await api.post("/api/chats", json={"path": str(note)}))
    assert (first["created"], first["converted"]) == (False, True)
    assert (second["created"], second["converted"]) == (False, False)
    assert note.read_text(encoding="utf-8") == "---\nquire-chat: true\n---\n# Welcome\n"


async def test_a_wait_wakes_when_another_client_posts(
    api: httpx.AsyncClient, services: AppServices, chat: Path
) -> None:
    await say(api, chat, "ann", "first")
    answers: list[dict[str, Any]] = []

    async def wait() -> None:
        body = {"path": str(chat), "as": "bob", "after": 1, "timeoutMs": 600_000}
        answers.append(ok(await api.post("/api/chats/wait", json=body)))

    with anyio.fail_after(WAKE_LIMIT_S):
        async with services.bus.subscribe(OWNER) as events, anyio.create_task_group() as group:
            group.start_soon(wait)
            async for event in events:
                if event.kind == "chat-presence":
                    break  # the wait is open
            await say(api, chat, "ann", "second @bob")
    assert answers == [
        {
            "status": "messages",
            "messages": [
                {
                    "number": 2,
                    "author": "ann",
                    "time": "2023-11-14T22:13:20Z",
                    "body": "second @bob",
                    "mentions": ["bob"],
                }
            ],
            "next": 2,
            "reminder": None,
        }
    ]


async def test_a_wait_times_out_with_the_position_to_use_next(
    api: httpx.AsyncClient, chat: Path
) -> None:
    await say(api, chat, "ann", "first")
    body = {"path": str(chat), "as": "bob", "timeoutMs": 1000, "mentionsOnly": True}
    assert ok(await api.post("/api/chats/wait", json=body)) == {
        "status": "timeout",
        "messages": [],
        "next": 1,
        "reminder": None,
    }


async def test_slash_posts_answer_their_kind(api: httpx.AsyncClient, chat: Path) -> None:
    cases = [
        ("/status reviewing", {"kind": "status", "cleared": False}),
        ("/context 87k/200k", {"kind": "context", "cleared": False}),
        ("/role Lead QA", {"kind": "role", "cleared": False}),
        ("/status", {"kind": "status", "cleared": True}),
        ("/status testing", {"kind": "status", "cleared": False}),
    ]
    for body, answer in cases:
        response = await api.post(
            "/api/chats/post", json={"path": str(chat), "as": "qa-1", "body": body}
        )
        assert ok(response) == answer
    view = ok(await api.get("/api/chats/read", params={"path": str(chat)}))
    assert view["roles"] == {"qa-1": "Lead QA"}
    assert view["presence"] == [
        {
            "name": "qa-1",
            "state": "working",
            "status": "testing",
            "context": {"text": "87k/200k", "percent": 44},
        }
    ]
    assert view["messages"] == []


async def test_a_post_keeps_the_session_s_last_wait_command_for_the_keepalive_hook(
    api: httpx.AsyncClient, chat: Path
) -> None:
    command = "quire chat wait Chats/team.md --as qa-1"
    wait = {"path": str(chat), "as": "qa-1", "timeoutMs": 1000, "session": "s2", "command": command}
    ok(await api.post("/api/chats/wait", json=wait))
    post = {"path": str(chat), "as": "qa-1", "body": "done", "session": "s2"}
    ok(await api.post("/api/chats/post", json=post))
    found = ok(await api.get("/api/chats/session", params={"id": "s2"}))
    assert (found["lastKind"], found["waitCommand"]) == ("post", command)


async def test_sessions_pins_leave_and_delete(
    api: httpx.AsyncClient, chat: Path, workspace: Path
) -> None:
    command = "quire chat wait Chats/team.md --as qa-1"
    wait = {"path": str(chat), "as": "qa-1", "timeoutMs": 1000, "session": "s1", "command": command}
    ok(await api.post("/api/chats/wait", json=wait))
    assert ok(await api.get("/api/chats/session", params={"id": "s1"})) == {
        "found": True,
        "lastKind": "wait",
        "waitCommand": command,
        "left": False,
        "path": str(chat),
        "reader": "qa-1",
    }
    assert ok(await api.post("/api/chats/session/stop", json={"id": "s1"})) == {"recentStops": 1}
    assert ok(await api.post("/api/chats/session/stop", json={"id": "s1"})) == {"recentStops": 2}
    unknown = ok(await api.get("/api/chats/session", params={"id": "nobody"}))
    assert unknown["found"] is False
    assert ok(await api.post("/api/chats/pin", json={"path": str(chat), "pinned": True})) == {
        "pinned": True
    }
    assert ok(await api.get("/api/chats"))["chats"][0]["pinned"] is True
    leave = {"path": str(chat), "as": "qa-1", "session": "s1"}
    assert ok(await api.post("/api/chats/leave", json=leave)) == {"left": True}
    assert ok(await api.get("/api/chats/session", params={"id": "s1"}))["left"] is True
    assert ok(await api.post("/api/chats/delete", json={"path": str(chat)})) == {"deleted": True}
    assert not _exists(chat)
    gone = {"path": str(chat), "as": "qa-1", "timeoutMs": 1000}
    assert ok(await api.post("/api/chats/wait", json=gone))["status"] == "gone"
    assert ok(await api.post("/api/chats/leave", json=leave)) == {"left": True}
    refused(await api.get("/api/chats/read", params={"path": str(chat)}), 404, "FileMissing")


async def test_pictures_are_listed_and_served_inert(
    api: httpx.AsyncClient, workspace: Path
) -> None:
    gifs = workspace / "ChatGifs"
    gifs.mkdir()
    (gifs / "evil.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        encoding="utf-8",
    )
    listed = ok(await api.get("/api/chats/gifs", params={"workspace": str(workspace)}))
    assert {"name": "nod", "builtin": True} in listed["gifs"]
    assert {"name": "evil", "builtin": False} in listed["gifs"]
    for name in ("nod", "evil"):
        response = await api.get(
            "/api/chats/gif", params={"workspace": str(workspace), "name": name}
        )
        assert response.status_code == 200
        assert response.headers["content-type"] == "image/svg+xml"
        for header, value in INERT_SVG_HEADERS.items():
            assert response.headers[header] == value
        assert "sandbox" in response.headers["content-security-policy"]
    missing = await api.get("/api/chats/gif", params={"workspace": str(workspace), "name": "zzz"})
    refused(missing, 404, "FileMissing")


async def test_avatars_are_picked_or_uploaded_and_bad_drawings_refused(
    api: httpx.AsyncClient, workspace: Path
) -> None:
    picked = {"workspace": str(workspace), "as": "Lead QA", "pick": "auto"}
    assert ok(await api.post("/api/chats/avatar", json=picked)) == {
        "name": "avatar-lead-qa",
        "picked": "robot",
    }
    uploaded = {"workspace": str(workspace), "as": "qa-2", "svg": SVG}
    assert ok(await api.post("/api/chats/avatar", json=uploaded)) == {
        "name": "avatar-qa-2",
        "picked": None,
    }
    listed = ok(await api.get("/api/chats/gifs", params={"workspace": str(workspace)}))
    assert listed["avatars"] == {"lead-qa": "avatar-lead-qa", "qa-2": "avatar-qa-2"}
    for svg, why in [
        (SVG.replace("<circle", '<circle onclick="x()"'), "event handler"),
        (SVG.replace("<circle", '<image href="https://x/y.png"/><circle'), "outside the file"),
        (SVG.replace("<circle", "<!--" + "x" * 21_000 + "--><circle"), "20,480"),
        ("<svg", "well-formed"),
    ]:
        body = {"workspace": str(workspace), "as": "qa-3", "svg": svg}
        detail = refused(await api.post("/api/chats/avatar", json=body), 400, "InvalidArgument")
        assert why in detail["message"]
        assert detail["argument"] == "svg"
    assert not (workspace / "ChatGifs" / "avatar-qa-3.svg").exists()


# Strict bodies and adversarial input


@pytest.mark.parametrize(
    ("url", "body", "argument"),
    [
        ("/api/chats/post", {"path": 5, "as": "bob", "body": "x"}, "path"),
        ("/api/chats/post", {"path": "{chat}", "as": ["bob"], "body": "x"}, "as"),
        ("/api/chats/post", {"path": "{chat}", "as": "bob", "body": None}, "body"),
        ("/api/chats/post", {"path": "{chat}", "as": "bob"}, "body"),
        ("/api/chats/post", {"path": "{chat}", "as": "bob", "body": "x", "extra": 1}, "extra"),
        (
            "/api/chats/post",
            {"path": "{chat}", "as": "bob", "body": "x", "command": "c"},
            "command",
        ),
        ("/api/chats/post", {"path": "{chat}", "as": "bob", "body": ""}, "body"),
        ("/api/chats/post", {"path": "{chat}", "as": "bob", "body": "a\u0000b"}, "body"),
        ("/api/chats/post", {"path": "{chat}", "as": "", "body": "x"}, "as"),
        ("/api/chats/post", {"path": "{chat}", "as": "bob", "body": "\ud800"}, "body"),
        ("/api/chats/post", {"path": "relative.md", "as": "bob", "body": "x"}, "path"),
        ("/api/chats/wait", {"path": "{chat}", "as": "bob", "after": "3"}, "after"),
        ("/api/chats/wait", {"path": "{chat}", "as": "bob", "after": 1.5}, "after"),
        ("/api/chats/wait", {"path": "{chat}", "as": "bob", "after": -1}, "after"),
        ("/api/chats/wait", {"path": "{chat}", "as": "bob", "mentionsOnly": "yes"}, "mentionsOnly"),
        ("/api/chats/wait", {"path": "{chat}", "as": "bob", "timeoutMs": 5}, "timeoutMs"),
        ("/api/chats/wait", {"path": "{chat}", "as": "bob", "session": 7}, "session"),
        ("/api/chats/pin", {"path": "{chat}", "pinned": "true"}, "pinned"),
        ("/api/chats/session/stop", {"id": 12}, "id"),
        ("/api/chats", {"path": "{chat}", "title": 3}, "title"),
        ("/api/chats/avatar", {"workspace": "{ws}", "as": "x", "pick": "owl", "svg": SVG}, "pick"),
        ("/api/chats/avatar", {"workspace": "{ws}", "as": "x", "pick": "dragon"}, "pick"),
    ],
)
async def test_a_bad_body_is_refused_naming_the_argument(
    api: httpx.AsyncClient, chat: Path, url: str, body: dict[str, Any], argument: str
) -> None:
    filled = {
        key: value.format(chat=chat, ws=chat.parent.parent) if isinstance(value, str) else value
        for key, value in body.items()
    }
    # json.dumps escapes a lone surrogate as \\ud800, as a client in another language could.
    sent = await api.post(
        url, content=json.dumps(filled), headers={"content-type": "application/json"}
    )
    detail = refused(sent, 400, "InvalidArgument")
    assert detail["argument"] == argument
    assert detail["message"]
    assert _read(chat) == HEAD


async def test_a_message_one_byte_over_64_kb_is_refused(api: httpx.AsyncClient, chat: Path) -> None:
    at_limit = {"path": str(chat), "as": "bob", "body": "x" * MAX_MESSAGE_BYTES}
    assert ok(await api.post("/api/chats/post", json=at_limit))["number"] == 1
    over = {"path": str(chat), "as": "bob", "body": "x" * (MAX_MESSAGE_BYTES + 1)}
    detail = refused(await api.post("/api/chats/post", json=over), 400, "InvalidArgument")
    assert "64 KB" in detail["message"]


@pytest.mark.parametrize(
    "body", [b"", b"[]", b"not json", b"\xff\xfe", b'{"path": "/x.md"'], ids=repr
)
async def test_a_body_that_is_not_a_json_object_is_refused(
    api: httpx.AsyncClient, body: bytes
) -> None:
    response = await api.post(
        "/api/chats/post", content=body, headers={"content-type": "application/json"}
    )
    refused(response, 400, "InvalidArgument")


@pytest.mark.parametrize(
    ("params", "argument"),
    [
        ({}, "path"),
        ({"path": "{chat}", "after": "x"}, "after"),
        ({"path": "{chat}", "after": "-1"}, "after"),
        ({"path": "{chat}", "limit": "5"}, "limit"),
        ({"path": "{chat}", "as": "\u202e"}, "as"),
    ],
)
async def test_bad_read_queries_are_refused(
    api: httpx.AsyncClient, chat: Path, params: dict[str, str], argument: str
) -> None:
    filled = {key: value.format(chat=chat) for key, value in params.items()}
    detail = refused(await api.get("/api/chats/read", params=filled), 400, "InvalidArgument")
    assert detail["argument"] == argument


@pytest.mark.parametrize(
    ("make", "status", "kind"),
    [
        (lambda ws, tmp: ws / ".." / "outside.md", 400, "PathRefused"),
        (lambda ws, tmp: _link(ws / "link.md", tmp / "outside.md"), 400, "PathRefused"),
        (lambda ws, tmp: _write(ws / "notes.txt", HEAD.encode()), 400, "PathRefused"),
        (lambda ws, tmp: _write(ws / ".hidden.md", HEAD.encode()), 400, "PathRefused"),
        (lambda ws, tmp: _write(ws / "latin.md", HEAD.encode() + b"\xe9t\xe9"), 400, "NotUtf8"),
        (lambda ws, tmp: _write(ws / "huge.md", b"x" * (MAX_DOCUMENT_BYTES + 1)), 413,
         "FileTooLarge"),
        (lambda ws, tmp: ws / "missing.md", 404, "FileMissing"),
        (lambda ws, tmp: _write(ws / "plain.md", b"# plain\n"), 400, "DocumentInvalid"),
    ],
    ids=["traversal", "symlink out", "not Markdown", "dotfile", "not UTF-8", "huge", "missing",
         "not a chat"],
)  # fmt: skip
async def test_paths_the_rules_refuse_are_refused_over_http(
    api: httpx.AsyncClient,
    workspace: Path,
    tmp_path: Path,
    make: Any,
    status: int,
    kind: str,
) -> None:
    (tmp_path / "outside.md").write_text(HEAD, encoding="utf-8")
    path = make(workspace, tmp_path)
    refused(await api.get("/api/chats/read", params={"path": str(path)}), status, kind)
    post = {"path": str(path), "as": "bob", "body": "hi"}
    refused(await api.post("/api/chats/post", json=post), status, kind)
    assert (tmp_path / "outside.md").read_text(encoding="utf-8") == HEAD


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _exists(path: Path) -> bool:
    return path.exists()


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _link(link: Path, target: Path) -> Path:
    link.symlink_to(target)
    return link


# Concurrency


POSTERS = 40
POSTS_EACH = 25
READERS = 3


@pytest.mark.slow
async def test_forty_concurrent_posters_lose_nothing_and_every_reader_sees_one_order(
    api: httpx.AsyncClient, chat: Path
) -> None:
    total = POSTERS * POSTS_EACH
    seen: dict[str, list[tuple[int, str, str]]] = {f"reader-{n}": [] for n in range(READERS)}

    async def poster(who: int) -> None:
        for number in range(POSTS_EACH):
            await say(api, chat, f"agent-{who}", f"{who}:{number}")

    async def reader(name: str) -> None:
        after = 0
        while len(seen[name]) < total:
            body = {"path": str(chat), "as": name, "after": after, "timeoutMs": 600_000}
            answer = ok(await api.post("/api/chats/wait", json=body))
            assert answer["status"] == "messages"
            seen[name] += [(m["number"], m["author"], m["body"]) for m in answer["messages"]]
            after = answer["next"]

    with anyio.fail_after(300):
        async with anyio.create_task_group() as group:
            for name in seen:
                group.start_soon(reader, name)
            for who in range(POSTERS):
                group.start_soon(poster, who)
    stored = [(m.number, m.author, m.body) for m in parse_chat(_read(chat)).messages]
    assert len(stored) == total
    assert sorted(body for _n, _a, body in stored) == sorted(
        f"{who}:{n}" for who in range(POSTERS) for n in range(POSTS_EACH)
    )
    assert [number for number, _a, _b in stored] == list(range(1, total + 1))
    for who in range(POSTERS):
        own = [body for _n, author, body in stored if author == f"agent-{who}"]
        assert own == [f"{who}:{n}" for n in range(POSTS_EACH)]
    for name, messages in seen.items():
        assert messages == stored, name
    read = ok(await api.get("/api/chats/read", params={"path": str(chat)}))
    assert [(m["number"], m["author"], m["body"]) for m in read["messages"]] == stored


# Chat turned off


async def test_every_chat_route_answers_404_when_chat_is_turned_off(tmp_path: Path) -> None:
    workspace = tmp_path / "off"
    workspace.mkdir()
    settings = Settings(
        workspaces=(workspace,), state_dir=tmp_path / "state", port=4747, chat_enabled=False
    )
    async with open_services(
        settings, token=TOKEN, clock=lambda: 1, machine=machine_under(tmp_path)
    ) as services:
        app = create_app(services)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL, headers=AUTH) as api:
            for method, path, _route in route_table(app.routes):
                if not path.startswith("/api/chats"):
                    continue
                response = await api.request(method, path, json={})
                detail = refused(response, 404, "NotFound")
                assert detail["message"] == CHAT_TURNED_OFF
