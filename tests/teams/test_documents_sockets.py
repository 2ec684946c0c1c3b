"""Multi mode on real WebSockets: joining a live document needs read access, a reader hears
every update but changes nothing, a removed grant closes the socket at once, and the events
socket carries only what the account may read."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from pycrdt import (
    Doc,
    Text,
    YMessageType,
    YSyncMessageType,
    create_sync_message,
    create_update_message,
    handle_sync_message,
)
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from quire.services.live.document import CONTENT
from tests.support.team import Member, TeamWorld, team_world
from tests.web.live_server import live_server

pytestmark = pytest.mark.anyio

QUERY_AWARENESS = bytes([3])


@asynccontextmanager
async def served(tmp_path: Path) -> AsyncIterator[tuple[TeamWorld, str]]:
    async with team_world(tmp_path) as world, live_server(world.app) as port:
        yield world, f"ws://127.0.0.1:{port}"


@asynccontextmanager
async def socket(url: str, member: Member) -> AsyncIterator[ClientConnection]:
    headers = {"Authorization": f"Bearer {member.token}"}
    async with connect(url, additional_headers=headers, max_size=None) as opened:
        yield opened


async def close_code(connection: ClientConnection) -> int | None:
    with anyio.fail_after(5), pytest.raises(ConnectionClosed) as caught:
        while True:
            await connection.recv()
    return None if caught.value.rcvd is None else caught.value.rcvd.code


async def until_message(
    connection: ClientConnection, first: int, second: int | None = None
) -> bytes:
    """The next binary message of type ``first`` (and sync type ``second``), others skipped."""
    with anyio.fail_after(10):
        while True:
            data = await connection.recv()
            assert isinstance(data, bytes)
            if data[0] == first and (second is None or data[1] == second):
                return data


async def synced(connection: ClientConnection) -> Doc[Text]:
    """A Yjs document holding what the server sent in answer to this editor's sync step 1."""
    mine: Doc[Text] = Doc()
    await connection.send(create_sync_message(mine))
    reply = await until_message(connection, YMessageType.SYNC, YSyncMessageType.SYNC_STEP2)
    handle_sync_message(reply[1:], mine)
    return mine


async def type_into(connection: ClientConnection, mine: Doc[Text], words: str) -> None:
    """Type ``words`` at the start, send the update, and wait until the server has read it
    (it answers a later awareness query only after handling what came before)."""
    before = mine.get_state()
    mine.get(CONTENT, type=Text).insert(0, words)
    await connection.send(create_update_message(mine.get_update(before)))
    await connection.send(QUERY_AWARENESS)
    await until_message(connection, YMessageType.AWARENESS)


async def test_a_reader_hears_updates_and_its_own_typing_changes_nothing(tmp_path: Path) -> None:
    async with served(tmp_path) as (world, url):
        alice = await world.account("alice", grants=[("team", "open", "read")])
        bob = await world.account("bob", grants=[("team", "open", "write")])
        plan = world.workspace / "open/plan.md"
        opened = await alice.api.post("/api/documents/open", json={"path": str(plan)})
        doc_id = opened.json()["docId"]
        live = world.services.documents.get(doc_id)
        assert live is not None
        address = f"{url}/ws/documents/{doc_id}"
        async with socket(address, alice) as reader, socket(address, bob) as writer:
            mine = await synced(reader)
            assert str(mine.get(CONTENT, type=Text)) == "# Plan\n\nShip it.\n"
            await type_into(reader, mine, "alice was here ")
            assert live.text() == "# Plan\n\nShip it.\n"
            assert not live.is_dirty
            theirs = await synced(writer)
            await type_into(writer, theirs, "bob ")
            assert live.text() == "bob # Plan\n\nShip it.\n"
            update = await until_message(reader, YMessageType.SYNC, YSyncMessageType.SYNC_UPDATE)
            assert update
        assert plan.read_text(encoding="utf-8") == "# Plan\n\nShip it.\n"


async def test_a_document_the_account_may_not_read_cannot_be_joined(tmp_path: Path) -> None:
    async with served(tmp_path) as (world, url):
        bob = await world.account("bob", grants=[("team", "open", "write")])
        secret = world.workspace / "secret/keys.md"
        opened = await world.owner.post("/api/documents/open", json={"path": str(secret)})
        doc_id = opened.json()["docId"]
        async with socket(f"{url}/ws/documents/{doc_id}", bob) as joined:
            assert await close_code(joined) == 4404
        async with socket(f"{url}/ws/documents/{'0' * 24}", bob) as unknown:
            assert await close_code(unknown) == 4404


async def test_a_removed_grant_closes_an_open_sync_socket(tmp_path: Path) -> None:
    async with served(tmp_path) as (world, url):
        alice = await world.account("alice", grants=[("team", "open", "write")])
        plan = world.workspace / "open/plan.md"
        opened = await alice.api.post("/api/documents/open", json={"path": str(plan)})
        async with socket(f"{url}/ws/documents/{opened.json()['docId']}", alice) as joined:
            await synced(joined)
            await world.team.grants.revoke("alice", "team", "open")
            assert await world.app.state.connections.recheck() >= 1
            assert await close_code(joined) == 4403


async def test_a_reader_given_write_access_reconnects_and_then_may_type(tmp_path: Path) -> None:
    """The socket holds what it may do from its start: a grant that makes its reader a
    writer ends it with 1013 (reconnect), and the socket opened again takes typing."""
    async with served(tmp_path) as (world, url):
        alice = await world.account("alice", grants=[("team", "open", "read")])
        plan = world.workspace / "open/plan.md"
        opened = await alice.api.post("/api/documents/open", json={"path": str(plan)})
        doc_id = opened.json()["docId"]
        live = world.services.documents.get(doc_id)
        assert live is not None
        address = f"{url}/ws/documents/{doc_id}"
        async with socket(address, alice) as joined:
            await synced(joined)
            await world.team.grants.grant("alice", "team", "open", access="write")
            assert await world.app.state.connections.recheck() >= 1
            assert await close_code(joined) == 1013
        async with socket(address, alice) as again:
            mine = await synced(again)
            await type_into(again, mine, "alice may write now ")
        assert live.text() == "alice may write now # Plan\n\nShip it.\n"


async def frames(connection: ClientConnection, count: int) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    with anyio.fail_after(10):
        while len(found) < count:
            raw = await connection.recv()
            assert isinstance(raw, str)
            found.append(json.loads(raw))
    return found


async def test_the_events_socket_tells_an_account_only_of_what_it_may_read(
    tmp_path: Path,
) -> None:
    async with served(tmp_path) as (world, url):
        alice = await world.account("alice", grants=[("team", "open", "read")])
        documents = world.services.documents
        secret = await documents.open(world.workspace / "secret/keys.md")
        plan = await documents.open(world.workspace / "open/plan.md")
        async with socket(f"{url}/ws/events", alice) as events:
            with anyio.fail_after(5):
                while not world.services.bus.subscriber_count("alice"):  # noqa: ASYNC110
                    await anyio.sleep(0.005)
            await documents.replace_unique(secret.doc_id, "hunter2", "hunter3", author="owner")
            await documents.replace_unique(plan.doc_id, "Ship it.", "Shipped.", author="owner")
            heard = await frames(events, 2)
        assert {frame["kind"] for frame in heard} == {"activity", "document"}
        assert all("keys.md" not in json.dumps(frame) for frame in heard)
        assert all("plan.md" in json.dumps(frame) for frame in heard)


async def _subscribed(world: TeamWorld, *usernames: str) -> None:
    with anyio.fail_after(5):
        while not all(world.services.bus.subscriber_count(name) for name in usernames):  # noqa: ASYNC110
            await anyio.sleep(0.005)


async def _chat_frames_until(connection: ClientConnection, path: str) -> list[str]:
    """The chat paths heard, up to and including a chat event about ``path``."""
    heard: list[str] = []
    with anyio.fail_after(10):
        while path not in heard:
            frame = json.loads(await connection.recv())
            if frame["kind"] == "chat":
                heard.append(frame["data"]["path"])
    return heard


async def test_a_private_chat_made_while_windows_are_open_is_heard_by_its_members_only(
    tmp_path: Path,
) -> None:
    """Chat events reach every account that may read the chat (not only the poster's own
    windows), and a private chat made after a window connected is still hidden from it."""
    async with served(tmp_path) as (world, url):
        write = [("team", "", "write")]
        alice = await world.account("alice", grants=write)
        bob = await world.account("bob", grants=write)
        carol = await world.account("carol", grants=write)
        secret = str(world.workspace / "Chats" / "secret.md")
        public = str(world.workspace / "Chats" / "public.md")
        async with (
            socket(f"{url}/ws/events", bob) as bob_events,
            socket(f"{url}/ws/events", carol) as carol_events,
        ):
            await _subscribed(world, "bob", "carol")
            made = await alice.api.post(
                "/api/chats",
                json={"path": secret, "title": "Secret", "private": True, "invite": ["bob"]},
            )
            assert made.status_code == 200, made.text
            opened = await alice.api.post("/api/chats", json={"path": public, "title": "Public"})
            assert opened.status_code == 200, opened.text
            for path in (secret, public):
                posted = await alice.api.post(
                    "/api/chats/post", json={"path": path, "as": "alice", "body": "Hello."}
                )
                assert posted.status_code == 200, posted.text
            assert secret in await _chat_frames_until(bob_events, public)
            assert await _chat_frames_until(carol_events, public) == [public]


async def test_a_new_grant_ends_the_events_socket_so_the_window_reloads(tmp_path: Path) -> None:
    async with served(tmp_path) as (world, url):
        carol = await world.account("carol")
        async with socket(f"{url}/ws/events", carol) as events:
            await _subscribed(world, "carol")
            await world.team.grants.grant("carol", "team", "", access="read")
            await world.app.state.connections.recheck()
            assert await close_code(events) == 1013
        async with socket(f"{url}/ws/events", carol) as again:
            await _subscribed(world, "carol")
            await world.app.state.connections.recheck()
            with anyio.move_on_after(0.5):
                await again.recv()
                pytest.fail("a socket opened after the grant was ended again")


async def test_removing_a_member_invited_after_his_window_opened_closes_it(
    tmp_path: Path,
) -> None:
    """bob's events socket opened before alice made the chat with him on it: taking him off
    still ends it at once (he held the chat since then)."""
    async with served(tmp_path) as (world, url):
        write = [("team", "", "write")]
        alice = await world.account("alice", grants=write)
        bob = await world.account("bob", grants=write)
        chat = str(world.workspace / "Chats" / "pair.md")
        async with socket(f"{url}/ws/events", bob) as events:
            await _subscribed(world, "bob")
            made = await alice.api.post(
                "/api/chats",
                json={"path": chat, "title": "Pair", "private": True, "invite": ["bob"]},
            )
            assert made.status_code == 200, made.text
            removed = await alice.api.post(
                "/api/chats/members", json={"path": chat, "action": "remove", "username": "bob"}
            )
            assert removed.status_code == 200, removed.text
            assert await close_code(events) == 4403
