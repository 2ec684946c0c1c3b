"""The chat API client: the request each method sends and each answer read back, typed."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from quire.api.chats import (
    AvatarSet,
    ChatCreated,
    ChatSummary,
    ContextUse,
    GifList,
    GifName,
    Message,
    Posted,
    Presence,
    SessionRecord,
    Waited,
)
from quire.client.api import QuireApi
from quire.client.chats import ChatApi
from quire.core.errors import FileMissing, InvalidArgument, ServerFailed
from quire.core.server_info import ServerInfo

pytestmark = pytest.mark.anyio

INFO = ServerInfo(url="http://127.0.0.1:4747", token="t" * 64, pid=123)
CHAT = "/w/Chats/team.md"
MESSAGE = {"number": 3, "author": "ann", "time": "2026-10-02T14:03:05Z", "body": "hi @bob"}


class Recorder:
    """A fake server: answers every request with ``answer`` and keeps the requests."""

    def __init__(self, answer: httpx.Response) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer

    @property
    def only(self) -> httpx.Request:
        [request] = self.requests
        return request


def chat_api(recorder: Recorder) -> ChatApi:
    api = QuireApi(
        INFO, server_file=Path("/s/server.json"), transport=httpx.MockTransport(recorder)
    )
    return ChatApi(api)


def body_of(request: httpx.Request) -> Any:
    return json.loads(request.content)


Call = Callable[[ChatApi], Awaitable[Any]]

# (call, answer JSON, method, path, query, body, expected value)
CASES: list[tuple[str, Call, Any, str, str, dict[str, str], Any, Any]] = [
    (
        "list every chat",
        lambda c: c.list_chats(),
        {
            "chats": [
                {
                    "path": CHAT,
                    "workspace": "/w",
                    "title": "Team",
                    "messageCount": 4,
                    "lastActivity": 1700000000000,
                    "unread": 2,
                    "pinned": True,
                }
            ]
        },
        "GET",
        "/api/chats",
        {},
        None,
        [
            ChatSummary(
                path=CHAT,
                workspace="/w",
                title="Team",
                message_count=4,
                last_activity=1700000000000,
                unread=2,
                pinned=True,
            )
        ],
    ),
    (
        "list one workspace for a reader",
        lambda c: c.list_chats("/w", "bob"),
        {"chats": []},
        "GET",
        "/api/chats",
        {"workspace": "/w", "as": "bob"},
        None,
        [],
    ),
    (
        "create",
        lambda c: c.create(CHAT, "Team"),
        {"path": CHAT, "created": True, "converted": False},
        "POST",
        "/api/chats",
        {},
        {"path": CHAT, "title": "Team"},
        ChatCreated(path=CHAT, created=True, converted=False),
    ),
    (
        "post",
        lambda c: c.post(CHAT, "bob", "hello", session="s1"),
        {"kind": "message", "number": 7},
        "POST",
        "/api/chats/post",
        {},
        {"path": CHAT, "as": "bob", "body": "hello", "session": "s1"},
        Posted(kind="message", number=7),
    ),
    (
        "post a status",
        lambda c: c.post(CHAT, "bob", "/status"),
        {"kind": "status", "cleared": True},
        "POST",
        "/api/chats/post",
        {},
        {"path": CHAT, "as": "bob", "body": "/status"},
        Posted(kind="status", cleared=True),
    ),
    (
        "wait with everything",
        lambda c: c.wait(
            CHAT, "bob", after=2, mentions_only=True, timeout_ms=5000, session="s", command="w"
        ),
        {
            "status": "messages",
            "messages": [{**MESSAGE, "mentions": ["bob"]}],
            "next": 3,
            "reminder": "(reminder for bob) Your role in this chat: QA",
        },
        "POST",
        "/api/chats/wait",
        {},
        {
            "path": CHAT,
            "as": "bob",
            "after": 2,
            "mentionsOnly": True,
            "timeoutMs": 5000,
            "session": "s",
            "command": "w",
        },
        Waited(
            status="messages",
            messages=(
                Message(
                    number=3,
                    author="ann",
                    time="2026-10-02T14:03:05Z",
                    body="hi @bob",
                    mentions=("bob",),
                ),
            ),
            next=3,
            reminder="(reminder for bob) Your role in this chat: QA",
        ),
    ),
    (
        "wait with the defaults",
        lambda c: c.wait(CHAT, "bob"),
        {"status": "timeout", "messages": [], "next": 9, "reminder": None},
        "POST",
        "/api/chats/wait",
        {},
        {"path": CHAT, "as": "bob", "timeoutMs": 600000},
        Waited(status="timeout", messages=(), next=9, reminder=None),
    ),
    (
        "leave",
        lambda c: c.leave(CHAT, "bob", session="s"),
        {"left": True},
        "POST",
        "/api/chats/leave",
        {},
        {"path": CHAT, "as": "bob", "session": "s"},
        None,
    ),
    (
        "look up a session",
        lambda c: c.session("abc"),
        {
            "found": True,
            "lastKind": "wait",
            "waitCommand": "quire chat wait x --as b",
            "left": False,
            "path": CHAT,
            "reader": "b",
        },
        "GET",
        "/api/chats/session",
        {"id": "abc"},
        None,
        SessionRecord(
            found=True,
            last_kind="wait",
            wait_command="quire chat wait x --as b",
            left=False,
            path=CHAT,
            reader="b",
        ),
    ),
    (
        "look up an unknown session",
        lambda c: c.session("zzz"),
        {
            "found": False,
            "lastKind": None,
            "waitCommand": None,
            "left": False,
            "path": None,
            "reader": None,
        },
        "GET",
        "/api/chats/session",
        {"id": "zzz"},
        None,
        SessionRecord(
            found=False, last_kind=None, wait_command=None, left=False, path=None, reader=None
        ),
    ),
    (
        "record a stop",
        lambda c: c.record_stop("abc"),
        {"recentStops": 2},
        "POST",
        "/api/chats/session/stop",
        {},
        {"id": "abc"},
        2,
    ),
    (
        "pin",
        lambda c: c.pin(CHAT, True),
        {"pinned": True},
        "POST",
        "/api/chats/pin",
        {},
        {"path": CHAT, "pinned": True},
        True,
    ),
    (
        "delete",
        lambda c: c.delete(CHAT),
        {"deleted": True},
        "POST",
        "/api/chats/delete",
        {},
        {"path": CHAT},
        None,
    ),
    (
        "list images",
        lambda c: c.gifs("/w"),
        {
            "gifs": [{"name": "nod", "builtin": True}, {"name": "x", "builtin": False}],
            "avatars": {"bob": "avatar-bob"},
        },
        "GET",
        "/api/chats/gifs",
        {"workspace": "/w"},
        None,
        GifList(
            gifs=(GifName(name="nod", builtin=True), GifName(name="x", builtin=False)),
            avatars={"bob": "avatar-bob"},
        ),
    ),
    (
        "set an avatar",
        lambda c: c.set_avatar("/w", "bob", pick="auto"),
        {"name": "avatar-bob", "picked": "owl"},
        "POST",
        "/api/chats/avatar",
        {},
        {"workspace": "/w", "as": "bob", "pick": "auto"},
        AvatarSet(name="avatar-bob", picked="owl"),
    ),
]


@pytest.mark.parametrize(
    ("call", "answer", "method", "path", "query", "body", "expected"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
async def test_each_method_sends_its_request_and_reads_its_answer(
    call: Call,
    answer: Any,
    method: str,
    path: str,
    query: dict[str, str],
    body: Any,
    expected: Any,
) -> None:
    recorder = Recorder(httpx.Response(200, json=answer))
    result = await call(chat_api(recorder))
    request = recorder.only
    assert (request.method, request.url.path) == (method, path)
    assert dict(request.url.params) == query
    assert (body_of(request) if request.content else None) == body
    assert result == expected


async def test_read_returns_the_whole_view_and_marks_it_read_for_the_name() -> None:
    answer = {
        "path": CHAT,
        "title": "Team",
        "description": "Release work.",
        "participants": ["ann", "bob"],
        "messages": [{**MESSAGE, "mentions": ["bob"]}],
        "next": 3,
        "presence": [
            {
                "name": "bot",
                "state": "working",
                "status": "tests",
                "context": {"text": "87k/200k", "percent": 43},
            },
            {"name": "bob", "state": "waiting", "status": None, "context": None},
        ],
        "roles": {"bot": "QA"},
        "avatars": {"bot": "avatar-bot"},
    }
    recorder = Recorder(httpx.Response(200, json=answer))
    view = await chat_api(recorder).read(CHAT, "bob", 1)
    assert dict(recorder.only.url.params) == {"path": CHAT, "as": "bob", "after": "1"}
    assert view.participants == ("ann", "bob")
    assert view.presence == (
        Presence(
            name="bot",
            state="working",
            status="tests",
            context=ContextUse(text="87k/200k", percent=43),
        ),
        Presence(name="bob", state="waiting", status=None, context=None),
    )
    assert (view.title, view.description, view.next) == ("Team", "Release work.", 3)
    assert (dict(view.roles), dict(view.avatars)) == ({"bot": "QA"}, {"bot": "avatar-bot"})


async def test_the_wait_allows_the_server_its_whole_timeout_before_giving_up() -> None:
    seen: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        answer = {"status": "timeout", "messages": [], "next": 0, "reminder": None}
        return httpx.Response(200, json=answer)

    api = QuireApi(INFO, server_file=Path("/s"), transport=httpx.MockTransport(handler))
    await ChatApi(api).wait(CHAT, "bob", timeout_ms=120_000)
    assert seen[0]["read"] == 150.0


async def test_an_image_comes_back_as_bytes() -> None:
    svg = b"<svg xmlns='http://www.w3.org/2000/svg'/>"
    recorder = Recorder(httpx.Response(200, content=svg, headers={"Content-Type": "image/svg+xml"}))
    assert await chat_api(recorder).gif("/w", "nod") == svg
    assert dict(recorder.only.url.params) == {"workspace": "/w", "name": "nod"}


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [
        ({"status": "later", "messages": [], "next": 1, "reminder": None}, "`status`"),
        (
            {"status": "messages", "messages": [{"number": "one"}], "next": 1, "reminder": None},
            "`messages.0.number`",
        ),
        (
            {
                "status": "messages",
                "messages": [{**MESSAGE, "mentions": [1]}],
                "next": 1,
                "reminder": None,
            },
            "`messages.0.mentions.0`",
        ),
        ({"status": "messages", "messages": "all", "next": 1, "reminder": None}, "`messages`"),
        ({"status": "timeout", "messages": [], "next": 1}, "`reminder`"),
        ([], "(the whole answer)"),
    ],
)
async def test_a_wait_answer_of_the_wrong_shape_is_refused_naming_the_field(
    answer: Any, fragment: str
) -> None:
    recorder = Recorder(httpx.Response(200, json=answer))
    with pytest.raises(ServerFailed) as raised:
        await chat_api(recorder).wait(CHAT, "bob")
    assert fragment in str(raised.value)
    assert "Update Quire" in str(raised.value)


SUMMARY: dict[str, Any] = {
    "path": CHAT,
    "workspace": "/w",
    "title": "Team",
    "messageCount": 4,
    "lastActivity": 1,
    "unread": 0,
    "pinned": False,
}
VIEW: dict[str, Any] = {
    "path": CHAT,
    "title": None,
    "description": "",
    "participants": [],
    "messages": [],
    "next": 0,
    "presence": [],
    "roles": {},
    "avatars": {},
}


@pytest.mark.parametrize(
    ("call", "answer", "field"),
    [
        (
            lambda c: c.list_chats(),
            {"chats": [{**SUMMARY, "messageCount": "four"}]},
            "chats.0.messageCount",
        ),
        (lambda c: c.list_chats(), {"chats": [{**SUMMARY, "pinned": None}]}, "chats.0.pinned"),
        (lambda c: c.list_chats(), {}, "chats"),
        (
            lambda c: c.read(CHAT),
            {
                **VIEW,
                "presence": [{"name": "a", "state": "asleep", "status": None, "context": None}],
            },
            "presence.0.state",
        ),
        (lambda c: c.read(CHAT), {**VIEW, "roles": {"a": 1}}, "roles.a"),
        (lambda c: c.create(CHAT), {"path": CHAT, "created": True}, "converted"),
        (lambda c: c.session("s"), {"found": "perhaps"}, "found"),
        (lambda c: c.record_stop("s"), {"stops": 1}, "recentStops"),
        (lambda c: c.pin(CHAT, True), {"pinned": "pinned"}, "pinned"),
        (lambda c: c.leave(CHAT, "a"), {"left": False}, "left"),
        (lambda c: c.gifs("/w"), {"gifs": [{"name": "nod"}], "avatars": {}}, "gifs.0.builtin"),
        (lambda c: c.set_avatar("/w", "a", pick="owl"), {"picked": "owl"}, "name"),
    ],
)
async def test_a_chat_answer_of_the_wrong_shape_is_refused_naming_the_field(
    call: Call, answer: Any, field: str
) -> None:
    with pytest.raises(ServerFailed) as raised:
        await call(chat_api(Recorder(httpx.Response(200, json=answer))))
    assert f"field `{field}`" in str(raised.value)
    assert "Update Quire" in str(raised.value)


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"kind": "shout"}, ServerFailed),
        ({"kind": "message"}, ServerFailed),
    ],
)
async def test_a_post_answer_of_the_wrong_shape_is_refused(
    answer: Any, error: type[Exception]
) -> None:
    with pytest.raises(error):
        await chat_api(Recorder(httpx.Response(200, json=answer))).post(CHAT, "a", "b")


@pytest.mark.parametrize(
    ("response", "error", "fragment"),
    [
        (
            httpx.Response(
                400,
                json={
                    "error": {"type": "InvalidArgument", "message": "too long", "argument": "body"}
                },
            ),
            InvalidArgument,
            "too long",
        ),
        (
            httpx.Response(404, json={"error": {"type": "FileMissing", "message": "no chat"}}),
            FileMissing,
            "no chat",
        ),
    ],
)
async def test_server_errors_come_back_as_the_error_the_server_raised(
    response: httpx.Response, error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=fragment):
        await chat_api(Recorder(response)).post(CHAT, "a", "b")


async def test_a_server_without_chat_says_chat_is_off_or_too_old() -> None:
    answer = httpx.Response(
        404, json={"error": {"type": "NotFound", "message": "Chat is turned off on this server"}}
    )
    with pytest.raises(ServerFailed) as raised:
        await chat_api(Recorder(answer)).list_chats()
    assert "does not offer chat" in str(raised.value)
    assert "[chat] enabled = false" in str(raised.value)
