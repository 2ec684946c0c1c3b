"""HTTP routes of chat in a note: list, create, read, post, wait, leave, agent sessions, pins,
delete, and the chat pictures (served inert) and avatars.

Thin: parse the request strictly, call the chat service, send its answer model. Every route
answers 404 with a plain reason when chat is turned off in quire.toml.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from quire.api.chats import (
    ChatAvatarBody,
    ChatCreateBody,
    ChatDeleted,
    ChatLeaveBody,
    ChatList,
    ChatMembersBody,
    ChatPathBody,
    ChatPinBody,
    ChatPostBody,
    ChatStopBody,
    ChatWaitBody,
    Left,
    Pinned,
    StopCount,
)
from quire.core.errors import InvalidArgument
from quire.services.chat.chats import ChatService
from quire.services.chat.sessions import Stopper, session_record
from quire.web.answers import answer
from quire.web.arguments import absolute_path, query_args, query_int, read_body
from quire.web.context import current_user, recheck_connections, services_of
from quire.web.errors import error_response

CHAT_TURNED_OFF = (
    "Chat is turned off on this server: `[chat] enabled = false` in its quire.toml. Set it to "
    "true (or remove the line) and restart `quire serve` to use chats."
)
INERT_SVG_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}
"""What keeps a served picture inert, even opened directly: no script, no fetch, no sniffing."""


Handler = Callable[[Request, ChatService], Awaitable[Response]]


def _chat_route(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``handler``: 404 while chat is turned off, else ``handler`` with the
    chat service."""

    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        services = services_of(request)
        if not services.settings.chat_enabled or services.chats is None:
            return error_response(404, "NotFound", CHAT_TURNED_OFF)
        return await handler(request, services.chats)

    return endpoint


@_chat_route
async def list_chats(request: Request, chats: ChatService) -> Response:
    """The chats of `workspace` (every served one without it), most recently active first:
    `{chats: [{path, workspace, title, messageCount, lastActivity, unread, pinned}]}`.
    `unread` counts the messages `as` has not read (0 without `as`)."""
    values = query_args(request, ("workspace", "as"))
    workspace = values.get("workspace")
    found = await chats.list_chats(
        current_user(request),
        None if workspace is None else absolute_path(workspace, "workspace"),
        values.get("as"),
    )
    return answer(ChatList(chats=tuple(found)))


@_chat_route
async def create_chat(request: Request, chats: ChatService) -> Response:
    """Make the note at `path` a chat: a new note (with `title`, its folders created), or the
    chat tag added to an existing note and nothing else. Answers `{path, created, converted,
    private}` (both false when it was a chat already). In multi mode the chat gets an
    `owner:` line naming your account; `private: true` (a new note only) makes it private,
    with you and the accounts in `invite` as its only members. `privateByDefault: true` (the
    window's + New) makes it private unless `private` is false, for an account in multi mode."""
    body = await read_body(request, ChatCreateBody)
    created = await chats.create(
        current_user(request),
        absolute_path(body.path),
        body.title,
        private=body.private,
        invite=body.invite,
        private_by_default=body.privateByDefault,
    )
    if created.private:
        # Its members' open connections now hold it, so removing one of them later ends them.
        await recheck_connections(request)
    return answer(created)


@_chat_route
async def chat_people(request: Request, chats: ChatService) -> Response:
    """Who may be invited to a chat in `workspace` (a team server's accounts with a grant on
    it): `{people}`, by username; empty in single mode."""
    values = query_args(request, ("workspace",))
    return answer(await chats.people(_required_path(values.get("workspace"), "workspace")))


@_chat_route
async def chat_members(request: Request, chats: ChatService) -> Response:
    """Who can open the chat at `path`: `{path, private, members, owner}` (an open chat has
    no members: anyone who can read the note reads it)."""
    values = query_args(request, ("path",))
    return answer(await chats.members(_required_path(values.get("path"))))


@_chat_route
async def change_chat_members(request: Request, chats: ChatService) -> Response:
    """Change who can open a chat (multi mode): `action` `add` puts the account `username`
    on its members (on an open chat, the first one makes it private with you and them),
    `remove` takes them off (the last member stays; their open connections close), `private`
    makes an open chat private with you alone. Answers `{path, private, members, owner}`."""
    body = await read_body(request, ChatMembersBody)
    changed = await chats.change_members(absolute_path(body.path), body.action, body.username)
    await recheck_connections(request)
    return answer(changed)


@_chat_route
async def read_chat(request: Request, chats: ChatService) -> Response:
    """The chat at `path`: title, description, participants, the messages numbered above
    `after` (all without it), `next`, presence, roles and avatars. With `as`, everything up
    to the last message counts as read by that name; `session` records the agent session."""
    values = query_args(request, ("path", "as", "after", "session"))
    view = await chats.read(
        current_user(request),
        _required_path(values.get("path")),
        values.get("as"),
        query_int(values, "after"),
        values.get("session"),
    )
    return answer(view)


@_chat_route
async def post_chat(request: Request, chats: ChatService) -> Response:
    """Post `body` (at most 64 KB) as `as`: answers `{kind: "message", number}`. A body that
    is `/status text` (2 minutes; empty clears), `/context 42%` or `/context 87k/200k` (an
    hour; empty clears) or `/role text` (saved in the front matter; empty removes) is not
    stored: it answers `{kind, cleared}`."""
    body = await read_body(request, ChatPostBody)
    posted = await chats.post(
        current_user(request), absolute_path(body.path), body.as_, body.body, session=body.session
    )
    return answer(posted)


@_chat_route
async def wait_chat(request: Request, chats: ChatService) -> Response:
    """Wait until a message for `as` is posted: numbered above `after` (the saved position by
    default; a name never seen starts at the end), never its own, with `mentionsOnly` only
    those naming it (@name, @all, @everyone). Answers `{status: "messages"|"timeout"|"gone",
    messages, next, reminder}` the moment one lands, after `timeoutMs` (1,000 to 600,000,
    default 600,000), or when the chat is deleted or unreadable."""
    body = await read_body(request, ChatWaitBody)
    waited = await chats.wait(
        current_user(request),
        absolute_path(body.path),
        body.as_,
        after=body.after,
        mentions_only=body.mentionsOnly,
        timeout_ms=body.timeoutMs,
        session=body.session,
        command=body.command,
    )
    return answer(waited)


@_chat_route
async def leave_chat(request: Request, chats: ChatService) -> Response:
    """`as` leaves the chat: its presence is cleared and its sessions there count as left,
    so the keepalive hook lets them stop. Answers `{left: true}`."""
    body = await read_body(request, ChatLeaveBody)
    await chats.leave(
        current_user(request), absolute_path(body.path), body.as_, session=body.session
    )
    return answer(Left())


@_chat_route
async def chat_session(request: Request, chats: ChatService) -> Response:
    """The last chat command of the agent session `id`: `{found, lastKind, waitCommand,
    left, path, reader}` (`found: false` for a session that never used a chat)."""
    values = query_args(request, ("id",))
    session_id = values.get("id")
    if session_id is None:
        raise InvalidArgument("`id` is required: pass the agent's session id.", argument="id")
    found = await chats.sessions.lookup(current_user(request), session_id)
    return answer(session_record(found))


@_chat_route
async def chat_session_stop(request: Request, chats: ChatService) -> Response:
    """Record one stop attempt of the session `id` now: `{recentStops}` counts those within
    the last 2 minutes (0 for a session that never used a chat). The third lets the agent
    stop; with approvals on it raises the session's "stopped" notice (named by the optional
    `harness` and `machine_label`)."""
    body = await read_body(request, ChatStopBody)
    stopper = Stopper(current_user(request), body.id, body.harness, body.machine_label)
    count = await chats.sessions.record_stop(stopper)
    return answer(StopCount(recent_stops=count))


@_chat_route
async def pin_chat(request: Request, chats: ChatService) -> Response:
    """Pin the chat to your Pinned tab (`pinned: true`) or unpin it: `{pinned}`."""
    body = await read_body(request, ChatPinBody)
    pinned = await chats.pin(current_user(request), absolute_path(body.path), body.pinned)
    return answer(Pinned(pinned=pinned))


@_chat_route
async def delete_chat(request: Request, chats: ChatService) -> Response:
    """Delete the chat's note (only a chat): everyone waiting in it gets `gone`, and its read
    positions and pin are dropped. In multi mode only its owner, a workspace admin or a
    superadmin may delete it. Answers `{deleted: true}`."""
    body = await read_body(request, ChatPathBody)
    await chats.delete(current_user(request), absolute_path(body.path))
    return answer(ChatDeleted())


@_chat_route
async def chat_gifs(request: Request, chats: ChatService) -> Response:
    """The picture names usable in `workspace` as `![name](gif:name)`: `{gifs: [{name,
    builtin}], avatars: {name: gifName}}` (its ChatGifs/ files override built-ins)."""
    values = query_args(request, ("workspace",))
    found = await chats.gifs(_required_path(values.get("workspace"), "workspace"))
    return answer(found)


@_chat_route
async def chat_gif(request: Request, chats: ChatService) -> Response:
    """The SVG of picture `name` in `workspace`, served inert: a sandboxing
    Content-Security-Policy and nosniff, so no script in it runs, even opened directly."""
    values = query_args(request, ("workspace", "name"))
    name = values.get("name")
    if name is None:
        raise InvalidArgument("`name` is required: pass a picture name.", argument="name")
    svg = await chats.gif(_required_path(values.get("workspace"), "workspace"), name)
    return Response(svg, media_type="image/svg+xml", headers=INERT_SVG_HEADERS)


@_chat_route
async def set_chat_avatar(request: Request, chats: ChatService) -> Response:
    """Save the avatar of `as` in `workspace` as ChatGifs/avatar-NAME.svg: a built-in
    (`pick`: robot, owl, cat, alien, ghost, fox, or "auto" for the first one nobody there has)
    or your own `svg` (at most 20 KB, no scripts, handlers or outside links). Answers
    `{name, picked}`."""
    body = await read_body(request, ChatAvatarBody)
    saved = await chats.set_avatar(
        absolute_path(body.workspace, "workspace"), body.as_, pick=body.pick, svg=body.svg
    )
    return answer(saved)


def _required_path(raw: str | None, argument: str = "path") -> Path:
    if raw is None:
        raise InvalidArgument(
            f"`{argument}` is required: pass the absolute path.", argument=argument
        )
    return absolute_path(raw, argument)


routes: list[BaseRoute] = [
    Route("/api/chats", list_chats, methods=["GET"]),
    Route("/api/chats", create_chat, methods=["POST"]),
    Route("/api/chats/read", read_chat, methods=["GET"]),
    Route("/api/chats/post", post_chat, methods=["POST"]),
    Route("/api/chats/wait", wait_chat, methods=["POST"]),
    Route("/api/chats/leave", leave_chat, methods=["POST"]),
    Route("/api/chats/session", chat_session, methods=["GET"]),
    Route("/api/chats/session/stop", chat_session_stop, methods=["POST"]),
    Route("/api/chats/pin", pin_chat, methods=["POST"]),
    Route("/api/chats/members", chat_members, methods=["GET"]),
    Route("/api/chats/people", chat_people, methods=["GET"]),
    Route("/api/chats/members", change_chat_members, methods=["POST"]),
    Route("/api/chats/delete", delete_chat, methods=["POST"]),
    Route("/api/chats/gifs", chat_gifs, methods=["GET"]),
    Route("/api/chats/gif", chat_gif, methods=["GET"]),
    Route("/api/chats/avatar", set_chat_avatar, methods=["POST"]),
]
